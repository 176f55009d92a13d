"""Edits: SEARCH/REPLACE application, write-content clean-up, diffs for display."""
