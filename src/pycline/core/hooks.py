"""Hooks: the user's executables run at points of a task, as Cline's (`.clinerules/hooks/`).

A hook is a file named after its event (`PreToolUse`, `TaskStart`, …) with the executable bit,
in the global hooks folder or a workspace's `.clinerules/hooks/`. It gets one JSON object on stdin
(common fields plus the event's data) and may print one JSON object:
`{"cancel": bool, "contextModification": str, "errorMessage": str}`. Every matching script runs in
parallel; any cancel cancels, contexts are joined. A hook that fails, prints no JSON while exiting
non-zero, or outlives its timeout is reported and otherwise ignored: hooks fail open and never
stall the task. A workspace's hooks come with the repository, so they run only once the user
trusts each file's exact content (the `trusted` predicate).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pycline.terminal.groups import signal_group
from pycline.workspace.confined import MAX_HOOK_BYTES, read_file

HOOK_NAMES: Final = frozenset(
    {
        "TaskStart",
        "TaskResume",
        "TaskCancel",
        "TaskComplete",
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "PreCompact",
        "Notification",
    }
)
TIMEOUT: Final = 30.0
MAX_OUTPUT: Final = 1_000_000
MAX_CONTEXT: Final = 50_000

Scope = Literal["global", "workspace"]
Trusted = Callable[[Path, bytes], bool]


@dataclass(frozen=True, slots=True)
class HookScript:
    path: Path
    scope: Scope
    cwd: Path


@dataclass(frozen=True, slots=True)
class HookResult:
    cancel: bool = False
    context: str = ""
    errors: tuple[str, ...] = ()  # failures and errorMessages, one per script
    ran: int = 0


@dataclass(slots=True)
class Hooks:
    """The hooks of one task. `folders` are (folder, scope); workspace hooks run in the root."""

    root: Path
    folders: Sequence[tuple[Path, Scope]] = ()
    trusted: Trusted = lambda path, content: False
    timeout: float = TIMEOUT
    enabled: bool = True
    common: Mapping[str, Any] = field(default_factory=dict)
    untrusted: list[Path] = field(default_factory=list)  # workspace hooks left out

    def scripts(self, name: str) -> list[HookScript]:
        if not self.enabled or name not in HOOK_NAMES:
            return []
        found = []
        for folder, scope in self.folders:
            path = folder / name
            try:
                if not path.is_file() or not os.access(path, os.X_OK):
                    continue
                # A workspace hook runs in the workspace: one that is a link out of it (or whose
                # folder is) would run another project's file here.
                outside = scope == "workspace" and not path.resolve().is_relative_to(
                    self.root.resolve()
                )
                if outside or (
                    scope == "workspace"
                    and not self.trusted(path, read_file(path, MAX_HOOK_BYTES, whole=True))
                ):
                    if path not in self.untrusted:
                        self.untrusted.append(path)
                    continue
            except OSError:
                continue
            found.append(HookScript(path, scope, self.root))
        return found

    def review(self) -> list[Path]:
        """Every workspace hook left out for want of trust, whichever event it is for (so the
        user hears of it at the start, not only once its event comes)."""
        for name in sorted(HOOK_NAMES):
            self.scripts(name)
        return self.untrusted

    async def run(self, name: str, data: Mapping[str, Any]) -> HookResult:
        scripts = self.scripts(name)
        if not scripts:
            return HookResult()
        payload = {
            "clineVersion": "pycline",
            "hookName": name,
            "timestamp": str(int(time.time() * 1000)),
            **self.common,
            **data,
        }
        stdin = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        outcomes = await asyncio.gather(*(self._one(s, stdin) for s in scripts))
        contexts = [c for _, c, _ in outcomes if c]
        errors = tuple(e for _, _, e in outcomes if e)
        return HookResult(
            cancel=any(c for c, _, _ in outcomes),
            context="\n\n".join(contexts)[:MAX_CONTEXT],
            errors=errors,
            ran=len(scripts),
        )

    async def _one(self, script: HookScript, stdin: bytes) -> tuple[bool, str, str]:
        """(cancel, context, error) for one script; any failure is an error that does not cancel."""
        where = f"{script.scope} hook {script.path}"
        try:
            proc = await asyncio.create_subprocess_exec(
                str(script.path),
                cwd=script.cwd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group: a timeout ends its children too
            )
        except OSError as exc:
            return False, "", f"{where} could not start: {exc.strerror}"
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), self.timeout)
        except TimeoutError:
            _kill(proc)
            await proc.wait()
            return False, "", f"{where} timed out after {self.timeout:.0f}s"
        finally:
            if proc.returncode is None:
                _kill(proc)
                with contextlib.suppress(ProcessLookupError):
                    await proc.wait()
        reply = _parse(out[:MAX_OUTPUT].decode("utf-8", errors="replace"))
        if reply is None:
            if proc.returncode == 0:
                return False, "", ""
            detail = err.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
            return False, "", f"{where} failed (exit {proc.returncode}) {detail[0]}".strip()
        cancel = reply.get("cancel") is True
        context = reply.get("contextModification")
        message = reply.get("errorMessage")
        return (
            cancel,
            context if isinstance(context, str) else "",
            f"{where}: {message}" if isinstance(message, str) and message else "",
        )


def _kill(proc: asyncio.subprocess.Process) -> None:
    signal_group(proc.pid, signal.SIGKILL)


def _parse(text: str) -> dict[str, Any] | None:
    """The JSON object printed, or the last `{…}` block in the output."""
    text = text.strip()
    if not text:
        return None
    with contextlib.suppress(json.JSONDecodeError):
        value = json.loads(text)
        return value if isinstance(value, dict) else None
    end = text.rfind("}")
    start = text.rfind("{", 0, end)
    while start != -1 and end != -1:
        with contextlib.suppress(json.JSONDecodeError):
            value = json.loads(text[start : end + 1])
            if isinstance(value, dict):
                return value
        start = text.rfind("{", 0, start)
    return None


def context_block(source: str, context: str, *, kind: str = "") -> str:
    """How a hook's context reaches the model."""
    if not context.strip():
        return ""
    attr = f' type="{kind}"' if kind else ""
    return f'<hook_context source="{source}"{attr}>\n{context.strip()}\n</hook_context>'


def context_type(context: str) -> str:
    """`PREFERENCE: …` on the first line names the context's type; else it is general."""
    first = context.strip().split("\n", 1)[0]
    head, sep, _ = first.partition(":")
    if sep and head and head.replace("_", "").isalpha() and head.isupper():
        return head.lower()
    return "general"
