"""pycline: an autonomous coding agent for the terminal."""

__version__ = "0.1.0"
# The name on PyPI (`pycline` there is an unrelated project); the command stays `pycline`.
DISTRIBUTION = "pycline-agent"
