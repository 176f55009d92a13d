"""Switching rules files and workflows on and off: what every front end lists and changes, and
what the prompt and the `/` commands use. The switches are the user's (see app/toggle_store.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pycline.app.settings.toggle_store import Kind, set_switch, switches
from pycline.workspace import rules as rules_mod
from pycline.workspace import workflows as wf

__all__ = [
    "Kind",
    "Toggle",
    "enabled_workflows",
    "gather_rules",
    "rule_toggles",
    "switch",
    "toggles",
    "workflow_toggles",
]


@dataclass(frozen=True, slots=True)
class Toggle:
    kind: Kind
    name: str  # the file's path relative to its folder: how the user names it
    path: Path
    is_global: bool
    on: bool


def rules_dir(home: Path) -> Path:
    return home / "rules"


def workflows_dir(home: Path) -> Path:
    return home / "workflows"


def gather_rules(home: Path, root: Path, paths_in_play: tuple[str, ...] = ()) -> str:
    """The rules block for the system prompt, leaving out the files the user switched off."""
    s = switches(home, root, "rules")
    return rules_mod.gather_rules(
        root,
        toggles=s.local,
        global_toggles=s.global_,
        paths_in_play=paths_in_play,
        global_dir=rules_dir(home),
    )


def enabled_workflows(home: Path, root: Path) -> list[wf.Workflow]:
    """The workflows `/name` can run in `root`: the workspace's, then the user's, minus those
    switched off."""
    s = switches(home, root, "workflows")
    return wf.enabled_workflows(
        root, workflows_dir(home), toggles=s.local, global_toggles=s.global_
    )


def rule_toggles(home: Path, root: Path) -> list[Toggle]:
    s = switches(home, root, "rules")
    found: list[Toggle] = []
    for rule in rules_mod.discover(root, global_dir=rules_dir(home)):
        folder = rules_dir(home) if rule.is_global else root
        name = rule.path.relative_to(folder).as_posix()
        on = (s.global_ if rule.is_global else s.local).get(name, True)
        found.append(Toggle("rules", name, rule.path, rule.is_global, on))
    return found


def workflow_toggles(home: Path, root: Path) -> list[Toggle]:
    s = switches(home, root, "workflows")
    found: list[Toggle] = []
    for folder, is_global in ((wf.workflow_folder(root), False), (workflows_dir(home), True)):
        for path in wf.workflow_files(folder):
            name = path.relative_to(folder).as_posix()
            on = (s.global_ if is_global else s.local).get(name, True)
            found.append(Toggle("workflows", name, path, is_global, on))
    return found


def toggles(home: Path, root: Path, kind: Kind) -> list[Toggle]:
    return rule_toggles(home, root) if kind == "rules" else workflow_toggles(home, root)


def switch(home: Path, root: Path, kind: Kind, name: str, on: bool) -> list[Toggle]:
    """Switch the rules file or workflow called `name` (its path relative to its folder, its
    absolute path, or for a workflow its file name or `/stem`) on or off; the files switched.
    Raises KeyError when nothing is called `name`."""
    command = kind == "workflows" and name.startswith("/") and "/" not in name[1:]
    wanted = name[1:] if command else name  # `/deploy`, as typed to run it
    matched = [t for t in toggles(home, root, kind) if _names(t, wanted)]
    if not matched:
        raise KeyError(name)
    for t in matched:
        set_switch(home, root, kind, t.name, on, is_global=t.is_global)
    return matched


def _names(t: Toggle, wanted: str) -> bool:
    if wanted in (t.name, str(t.path)):
        return True
    try:
        if Path(wanted).expanduser().resolve() == t.path.resolve():
            return True
    except OSError:
        return False
    return t.kind == "workflows" and wanted in (t.path.name, t.path.stem)
