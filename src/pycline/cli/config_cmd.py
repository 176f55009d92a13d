"""`pycline config …` (read and change settings) and `pycline auth PROVIDER` (store an API key).

Keys are dotted Cline names: `autoApprove.editFiles`, `planMode.model`, `profiles.local.baseUrl`,
`mcpAutoApprove.SERVER`, `linters.GLOB` (a server name or glob may itself contain dots). Values
are read as JSON when they parse (`true`, `3`, `["ruff", "check"]`), else as plain text.
Every change is validated before the file is replaced, so a typo never breaks pycline.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pycline.cli.allow_cmd import add_allow_parser, run_allow
from pycline.errors import ConfigError

_MAPS = ("mcpAutoApprove", "linters")  # their keys are names chosen by the user


def build_config_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline config",
        description=(
            "Show or change settings. Without --workspace, `set`/`unset` edit the global settings "
            "and `get`/`list` show the values in force in --cwd (defaults, global, workspace)."
        ),
    )
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    where.add_argument(
        "--workspace",
        action="store_true",
        help="use the project's .pycline/settings.json instead of the global settings",
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    get = sub.add_parser("get", parents=[where], help="print one setting")
    get.add_argument("key", help="e.g. autoApprove.editFiles")
    set_ = sub.add_parser("set", parents=[where], help="change one setting")
    set_.add_argument("key")
    set_.add_argument("value", help="JSON (true, 3, [..]) or plain text")
    unset = sub.add_parser("unset", parents=[where], help="remove a setting (back to default)")
    unset.add_argument("key")
    list_ = sub.add_parser("list", parents=[where], help="print every setting")
    list_.add_argument("--json", action="store_true", help="one JSON object")
    add_allow_parser(sub)
    return parser


def build_auth_parser() -> argparse.ArgumentParser:
    from pycline.app.settings.config import KEY_ENV

    parser = argparse.ArgumentParser(
        prog="pycline auth",
        description=(
            "Store a provider's API key in the system keyring (or, without one, in a file only "
            "you can read). The key is asked for without echo; --key puts it in your shell "
            "history, so prefer the prompt."
        ),
    )
    parser.add_argument("provider", choices=sorted(KEY_ENV))
    parser.add_argument("--key", help="the API key (else asked for, hidden)")
    parser.add_argument("--remove", action="store_true", help="forget the stored key")
    return parser


# ---- dotted keys -------------------------------------------------------------------------


def split_key(key: str) -> list[str]:
    parts = key.split(".")
    if any(not part for part in parts):
        raise ConfigError(f"Bad setting name {key!r}: empty part between dots.")
    if parts[0] in _MAPS and len(parts) > 1:
        return [parts[0], ".".join(parts[1:])]
    return parts


def _known(parts: Sequence[str]) -> bool:
    from pydantic import BaseModel

    from pycline.app.settings.settings_model import (
        AutoApproveSettings,
        ModelChoice,
        Profile,
        Settings,
    )

    nested: dict[str, type[BaseModel]] = {
        "autoApprove": AutoApproveSettings,
        "planMode": ModelChoice,
    }
    model: type[BaseModel] = Settings
    index = 0
    while index < len(parts):
        aliases = {info.alias or name for name, info in model.model_fields.items()}
        part = parts[index]
        if part not in aliases:
            return False
        if part in _MAPS:
            return index + 2 >= len(parts)
        if part == "profiles" and model is Settings:
            if index + 1 >= len(parts):
                return True
            model, index = Profile, index + 2
            continue
        if part in nested:
            model, index = nested[part], index + 1
            continue
        return index == len(parts) - 1
    return True


def _names() -> list[str]:
    """Every fixed dotted setting name, for suggestions."""
    from pydantic import BaseModel

    from pycline.app.settings.settings_model import AutoApproveSettings, ModelChoice, Settings

    inner: dict[str, type[BaseModel]] = {
        "autoApprove": AutoApproveSettings,
        "planMode": ModelChoice,
    }
    names: list[str] = []
    for name, info in Settings.model_fields.items():
        top = info.alias or name
        nested = inner.get(top)
        if nested is None:
            names.append(top)
            continue
        names.extend(f"{top}.{i.alias or n}" for n, i in nested.model_fields.items())
    return names


def suggestion(key: str) -> str:
    """The hint for a mistyped name (`Did you mean 'autoApprove.editFiles'?`), or ""."""
    import difflib

    lowered = {n.lower(): n for n in _names()}
    near = difflib.get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.6)
    return f" Did you mean {lowered[near[0]]!r}?" if near else ""


def check_known(key: str) -> None:
    if not _known(split_key(key)):
        raise ConfigError(
            f"Unknown setting {key!r}.{suggestion(key)} `pycline config list` shows them all."
        )


def _lookup(data: Any, parts: Sequence[str]) -> tuple[bool, Any]:
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return False, None
        data = data[part]
    return True, data


def _assign(data: dict[str, Any], parts: Sequence[str], value: Any, key: str) -> None:
    for part in parts[:-1]:
        child = data.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"Cannot set {key!r}: {part!r} is not an object in the file.")
        data = child
    data[parts[-1]] = value


def _remove(data: dict[str, Any], parts: Sequence[str]) -> bool:
    parents: list[tuple[dict[str, Any], str]] = []
    node: Any = data
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return False
        parents.append((node, part))
        node = node[part]
    parent, last = parents.pop()
    del parent[last]
    while parents and not parent:  # drop objects the removal left empty
        parent, last = parents.pop()
        del parent[last]
    return True


def parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# ---- config ------------------------------------------------------------------------------


class _Files:
    def __init__(self, ns: argparse.Namespace) -> None:
        from pycline.app.settings.config import settings_path
        from pycline.app.settings.home import pycline_home
        from pycline.app.settings.settings_model import workspace_settings_path

        self.home = pycline_home()
        self.cwd = Path(ns.cwd).expanduser().resolve()
        if not self.cwd.is_dir():
            raise ConfigError(f"--cwd {ns.cwd}: not a folder")
        self.workspace = bool(ns.workspace)
        self.global_path = settings_path(self.home)
        self.local_path = workspace_settings_path(self.cwd)
        self.target = self.local_path if self.workspace else self.global_path

    def raw(self, *, local: bool) -> dict[str, Any]:
        from pycline.app.settings.config import load_settings, load_workspace_settings

        return load_workspace_settings(self.cwd) if local else load_settings(self.home)

    def effective(self) -> dict[str, Any]:
        from pycline.app.settings.config import load

        return load(self.home, self.cwd).model_dump(by_alias=True, mode="json")

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The target file's lock, held from reading it to writing it back."""
        from pycline.app.settings.config import locked

        return locked(self.target)

    def write(self, data: dict[str, Any]) -> None:
        from pycline.app.settings.config import write_settings

        write_settings(self.target, data, home=self.home, workspace=self.workspace)


