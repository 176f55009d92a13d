"""Batch runs: many headless tasks, each in an isolated copy, on local workers or a Ray cluster."""
