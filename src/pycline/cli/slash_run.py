"""Running a slash command typed at an interactive prompt.

`run` answers with what the prompt should do next (`Outcome`); commands that only show something
print it and answer `Handled`, so the prompt asks again. A command never reaches the model unless
it is one the agent core expands (Cline's commands) or a workflow.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, assert_never

from pycline.app.services import slash_commands
from pycline.cli import slash
from pycline.cli.style import style
from pycline.commands import Compact, SetGoal, SetModel, StopProcess
from pycline.errors import PyclineError

if TYPE_CHECKING:
    from pycline.app.sessions.session import Session, TaskHandle
    from pycline.app.settings.config import ModelConfig
    from pycline.events import Usage

Where = Literal["task", "question"]  # the Task> prompt between tasks, or a question in a task


@dataclass(frozen=True, slots=True)
class Handled:
    pass


@dataclass(frozen=True, slots=True)
class Quit:
    pass


@dataclass(frozen=True, slots=True)
class Send:
    """Text for the model: a new task at the Task> prompt, the answer at a question."""

    text: str


@dataclass(frozen=True, slots=True)
class SetMode:
    mode: Literal["plan", "act"]


@dataclass(frozen=True, slots=True)
class Resume:
    task_id: str  # "" for the latest task here


@dataclass(frozen=True, slots=True)
class NewTask:
    pass


Outcome = Handled | Quit | Send | SetMode | Resume | NewTask


@dataclass
class SlashState:
    """What the commands act on; the session keeps it current."""

    home: Path
    cwd: Path
    session: Session
    say: Callable[[str], None] = print
    handle: TaskHandle | None = None  # the running task, or the last one
    usage: Usage | None = None  # the last request's numbers
    # Models chosen with /model for this session (None: as configured).
    act: ModelConfig | None = None
    plan: ModelConfig | None = None
    approve_all_inside: bool = False  # `pycline --yes`
    goal: str = ""  # `/verify CMD`: the check the session's tasks must pass to complete
    auto: bool = False  # `pycline --auto`: auto (sandboxed) mode

    @property
    def task_id(self) -> str | None:
        return self.handle.id if self.handle is not None else None

    @property
    def running(self) -> bool:
        return self.handle is not None and not self.handle.done

    def commands(self) -> list[slash_commands.SlashCommand]:
        return slash_commands.registry(self.cwd, self.home)


async def run(state: SlashState, line: str, where: Where) -> Outcome | None:
    """None: the line is not a slash command (an ordinary message)."""
    parts = slash_commands.split(line)
    if parts is None:
        return None
    name, rest = parts
    commands = state.commands()
    command = slash_commands.find(commands, name)
    if command is None:
        near = slash_commands.nearest(commands, name)
        hint = f" Did you mean /{near}?" if near else ""
        state.say(style(f"Unknown command /{name}.{hint} (/help lists them)", "yellow"))
        return Handled()
    match command.source:
        case "workflow" | "cline":
            if name == "smol":
                return await _compact(state)
            return Send(line.strip())  # the agent core turns these into instructions
        case "pycline":
            return await _builtin(state, name, rest, where)
        case _:
            assert_never(command.source)


async def _builtin(state: SlashState, name: str, rest: str, where: Where) -> Outcome:
    if name == "help":
        for text in slash.help_text(state.commands()):
            state.say(text)
        return Handled()
    if name == "exit":
        return Quit()
    if name in ("plan", "act"):
        return SetMode("plan" if name == "plan" else "act")
    if name in ("new", "clear"):
        return NewTask()
    if name == "resume":
        if where == "question":
            state.say(style("Finish or stop (Ctrl-C) this task first, then /resume.", "yellow"))
            return Handled()
        return Resume(rest)
    if name == "compact":
        return await _compact(state)
    handlers: dict[str, Callable[[SlashState, str], Awaitable[None]]] = {
        "cost": _cost,
        "undo": _undo,
        "diff": _diff,
        "history": _history,
        "ps": _ps,
        "stop": _stop,
        "settings": _settings,
        "model": _model,
        "verify": _verify,
    }
    if name == "undo" and where == "question":
        state.say(style("Stop this task first (Ctrl-C), then /undo.", "yellow"))
        return Handled()
    try:
        await handlers[name](state, rest)
    except PyclineError as exc:
        state.say(style(str(exc), "yellow"))
    return Handled()


async def _compact(state: SlashState) -> Outcome:
    if state.handle is None or not state.running:
        state.say(style("Nothing to condense here.", "yellow"))
    else:
        try:
            await state.handle.send(Compact())
        except PyclineError as exc:
            state.say(style(str(exc), "yellow"))
    return Handled()


async def _cost(state: SlashState, _: str) -> None:
    u = state.usage
    if u is None:
        state.say("No requests yet.")
        return
    state.say(
        f"Task ${u.task_cost:.4f} · last request ↑{u.input_tokens:,} ↓{u.output_tokens:,}"
        f" ${u.cost:.4f} · context {u.context_tokens:,}/{u.context_window:,}"
    )


def _need_task(state: SlashState) -> str:
    if state.task_id is None:
        raise PyclineError("No task yet in this session.")
    return state.task_id


async def _diff(state: SlashState, _: str) -> None:
    from pycline.cli.checkpoints_cmd import show_diff

    await show_diff(state.home, _need_task(state))


async def _undo(state: SlashState, _: str) -> None:
    from pycline.cli.checkpoints_cmd import undo_last_step

    await undo_last_step(state.home, _need_task(state))


async def _history(state: SlashState, _: str) -> None:
    from pycline.app.services.tasks import Tasks
    from pycline.cli.tasks_cmd import history_header, record_line

    records = Tasks(state.home).records(workspace=state.cwd, limit=10)
    if not records:
        state.say("No tasks in this folder yet.")
    else:
        state.say(style(history_header(folders=False), "dim"))
    for record in records:
        state.say(record_line(record, folders=False))
    if records:
        state.say(style("/resume ID continues one.", "dim"))


async def _ps(state: SlashState, _: str) -> None:
    infos = state.handle.processes() if state.handle is not None and state.running else []
    if not infos:
        state.say("No background processes.")
    for info in infos:
        status = "running" if info.running else f"exited ({info.exit_code})"
        state.say(f"  {info.id}  {status:<12} {info.command}")


async def _stop(state: SlashState, rest: str) -> None:
    if not rest.isdigit():
        state.say("Usage: /stop N (see /ps)")
        return
    if state.handle is None or not state.running:
        state.say(f"No background process {rest}.")
        return
    try:
        await state.handle.send(StopProcess(int(rest)))
    except PyclineError as exc:
        state.say(str(exc))
    else:
        state.say(f"Stopped process {rest}.")


async def _verify(state: SlashState, rest: str) -> None:
    """`/verify CMD`: this task (and the session's next ones) completes only when CMD exits 0;
    `/verify off` removes the goal; `/verify` alone shows it."""
    command = rest.strip()
    if not command:
        shown = f"`{state.goal}`" if state.goal else "none (/verify CMD sets one)"
        state.say(f"Goal check: {shown}")
        return
    state.goal = "" if command == "off" else command
    if state.handle is not None and state.running:
        await state.handle.send(SetGoal(state.goal))
    if state.goal:
        state.say(f"Completion is verified by `{state.goal}` (run in the sandbox, exit 0 passes).")
    else:
        state.say("No goal check: the model's completion is taken as it is.")


async def _settings(state: SlashState, _: str) -> None:
    from pycline.app.settings.config import load, settings_path

    settings = load(state.home, state.cwd)
    act = state.act or state.session.config
    plan = state.plan or act
    state.say(f"Act model:  {act.provider}/{act.model}")
    state.say(f"Plan model: {plan.provider}/{plan.model}")
    approve = settings.auto_approve.model_dump(by_alias=True)
    on = [k for k, v in approve.items() if v is True]
    state.say(f"Auto-approved: {', '.join(on) or 'nothing'}")
    state.say(f"Settings: {settings_path(state.home)} and {state.cwd}/.pycline/settings.json")
    state.say(style("Change with `pycline config set KEY VALUE`; /model switches models.", "dim"))


async def _model(state: SlashState, rest: str) -> None:
    """`/model [plan|act] [PROVIDER/]MODEL`: for this session's next requests and tasks."""
    words = rest.split()
    which: Literal["plan", "act", "both"] = "both"
    if words and words[0] in ("plan", "act"):
        which = "plan" if words.pop(0) == "plan" else "act"
    act = state.act or state.session.config
    if not words:
        plan = state.plan or act
        state.say(f"Act: {act.provider}/{act.model}")
        state.say(f"Plan: {plan.provider}/{plan.model}")
        state.say(style("Usage: /model [plan|act] [PROVIDER/]MODEL", "dim"))
        return
    base = (state.plan or act) if which == "plan" else act
    chosen = state.session.model_for(words[0], base)
    if which in ("act", "both"):
        state.plan = state.plan or (act if which == "act" else None)
        state.act = chosen
    if which in ("plan", "both"):
        state.plan = chosen
    if state.running and state.handle is not None:
        await state.handle.send(SetModel(words[0], which))
    label = {"both": "Plan and Act", "act": "Act", "plan": "Plan"}[which]
    state.say(style(f"{label} now use {chosen.provider}/{chosen.model}.", "cyan"))
