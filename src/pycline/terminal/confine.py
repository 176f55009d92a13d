"""Cut a sandboxed command off from the host's abstract Unix sockets (Landlock scoping).

Abstract sockets (`@/tmp/.X11-unix/X0`, some D-Bus and IDE sockets) have no file to hide: any
process in the same network namespace can connect. When the network is on, commands share the
host's namespace, so a Landlock domain scoped to abstract sockets (Linux 6.12+) is put around
the command: it can connect only to abstract sockets made inside its own sandbox. pycline sets
it up in the child it starts before that child becomes bubblewrap (`scoping`); for a process an
editor starts, a tiny Python program does it inside the sandbox and then becomes the command
(`confined`).
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from collections.abc import Callable

# The same numbers on every architecture (they were added after the syscall tables unified).
_CREATE_RULESET, _RESTRICT_SELF = 444, 446
_CREATE_RULESET_VERSION = 1
# Scoping abstract sockets (and signals) arrived with ABI 6.
_SCOPED_ABI = 6
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1, 2
_PR_SET_NO_NEW_PRIVS = 38
_FAILED = 121  # the child's exit status when it cannot be confined: it runs nothing

# Run as `python -I -S -c _PROGRAM argv...`: no site, no environment, only ctypes.
_PROGRAM = """\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint64 * 3)(0, 0, 3)  # fs, net, scoped = abstract sockets | signals
fd = libc.syscall(444, ctypes.byref(attr), ctypes.sizeof(attr), 0)
if fd < 0 or libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(446, fd, 0) != 0:
    sys.exit("pycline sandbox: cannot confine the command: " + os.strerror(ctypes.get_errno()))
os.close(fd)
os.execvp(sys.argv[1], sys.argv[1:])
"""


@functools.cache
def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = int(libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION))
    except (OSError, AttributeError):
        return 0
    return max(version, 0)


def can_scope_abstract_sockets() -> bool:
    return landlock_abi() >= _SCOPED_ABI


def confined(argv: list[str], python: str) -> list[str]:
    """`argv` run under the scoping (`python`: an interpreter the sandbox can see), for a
    process someone else starts (an editor's terminal)."""
    return [python, "-I", "-S", "-c", _PROGRAM, *argv]


def scoping() -> Callable[[], None]:
    """A `preexec_fn` that puts the child (bubblewrap, and all it runs) under the scoping: no
    extra process, for what pycline starts itself. Everything it calls is prepared here, in
    the parent; the child only makes three system calls."""
    libc = ctypes.CDLL(None, use_errno=True)
    syscall, prctl = libc.syscall, libc.prctl
    attr = (ctypes.c_uint64 * 3)(0, 0, _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
    size, ref = ctypes.sizeof(attr), ctypes.byref(attr)

    def in_child() -> None:
        fd = syscall(_CREATE_RULESET, ref, size, 0)
        if fd < 0 or prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            os._exit(_FAILED)
        if syscall(_RESTRICT_SELF, fd, 0) != 0:
            os._exit(_FAILED)
        os.close(fd)

    return in_child
