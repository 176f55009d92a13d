"""Cut a sandboxed command off from the host's abstract Unix sockets (Landlock scoping).

Abstract sockets (`@/tmp/.X11-unix/X0`, some D-Bus and IDE sockets) have no file to hide: any
process in the same network namespace can connect. When the network is on, commands share the
host's namespace, so a Landlock domain scoped to abstract sockets (Linux 6.12+) is put around
the command: it can connect only to abstract sockets made inside its own sandbox. A tiny Python
program sets it up inside the sandbox and then becomes the command (`exec`).
"""

from __future__ import annotations

import ctypes
import functools
import sys

# The same numbers on every architecture (they were added after the syscall tables unified).
_CREATE_RULESET, _RESTRICT_SELF = 444, 446
_CREATE_RULESET_VERSION = 1
# Scoping abstract sockets (and signals) arrived with ABI 6.
_SCOPED_ABI = 6

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
    """`argv` run under the scoping (`python`: an interpreter the sandbox can see)."""
    return [python, "-I", "-S", "-c", _PROGRAM, *argv]
