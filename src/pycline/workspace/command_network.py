"""Whether a command line means to reach the network, read from its words.

Auto mode (`--auto`) runs commands unasked inside the sandbox with the network off. A command
that plainly needs the network (a download, a package install, a push) would only fail there, so
it is asked about instead, and runs with the network once approved. This is a courtesy, not the
boundary: the sandbox is. A command this misses runs offline and fails, and the model can ask
for the network on its call (`escalate`).
"""

from __future__ import annotations

from pycline.workspace.command_words import program_name, strip_wrappers
from pycline.workspace.shell import Segment, ShellSyntaxError, Subshell, split_commands, tokenize

# Programs whose every use talks to another machine.
_CLIENTS = frozenset(
    {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "telnet", "ftp",
     "ping", "dig", "nslookup", "host", "http", "https", "aria2c", "gh", "aws", "gcloud", "az"}
)  # fmt: skip
# Programs that reach the network for these subcommands.
_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"}),
    "pip": frozenset({"install", "download", "wheel", "search", "index"}),
    "pip3": frozenset({"install", "download", "wheel", "search", "index"}),
    "uv": frozenset({"add", "sync", "lock", "pip", "tool", "run"}),
    "poetry": frozenset({"add", "install", "update", "lock", "publish"}),
    "npm": frozenset({"install", "i", "ci", "add", "update", "publish", "view", "exec"}),
    "npx": frozenset(),  # any use may download the package it runs
    "pnpm": frozenset({"install", "i", "add", "update", "publish", "dlx"}),
    "yarn": frozenset({"install", "add", "upgrade", "publish", "dlx"}),
    "bun": frozenset({"install", "add", "update", "x"}),
    "cargo": frozenset({"install", "fetch", "update", "add", "publish", "search"}),
    "go": frozenset({"get", "install", "mod"}),
    "gem": frozenset({"install", "update", "push", "fetch"}),
    "apt": frozenset({"install", "update", "upgrade", "download"}),
    "apt-get": frozenset({"install", "update", "upgrade", "download", "source"}),
    "brew": frozenset({"install", "update", "upgrade", "fetch"}),
    "docker": frozenset({"pull", "push", "login", "search"}),
    "podman": frozenset({"pull", "push", "login", "search"}),
}


def needs_network(command: str) -> str | None:
    """Why `command` looks like it needs the network ("" never), or None."""
    try:
        parts = split_commands(tokenize(command))
    except ShellSyntaxError:
        return None
    for part in parts:
        if isinstance(part, Subshell):
            found = needs_network(part.inner)
        else:
            assert isinstance(part, Segment)
            found = _segment(part)
            for sub in part.substitutions:
                found = found or needs_network(sub)
        if found:
            return found
    return None


def _segment(segment: Segment) -> str | None:
    words = strip_wrappers(segment.words)
    if not words:
        return None
    name = program_name(words[0])
    if name in _CLIENTS:
        return f"{name} reaches the network"
    subcommands = _SUBCOMMANDS.get(name)
    if subcommands is None:
        return None
    # The subcommand is the first word that is not an option, or the second after an option's
    # value (`git -C repo fetch`).
    verbs = [w for w in words[1:] if not w.startswith("-")][:2]
    if not subcommands:
        return f"{name} reaches the network"
    found = next((v for v in verbs if v in subcommands), None)
    return f"{name} {found} reaches the network" if found else None