def _config_get(files: _Files, key: str) -> int:
    check_known(key)
    parts = split_key(key)
    data = files.raw(local=True) if files.workspace else files.effective()
    found, value = _lookup(data, parts)
    if not found:
        print(f"pycline: {key} is not set", file=sys.stderr)
        return 1
    print(show(value))
    return 0


def _config_set(files: _Files, key: str, text: str) -> int:
    try:
        with files.locked():
            return _set(files, key, text)
    except ConfigError as exc:
        if _known(split_key(key)):
            raise
        raise ConfigError(f"{exc}{suggestion(key)}") from None


def _set(files: _Files, key: str, text: str) -> int:
    parts = split_key(key)
    data = files.raw(local=files.workspace)
    value = parse_value(text)
    try:
        _assign(data, parts, value, key)
        files.write(data)
    except ConfigError:
        if value == text:
            raise
        # `model 1.5` or `profiles.x.model 70` meant text: try that before giving up.
        try:
            _assign(data, parts, text, key)
            files.write(data)
        except ConfigError:
            _assign(data, parts, value, key)
            files.write(data)  # raises the error about the value as typed
    print(f"{key} = {show(_lookup(data, parts)[1])}  ({files.target})")
    return 0


def _config_unset(files: _Files, key: str) -> int:
    check_known(key)
    parts = split_key(key)
    with files.locked():
        data = files.raw(local=files.workspace)
        if not _remove(data, parts):
            print(f"{key} was not set in {files.target}")
            return 0
        files.write(data)
    print(f"{key} removed from {files.target}")
    return 0


def _config_list(files: _Files, *, as_json: bool) -> int:
    from pycline.app.settings.settings_model import flatten

    if files.workspace:
        data = files.raw(local=True)
        if as_json:
            print(json.dumps(data, ensure_ascii=False, indent=2))
            return 0
        print(f"# {files.local_path}{'' if data else ' (nothing set)'}")
        for key, value in flatten(data):
            print(f"{key} = {show(value)}")
        return 0
    effective = files.effective()
    if as_json:
        print(json.dumps(effective, ensure_ascii=False, indent=2))
        return 0
    origins = {key: "global" for key, _ in flatten(files.raw(local=False))}
    origins.update({key: "workspace" for key, _ in flatten(files.raw(local=True))})
    print(f"# global: {files.global_path}")
    print(f"# workspace: {files.local_path}")
    for key, value in flatten(effective):
        origin = origins.get(key)
        print(f"{key} = {show(value)}" + (f"  # {origin}" if origin else ""))
    return 0


def run_config(argv: Sequence[str]) -> int:
    ns = build_config_parser().parse_args(list(argv))
    try:
        if ns.action == "allow":
            return run_allow(ns)
        files = _Files(ns)
        match ns.action:
            case "get":
                return _config_get(files, ns.key)
            case "set":
                return _config_set(files, ns.key, ns.value)
            case "unset":
                return _config_unset(files, ns.key)
            case "list":
                return _config_list(files, as_json=ns.json)
    except ConfigError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    return 2


# ---- auth --------------------------------------------------------------------------------


def run_auth(argv: Sequence[str]) -> int:
    from pycline.app.settings.config import KEY_ENV
    from pycline.app.settings.home import pycline_home
    from pycline.app.settings.secrets import SecretStore

    ns = build_auth_parser().parse_args(list(argv))
    store = SecretStore(pycline_home())
    try:
        if ns.remove:
            removed = store.delete(ns.provider)
            print(f"{'Removed' if removed else 'No stored'} {ns.provider} API key.")
            return 0
        key = ns.key
        if key is None:
            try:
                key = getpass.getpass(f"{ns.provider} API key (typing is hidden): ")
            except EOFError:
                raise ConfigError("No API key was entered.") from None
        where = store.set(ns.provider, key)
    except ConfigError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    if where == "keyring":
        print(f"Saved the {ns.provider} API key in the system keyring.")
    else:
        print(f"Saved the {ns.provider} API key in {store.path} (readable only by you).")
    env_var = KEY_ENV[ns.provider]
    if os.environ.get(env_var):
        print(f"note: {env_var} is set in this environment and is used instead while it is.")
    return 0
