"""The settings in force for one workspace, read once per session and again only when a file
changed: a task build asks for them several times (its settings, tools, browser, diagnostics,
checkpoints), and reading and validating both files each time is wasted work."""

from __future__ import annotations

import os
from pathlib import Path

from pycline.app.settings.config import load, settings_path
from pycline.app.settings.settings_model import Settings, workspace_settings_path

_Stamp = tuple[int, int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None  # no file (or not readable): `load` says which when it reads
    return (info.st_mtime_ns, info.st_size, info.st_ino)


class SettingsSnapshot:
    def __init__(self, home: Path, workspace: Path) -> None:
        self.home = home
        self.workspace = workspace
        self._files = (settings_path(home), workspace_settings_path(workspace))
        self._stamps: tuple[_Stamp, ...] | None = None
        self._settings: Settings | None = None

    def get(self) -> Settings:
        """The validated settings (`ConfigError` when a file is invalid, as `load` says)."""
        stamps = tuple(_stamp(f) for f in self._files)
        if self._settings is None or stamps != self._stamps:
            self._settings = load(self.home, self.workspace)
            self._stamps = stamps
        return self._settings

    def for_folder(self, folder: Path) -> Settings:
        """The settings for `folder`: this snapshot's when it is the workspace, else read."""
        return self.get() if folder == self.workspace else load(self.home, folder)
