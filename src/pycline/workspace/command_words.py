"""The words of one simple command that decide what it runs: which program (`/bin/cat` is
`cat`), past `VAR=value` prefixes and the wrappers that run the command after them
(`env`, `nice -n 5`, `timeout 10`, `sudo -E`). The ignore check, the workspace reach check and the
danger check all find the real program this one way.
"""

from __future__ import annotations

import re
from typing import Final

# Words that run the command after them; the real program comes later.
WRAPPERS: Final = frozenset(
    {"env", "nohup", "time", "nice", "command", "exec", "builtin", "stdbuf", "xargs", "timeout"}
)
# Wrappers that run the command after them as another user.
ADMIN: Final = frozenset({"sudo", "doas", "pkexec", "run0"})
SHELLS: Final = frozenset({"sh", "bash", "zsh", "ksh", "dash", "fish", "csh", "tcsh", "ash"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def program_name(word: str) -> str:
    """The program a command word names, without its folder."""
    return word.rsplit("/", 1)[-1]


def is_assignment(word: str) -> bool:
    return _ASSIGNMENT.match(word) is not None


def command_start(words: tuple[str, ...], wrappers: frozenset[str] = WRAPPERS | ADMIN) -> int:
    """The index of the word naming the program `words` really runs (len(words) when none)."""
    i = 0
    while i < len(words):
        if is_assignment(words[i]):
            i += 1
        elif program_name(words[i]) in wrappers:
            i += 1
            # the wrapper's own options (`timeout 5`, `nice -n 5`, `xargs -0`)
            while i < len(words) and (words[i].startswith("-") or words[i][:1].isdigit()):
                i += 1
        else:
            break
    return i


def strip_wrappers(words: tuple[str, ...]) -> tuple[str, ...]:
    """The program and its arguments, with prefixes and wrappers (admin ones too) dropped."""
    return words[command_start(words) :]
