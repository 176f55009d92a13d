"""Incremental parsing of model replies into text and tool-use blocks."""
