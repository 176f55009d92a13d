"""The user's on/off switches for rules files and workflows, kept in pycline's home.

Never in the repository: a cloned repository must not be able to switch off the user's own
rules (say, "never push to main"), so the switches live under `PYCLINE_HOME/settings/`. Global
switches apply everywhere; local ones are keyed by the workspace's resolved path. A file is named
by its path relative to its folder (the workspace for rules, the workflows folder for workflows,
the global folder for global ones). A damaged file never breaks a task: it means "all on".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pycline.storage.atomic import atomic_write_json, locked
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_json

FILE_NAME = "toggles.json"
Kind = Literal["rules", "workflows"]


@dataclass(frozen=True, slots=True)
class Switches:
    local: dict[str, bool] = field(default_factory=dict)  # this workspace's files
    global_: dict[str, bool] = field(default_factory=dict)  # the user's global folder


def toggles_file(home: Path) -> Path:
    return home / "settings" / FILE_NAME


def workspace_key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


def _switch_map(value: object) -> dict[str, bool]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, bool)}


def _read(home: Path) -> dict[str, object]:
    try:
        data = read_json(toggles_file(home), MAX_SETTINGS_BYTES)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _section(
    data: dict[str, object], kind: Kind
) -> tuple[dict[str, bool], dict[str, dict[str, bool]]]:
    section = data.get(kind)
    if not isinstance(section, dict):
        return {}, {}
    spaces = section.get("workspaces")
    local = (
        {k: _switch_map(v) for k, v in spaces.items() if isinstance(k, str)}
        if isinstance(spaces, dict)
        else {}
    )
    return _switch_map(section.get("global")), local


def switches(home: Path, workspace: Path, kind: Kind) -> Switches:
    glob, spaces = _section(_read(home), kind)
    return Switches(spaces.get(workspace_key(workspace), {}), glob)


def set_switch(
    home: Path, workspace: Path, kind: Kind, name: str, on: bool, *, is_global: bool
) -> None:
    """Switch the file `name` of `kind` on or off. Only "off" is kept: "on" is the default."""
    with locked(toggles_file(home)):
        _set_switch(home, workspace, kind, name, on, is_global=is_global)


def _set_switch(
    home: Path, workspace: Path, kind: Kind, name: str, on: bool, *, is_global: bool
) -> None:
    data = _read(home)
    sections: dict[str, object] = {}
    for k in ("rules", "workflows"):
        glob, spaces = _section(data, k)
        if k == kind:
            target = glob if is_global else spaces.setdefault(workspace_key(workspace), {})
            target.pop(name, None)
            if not on:
                target[name] = False
        sections[k] = {
            "global": dict(sorted(glob.items())),
            "workspaces": {key: dict(sorted(m.items())) for key, m in sorted(spaces.items()) if m},
        }
    atomic_write_json(toggles_file(home), {"version": 1, **sections})
