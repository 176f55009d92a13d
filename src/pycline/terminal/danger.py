"""Commands that always need the user's approval, whatever the model says about them.

The model marks each command `requires_approval`; these patterns override a `false`, because
being wrong about them costs a disk, a remote branch or the machine. Only the analysis lives here:
the tool decides what to do with the reason.
"""

from __future__ import annotations

import re
import shlex

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

_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "<(", ">(", "|&", ";;"})
# Words that run the command after them; the real command name comes later.
_WRAPPERS = frozenset({"env", "nohup", "time", "nice", "command", "exec", "builtin", "stdbuf"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELLS = r"(?:ba|z|k|da|fi|c|tc)?sh|python[0-9.]*|perl|ruby|node"
# A shell fed from a pipe runs whatever arrives; an interpreter does so only without a script
# argument (`| python3 -m json.tool` just formats the download).
_DOWNLOAD_PIPED_TO_SHELL = re.compile(
    r"\b(?:curl|wget|fetch)\b[^;&|]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:\S*/)?"
    r"(?:(?:ba|z|k|da|fi|c|tc)?sh\b|(?:python[0-9.]*|perl|ruby|node)(?:\s+-(?:\s|$)|\s*(?:$|[;&|)])))"
)
_SHELL_RUNS_DOWNLOAD = re.compile(
    rf"(?:\b(?:{_SHELLS})\b[^;&|]*(?:\$\(|`|<\()\s*(?:curl|wget|fetch)\b)"
    r"|(?:\b(?:source|\.|eval)\s+[\"']?(?:\$\(|`|<\()\s*(?:curl|wget|fetch)\b)"
)
_FORK_BOMB = re.compile(r"([A-Za-z_:][\w:]*)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&")
_BLOCK_DEVICE_WRITE = re.compile(r">\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-)\w*")
_HARMLESS_DEVICES = ("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/tty")
_ROOTISH = frozenset({"/", "/*", "~", "~/", "~/*", "$HOME", "${HOME}", "$HOME/", "$HOME/*"})
_POWER_WORDS = frozenset({"shutdown", "reboot", "halt", "poweroff"})


def is_dangerous(command: str) -> str | None:
    """Why `command` must be approved by the user, or None when nothing here matches."""
    return _check(command, depth=0)


def _check(command: str, *, depth: int) -> str | None:
    if _FORK_BOMB.search(command):
        return "a fork bomb"
    if _DOWNLOAD_PIPED_TO_SHELL.search(command) or _SHELL_RUNS_DOWNLOAD.search(command):
        return "runs a script downloaded from the internet"
    if _BLOCK_DEVICE_WRITE.search(command):
        return "writes to a disk device"
    for segment in _segments(command):
        reason = _check_segment(segment, depth=depth)
        if reason:
            return reason
    return None


def _tokens(command: str) -> list[str]:
    # Newlines separate commands like `;`; shlex would treat them as plain spaces.
    text = command.replace("\r", " ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: fall back to a rough split, still worth checking
        return re.findall(r"[;&|()]+|[^\s;&|()]+", text)


def _segments(command: str) -> list[list[str]]:
    segments: list[list[str]] = [[]]
    for token in _tokens(command):
        if token in _OPERATORS or (token and set(token) <= set(";&|()")):
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s]


def _command_index(words: list[str]) -> int:
    i = 0
    while i < len(words) and (_ASSIGNMENT.match(words[i]) or words[i] in _WRAPPERS):
        i += 1
    return i


def _name(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _check_segment(words: list[str], *, depth: int) -> str | None:
    start = _command_index(words)
    if start >= len(words):
        return None
    name = _name(words[start])
    args = words[start + 1 :]
    if name in ("sudo", "doas") or "sudo" in map(_name, words):
        return "runs with administrator rights (sudo)"
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
    for i, word in enumerate(words):
        if _name(word) == "rm":
            reason = _recursive_delete(words[i + 1 :])
            if reason:
                return reason
    if depth < 3:
        for i in range(len(words)):
            nested = _nested_command(words, i)
            if nested is not None:
                reason = _check(nested, depth=depth + 1)
                if reason:
                    return reason
    return None


def _nested_command(words: list[str], i: int) -> str | None:
    """The text of a command hidden inside a word: `sh -c "…"`, `eval "…"`, `$(…)`."""
    word = words[i]
    previous = words[i - 1] if i > 0 else ""
    if previous in ("-c", "eval") or _name(previous) == "eval":
        return word
    if "$(" in word or "`" in word:
        return word.replace("$(", " ").replace(")", " ").replace("`", " ")
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
