"""Task folders, the history index, settings files: everything pycline keeps on disk."""
