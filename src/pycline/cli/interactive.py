"""The interactive terminal session: streamed text, proposals with diffs, y/n/feedback prompts."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from pycline.app.builders.task_size import check_task_size
from pycline.app.services import slash_commands
from pycline.app.services.notices import first_time
from pycline.app.services.text import for_terminal
from pycline.cli import notices, render, slash_run
from pycline.cli.common import overrides_of, refuse_auto, workspace_dir
from pycline.cli.editor import edit_text
from pycline.cli.interrupts import Interrupts
from pycline.cli.lines import ESC_ESC, LineReader
from pycline.cli.rewind import offer_rewind
from pycline.cli.screen import SESSION, Screen, budget_line
from pycline.cli.style import colour_diff, style
from pycline.cli.typeahead import TypeAhead
from pycline.cli.waiting import Waiting
from pycline.errors import PyclineError
from pycline.events import (
    ACCEPT,
    ALWAYS_ALLOW,
    APPROVE,
    CONTINUE,
    DENY,
    RAISE_CAP,
    RETRY,
    STOP,
    SWITCH_TO_ACT,
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    Envelope,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
    QuestionAnswered,
    RequestStarted,
    Usage,
)

if TYPE_CHECKING:
    from pycline.app.sessions.session import Mode, Session, TaskHandle


class InteractiveHost:
    def __init__(
        self,
        reader: LineReader,
        *,
        notify: bool = False,
        state: slash_run.SlashState | None = None,
    ) -> None:
        self.reader = reader
        self.notify = notify  # settings.notifications: a desktop popup when a question waits
        # Slash commands at every prompt act on this (the running task, its last usage, …).
        self.state = state
        self.screen = Screen(SESSION)
        self.shown = self.screen.shown
        self.waiting = Waiting()
        self.tally = render.Tally()
        self.typeahead = TypeAhead(reader.fd, self._line)  # lines typed while a task works
        self.answered_by: str | None = None  # who answered, since the prompt on screen opened

    def attach(self, handle: TaskHandle) -> None:
        self.tally = render.Tally()
        if self.state is not None:
            self.state.handle, self.state.usage = handle, None

    def show(self, envelope: Envelope) -> None:
        self.say(envelope.event)

    def _line(self, text: str) -> None:
        self.screen.line(text)

    def say(self, event: Event) -> None:
        event = for_terminal(event)  # model text never reaches the terminal raw
        self.tally.observe(event)
        if isinstance(event, RequestStarted):
            self.waiting.start()
            return
        self.waiting.stop()
        if isinstance(event, Usage) and self.state is not None:
            self.state.usage = event
        if isinstance(event, QuestionAnswered):
            self.answered_by = event.by
        self.screen.show(event)

    async def _read(self, prompt: str, *, accepts: tuple[str, ...] = ()) -> str:
        """A reply to a question; slash commands typed meanwhile run and the question is asked
        again. Commands in `accepts` are this question's own answers and come back as typed."""
        while True:
            self.answered_by = None
            try:
                line = await self.reader.readline(prompt)
            except asyncio.CancelledError:
                if self.answered_by is not None:  # withdrawn: another front end answered
                    self.screen.mid_line = True
                    self._line(style(f"Answered in {self.answered_by or 'another window'}.", "dim"))
                raise
            self.screen.mid_line = False
            if line is None:
                raise EOFError
            if line.strip() == ESC_ESC:  # rewinding is for the task prompt, not an answer
                continue
            parts = slash_commands.split(line)
            if self.state is None or parts is None or parts[0] in accepts:
                return line
            match await slash_run.run(self.state, line, "question"):
                case None:
                    return line
                case slash_run.Send(text=text):
                    return text
                case slash_run.Quit():
                    raise EOFError
                case slash_run.Handled():
                    continue
                case slash_run.SetMode() | slash_run.NewTask() | slash_run.Resume():
                    self._line(style(f"/{parts[0]} works at the Task> prompt, not here.", "yellow"))

    async def ask(self, question: Question) -> Answer:
        with self.typeahead.paused():  # the question's prompt reads the terminal now
            return await self._ask(question)

    async def _ask(self, question: Question) -> Answer:
        question = for_terminal(question)
        self.waiting.stop()
        sys.stdout.write("\a")  # the terminal bell: the task waits for the user
        if self.notify:
            from pycline.cli.notify import describe_wait, notify

            notify("pycline", describe_wait(question))
        match question:
            case ApprovalQuestion(summary=summary, preview=preview, outside_workspace=outside):
                if preview:
                    self._line(
                        colour_diff(preview) if preview.startswith(("---", "@@")) else preview
                    )
                where = style(" (OUTSIDE the workspace)", "red", "bold") if outside else ""
                always = next((o for o in question.options if o.id == ALWAYS_ALLOW.id), None)
                choices = "[y]es / " + (f"[a] {always.label.lower()} / " if always else "")
                choices += (
                    "[n]o / [e]dit first / or type feedback"
                    if question.content is not None
                    else "[n]o / or type feedback"
                )
                while True:
                    reply = await self._read(style(f"Allow {summary}{where}? {choices}: ", "bold"))
                    word = reply.strip()
                    if word.lower() in ("y", "yes"):
                        return Answer(APPROVE.id)
                    if always is not None and word.lower() in ("a", "always"):
                        return Answer(ALWAYS_ALLOW.id)
                    if word.lower() in ("", "n", "no"):
                        return Answer(DENY.id)
                    if word.lower() in ("e", "edit") and question.content is not None:
                        edited = await edit_text(question.content, question.path)
                        if edited is None:
                            self._line(style("The editor failed; nothing was changed.", "red"))
                            continue
                        self._line(style("Saving your edited version.", "green"))
                        return Answer(APPROVE.id, edited_content=edited)
                    return Answer(DENY.id, word)
            case FollowupQuestion(question=q, options=options):
                self._line(style(f"? {q}", "bold"))
                for i, option in enumerate(options, 1):
                    self._line(f"  {i}. {option.label}")
                reply = (await self._read("> ")).strip()
                if reply.isdigit() and 1 <= int(reply) <= len(options):
                    return Answer(options[int(reply) - 1].id)
                return Answer(text=reply)
            case PlanQuestion():
                reply = await self._read(
                    style("Reply to the plan, /act to carry it out, or Enter to stop: ", "bold"),
                    accepts=("act",),
                )
                word = reply.strip()
                if word.startswith("/act"):
                    return Answer(SWITCH_TO_ACT.id, word[len("/act") :].strip())
                return Answer(text=word) if word else Answer(STOP.id)
            case CompletionQuestion():
                reply = await self._read(
                    style("Press Enter to accept, or type feedback to continue (/help): ", "bold"),
                    accepts=("new", "clear"),
                )
                if not reply.strip() or slash_commands.split(reply) is not None:
                    return Answer(ACCEPT.id)  # `/new`: accepted; the next message is a new task
                return Answer(text=reply.strip())
            case MistakeLimitQuestion(count=count):
                self._line(style(f"The model has made {count} mistakes in a row.", "yellow"))
                reply = await self._read("Type guidance to continue, or press Enter to stop: ")
                return Answer(CONTINUE.id, reply.strip()) if reply.strip() else Answer(STOP.id)
            case ErrorRetryQuestion():
                reply = await self._read("Retry the request? [y/N] ")
                return Answer(RETRY.id if reply.strip().lower() in ("y", "yes") else STOP.id)
            case BudgetQuestion() as b:
                self._line(style(f"Spending cap reached: {budget_line(b)}.", "yellow"))
                reply = (
                    await self._read("Raise it? [y = by the same again / a new cap / N = stop] ")
                ).strip()
                if reply.lower() in ("y", "yes"):
                    return Answer(RAISE_CAP.id)
                if reply and reply.lower() not in ("n", "no"):
                    return Answer(RAISE_CAP.id, reply)
                return Answer(STOP.id)
            case _:
                assert_never(question)


