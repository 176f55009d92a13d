"""MkDocs hook: the reference pages made from the code, so they cannot drift from it.

- `reference/commands.md`: every command, from the argparse parsers `pycline` itself uses;
- `reference/settings.md`: every setting, from the settings model (type, default, whether a
  project may set it), with the words in `settings_help.py`;
- `reference/schema/<name>.md`: each JSON Schema shipped in `src/pycline/schema/`.

The first two are committed (the README links them, and a link must work in the repository,
not only on the built site): `python docs/_hooks/reference.py` rewrites them, and a committed
page that differs from the code is a warning. A setting without a description is a warning too;
warnings fail `mkdocs build --strict`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import types
import typing
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from pydantic import BaseModel
from pydantic.fields import FieldInfo

sys.path.insert(0, str(Path(__file__).parent))
from settings_help import DESCRIPTIONS  # noqa: E402

log = logging.getLogger("mkdocs.plugins.pycline")
SCHEMA_DIR = Path(__file__).resolve().parents[2] / "src" / "pycline" / "schema"


DOCS = Path(__file__).resolve().parents[1]
COMMITTED = {"reference/commands.md": "commands_page", "reference/settings.md": "settings_page"}


def committed_pages() -> dict[str, str]:
    """The committed reference pages as the code makes them now, by path under docs/."""
    return {path: globals()[make]() for path, make in COMMITTED.items()}


def write_committed_pages() -> None:
    for path, content in committed_pages().items():
        (DOCS / path).write_text(content, encoding="utf-8")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, content in committed_pages().items():
        on_disk = DOCS / path
        if not on_disk.is_file() or on_disk.read_text(encoding="utf-8") != content:
            log.warning("%s is out of date: run python docs/_hooks/reference.py", path)
    pages: dict[str, str] = {}
    for schema in sorted(SCHEMA_DIR.glob("*.json")):
        name = schema.name.removesuffix(".json")
        pages[f"reference/schema/{name}.md"] = schema_page(schema)
    for path, content in pages.items():
        files.append(File.generated(config, path, content=content))
    return files


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    # Each schema gets a page in the navigation, under the events and commands reference.
    schemas = [
        {s.name.removesuffix(".json"): f"reference/schema/{s.name.removesuffix('.json')}.md"}
        for s in sorted(SCHEMA_DIR.glob("*.json"))
    ]
    for entry in config.nav or []:
        if isinstance(entry, dict) and "Reference" in entry:
            entry["Reference"].append({"Schemas": schemas})
    return config


# --- commands --------------------------------------------------------------------------------


def commands_page() -> str:
    from pycline.cli.main import build_parser
    from pycline.main import command_parsers

    os.environ["COLUMNS"] = "100"  # argparse wraps usage lines at the terminal's width
    out = [
        "# Commands",
        "",
        "Every command and flag, as `pycline COMMAND --help` prints them (this page is made "
        "from the same parsers).",
        "",
    ]
    out += _parser_section("pycline", build_parser(), level=2)
    for name, build in command_parsers().items():
        out += _parser_section(f"pycline {name}", build(), level=2)
    return "\n".join(out) + "\n"


def _parser_section(title: str, parser: argparse.ArgumentParser, level: int) -> list[str]:
    out = [f"{'#' * level} `{title}`", ""]
    if parser.description:
        out += [_md(parser.description), ""]
    out += ["```text", parser.format_usage().strip(), "```", ""]
    rows = []
    children: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for word, child in action.choices.items():
                rows.append((f"`{word}`", helps.get(word) or child.description or ""))
                children.append((word, child))
            continue
        if action.help == argparse.SUPPRESS:
            continue
        rows.append((_spelling(action), _help(action)))
    if rows:
        out += ["| argument | meaning |", "|---|---|"]
        out += [f"| {flag} | {_md(text)} |" for flag, text in rows]
        out.append("")
    for word, child in children:
        out += _parser_section(f"{title} {word}", child, level=min(level + 1, 4))
    return out


def _spelling(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    value = ""
    if action.nargs != 0:
        value = " " + (
            "{" + ",".join(map(str, action.choices)) + "}"
            if action.choices
            else str(action.metavar or action.dest.upper())
        )
    return ", ".join(f"`{flag}{value}`" for flag in action.option_strings)


def _help(action: argparse.Action) -> str:
    text = (action.help or "").replace("%(default)s", str(action.default))
    if not action.option_strings and action.choices:
        text = (text + " " if text else "") + "one of: " + ", ".join(map(str, action.choices))
    return text


def _md(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# --- settings --------------------------------------------------------------------------------


def settings_page() -> str:
    from pycline.app.settings import workspace_settings
    from pycline.app.settings.settings_model import Settings

    allowed = workspace_settings._ALLOWED
    out = [
        "# Settings",
        "",
        "Global settings live in `PYCLINE_HOME/settings/settings.json` (default "
        "`~/.local/share/pycline/settings/settings.json`); a project may set a few of them in "
        "`.pycline/settings.json` (the last column), and only ever to be stricter. "
        "`pycline config set KEY VALUE` changes one, checked before it is saved; "
        "`pycline config list` shows what is in force. Command-line flags win over the "
        "environment, which wins over the project's file, which wins over the global one.",
        "",
        "| setting | type | default | what it does | project |",
        "|---|---|---|---|---|",
    ]
    for key, field, owner in _leaves(Settings):
        text = DESCRIPTIONS.get(key)
        if text is None:
            log.warning(
                "setting %r has no description: add one to docs/_hooks/settings_help.py", key
            )
            text = ""
        name = field.alias or key
        project = "yes" if _field_name(owner, name) in allowed.get(owner.__name__, ()) else ""
        out.append(
            f"| `{key}` | {_type(field.annotation)}{_bounds(field)} | {_default(field)} | "
            f"{_md(text)} | {project} |"
        )
    stale = sorted(set(DESCRIPTIONS) - {key for key, _, _ in _leaves(Settings)})
    for key in stale:
        log.warning("docs/_hooks/settings_help.py describes %r, which is no setting", key)
    out += [
        "",
        "Environment: `PYCLINE_HOME` (the data folder), `PYCLINE_PROVIDER`, `PYCLINE_MODEL`, "
        "`OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` and each "
        "provider's key variable, `PYCLINE_CHROMIUM` (a browser), `PYCLINE_SANDBOX` (as "
        "`--sandbox`), `PYCLINE_LANGUAGE_SERVERS=off` (no language servers), "
        "`PYCLINE_UI_PASSWORD` (`pycline ui --host`).",
    ]
    return "\n".join(out) + "\n"


_EXPANDED = ("autoApprove", "modelInfo", "focusChainSettings", "telemetry")


def _leaves(model: type[BaseModel], prefix: str = "") -> list[tuple[str, FieldInfo, type]]:
    found: list[tuple[str, FieldInfo, type]] = []
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        nested = _model_in(field.annotation)
        if nested is not None and (field.alias or name) in _EXPANDED:
            found += _leaves(nested, key + ".")
        else:
            found.append((key, field, model))
    return found


def _field_name(owner: type, alias: str) -> str:
    assert issubclass(owner, BaseModel)
    return next(n for n, f in owner.model_fields.items() if (f.alias or n) == alias)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    for arg in (annotation, *typing.get_args(annotation)):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return None


def _type(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type(a) for a in args)
    if origin is dict:
        return f"object of {_type(args[1])}"
    if origin is list:
        return f"list of {_type(args[0])}s"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    return {bool: "boolean", int: "integer", float: "number", str: "string"}.get(
        annotation, str(annotation)
    )


def _bounds(field: FieldInfo) -> str:
    signs = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    found = [
        f"{signs[name]} {getattr(rule, name)}"
        for rule in field.metadata
        for name in signs
        if getattr(rule, name, None) is not None
    ]
    return f" ({', '.join(found)})" if found else ""


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, BaseModel):
        return ""
    return f"`{json.dumps(value)}`"


# --- JSON schemas ------------------------------------------------------------------------------


def schema_page(path: Path) -> str:
    schema = json.loads(path.read_text(encoding="utf-8"))
    name = path.name
    out = [
        f"# {path.stem}",
        "",
        *([f"**{_md(schema['title'])}**", ""] if schema.get("title") else []),
        f"`{name}`, shipped in the package as `pycline/schema/{name}`"
        + (f" (`$id` {schema['$id']})" if "$id" in schema else "")
        + ". This page is made from that file.",
        "",
    ]
    if schema.get("description"):
        out += [_md(schema["description"]), ""]
    for def_name, definition in schema.get("$defs", {}).items():
        out += [f"## {def_name}", ""]
        if definition.get("description"):
            out += [_md(definition["description"]), ""]
        properties = definition.get("properties", {})
        required = set(definition.get("required", ()))
        if properties:
            out += ["| field | type | required |", "|---|---|---|"]
            for prop, spec in properties.items():
                out.append(
                    f"| `{prop}` | {_json_type(spec)} | {'yes' if prop in required else ''} |"
                )
            out.append("")
    out += ["## The schema", "", "```json", json.dumps(schema, indent=2), "```", ""]
    return "\n".join(out)


def _json_type(spec: dict[str, Any]) -> str:
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "$ref" in spec:
        target = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{target}](#{target.lower()})"
    if "enum" in spec:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    for key in ("anyOf", "oneOf"):
        if key in spec:
            return " \\| ".join(_json_type(s) for s in spec[key])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"array of {_json_type(spec.get('items', {}))}"
    if isinstance(kind, list):
        return " \\| ".join(kind)
    return str(kind)


if __name__ == "__main__":
    write_committed_pages()
