"""The language servers of one session: started in the background for the languages the
workspace holds (`warm`) or on first use, kept warm, restarted after a crash, and never allowed
to hold up an edit.

`problems(path, text)` answers within the time budget or returns None: the server is missing,
still starting (it keeps starting in the background for the next edit), crashed, or hung. A
server that fails to start, or times out on several checks in a row, is killed; it is started
again on the next check, up to MAX_STARTS times a session. An edit waits for its server once,
for the budget (`ProblemCheck.wait`); later answers are kept in `late` for the next result.

Given an `install_home`, a server installed nowhere is installed there on first use (see
`provision`); that one-time wait is not counted in the budget, and its start and outcome are
told once each (`prepare`, `take_notices`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from pycline.editing.problems import LateProblems, Problem
from pycline.terminal.sandbox import SandboxPolicy
from pycline.workspace.diagnostics import provision
from pycline.workspace.diagnostics.servers import (
    DEFAULT_SERVERS,
    Launch,
    ServerFailed,
    ServerSpec,
    launch_for,
    spec_for,
)

if TYPE_CHECKING:
    from lsprotocol import types as lsp

    from pycline.workspace.diagnostics.connection import Connection

# The LSP client and its types (a second or more of imports) load on a thread when a server is
# first started, never on the way to the task's first request.
_CONNECTION = "pycline.workspace.diagnostics.connection"

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 1.2  # seconds an edit may wait for its server, from its approval
# The workspace scan that finds which languages to warm up stops after this many entries.
SCAN_LIMIT = 5_000
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "target", "dist", "build", "vendor"})
START_LIMIT = 60.0  # a server still not initialised after this is taken for hung
MAX_STARTS = 3
CLOSE_GRACE = 0.25  # seconds a server gets to shut down when the session ends
MAX_TIMEOUTS = 3  # checks in a row without an answer before a running server is restarted
WORKSPACE_LIMIT = 50


@dataclass(slots=True)
class _Slot:
    spec: ServerSpec
    launch: Launch | None  # None until pycline has installed the server
    installing: asyncio.Task[Launch] | None = None
    install_failed: bool = False
    connection: Connection | None = None
    starting: asyncio.Task[Connection] | None = None
    starts: int = 0
    timeouts: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    last_error: str = ""


class LanguageServers:
    def __init__(
        self,
        root: Path,
        *,
        commands: Mapping[str, Sequence[str]] | None = None,
        budget: float = DEFAULT_BUDGET,
        servers: Sequence[ServerSpec] = DEFAULT_SERVERS,
        settle: float | None = None,
        install_home: Path | None = None,
        sandbox: SandboxPolicy | None = None,
        cold_wait: float | None = None,
    ) -> None:
        self.root = root
        self.sandbox = sandbox  # the commands' sandbox: servers run in it too
        self.commands = dict(commands or {})
        self.budget = budget
        # How long an edit waits for a server not yet started (None: the budget); 0 leaves the
        # whole check of such an edit to the background.
        self.cold_wait = budget if cold_wait is None else cold_wait
        self.servers = tuple(servers)
        self.settle = settle
        self.install_home = install_home
        self._slots: dict[str, _Slot] = {}
        self._notices: list[str] = []
        self._closed = False
        self.late = LateProblems()  # edits' checks that outlived the edit
        self._warming: asyncio.Task[None] | None = None

    def warm(self) -> None:
        """Start, in the background, the installed servers of the languages the workspace
        holds, so the first edit of a language finds its server ready (or nearly)."""
        if self._closed or self._warming is not None:
            return
        self._warming = asyncio.create_task(self._warm())

    async def warmed(self) -> None:
        """Wait until the warm-up's servers have started (or failed to)."""
        if self._warming is not None:
            await asyncio.shield(self._warming)

    async def _warm(self) -> None:
        suffixes = await asyncio.to_thread(suffixes_present, self.root)
        slots: dict[str, _Slot] = {}
        for suffix in sorted(suffixes):
            slot = self._slot(Path(f"file{suffix}"))
            if slot is not None and slot.launch is not None:
                slots[slot.spec.language] = slot
        await asyncio.gather(*(self._ready(slot) for slot in slots.values()))

    def handles(self, path: Path) -> bool:
        return self._slot(path) is not None

    def prepare(self, path: Path) -> str | None:
        """Start installing the server for `path` if it must be installed first; the notice to
        show the user when that starts now (None otherwise)."""
        slot = self._slot(path)
        if self._closed or slot is None or slot.launch is not None:
            return None
        if slot.installing or slot.install_failed:
            return None
        self._start_install(slot)
        assert self.install_home is not None  # a slot without a launch has one
        where = _tilde(provision.install_root(self.install_home))
        server = provision.INSTALLABLE[slot.spec.language]
        return (
            f"Installing {server.label} into {where} for {server.title} checks "
            "(once; installLanguageServers: false turns this off)…"
        )

    def wait_for(self, path: Path) -> float:
        """How long an edit of `path` waits for its server: the budget once it runs and has
        answered once (its first answer is a cold load of the project, seconds long)."""
        slot = self._slot(path)
        connection = slot.connection if slot is not None else None
        warm = connection is not None and connection.alive and bool(connection.published)
        return self.budget if warm else self.cold_wait

    def take_notices(self) -> list[str]:
        """What happened to installs since the last call (each said once)."""
        notices, self._notices = self._notices, []
        return notices

    async def problems(
        self, path: Path, text: str, *, limit: float | None = None
    ) -> list[Problem] | None:
        """The errors the server finds in `text` as the content of `path` within `limit`
        seconds (None: the budget), or None."""
        slot = self._slot(path)
        if slot is None or self._closed:
            return None
        if slot.launch is None and not await self._installed(slot):
            return None
        heard = slot.connection.heard if slot.connection is not None else None
        try:
            async with asyncio.timeout(self.budget if limit is None else limit):
                async with slot.lock:
                    found = await self._check_once_more_after_a_crash(slot, path, text)
        except TimeoutError:
            await self._timed_out(slot, heard)
            return None
        if found is None:
            return None
        slot.timeouts = 0
        from pycline.workspace.diagnostics.connection import errors_only  # loaded by the start

        return [_problem(slot.spec, d) for d in errors_only(found)]

    async def _check_once_more_after_a_crash(
        self, slot: _Slot, path: Path, text: str
    ) -> list[lsp.Diagnostic] | None:
        # A server that died since the last check may not be known dead yet (its exit is
        # noticed a moment later): the check then fails, and a restarted server gets a second go.
        for attempt in range(2):
            connection = await self._ready(slot)
            if connection is None:
                return None
            try:
                return await self._check(connection, path, text)
            except ServerFailed as exc:
                slot.last_error = str(exc)
                log.info("language server failed: %s", exc)
                if attempt or connection.alive:
                    return None
        return None

    async def _check(self, connection: Connection, path: Path, text: str) -> list[lsp.Diagnostic]:
        known = connection.answered(path, text)
        if known is not None:
            return known  # this very text was checked last time (the previous edit's result)
        language_id = connection.launch.spec.language_ids[path.suffix.lower()]
        version = connection.sync(path, text, language_id)
        return await connection.diagnostics(path, version)

    def _slot(self, path: Path) -> _Slot | None:
        """One server per language (TypeScript's serves .js too); None when there is none."""
        spec = spec_for(path, self.servers)
        if spec is None:
            return None
        if (slot := self._slots.get(spec.language)) is not None:
            return slot  # its command was resolved on first use: no PATH search per edit
        found = locate(path, self.commands, self.install_home, self.servers)
        if found is None:
            return None
        return self._slots.setdefault(spec.language, _Slot(*found))

    def _start_install(self, slot: _Slot) -> asyncio.Task[Launch]:
        if slot.installing is None:
            slot.installing = asyncio.create_task(self._install(slot.spec))
        return slot.installing

    async def _install(self, spec: ServerSpec) -> Launch:
        assert self.install_home is not None
        done = await provision.install(self.install_home, spec.language)
        return Launch(spec, done.command, done.init_options)

    async def _installed(self, slot: _Slot) -> bool:
        """Wait for the server's install (outside the check's budget); False when it failed."""
        if slot.install_failed:
            return False
        installing = self._start_install(slot)
        try:
            # Shielded: a caller that gives up (an `@problems` budget) leaves it installing.
            launch = await asyncio.shield(installing)
        except provision.ProvisionFailed as exc:
            if not slot.install_failed:
                slot.install_failed, slot.last_error = True, str(exc)
                title = provision.INSTALLABLE[slot.spec.language].title
                self._notices.append(f"{title} checks are off: {exc}")
            return False
        if slot.launch is None:
            slot.launch = launch
            self._notices.append(f"{provision.INSTALLABLE[slot.spec.language].label} installed.")
        return True

    async def _ready(self, slot: _Slot) -> Connection | None:
        if slot.connection is not None and slot.connection.alive:
            return slot.connection
        if slot.connection is not None:  # it died: restart it
            dead, slot.connection = slot.connection, None
            slot.last_error = dead.stderr_tail() or "the server stopped"
            await dead.kill()
        if slot.starting is None:
            if slot.starts >= MAX_STARTS or slot.launch is None:
                return None
            slot.starts += 1
            slot.starting = asyncio.create_task(self._start(slot.launch))
        starting = slot.starting  # several checks (and the warm-up) may wait on the one start
        try:
            # Shielded: a check that runs out of time leaves the start going for the next one.
            slot.connection = await asyncio.shield(starting)
        except ServerFailed as exc:
            slot.last_error = str(exc)
            return None
        finally:
            if slot.starting is starting and starting.done():
                slot.starting = None
        return slot.connection

    async def _start(self, launch: Launch) -> Connection:
        # What pycline installed lives in its home, which the sandbox covers.
        reveal = [provision.install_root(self.install_home)] if self.install_home else []
        module = await _import_aside(_CONNECTION)
        connection: Connection = module.Connection(
            launch, self.root, sandbox=self.sandbox, reveal=reveal, **_settle(self.settle)
        )
        try:
            async with asyncio.timeout(START_LIMIT):
                await connection.start()
        except (TimeoutError, ServerFailed) as exc:
            await connection.kill()
            raise ServerFailed(str(exc) or f"{launch.command[0]} did not start") from exc
        except asyncio.CancelledError:
            await connection.kill()
            raise
        return connection

    async def _timed_out(self, slot: _Slot, heard: int | None) -> None:
        if slot.connection is None:
            return  # still starting: that has its own limit
        if heard is None or slot.connection.heard != heard:
            return  # it spoke during the check: busy (a cold project load), not hung
        slot.timeouts += 1
        if slot.timeouts >= MAX_TIMEOUTS:
            hung, slot.connection = slot.connection, None
            slot.timeouts = 0
            slot.last_error = "the server stopped answering"
            await hung.kill()

    async def check_files(self, paths: Sequence[Path]) -> None:
        """Have the servers look at these files as they are on disk, all within one budget
        (for `@problems`: the files being worked on, not only those edited in this task)."""
        from pycline.editing import textfile
        from pycline.errors import ToolError

        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.budget):
                for path in paths:
                    if self._slot(path) is None:
                        continue
                    try:
                        text = textfile.read(path).text
                    except ToolError:
                        continue
                    await self.problems(path, text)

    def running(self) -> dict[str, int]:
        """The process id of each language's running server."""
        return {
            language: pid
            for language, slot in self._slots.items()
            if slot.connection is not None
            and slot.connection.alive
            and (pid := slot.connection.pid) is not None
        }

    def last_error(self, language: str) -> str:
        slot = self._slots.get(language)
        return slot.last_error if slot else ""

    def workspace_problems(self) -> str:
        """What the running servers currently report, for `@problems`."""
        lines: list[str] = []
        for slot in self._slots.values():
            connection = slot.connection
            if connection is None:
                continue
            for uri, (_, found) in sorted(connection.published.items()):
                shown = [d for d in found if d.severity in _SHOWN]
                if not shown:
                    continue
                lines.append(_display(uri, self.root))
                for d in shown[:WORKSPACE_LIMIT]:
                    level = "Error" if d.severity in (None, _ERROR) else ("Warning")
                    lines.append(f"- [{level}] Line {d.range.start.line + 1}: {d.message}")
        return "\n".join(lines)

    async def close(self) -> None:
        self._closed = True
        await self.late.cancel()
        if self._warming is not None:
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming
        for slot in self._slots.values():
            if slot.installing is not None:
                slot.installing.cancel()
                with contextlib.suppress(asyncio.CancelledError, provision.ProvisionFailed):
                    await slot.installing
            if slot.starting is not None:
                slot.starting.cancel()
                with contextlib.suppress(asyncio.CancelledError, ServerFailed):
                    await slot.starting
            if slot.connection is not None:
                # A server keeps nothing of the user's: a short grace, then the kill.
                await slot.connection.close(grace=CLOSE_GRACE)
        self._slots.clear()


