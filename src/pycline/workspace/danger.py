"""Commands that always need the user's approval, whatever the model says about them.

The model marks each command `requires_approval`; these patterns override a `false`, because
being wrong about them costs a disk, a remote branch or the machine. Only the analysis lives here:
the tool decides what to do with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycline.workspace.command_words import (
    ADMIN,
    SHELLS,
    WRAPPERS,
    command_start,
    program_name,
)
from pycline.workspace.shell import ShellSyntaxError, Subshell, split_commands, tokenize

# Folders whose recursive deletion is routine (build output, caches, installed dependencies).
BUILD_FOLDERS = frozenset(
    {
        "node_modules",
        "dist",
        "build",
        "target",
        "out",
        "coverage",
        "htmlcov",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".cache",
        ".next",
        ".nuxt",
        ".turbo",
        ".parcel-cache",
        ".svelte-kit",
        ".gradle",
        "bin",
        "obj",
        "tmp",
        ".tmp",
        ".venv",
        "venv",
    }
)

_INTERPRETERS = re.compile(r"^(?:python[0-9.]*|perl|ruby|node|php)$")
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c"})
_FUNCTION_DEF = re.compile(r"([A-Za-z_:][\w:]{0,63})\s*\(\)\s*\{")
_BLOCK_DEVICE = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-)\w*$")
_HARMLESS_DEVICES = ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty")
_ROOTISH = frozenset({"/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", "$HOME/", "$HOME/*"})
_POWER_WORDS = frozenset({"shutdown", "reboot", "halt", "poweroff"})
# Nested commands (`sh -c "…"`, `$(…)`) are looked into this deep; each level only re-reads a
# part of the line, so the whole check stays linear in the command's length.
_MAX_DEPTH = 3
_MAX_FUNCTIONS = 32
# Longer command lines are not read at all: they need the user's approval as they are.
MAX_CHECKED_CHARS = 100_000


@dataclass(frozen=True, slots=True)
class _Simple:
    """One simple command: its words, redirect targets, and whether a pipe feeds it."""

    words: tuple[str, ...]
    outputs: tuple[str, ...] = ()
    piped: bool = False
    substitutions: tuple[str, ...] = ()  # `$(…)`, backticks, `<(…)` in its words


def is_dangerous(command: str) -> str | None:
    """Why `command` must be approved by the user, or None when nothing here matches."""
    if len(command) > MAX_CHECKED_CHARS:
        return f"too long to check ({len(command):,} characters)"
    reason = _fork_bomb(command)
    if reason:
        return reason
    return _check(command, depth=0)


def _check(command: str, *, depth: int) -> str | None:
    simples, nested = _parse(command)
    reason = _check_pipelines(simples) or _download_then_run(simples)
    if reason:
        return reason
    for simple in simples:
        reason = _check_simple(simple)
        if reason:
            return reason
        nested.extend(_inline_scripts(simple.words))
    if depth < _MAX_DEPTH:
        for text in nested:
            reason = _check(text, depth=depth + 1)
            if reason:
                return reason
    return None


def _parse(command: str) -> tuple[list[_Simple], list[str]]:
    """Simple commands of the top level, and the texts of nested ones (substitutions,
    subshells) for the caller to check one level down."""
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        return _rough_parse(command), []
    simples: list[_Simple] = []
    nested: list[str] = []
    for part in parts:
        if isinstance(part, Subshell):
            nested.append(part.inner)
            continue
        nested.extend(part.substitutions)
        outputs = tuple(target for op, target in part.redirects if ">" in op)
        if part.words or outputs:
            simples.append(_Simple(part.words, outputs, part.piped, part.substitutions))
    return simples, nested


def _rough_parse(command: str) -> list[_Simple]:
    """Unbalanced quotes: split at operator characters, still worth checking."""
    simples: list[_Simple] = []
    words: list[str] = []
    piped = False
    for token in re.findall(r"[;&|()\n]+|[^\s;&|()]+", command):
        if token[0] in ";&|()\n":
            if words:
                simples.append(_Simple(tuple(words), (), piped))
            words = []
            piped = token.strip() in ("|", "|&")
        else:
            words.append(token.strip("'\""))
    if words:
        simples.append(_Simple(tuple(words), (), piped))
    return simples


def runs_other_programs(program: str) -> bool:
    """`program` runs whatever its arguments name (a shell, an interpreter, sudo, env, xargs…),
    so allowing it by name would allow everything."""
    name = program_name(program)
    return (
        name in WRAPPERS
        or name in SHELLS
        or name in ADMIN
        or name in ("su", "eval", "source", ".")
        or bool(_INTERPRETERS.match(name))
    )


def _runs_shell(words: tuple[str, ...]) -> bool:
    """The command reads a program from its input: a shell, or an interpreter without one."""
    start = command_start(words, WRAPPERS)
    if start < len(words) and program_name(words[start]) in ADMIN:
        start += 1 + command_start(words[start + 1 :], WRAPPERS)
        while start < len(words) and words[start].startswith("-"):
            start += 1
    if start >= len(words):
        return False
    name = program_name(words[start])
    rest = words[start + 1 :]
    if name in SHELLS:
        return not any(w == "-c" for w in rest)
    if _INTERPRETERS.match(name):
        return not rest or rest[0] == "-"
    return False


def _downloads(simple: _Simple) -> bool:
    start = command_start(simple.words, WRAPPERS)
    return start < len(simple.words) and program_name(simple.words[start]) in _DOWNLOADERS


def _check_pipelines(simples: list[_Simple]) -> str | None:
    downloading = False
    for simple in simples:
        if not simple.piped:
            downloading = False
        if downloading and _runs_shell(simple.words):
            return "runs a script downloaded from the internet"
        downloading = downloading or _downloads(simple)
    return None


def _saves_download(simple: _Simple) -> bool:
    """A download written to a file (not to the pipe)."""
    if not _downloads(simple):
        return False
    words = simple.words[command_start(simple.words, WRAPPERS) :]
    if simple.outputs:
        return True
    if program_name(words[0]) == "wget":
        return not any(w in ("-O-", "-qO-", "-O -") for w in words) and "-" not in words
    return any(w in ("-o", "-O", "--output", "--remote-name") or w.startswith("-o") for w in words)


def _download_then_run(simples: list[_Simple]) -> str | None:
    """`curl -o x.sh URL && sh x.sh`, `wget URL; chmod +x f; ./f`: a download, then a run;
    and `bash -c "$(curl …)"`, `sh <(wget …)`: a shell running what a download prints."""
    seen_download = False
    for simple in simples:
        if any(
            program_name(sub.split(maxsplit=1)[0]) in _DOWNLOADERS
            for sub in simple.substitutions
            if sub.strip()
        ) and _runs_code(simple.words):
            return "runs a script downloaded from the internet"
        if _saves_download(simple):
            seen_download = True
            continue
        if not seen_download or simple.piped:
            continue
        start = command_start(simple.words, WRAPPERS)
        if start >= len(simple.words):
            continue
        name = program_name(simple.words[start])
        runs = (
            name in SHELLS
            or name in ("source", ".", "eval")
            or bool(_INTERPRETERS.match(name))
            or simple.words[start].startswith("./")
            or (name == "chmod" and any("x" in w for w in simple.words[start + 1 :]))
        )
        if runs:
            return "downloads a script and runs it"
    return None


def _runs_code(words: tuple[str, ...]) -> bool:
    start = command_start(words, WRAPPERS)
    if start < len(words) and program_name(words[start]) in ADMIN:
        start += 1
    if start >= len(words):
        return False
    name = program_name(words[start])
    return name in SHELLS or name in ("source", ".", "eval") or bool(_INTERPRETERS.match(name))


def _inline_scripts(words: tuple[str, ...]) -> list[str]:
    """The text of commands hidden in words: `sh -c "…"`, `eval "…"`, `su -c "…"`."""
    found: list[str] = []
    for i in range(1, len(words)):
        previous = words[i - 1]
        if previous in ("-c", "eval") or program_name(previous) == "eval":
            found.append(words[i])
    return found


def _fork_bomb(command: str) -> str | None:
    names: set[str] = set()
    for match in _FUNCTION_DEF.finditer(command):
        names.add(match.group(1))
        if len(names) >= _MAX_FUNCTIONS:
            break
    for name in names:
        escaped = re.escape(name)
        if re.search(rf"(?<![\w:]){escaped}\s*\|&?\s*{escaped}\s*&", command):
            return "a fork bomb"
    return None


def _check_simple(simple: _Simple) -> str | None:
    words = simple.words
    for target in simple.outputs:
        if _BLOCK_DEVICE.match(target):
            return "writes to a disk device"
    start = command_start(words, WRAPPERS)
    names = [program_name(w) for w in words]
    if ADMIN & set(names):
        return "runs with administrator rights (sudo)"
    if start >= len(words):
        return None
    name = names[start]
    args = list(words[start + 1 :])
    if name == "su":
        return "runs as another user (su)"
    if name in _POWER_WORDS:
        return f"{name} of the machine"
    if name == "systemctl" and any(a in ("reboot", "poweroff", "halt", "kexec") for a in args):
        return "shuts down or restarts the machine"
    if name in ("init", "telinit") and any(a in ("0", "6") for a in args):
        return "shuts down or restarts the machine"
    if name == "mkfs" or name.startswith("mkfs."):
        return "formats a file system (mkfs)"
    if name == "dd" and any(
        a.startswith("of=/dev/") and a[3:] not in _HARMLESS_DEVICES for a in args
    ):
        return "writes to a device with dd"
    if name in ("chmod", "chown", "chgrp"):
        reason = _recursive_permission_change(name, args)
        if reason:
            return reason
    if name == "git":
        reason = _force_push(args)
        if reason:
            return reason
    # rm may appear after find -exec, xargs and the like, so look at every word.
    for i, word in enumerate(names):
        if word == "rm":
            reason = _recursive_delete(list(words[i + 1 :]))
            if reason:
                return reason
    return None


def _short_flags(args: list[str]) -> tuple[set[str], list[str]]:
    """Flags (single letters and --long names) and the remaining operands."""
    flags: set[str] = set()
    operands: list[str] = []
    options_done = False
    for arg in args:
        if options_done or not arg.startswith("-") or arg == "-":
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            flags.add(arg.split("=", 1)[0])
        else:
            flags.update(arg[1:])
    return flags, operands


def _recursive_delete(args: list[str]) -> str | None:
    flags, targets = _short_flags(args)
    if not ({"r", "R", "--recursive"} & flags):
        return None
    # `find … -exec rm -rf {} +`, `… | xargs rm -rf`: the targets are chosen at run time.
    targets = [t for t in targets if t not in (";", "+", "\\;")]
    if not targets or any(t == "{}" for t in targets):
        return "recursive delete of paths chosen at run time (xargs, find -exec)"
    for target in targets:
        if not _is_build_folder(target):
            return f"recursive delete of '{target}' (not a build folder)"
    return None


def _is_build_folder(target: str) -> bool:
    if target.startswith(("/", "~", "$", "-")) or target in _ROOTISH:
        return False
    path = target.rstrip("/")
    if path.endswith("/*"):
        path = path[:-2]
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or ".." in parts or any(c in path for c in "*?[{"):
        return False
    last = parts[-1]
    return last in BUILD_FOLDERS or last.endswith(".egg-info")


def _recursive_permission_change(name: str, args: list[str]) -> str | None:
    flags, operands = _short_flags(args)
    if not ({"R", "--recursive"} & flags):
        return None
    if any(o in _ROOTISH or o.startswith(("/", "~/", "$HOME")) for o in operands[1:]):
        return f"recursive {name} on a system or home folder"
    if name == "chmod" and operands and operands[0] in ("777", "0777", "a+rwx", "ugo+rwx"):
        return "makes every file world-writable (chmod -R 777)"
    return None


def _force_push(args: list[str]) -> str | None:
    if "push" not in args:
        return None
    push_args = args[args.index("push") + 1 :]
    flags, operands = _short_flags(push_args)
    forced = {"f", "--force", "--force-with-lease", "--force-if-includes"} & flags
    if forced or any(o.startswith("+") for o in operands):
        return "force-pushes, which can overwrite the remote history (git push --force)"
    return None
