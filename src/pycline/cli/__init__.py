"""The terminal front end: interactive session and headless `pycline run`."""