_ERROR, _WARNING = 1, 2  # LSP's DiagnosticSeverity values
_SHOWN = (None, _ERROR, _WARNING)


def locate(
    path: Path,
    commands: Mapping[str, Sequence[str]],
    install_home: Path | None,
    servers: Sequence[ServerSpec] = DEFAULT_SERVERS,
) -> tuple[ServerSpec, Launch | None] | None:
    """The server for `path`: how to start it, or no launch yet when pycline may install it
    into `install_home`; None when there is no server for it (none, turned off, not found).
    A language the user configured (or turned off) is theirs: nothing is installed for it."""
    spec = spec_for(path, servers)
    if spec is None:
        return None
    launch = launch_for(path, commands, servers)
    if launch is not None:
        return spec, launch
    if install_home is None or spec.language in commands:
        return None
    if spec.language not in provision.INSTALLABLE:
        return None
    done = provision.installed(install_home, spec.language)
    return spec, Launch(spec, done.command, done.init_options) if done else None


async def _import_aside(name: str) -> ModuleType:
    """Import `name` on a daemon thread: the loop goes on meanwhile, and a process that ends
    before the import is done does not wait for it (the default executor's threads are joined
    at exit)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[ModuleType] = loop.create_future()

    def settle(module: ModuleType | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            assert module is not None
            done.set_result(module)

    def work() -> None:
        try:
            module, error = importlib.import_module(name), None
        except Exception as exc:  # handed to the awaiting task
            module, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, module, error)

    threading.Thread(target=work, name="lsp-import", daemon=True).start()
    return await done


def suffixes_present(root: Path, limit: int = SCAN_LIMIT) -> set[str]:
    """The file suffixes found in the workspace (lower-cased), from a scan of at most `limit`
    entries, shallow folders first, hidden and dependency folders left out."""
    found: set[str] = set()
    folders = [root]
    seen = 0
    while folders and seen < limit:
        folder = folders.pop(0)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in _SKIPPED_DIRS:
                        folders.append(Path(entry.path))
                elif (suffix := os.path.splitext(entry.name)[1]) != "":
                    found.add(suffix.lower())
            except OSError:
                continue
    return found


def _settle(settle: float | None) -> dict[str, float]:
    return {} if settle is None else {"settle": settle}


def _problem(spec: ServerSpec, diagnostic: lsp.Diagnostic) -> Problem:
    source = diagnostic.source or spec.language
    return Problem(source, diagnostic.range.start.line + 1, diagnostic.message)


def _tilde(path: Path) -> str:
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def _display(uri: str, root: Path) -> str:
    path = Path(unquote(urlparse(uri).path))
    with contextlib.suppress(ValueError):
        return path.relative_to(root).as_posix()
    return str(path)
