"""The task loop (SPEC §1): prompt → stream → parse → approve → run tool → result → …

`Task` orchestrates only. Streaming lives in `core.streaming`, running a reply's calls in
`core.calls`, tools in `tools/`, approval policy in `core.approval`. The features around the loop
(hooks, checkpoints, slash commands, the cost governor, the focus chain, loop detection,
hand-offs, sub-agents) are capabilities (`core.capability`) that see the task through a narrow
`RunContext`. What the task runs with is `TaskDeps`, what its loop changes is `RunState`, and the
conversation is saved through the journal it is given; it never prints, it says events.

What the app layer uses (the task handle dispatches its commands to these): `start`, `resume`,
`set_mode`, `set_provider`, `compact`, `set_approval`, `processes`, `stop_process`, and it reads
`id`, `mode`, `provider`, `record`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.context.tokens import estimate_messages, estimate_text
from pycline.core import calls, condensing, modes, resumption, sampling, steering, user_input
from pycline.core.approval import ApprovalPolicy, AutoApprove, CallScope
from pycline.core.capability import Capabilities, RunContext, Stop
from pycline.core.options import TaskOutcome, TaskSettings, mistake_limit
from pycline.core.requests import Requests
from pycline.core.run import RunState, TaskDeps
from pycline.core.streaming import Reply, StreamFailed
from pycline.editing.diffs import bounded_diff
from pycline.events import (
    ACCEPT,
    CONTINUE,
    Answer,
    CompletionQuestion,
    Event,
    Host,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    Question,
    TaskEnded,
    TaskStarted,
    ToolOutput,
)
from pycline.messages import Content, ImageContent, Message, TextContent
from pycline.parsing.native import ToolDefinition
from pycline.prompts import responses
from pycline.prompts.tool_schema import definitions
from pycline.providers.base import Provider
from pycline.storage.records import TaskRecord
from pycline.tools.base import Approver, Tool, ToolContext, ToolFacts, ToolSpec
from pycline.workspace.environment import EnvironmentInfo, environment_details
from pycline.workspace.mentions import find_mentions
from pycline.workspace.paths import Workspace

if TYPE_CHECKING:
    from pycline.core.services import TaskServices
    from pycline.terminal.background import BackgroundInfo

__all__ = ["RunState", "Task", "TaskDeps", "TaskOutcome", "TaskSettings"]


class Task:
    def __init__(self, deps: TaskDeps, state: RunState) -> None:
        self.deps = deps
        self.state = state
        self.capabilities = Capabilities(deps.capabilities)
        settings = deps.settings
        self.requests = Requests(deps, state, self)
        self.approver = ApprovalPolicy(
            settings.auto_approve,
            self.ask,
            approve_all_inside=settings.approve_all_inside,
            show_edit=lambda q: self.say(ToolOutput(bounded_diff(q.preview), q.tool_call_id)),
        )
        # The last tool specs offered and their definitions: the same every request until the
        # mode or the offer changes.
        self._offered: tuple[Sequence[ToolSpec], tuple[ToolDefinition, ...]] = ((), ())
        # What the environment details said last time they were sent (None: not yet this run).
        self._told: tuple[object, ...] | None = None

    # --- what the app layer reads and changes ---------------------------------------------------

    @property
    def id(self) -> str:
        return self.state.record.id

    @property
    def record(self) -> TaskRecord:
        return self.state.record

    @property
    def mode(self) -> modes.Mode:
        return self.state.mode

    @property
    def provider(self) -> Provider:
        return self.state.profiles[self.state.mode].provider

    def provider_for(self, mode: modes.Mode) -> Provider:
        return self.state.profiles[mode].provider

    @property
    def history(self) -> list[Message]:
        return self.state.history

    @property
    def host(self) -> Host:
        return self.deps.host

    @property
    def workspace(self) -> Workspace:
        return self.deps.workspace

    @property
    def folder(self) -> Path:
        return self.deps.folder

    @property
    def settings(self) -> TaskSettings:
        return self.deps.settings

    @property
    def services(self) -> TaskServices:
        return self.deps.services

    @property
    def tools(self) -> dict[str, Tool]:
        return {t.spec.name: t for t in self.state.profiles[self.state.mode].tools}

    @property
    def system_prompt(self) -> str:
        profile = self.state.profiles[self.state.mode]
        if profile.native_prompt and self.native:
            return profile.native_prompt
        return profile.system_prompt

    def set_mode(self, mode: modes.Mode) -> None:
        """Switch Plan/Act; the conversation goes on with the other mode's model and prompt."""
        if mode == self.state.mode:
            return
        self.state.mode = mode
        self.capabilities.mode_changed(self, mode)
        model = f"{self.provider.name}/{self.provider.model.id}"
        self.record.model = self.provider.model.id
        self.say(ModeChanged(mode, model))

    def set_provider(self, provider: Provider, *, mode: modes.Mode | None = None) -> None:
        """Use `provider` in `mode` (default: the current mode) from the next request on."""
        mode = mode or self.state.mode
        profiles = self.state.profiles
        profiles[mode] = dataclasses.replace(profiles[mode], provider=provider)
        if mode == self.state.mode:
            self.record.provider = provider.name
            self.record.model = provider.model.id
            self.say(ModeChanged(mode, f"{provider.name}/{provider.model.id}"))

    def set_approval(self, policy: AutoApprove) -> None:
        """Decide from `policy` what needs the user's approval, from the next call on."""
        self.approver.settings = policy
        settings = dataclasses.replace(self.deps.settings, auto_approve=policy)
        self.deps = dataclasses.replace(self.deps, settings=settings)

    def proceed(self) -> bool:
        """Let the command being waited on go on in the background ("Proceed While Running");
        False when no command waits."""
        event = self.services.tools.proceed
        if event is None:
            return False
        event.set()
        return True

    def processes(self) -> list[BackgroundInfo]:
        """The commands still running in the background."""
        registry = self.services.tools.background
        return list(registry.list()) if registry is not None else []

    async def stop_process(self, number: int) -> None:
        """Stop background process `number` (see `processes()`); KeyError when there is none."""
        registry = self.services.tools.background
        if registry is None:
            raise KeyError(number)
        await registry.stop(number)

    # --- what the capabilities see (RunContext) -------------------------------------------------

    @property
    def ctx(self) -> RunContext:
        return self

    @property
    def task_id(self) -> str:
        return self.id

    @property
    def native(self) -> bool:
        return self.state.tool_format.native(self.provider.model)

    @property
    def approve(self) -> Approver:
        return self.approver

    def facts(self, name: str) -> ToolFacts:
        """The facts of the tool `name` in any mode (a tool of another mode is refused with
        the reason, not as unknown)."""
        profiles = self.state.profiles
        for profile in (profiles[self.state.mode], *profiles.values()):
            for tool in profile.tools:
                if tool.spec.name == name:
                    return tool.spec.facts
        return ToolFacts()

    def charge(self, cost: float, tokens_in: int, tokens_out: int) -> None:
        r = self.record
        r.total_cost += cost
        r.tokens_in += tokens_in
        r.tokens_out += tokens_out
        self.capabilities.charged(self, cost, tokens_in + tokens_out)

    def replace_history(self, history: Sequence[Message]) -> None:
        self.history[:] = history
        self.deps.context.reset()
        self.deps.journal.context_changed(self.deps.context.to_json())
        self.deps.journal.history_changed(self.history)

    # --- host plumbing: what is shown and asked ---------------------------------------------------

    def say(self, event: Event) -> None:
        self.deps.host.say(event)

    async def ask(self, question: Question) -> Answer:
        # A result waiting for the user's word is a completed task to every list (history, the
        # page's and the terminal's), with what it spent, however long the answer takes.
        at_result = isinstance(question, CompletionQuestion) and self.record.status == "running"
        if at_result:
            self.record.status = "completed"
        self.deps.journal.record_changed(self.record)
        await self.deps.journal.flush()  # what led to it is saved before it is shown
        self.capabilities.question(self, question)
        answer = await self.deps.host.ask(question)
        if at_result and not answer.chose(ACCEPT) and (answer.text.strip() or answer.images):
            self.record.status = "running"  # feedback: the task goes on
        if answer.text:
            answer = dataclasses.replace(answer, text=await self._expand(answer.text))
        # Pictures sent with an answer go to the model in the next user message, after the
        # result they came with (as the first message carries the task's own images).
        for url in answer.images:
            image = ImageContent.from_data_url(url)
            if image is not None:
                self.state.answer_images.append(image)
        return answer

    async def _expand(self, text: str) -> str:
        """What the user typed, ready for the model: slash commands, then @mentions."""
        text = self.capabilities.expand(self, text)
        if find_mentions(text):
            text = await user_input.expand(text, self.workspace.root, self.services)
        return text

    def _save(self) -> None:
        self.record.ts = time.time()
        self.deps.journal.history_changed(self.history)
        self.deps.journal.record_changed(self.record)

    async def _saved(self) -> None:
        """Save, and wait until it is written: what follows must not be lost to a kill."""
        self._save()
        await self.deps.journal.flush()

    # --- the loop -----------------------------------------------------------------------------

    async def start(self, text: str, images: tuple[ImageContent, ...] = ()) -> TaskOutcome:
        self.say(TaskStarted(self.id, text, str(self.workspace.root)))
        first: list[Content] = [TextContent(f"<task>\n{await self._expand(text)}\n</task>")]
        return await self._run([*first, *images])

    async def resume(self, ago: str, pending: list[Content], message: str = "") -> TaskOutcome:
        """Continue after a restart; `message` is what the user typed to go on with."""
        root = str(self.workspace.root)
        self.say(TaskStarted(self.id, self.record.task, root, resumed=True, message=message))
        text = responses.task_resumption(ago, root)
        if message:
            text += f"\n\nNew instructions for task continuation:\n<user_message>\n{message}\n</user_message>"
        return await self._run([*pending, TextContent(text)])

    async def _run(self, user_content: list[Content]) -> TaskOutcome:
        self.record.status = "running"
        outcome = TaskOutcome(False, "The task was cancelled.")
        self._told = None  # each run's first request has the environment details
        try:
            added = await self.capabilities.before_run(self, user_content)
            if isinstance(added, Stop):
                outcome = TaskOutcome(False, added.reason, over_budget=added.over_budget)
            else:
                outcome = await self._loop([*user_content, *added])
            await self.capabilities.on_end(self, outcome)
        except asyncio.CancelledError:
            if self.state.interrupted is not None:
                # The stopped call's partial result, so the model sees it when the task goes on.
                self.history.append(
                    resumption.interrupted_results(self.history, *self.state.interrupted)
                )
                self.state.interrupted = None
            await self.capabilities.on_cancel(self)
            self.record.status = "cancelled"
            self.say(Notice("Task cancelled."))
            raise
        finally:
            if self.record.status == "running":
                self.record.status = "completed" if outcome.completed else "failed"
            self._save()
            try:
                await self.capabilities.close(self)
            finally:
                await self.services.close()
                self.say(TaskEnded(self.id, outcome.completed, outcome.reason))
                await self.deps.journal.close()
        return outcome

    async def _loop(self, user_content: list[Content]) -> TaskOutcome:
        state = self.state
        first_request = not self.history
        while True:
            notes = await self.capabilities.before_request(self)
            if isinstance(notes, Stop):
                self.history.append(Message("user", tuple(user_content), time.time()))
                return TaskOutcome(False, notes.reason, over_budget=notes.over_budget)
            env = self._environment(first_request)
            first_request = False
            images, state.answer_images = state.answer_images, []
            sent = await self._steered()
            told = (TextContent(env),) if env else ()
            content = (*user_content, *sent, *images, *notes, *told)
            self.history.append(Message("user", content, time.time()))
            await self._saved()
            reply = await self.deps.steering.unless_interrupted(self.requests.next_reply())
            if isinstance(reply, steering.Steered):
                user_content = steering.take_back(self.history, None)
                continue
            # What runs beside the task (language servers warming up) starts once the first
            # request is answered: its start-up work never delays that request.
            self.services.start()
            if reply is None:
                return TaskOutcome(False, state.last_error or "The model request failed.")
            self.history.append(calls.history_message(reply, time.time()))
            await self._saved()
            step = await self.deps.steering.unless_interrupted(calls.run_reply(self, reply))
            if isinstance(step, steering.Steered):
                user_content = steering.take_back(self.history, state.interrupted)
                state.interrupted = None
                continue
            await self.capabilities.after_turn(self, reply)
            if step.completed:
                return TaskOutcome(True, "completed")
            if (ended := await self.capabilities.after_step(self)) is not None:
                return ended
            if step.next_mode is not None:
                self.set_mode(step.next_mode)
            state.mistakes = state.mistakes + 1 if step.mistake else 0
            user_content = step.content
            limit = mistake_limit(self.settings.max_mistakes, self.provider.model.local)
            if state.mistakes >= limit:
                answer = await self.ask(MistakeLimitQuestion(state.mistakes))
                if not answer.chose(CONTINUE) and not answer.text.strip() and not answer.images:
                    reason = f"The model made {state.mistakes} mistakes in a row; stopped."
                    return TaskOutcome(False, reason)
                state.mistakes = 0
                user_content = [
                    *user_content,
                    TextContent(responses.too_many_mistakes(answer.text)),
                ]

    async def _steered(self) -> list[Content]:
        """The messages the user sent while the task worked, for this request."""
        sent = self.deps.steering.take()
        if sent:
            self.say(self.deps.steering.event(delivered=sent))
        return await steering.as_content(sent, self._expand)

    def native_tools(self) -> tuple[ToolDefinition, ...]:
        """The tool definitions to send, or () when this request uses XML tool calls."""
        if not self.native:
            return ()
        specs = self.capabilities.offer(self, [t.spec for t in self.tools.values()])
        if list(specs) != list(self._offered[0]):
            self._offered = (specs, definitions(specs))
        return self._offered[1]

    # --- condensing (core/condensing.py) ------------------------------------------------------

    async def compact(self) -> bool:
        """Replace the history by a summary the model writes (`/compact`).

        False when it could not be done (the request failed, the summary was empty, a PreCompact
        hook refused); the history is then unchanged.
        """
        return await self.condense("manual") is True

    async def condense(self, strategy: str) -> bool | Reply:
        """Condense (core/condensing.py): True when done, or the model's completion reply when
        it finished the task instead of summarising it."""
        go_on, hooked = await self.capabilities.before_compact(
            self, strategy, self.state.context_tokens
        )
        if not go_on:
            return False
        self.say(Notice("Condensing the conversation into a summary…"))
        reads = self.approver.approve_all_inside or self.approver.settings.allows(
            "read", outside_workspace=False
        )
        try:
            done = await condensing.condense(
                provider=self.provider,
                system=self.system(),
                history=self.history,
                context=self.deps.context,
                workspace=self.workspace,
                access=self.services.access,
                reads_allowed=reads,
                extra=hooked,
            )
        except (StreamFailed, condensing.CondenseFailed) as exc:
            self.say(Notice(f"The conversation was not condensed: {exc}"))
            return False
        self.requests.account(done.usage, done.reply, self.history)
        if done.completion is not None:
            return done.completion if strategy == "auto-condense" else False
        self.replace_history(done.history)
        self.state.context_tokens = estimate_text(self.system()) + estimate_messages(self.history)
        self.capabilities.compacted(self, done.progress)
        self._save()
        files = f"; re-read: {', '.join(done.reread)}" if done.reread else ""
        size = len(done.summary)
        self.say(Notice(f"History condensed into a {size:,}-character summary{files}."))
        return True

    def _environment(self, first_request: bool) -> str:
        """The environment details for this request; "" when nothing in them changed since they
        were last sent but the time and a usage figure within the same tenth of the window (a
        block resent on every request is paid again on every later one)."""
        info = EnvironmentInfo(
            mode=self.mode,
            context_tokens=self.state.context_tokens,
            context_window=self.provider.model.context_window,
            first_request=first_request,
            recently_modified=tuple(self.state.files.changed_by_others(self.workspace.root)),
            terminals=self._terminals(),
        )
        window = max(info.context_window, 1)
        state = (
            info.mode,
            info.recently_modified,
            info.terminals,
            10 * info.context_tokens // window,
        )
        if not first_request and self._told == state:
            return ""
        self._told = state
        return environment_details(self.workspace.root, info)

    def _terminals(self) -> str:
        registry = self.services.tools.background
        if registry is None or not len(registry):
            return ""
        return user_input.terminal_text(self.services)

    def system(self) -> str:
        """The system prompt of this request: the mode's, with what changes during a task."""
        extras = self.deps.prompt_extras
        if extras is None:
            return self.system_prompt
        text = extras(tuple(self.state.files.paths))
        return f"{self.system_prompt}\n{text}\n" if text else self.system_prompt

    # --- what one call needs (core.turn.TurnHost) -------------------------------------------------

    def note_path(self, path: str) -> None:
        """Remember a file the task worked with (for conditional rules) and its state now, so a
        later change by someone else is reported in the environment details."""
        self.state.files.note(self.workspace.root, path)

    def keep_interrupted(self, call_id: str, body: str) -> None:
        self.state.interrupted = (call_id, body)

    def tool_context(self, call_id: str = "") -> ToolContext:
        """The context of one tool call: what it shows and asks carries `call_id`."""
        model = self.provider.model
        calls = CallScope(call_id, self.say, self.ask, self.approver)
        return ToolContext(
            workspace=self.workspace,
            approve=calls.approve,
            say_fn=calls.say,
            ask_fn=calls.ask,
            supports_images=model.supports_images,
            model_family="claude" if "claude" in model.id.lower() else "",
            command_timeout=self.settings.command_timeout,
            headless=self.settings.headless,
            access=self.services.access,
            services=self.services.tools,
            auto_sandboxed=self.approver.settings.auto_sandboxed,
            complete=self._complete_for_tool,
        )

    async def _complete_for_tool(
        self, system: str, messages: Sequence[Message]
    ) -> tuple[str, str] | str:
        return await sampling.complete(
            self.provider, self.capabilities, self.requests, system, messages
        )
