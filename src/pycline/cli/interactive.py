"""The interactive terminal session: streamed text, proposals with diffs, y/n/feedback prompts."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

from pycline.app.config import DEFAULT_MODELS, ModelConfig, save
from pycline.cli.common import overrides_of, workspace_dir
from pycline.cli.editor import edit_text
from pycline.cli.lines import LineReader
from pycline.cli.style import colour_diff, style
from pycline.errors import ConfigError, PyclineError
from pycline.events import (
    ACCEPT,
    APPROVE,
    CONTINUE,
    DENY,
    RETRY,
    STOP,
    SWITCH_TO_ACT,
    Answer,
    ApprovalQuestion,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    RequestStarted,
    TaskEnded,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)

if TYPE_CHECKING:
    from pycline.app.session import Session, TaskHandle
    from pycline.core.modes import Mode


class InteractiveHost:
    def __init__(self, reader: LineReader, *, notify: bool = False) -> None:
        self.reader = reader
        self.notify = notify  # settings.notifications: a desktop popup when a question waits
        self._mid_line = False
        self._in_reasoning = False
        # `/compact` at the completion prompt condenses the running task's history.
        self.compact: Callable[[], Awaitable[bool]] | None = None
        # The running task: `/ps` lists its background processes, `/stop N` stops one.
        self.handle: TaskHandle | None = None

    def attach(self, handle: TaskHandle) -> None:
        self.handle = handle
        self.compact = handle.compact

    def show(self, envelope: Envelope) -> None:
        self.say(envelope.event)

    def _write(self, text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
        if text:
            self._mid_line = not text.endswith("\n")

    def _line(self, text: str) -> None:
        if self._mid_line:
            self._write("\n")
        self._write(text + "\n")

    def say(self, event: Event) -> None:
        if self._in_reasoning and not isinstance(event, ReasoningDelta):
            self._in_reasoning = False
            self._line("")
        match event:
            case ReasoningDelta(text=text):
                if not self._in_reasoning:
                    self._in_reasoning = True
                    self._line(style("thinking…", "dim"))
                self._write(style(text, "dim"))
            case TextDelta(text=text):
                self._write(text)
            case TextDone():
                if self._mid_line:
                    self._line("")
            case ToolStarted(summary=summary):
                self._line(style(f"⚙ {summary}", "cyan"))
            case ToolOutput(text=text):
                self._write(text)
            case ToolFinished(ok=False, result=result):
                first = result.strip().splitlines()[0] if result.strip() else "failed"
                self._line(style(f"  ✗ {first[:200]}", "red"))
            case PlanResponse(response=response):
                self._line(style("Plan:", "cyan", "bold"))
                self._line(response)
            case ModeChanged(mode=mode, model=model):
                self._line(style(f"Switched to {mode.upper()} MODE ({model})", "cyan"))
            case CompletionResult(result=result, command=command):
                self._line(style("✔ Task completed", "green", "bold"))
                self._line(result)
                if command:
                    self._line(style(f"  try: {command}", "dim"))
            case Notice(text=text):
                self._line(style(text, "yellow"))
            case ErrorEvent(text=text):
                self._line(style(f"error: {text}", "red"))
            case Usage() as u:
                cache = ""
                if u.cache_read_tokens or u.cache_write_tokens:
                    cache = f" (cache {u.cache_read_tokens} read / {u.cache_write_tokens} write)"
                self._line(
                    style(
                        f"  ↑{u.input_tokens} ↓{u.output_tokens}{cache} · ${u.cost:.4f}"
                        f" · task ${u.task_cost:.4f} · context {u.context_tokens:,}/{u.context_window:,}",
                        "dim",
                    )
                )
            case (
                TaskStarted()
                | RequestStarted()
                | ToolPartial()
                | ToolFinished()
                | CheckpointCreated()
                | TaskEnded()
                | QuestionAsked()
                | QuestionAnswered()
            ):
                pass  # shown another way (the question's prompt) or not at all in a terminal
            case _:
                assert_never(event)

    async def _read(self, prompt: str) -> str:
        while True:
            line = await self.reader.readline(prompt)
            self._mid_line = False
            if line is None:
                raise EOFError
            if not await self._process_command(line.strip()):
                return line

    async def _process_command(self, line: str) -> bool:
        """`/ps` and `/stop N` work at any prompt while a task runs; True when handled."""
        words = line.split()
        if not words or words[0] not in ("/ps", "/stop") or self.handle is None:
            return False
        if words[0] == "/ps":
            infos = self.handle.processes()
            if not infos:
                self._line("No background processes.")
            for info in infos:
                state = "running" if info.running else f"exited ({info.exit_code})"
                self._line(f"  {info.id}  {state:<12} {info.command}")
            return True
        if len(words) == 2 and words[1].isdigit():
            try:
                await self.handle.stop_process(int(words[1]))
            except KeyError:
                self._line(f"No background process {words[1]}.")
            else:
                self._line(f"Stopped process {words[1]}.")
        else:
            self._line("Usage: /stop N (see /ps)")
        return True

    async def ask(self, question: Question) -> Answer:
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
                choices = (
                    "[y]es / [n]o / [e]dit first / or type feedback"
                    if question.content is not None
                    else "[y]es / [n]o / or type feedback"
                )
                while True:
                    reply = await self._read(style(f"Allow {summary}{where}? {choices}: ", "bold"))
                    word = reply.strip()
                    if word.lower() in ("y", "yes"):
                        return Answer(APPROVE.id)
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
                    style("Reply to the plan, /act to carry it out, or Enter to stop: ", "bold")
                )
                word = reply.strip()
                if word.startswith("/act"):
                    return Answer(SWITCH_TO_ACT.id, word[len("/act") :].strip())
                return Answer(text=word) if word else Answer(STOP.id)
            case CompletionQuestion():
                while True:
                    reply = await self._read(
                        style(
                            "Press Enter to accept, or type feedback to continue "
                            "(/compact condenses the history): ",
                            "bold",
                        )
                    )
                    if reply.strip() != "/compact":
                        break
                    if self.compact is None:
                        self._line(style("Nothing to condense here.", "yellow"))
                    else:
                        await self.compact()
                return Answer(ACCEPT.id) if not reply.strip() else Answer(text=reply.strip())
            case MistakeLimitQuestion(count=count):
                self._line(style(f"The model has made {count} mistakes in a row.", "yellow"))
                reply = await self._read("Type guidance to continue, or press Enter to stop: ")
                return Answer(CONTINUE.id, reply.strip()) if reply.strip() else Answer(STOP.id)
            case ErrorRetryQuestion():
                reply = await self._read("Retry the request? [y/N] ")
                return Answer(RETRY.id if reply.strip().lower() in ("y", "yes") else STOP.id)
            case _:
                assert_never(question)


WIZARD_CHOICES = (
    (
        "openai",
        "A local or self-hosted OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp)",
    ),
    ("openai", "OpenAI (API key)"),
    ("anthropic", "Anthropic (API key)"),
)


async def first_run_wizard(reader: LineReader, home: Path) -> ModelConfig:
    print(style("No model is configured yet. Let's set one up (saved for next time).", "bold"))
    for i, (_, label) in enumerate(WIZARD_CHOICES, 1):
        print(f"  {i}. {label}")
    while True:
        choice = await reader.readline("Choose 1-3: ")
        if choice is None:
            raise EOFError
        if choice.strip() in ("1", "2", "3"):
            break
    index = int(choice.strip()) - 1
    provider = WIZARD_CHOICES[index][0]
    base_url = key = None
    if index == 0:
        base_url = (await reader.readline("Server URL [http://localhost:11434/v1]: ") or "").strip()
        base_url = base_url or "http://localhost:11434/v1"
        model = (await reader.readline("Model name: ") or "").strip()
    else:
        key = (await reader.readline("API key: ") or "").strip()
        default = DEFAULT_MODELS[provider]
        model = (await reader.readline(f"Model [{default}]: ") or "").strip() or default
    if not model:
        raise ConfigError("A model name is needed.")
    config = ModelConfig(provider=provider, model=model, base_url=base_url, api_key=key or None)
    save(home, config)
    print(style("Saved.", "green"))
    return config


async def _ask_mcp_trust(reader: LineReader, home: Path, cwd: Path) -> None:
    """A project MCP file not trusted as it is now: show what it would run, and ask."""
    from pycline.app.mcp import grant, pending_trust

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
    from pycline.app.config import resolve
    from pycline.app.session import Session
    from pycline.storage.paths import pycline_home

    cwd = workspace_dir(ns)
    home = pycline_home()
    reader = LineReader(complete_root=cwd)
    overrides = overrides_of(ns)
    config = resolve(overrides.flags(), home, workspace=cwd, profile=ns.profile)
    if config.provider is None:
        await first_run_wizard(reader, home)
    await _ask_mcp_trust(reader, home, cwd)
    opened = await Session.open(cwd, home=home, overrides=overrides)
    try:
        _banner(opened, home, cwd)
        return await _tasks(ns, opened, reader, home, cwd)
    finally:
        await opened.close()


def _banner(opened: Session, home: Path, cwd: Path) -> None:
    from pycline.app.task_settings import chromium_setting
    from pycline.app.wiring import browser_status

    print(style(f"pycline · {opened.config.provider}/{opened.config.model} · {cwd}", "dim"))
    unavailable = browser_status(chromium_setting(home, cwd))
    if unavailable:
        print(style(f"browser tool off: {unavailable}", "dim"))
    print(
        style(
            "Type a task. /plan or /act switches mode; /resume [ID] continues a task; "
            "Ctrl-D quits.",
            "dim",
        )
    )


async def _tasks(
    ns: argparse.Namespace, opened: Session, reader: LineReader, home: Path, cwd: Path
) -> int:
    from pycline.app.config import load
    from pycline.cli.follow import follow

    host = InteractiveHost(reader, notify=load(home, cwd).notifications)
    text = " ".join(ns.task).strip()
    mode: Mode = "plan" if ns.plan else "act"
    while True:
        while not text:
            line = await reader.readline(style("Plan> " if mode == "plan" else "Task> ", "bold"))
            if line is None:
                return 0
            text = line.strip()
            if text in ("/plan", "/act"):
                mode = "plan" if text == "/plan" else "act"
                print(style(f"{mode.upper()} MODE", "cyan"))
                text = ""
        resume_id = _resume_arg(text)
        if resume_id is not None:  # `/resume [ID]`: continue a saved task
            try:
                handle = await opened.resume_task(resume_id or None, mode=mode)
            except PyclineError as exc:  # no such task, or its history cannot be read
                print(style(str(exc), "yellow"))
                text = ""
                continue
        else:
            handle = await opened.new_task(text, mode=mode)
        host.attach(handle)
        await follow(handle, host)
        outcome = await handle.wait()
        mode = handle.task.mode
        if not outcome.completed:
            print(style(f"Task stopped: {outcome.reason} (task {handle.id} saved)", "yellow"))
        text = ""


def _resume_arg(text: str) -> str | None:
    """For `/resume [ID]`: the id ("" for the latest task here); None for anything else."""
    word, _, rest = text.partition(" ")
    return rest.strip() if word == "/resume" else None


def run_interactive(ns: argparse.Namespace) -> int:
    try:
        return asyncio.run(session(ns))
    except KeyboardInterrupt:
        print(style("\nCancelled. The task is saved.", "yellow"), file=sys.stderr)
        return 130
    except EOFError:
        print()
        return 0
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
