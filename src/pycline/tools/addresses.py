"""Whether a URL points at the public internet or somewhere private to the user's machine.

A model that can fetch `http://169.254.169.254/` (cloud metadata: credentials), `localhost` (the
user's own services) or a LAN address reaches what only the user should. Such addresses are judged
on what the host name resolves to, every address of it.
"""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import socket
from urllib.parse import urlsplit

_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet")


def _is_public_ip(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def non_public_reason(url: str) -> str | None:
    """Why `url` is not on the public internet (its host, and what it resolves to); None if it is."""
    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return "its address cannot be read"
    if not host:
        return "it names no host"
    if host == "localhost" or host.endswith(_PRIVATE_SUFFIXES):
        return f"{host} is a local name"
    try:
        ipaddress.ip_address(host.strip("[]"))
        literal = True
    except ValueError:
        literal = False
    if literal:
        return None if _is_public_ip(host.strip("[]")) else f"{host} is not a public address"
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None  # unresolvable here: the fetch itself will fail with a clear message
    for info in infos:
        address = str(info[4][0])
        if not _is_public_ip(address):
            return f"{host} resolves to {address}, which is not a public address"
    return None


def known_charset(name: str | None) -> str | None:
    """`name` when Python knows that encoding, else None (decode as UTF-8, errors replaced)."""
    if not name:
        return None
    try:
        codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    return name
