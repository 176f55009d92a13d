"""The environment a sandboxed program gets: the user's, minus what opens doors.

Removed: variables whose names say they hold a secret (`*KEY*`, `*TOKEN*`, `AWS_*`, …), and
those that point at a session's services outside the sandbox (the display, the session bus, the
SSH and GPG agents, terminal multiplexers, editors' IPC handles). Kept, but without their
credentials: every URL in a value loses its `user:password@` part and the query parameters that
carry signatures or tokens (`OPENAI_BASE_URL=http://u:TOKEN@host` reaches the command as
`http://host`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Names that say a variable holds a secret.
_SECRET_NAME = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE)"
    r"|^AWS_|^AZURE_|^GOOGLE_APP|^KRB5",
    re.IGNORECASE,
)
# Handles on services of the user's session, reachable only by a process that knows them.
_SESSION = frozenset(
    {
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XAUTHORITY",
        "ICEAUTHORITY",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "SSH_ASKPASS",
        "GIT_ASKPASS",
        "GPG_AGENT_INFO",
        "GNOME_KEYRING_CONTROL",
        "SWAYSOCK",
        "I3SOCK",
        "HYPRLAND_INSTANCE_SIGNATURE",
        "TMUX",
        "TMUX_PANE",
        "STY",
        "PULSE_SERVER",
        "KITTY_LISTEN_ON",
        "WEZTERM_UNIX_SOCKET",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "VSCODE_IPC_HOOK_CLI",
        "VSCODE_GIT_IPC_HANDLE",
        "DOCKER_HOST",
        "CONTAINER_HOST",
    }
)
_SESSION_PREFIXES = ("VSCODE_GIT_ASKPASS", "ZELLIJ")

# `scheme://userinfo@`: the userinfo goes (a token alone, or user:password).
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)[^/\s@?#]*@")
# Query parameters that carry a credential (presigned URLs, `?token=`, `?key=`).
_URL_SECRET_PARAM = re.compile(
    r"(?P<lead>[?&;](?:[A-Za-z0-9_.\-]*[_\-.])?(?:token|key|apikey|secret|signature|sig|password|"
    r"passwd|pass|auth|credential|credentials|code)=)[^&;#\s]*",
    re.IGNORECASE,
)


def strip_url_credentials(value: str) -> str:
    """`value` with every URL's credentials removed (user:password@, secret query values)."""
    if "://" not in value and "=" not in value:
        return value
    value = _URL_USERINFO.sub(r"\g<scheme>", value)
    if "://" in value:
        value = _URL_SECRET_PARAM.sub(r"\g<lead>", value)
    return value


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without secrets, session handles, and credentials inside URLs."""
    out: dict[str, str] = {}
    for name, value in env.items():
        if is_secret_name(name) or name in _SESSION or name.startswith(_SESSION_PREFIXES):
            continue
        out[name] = strip_url_credentials(value)
    return out