async def _ask_mcp_trust(reader: LineReader, home: Path, cwd: Path) -> None:
    """A project MCP file not trusted as it is now: show what it would run, and ask."""
    from pycline.app.builders.mcp import grant, pending_trust

    request = pending_trust(home, cwd)
    if request is None:
        return
    name = request.file.relative_to(cwd)
    print(style(f"This project's {name} is new or changed. Its servers:", "bold"))
    for line in request.description:
        print(line)
    answer = (await reader.readline("Start them (now and until the file changes)? [y/N] ")) or ""
    if answer.strip().lower() in ("y", "yes"):
        grant(home, request)  # exactly what was shown
    else:
        print(style("Not started. `pycline mcp trust` starts them later.", "dim"))


async def session(ns: argparse.Namespace) -> int:
    from pycline.app.sessions.session import Session
    from pycline.app.settings.home import pycline_home

    cwd = workspace_dir(ns)
    home = pycline_home()
    if ns.auto:
        refuse_auto(cwd)
    reader = LineReader(
        complete_root=cwd, commands=lambda: [c.name for c in slash_commands.registry(cwd, home)]
    )
    overrides = overrides_of(ns)
    await _ask_mcp_trust(reader, home, cwd)
    opened = await Session.open(cwd, home=home, overrides=overrides, front_end="terminal")
    main = asyncio.current_task()
    assert main is not None

    def quit_session() -> None:
        main.cancel()

    interrupts = Interrupts(quit_session)
    interrupts.install()
    reader.on_interrupt = interrupts.press
    try:
        _banner(opened, home, cwd, auto=ns.auto)
        return await _tasks(ns, opened, reader, interrupts)
    finally:
        interrupts.uninstall()
        await opened.close()


