"""Checkpoint speed and disk use on a synthetic 50,000-file repository, against Cline's approach.

Run: .venv/bin/python bench/checkpoints.py [--files N] [--turns N --latency S]
The workspace has a user `.git`, nested repositories with history, large binaries (over the 5 MiB
limit) and a `node_modules`. "Cline's approach" is a fresh shadow repo filled by `git add .` over
the whole tree (loose objects), with and without our exclude list.

The last part runs a scripted task through the real loop on the same tree (each turn edits a file;
the model takes `--latency` seconds per reply) twice: with checkpoints made while the next reply
streams, and made in line (the loop waits for each commit before its next request). It reports the
wall time per turn and the time the loop spent waiting for checkpoints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pycline.checkpoints import ShadowGit
from pycline.checkpoints.excludes import DEFAULT_EXCLUDES
from pycline.core.checkpointing import TaskCheckpoints
from pycline.events import Answer, Event, Question
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import StreamChunk, UsageChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply

T = TypeVar("T")
MiB = 1024 * 1024
# The third one is inside a nested repository.
_CHANGED = ("src/mod0/pkg1/file1.py", "src/mod3/pkg71/file5.py", "packages/nested0/pkg0/file0.py")
_WORDS = [
    "def",
    "class",
    "return",
    "import",
    "self",
    "value",
    "result",
    "data",
    "item",
    "index",
    "error",
    "async",
    "await",
]


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="bench@example.com",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="bench@example.com",
    )
    base.update(env or {})
    subprocess.run(["git", *args], cwd=cwd, env=base, check=True, capture_output=True)


def build_workspace(root: Path, files: int) -> dict[str, int]:
    rng = random.Random(42)
    root.mkdir()
    _git(root, "init", "-q")
    nested_roots = [root / f"packages/nested{i}" for i in range(5)]
    written = 0
    per_dir = 100
    for d in range(files // per_dir):
        # Every tenth folder lives inside one of the nested repositories.
        base = nested_roots[(d // 10) % 5] if d % 10 == 0 else root / f"src/mod{d // 20}"
        folder = base / f"pkg{d}"
        folder.mkdir(parents=True, exist_ok=True)
        for f in range(per_dir):
            lines = (
                " ".join(rng.choices(_WORDS, k=10)) + f" {d}.{f}.{n}\n"
                for n in range(rng.randint(10, 60))
            )
            (folder / f"file{f}.py").write_text("".join(lines), encoding="utf-8")
            written += 1
    for nested in nested_roots:
        _git(nested, "init", "-q")
        _git(nested, "add", "-A")
        _git(nested, "commit", "-q", "-m", "nested")
    deps = root / "node_modules"
    for d in range(50):
        (deps / f"dep{d}").mkdir(parents=True)
        for f in range(100):
            (deps / f"dep{d}" / f"index{f}.js").write_text("module.exports = 1\n", encoding="utf-8")
    (root / "assets").mkdir()
    for i in range(4):
        (root / "assets" / f"blob{i}.bin").write_bytes(os.urandom(8 * MiB))
    return {"files": written, "nested_repos": len(nested_roots), "node_modules": 5000, "large": 4}


def disk_usage(path: Path) -> int:
    total = 0
    for dirpath, _dirs, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
    return total


async def timed(
    label: str, rows: list[tuple[str, str]], call: Callable[[], Awaitable[T]], sg: ShadowGit
) -> T:
    spawned = sg.git_processes
    start = time.perf_counter()
    result = await call()
    took = time.perf_counter() - start
    rows.append((label, f"{took:8.2f} s  ({sg.git_processes - spawned} git processes)"))
    return result


def raw_git_rounds(ws: Path, shadow: Path, excludes: Path, rounds: int) -> tuple[float, float]:
    """Plain git in a shadow git dir over the same tree with the same excludes: the medians of
    `git add -A && git commit` after a 3-file change, and of `git diff <first>`."""
    env = {"GIT_DIR": str(shadow), "GIT_WORK_TREE": str(ws)}
    _git(ws, "init", "-q", env=env)
    (shadow / "info").mkdir(exist_ok=True)
    (shadow / "info" / "exclude").write_bytes(excludes.read_bytes())
    settings = (
        ("core.untrackedCache", "true"),
        ("feature.manyFiles", "true"),
        ("gc.auto", "0"),  # no detached gc racing the clean-up
        ("maintenance.auto", "false"),
    )
    for key, value in settings:
        _git(ws, "config", key, value, env=env)
    _git(ws, "add", "-A", env=env)
    _git(ws, "commit", "-q", "-m", "first", env=env)
    first = (
        subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ws, env={**os.environ, **env}, capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    commits, diffs = [], []
    for n in range(rounds):
        for rel in _CHANGED:
            (ws / rel).write_text(f"raw round {n}\n", encoding="utf-8")
        start = time.perf_counter()
        _git(ws, "add", "-A", env=env)
        _git(ws, "commit", "-q", "-m", f"round {n}", env=env)
        commits.append(time.perf_counter() - start)
        start = time.perf_counter()
        _git(ws, "diff", first, env=env)
        diffs.append(time.perf_counter() - start)
    return statistics.median(commits), statistics.median(diffs)


async def our_rounds(ws: Path, sg: ShadowGit, first: str, rounds: int) -> tuple[float, float]:
    commits, diffs = [], []
    for n in range(rounds):
        for rel in _CHANGED:
            (ws / rel).write_text(f"our round {n}\n", encoding="utf-8")
        start = time.perf_counter()
        await sg.commit(f"round {n}")
        commits.append(time.perf_counter() - start)
        start = time.perf_counter()
        await sg.diff(first)
        diffs.append(time.perf_counter() - start)
    return statistics.median(commits), statistics.median(diffs)


def baseline(ws: Path, shadow: Path, *, excludes: bool) -> tuple[float, int, float]:
    """Cline-style: a fresh shadow git dir, `git add .` of the whole tree, one commit; then a
    second commit after touching 3 files. Returns (first s, disk bytes, second s)."""
    env = {"GIT_DIR": str(shadow), "GIT_WORK_TREE": str(ws)}
    start = time.perf_counter()
    _git(ws, "init", "-q", env=env)
    if excludes:
        (shadow / "info").mkdir(exist_ok=True)
        (shadow / "info" / "exclude").write_text("\n".join(DEFAULT_EXCLUDES) + "\n")
    # Cline renames nested .git folders first; we do not, so git records gitlinks instead.
    _git(ws, "add", ".", env=env)
    _git(ws, "commit", "-q", "-m", "baseline", env=env)
    first = time.perf_counter() - start
    used = disk_usage(shadow)
    for rel in _CHANGED:
        (ws / rel).write_text(f"baseline edit {excludes}\n", encoding="utf-8")
    start = time.perf_counter()
    _git(ws, "add", ".", env=env)
    _git(ws, "commit", "-q", "-m", "second", env=env)
    return first, used, time.perf_counter() - start


class _SlowModel(ScriptedProvider):
    """A scripted model that takes `latency` seconds before each reply (a model's think time)."""

    latency = 0.0

    async def stream(
        self, system: str, messages: Sequence[Message], *, tools: Sequence[ToolDefinition] = ()
    ) -> AsyncIterator[StreamChunk]:
        await asyncio.sleep(self.latency)
        async with contextlib.aclosing(super().stream(system, messages, tools=tools)) as chunks:
            async for chunk in chunks:
                yield chunk


class _Host:
    def say(self, event: Event) -> None:
        pass

    async def ask(self, question: Question) -> Answer:
        return Answer(question.options[0].id)


class _InLine(TaskCheckpoints):
    """Checkpoints as they were made before: the loop waits for each commit where it starts."""

    async def _start(self, *args: object, **kwargs: object) -> None:
        await super()._start(*args, **kwargs)  # type: ignore[arg-type]
        await self.settle()


class _Waits:
    """Time the task loop spends inside the checkpoint hook (waiting for commits or not); a call
    made from inside another (`settle` from `after_turn`) counts once, for the outer one."""

    def __init__(self, hook: TaskCheckpoints) -> None:
        self.seconds = dict.fromkeys(("before_run", "after_turn", "settle", "close"), 0.0)
        self._depth = 0
        for name in self.seconds:
            setattr(hook, name, self._timed(name, getattr(hook, name)))

    def _timed(
        self, name: str, call: Callable[..., Awaitable[None]]
    ) -> Callable[..., Awaitable[None]]:
        async def timed(*args: object) -> None:
            start = time.perf_counter()
            self._depth += 1
            try:
                await call(*args)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.seconds[name] += time.perf_counter() - start

        return timed


async def loop_rounds(
    ws: Path, home: Path, turns: int, latency: float, *, in_line: bool
) -> tuple[float, float, float]:
    """For a scripted task: wall s per turn, s per turn the loop waited for checkpoints before
    its end, s it waited for the last one at its end (which no next request can hide)."""
    from pycline.app.builders import wiring
    from pycline.app.live.assembly import TaskParts, assemble
    from pycline.core.approval import AutoApprove
    from pycline.core.modes import ModeProfile
    from pycline.core.task import TaskSettings
    from pycline.storage.records import TaskRecord
    from pycline.storage.task_store import TaskStore
    from pycline.testing import default_capabilities
    from pycline.workspace.paths import Workspace

    usage = UsageChunk(input_tokens=1_000, output_tokens=100)
    texts = [
        f"<write_to_file>\n<path>{_CHANGED[i % 3]}</path>\n<content>\nturn {i} {in_line}\n"
        "</content>\n</write_to_file>"
        for i in range(turns)
    ] + ["<attempt_completion>\n<result>done</result>\n</attempt_completion>"]
    model = _SlowModel([ScriptedReply(t, usage=usage) for t in texts], chunk_size=64)
    model.latency = latency
    hook = (_InLine if in_line else TaskCheckpoints)(ShadowGit(ws, home))
    waits = _Waits(hook)
    tools = wiring.default_tools(browser=False)
    folder = TaskStore(home).create()
    settings = TaskSettings(auto_approve=AutoApprove(yolo=True))
    parts = TaskParts(
        folder=folder,
        record=TaskRecord(id=folder.id, ts=0.0, task="edit", workspace=str(ws)),
        workspace=Workspace.at(ws),
        profiles={"act": ModeProfile(model, tools, wiring.system_prompt(tools, ws))},
        settings=settings,
        capabilities=[hook, *default_capabilities(ws, settings=settings)],
    )
    task = assemble(parts, _Host())
    start = time.perf_counter()
    assert (await task.start("edit three files again and again")).completed
    wall = time.perf_counter() - start
    during = sum(v for k, v in waits.seconds.items() if k != "close")
    return wall / (turns + 1), during / (turns + 1), waits.seconds["close"]


async def main(files: int, rounds: int, turns: int, latency: float) -> None:
    with tempfile.TemporaryDirectory(prefix="pycline-bench-") as tmp:
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        start = time.perf_counter()
        info = build_workspace(ws, files)
        print(
            f"workspace: {info['files']} source files ({info['nested_repos']} nested repos), "
            f"{info['node_modules']} node_modules files, {info['large']} x 8 MiB binaries; "
            f"built in {time.perf_counter() - start:.1f} s\n"
        )
        rows: list[tuple[str, str]] = []
        sg = ShadowGit(ws, home)
        await timed("init", rows, sg.init, sg)
        first = await timed("first checkpoint", rows, lambda: sg.commit("first"), sg)
        rows.append(("  shadow repo disk after first", f"{disk_usage(sg.git_dir) / MiB:8.1f} MiB"))
        await timed("checkpoint, nothing changed", rows, lambda: sg.commit("idle"), sg)
        for rel in _CHANGED:
            (ws / rel).write_text("changed\n", encoding="utf-8")
        await timed("checkpoint after 3-file change", rows, lambda: sg.commit("three"), sg)
        changes = await timed("diff first -> working tree", rows, lambda: sg.diff(first), sg)
        rows.append(("  files changed", f"{len(changes):8d}"))
        result = await timed("restore to first", rows, lambda: sg.restore(first), sg)
        rows.append(("  files written / deleted", f"{result.written:5d} / {result.deleted}"))

        ours = await our_rounds(ws, sg, first, rounds)
        raw = await asyncio.to_thread(
            raw_git_rounds, ws, Path(tmp) / "raw", sg.git_dir / "info" / "exclude", rounds
        )
        for label, mine, raw_label, theirs in (
            ("checkpoint after a 3-file change", ours[0], "git add -A && git commit", raw[0]),
            ("diff checkpoint -> working tree", ours[1], "git diff <first>", raw[1]),
        ):
            rows.append((f"{label}, median of {rounds}", f"{mine * 1000:6.0f} ms"))
            rows.append(
                (f"  raw {raw_label}", f"{theirs * 1000:6.0f} ms  ratio {mine / theirs:.2f}x")
            )
        await timed("gc", rows, sg.gc, sg)
        rows.append(("  shadow repo disk after gc", f"{disk_usage(sg.git_dir) / MiB:8.1f} MiB"))

        for excludes in (True, False):
            shadow = Path(tmp) / f"baseline-{excludes}"
            first_s, used, second_s = await asyncio.to_thread(
                baseline, ws, shadow, excludes=excludes
            )
            name = "our exclude list" if excludes else "no excludes"
            rows.append((f"Cline-style git add . ({name})", f"{first_s:8.2f} s"))
            rows.append(("  its disk", f"{used / MiB:8.1f} MiB"))
            rows.append(("  its checkpoint after 3-file change", f"{second_s:8.2f} s"))

        if turns:
            for in_line in (True, False):
                per_turn, waited, end = await loop_rounds(ws, home, turns, latency, in_line=in_line)
                how = "in line (before)" if in_line else "while the next reply streams"
                rows.append((f"task of {turns} edits, {latency:g} s model, checkpoints {how}",
                             f"{per_turn * 1000:6.0f} ms/turn"))  # fmt: skip
                rows.append(("  loop waiting for checkpoints", f"{waited * 1000:6.0f} ms/turn"))
                rows.append(("  waiting for the last one at the end", f"{end * 1000:6.0f} ms"))

        width = max(len(label) for label, _ in rows)
        print(f"{'operation'.ljust(width)} | result")
        print(f"{'-' * width}-+-{'-' * 12}")
        for label, value in rows:
            print(f"{label.ljust(width)} | {value}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--turns", type=int, default=8, help="edits in the task-loop part (0: skip)"
    )
    parser.add_argument("--latency", type=float, default=0.5, help="the model's seconds per reply")
    args = parser.parse_args()
    asyncio.run(main(args.files, args.rounds, args.turns, args.latency))
