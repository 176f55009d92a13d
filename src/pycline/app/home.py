"""Where pycline keeps its state for this user (`PYCLINE_HOME`, else the platform's data folder),
for the front ends."""

from __future__ import annotations

from pycline.storage.paths import pycline_home

__all__ = ["pycline_home"]