def _banner(opened: Session, home: Path, cwd: Path, *, auto: bool = False) -> None:
    from pycline.app.doctor import missing_at_start
    from pycline.app.settings.auto_mode import STATUS

    width = shutil.get_terminal_size().columns
    mode = f"{STATUS} · " if auto else ""
    head = f"pycline · {opened.config.provider}/{opened.config.model} · {mode}"
    print(style(head + notices.fit_path(cwd, width - len(head) - 1), "dim"))
    missing = missing_at_start(home, cwd)
    line = notices.missing_line(missing, width)
    if line and first_time(home, "missing", line):
        print(style(line, "yellow"))
    # Said in lines that fit: nothing on the first screen wraps mid-word (two lines at 80).
    for hint in (
        "Type a task, or /help for commands (Tab completes).",
        "Ctrl-C stops a step; twice or Ctrl-D quits; Esc twice rewinds to a checkpoint.",
    ):
        for line in textwrap.wrap(hint, max(width - 1, 20)):
            print(style(line, "dim"))


async def _tasks(
    ns: argparse.Namespace, opened: Session, reader: LineReader, interrupts: Interrupts
) -> int:
    from pycline.app.settings.config import load

    home, cwd = opened.home, opened.workspace
    state = slash_run.SlashState(
        home, cwd, opened, say=_say, approve_all_inside=ns.yes, auto=ns.auto
    )
    host = InteractiveHost(reader, notify=load(home, cwd).notifications, state=state)
    typed = " ".join(ns.task).strip()
    mode: Mode = "plan" if ns.plan else "act"
    stopped: str | None = None  # a task the user stopped: the next message continues it
    leftover = ""  # messages typed for a task that was stopped before it got them
    while True:
        if not typed:
            prompt = style("Plan> " if mode == "plan" else "Task> ", "bold")
            line = await reader.readline(prompt, default=leftover)
            leftover = ""
            if line is None:
                return 0
            typed = line.strip()
            if typed == ESC_ESC:
                typed = ""
                stopped = await offer_rewind(reader, home, state.task_id, state.cwd) or stopped
                if stopped:
                    _say(style("Your next message continues this task.", "dim"))
                continue
            if not typed:
                continue
        text, resume_id = typed, None
        typed = ""
        match await slash_run.run(state, text, "task"):
            case None:
                pass
            case slash_run.Send(text=sent):
                text = sent
            case slash_run.Resume(task_id=wanted):
                chosen_id = await _recap_and_ask(reader, state, wanted)
                if chosen_id is None:
                    continue
                resume_id, text = chosen_id
            case slash_run.SetMode(mode=chosen):
                mode = chosen
                _say(style(f"{mode.upper()} MODE", "cyan"))
                continue
            case slash_run.NewTask():
                stopped = None
                _say(style("The next message starts a new task.", "dim"))
                continue
            case slash_run.Handled():
                continue
            case slash_run.Quit():
                return 0
        resume_id, stopped = resume_id or stopped, None
        if resume_id is not None:
            mode = await _run_one(opened, host, state, interrupts, "", resume_id, mode, text)
        else:
            mode = await _run_one(opened, host, state, interrupts, text, None, mode)
        if interrupts.stopped and state.handle is not None:
            stopped = state.handle.id
            leftover = host.typeahead.leftover(state.handle)
            if leftover:
                _say(style("Your queued message is at the prompt: Enter sends it.", "dim"))


