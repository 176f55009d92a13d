"""The user's "always allow" command rules, per workspace, kept in pycline's home.

Never in the repository: a repository must not be able to grant itself rules, so the file lives
under `PYCLINE_HOME/settings/` and is keyed by the workspace's resolved path. A damaged or
hand-edited file never breaks a task: what is not a valid rule is ignored.
"""

from __future__ import annotations

from pathlib import Path

from pycline.storage.atomic import atomic_write_json, locked
from pycline.terminal.allow_rules import rule_refusal
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_json

FILE_NAME = "command_rules.json"


def rules_file(home: Path) -> Path:
    return home / "settings" / FILE_NAME


def workspace_key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


def _read(home: Path) -> dict[str, list[str]]:
    try:
        data = read_json(rules_file(home), MAX_SETTINGS_BYTES)
    except (OSError, ValueError):
        return {}
    workspaces = data.get("workspaces") if isinstance(data, dict) else None
    if not isinstance(workspaces, dict):
        return {}
    return {
        key: [r for r in rules if isinstance(r, str) and rule_refusal(r) is None]
        for key, rules in workspaces.items()
        if isinstance(key, str) and isinstance(rules, list)
    }


def _write(home: Path, data: dict[str, list[str]]) -> None:
    kept = {key: sorted(set(rules)) for key, rules in sorted(data.items()) if rules}
    atomic_write_json(rules_file(home), {"version": 1, "workspaces": kept})


def workspace_rules(home: Path, workspace: Path) -> tuple[str, ...]:
    return tuple(_read(home).get(workspace_key(workspace), ()))


def all_rules(home: Path) -> dict[str, tuple[str, ...]]:
    return {key: tuple(rules) for key, rules in sorted(_read(home).items()) if rules}


def add_rule(home: Path, workspace: Path, rule: str) -> str:
    """Store `rule` for `workspace`; the normalised rule. Raises ValueError for one that cannot
    be a rule (shell syntax, a program that runs anything, a dangerous command)."""
    text = " ".join(rule.split())
    refusal = rule_refusal(text)
    if refusal:
        raise ValueError(refusal)
    key = workspace_key(workspace)
    with locked(rules_file(home)):
        data = _read(home)
        if text not in data.get(key, []):
            data.setdefault(key, []).append(text)
            _write(home, data)
    return text


def remove_rule(home: Path, workspace: Path, rule: str) -> bool:
    """Forget `rule` for `workspace`; False when it was not there."""
    text = " ".join(rule.split())
    key = workspace_key(workspace)
    with locked(rules_file(home)):
        data = _read(home)
        if text not in data.get(key, []):
            return False
        data[key] = [r for r in data[key] if r != text]
        _write(home, data)
    return True