async def _recap_and_ask(
    reader: LineReader, state: slash_run.SlashState, wanted: str
) -> tuple[str, str] | None:
    """Show the task to resume and wait: (its id, the user's message), or None to stay."""
    from pycline.cli.recap import continue_prompt, recap

    try:
        found = await recap(state.home, state.cwd, wanted or None)
    except PyclineError as exc:
        _say(style(str(exc), "yellow"))
        return None
    for line in found.lines:
        _say(line)
    reply = await reader.readline(style(continue_prompt(found.completed), "bold"))
    if reply is None:
        raise EOFError
    message = reply.strip()
    if (found.completed and not message) or message in ("/new", "/clear", ESC_ESC):
        return None
    return found.record.id, message


async def _run_one(
    opened: Session,
    host: InteractiveHost,
    state: slash_run.SlashState,
    interrupts: Interrupts,
    text: str,
    resume_id: str | None,
    mode: Mode,
    message: str = "",
) -> Mode:
    """Run (or resume, with the user's `message`) one task to its end; the mode it ended in."""
    from pycline.app.sessions.runner import run_chain
    from pycline.app.sessions.session import TaskOptions
    from pycline.cli.follow import follow

    options = TaskOptions(
        model=state.act,
        plan_model=state.plan,
        approve_all_inside=state.approve_all_inside,
        verify=state.goal,
        auto=state.auto,
    )
    try:
        if resume_id is not None:
            handle = await opened.resume_task(
                resume_id or None, mode=mode, options=options, message=message
            )
        else:
            check_task_size(text, state.act or opened.config)
            handle = await opened.new_task(text, mode=mode, options=options)
    except PyclineError as exc:  # no such task, its history cannot be read, a bad /model
        _say(style(str(exc), "yellow"))
        return mode

    def following(handle: TaskHandle) -> None:
        host.attach(handle)
        interrupts.handle = handle
        host.typeahead.start(handle)

    async def shown(handle: TaskHandle) -> None:
        await follow(handle, host)

    host.attach(handle)
    interrupts.start(handle)
    host.typeahead.start(handle)
    try:
        finished = await run_chain(
            opened, handle, follow=shown, continued=lambda _, nxt: following(nxt)
        )
    finally:
        interrupts.handle = None
        host.typeahead.stop()
    host.waiting.stop()
    handle, outcome = finished.handle, finished.outcome
    mode = handle.mode
    if outcome.completed:  # Ctrl-C at its completion prompt took the result as it is
        interrupts.stopped = False
    if interrupts.stopped:
        _say(
            style(
                f"Task {handle.id} is saved; your next message continues it "
                "(/new starts a new task).",
                "yellow",
            )
        )
        await _summary(host, state, handle.id)
        return mode
    if outcome.completed:
        await _summary(host, state, handle.id)
        return mode
    reason = "" if host.shown.already(outcome.reason) else f": {outcome.reason}"
    if finished.discarded:
        state.handle = None
        _say(style(f"Task stopped{reason} (nothing saved: it never reached the model)", "yellow"))
    else:
        _say(style(f"Task stopped{reason} (task {handle.id} saved)", "yellow"))
        await _summary(host, state, handle.id)
    return mode


async def _summary(host: InteractiveHost, state: slash_run.SlashState, task_id: str) -> None:
    from pycline.app.services.checkpoints import files_changed

    _say(style(host.tally.line(await files_changed(state.home, task_id)), "dim"))


def _say(text: str) -> None:
    print(text, flush=True)


BYE = "Bye. Tasks are saved; `pycline resume` continues the last."


def run_interactive(ns: argparse.Namespace) -> int:
    from pycline.cli.setup_wizard import first_run

    try:
        first_run(ns)
        code = asyncio.run(session(ns))
    except (KeyboardInterrupt, asyncio.CancelledError):
        print(style(f"\n{BYE}", "yellow"))
        return 130
    except EOFError:
        code = 0
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    if code == 0:  # /exit and Ctrl-D end the session as Ctrl-C does: saying where tasks are
        print(style(f"\n{BYE}", "yellow"))
    return code
