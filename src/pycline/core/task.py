"""The task loop (SPEC §1): prompt → stream → parse → approve → run tool → result → …

`Task` orchestrates only. Streaming lives in `core.streaming`, tools in `tools/`, approval policy in
`core.approval`, persistence behind `TaskFolder`, rendering in the front ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pycline.context.manager import ContextManager, Prepared
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.core import calls, modes, resumption, user_input
from pycline.core.approval import ApprovalPolicy, AutoApprove
from pycline.core.checkpointing import TaskCheckpoints
from pycline.core.features import AgentFeatures
from pycline.core.retry import RetryPolicy, one_line
from pycline.core.services import TaskServices
from pycline.core.streaming import Reply, StreamFailed, stream_reply
from pycline.core.tool_format import ToolCallFormat, ToolFormat
from pycline.core.ui_log import UiLog
from pycline.editing.diffs import bounded_diff
from pycline.errors import ProviderErrorKind
from pycline.events import (
    CONTINUE,
    RETRY,
    Answer,
    ApprovalQuestion,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    Host,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    Question,
    RequestStarted,
    TaskEnded,
    TaskStarted,
    ToolOutput,
    Usage,
)
from pycline.messages import Content, ImageContent, Message, TextContent
from pycline.prompts import responses
from pycline.providers.base import Provider, UsageChunk
from pycline.storage.journal import TaskRecorder
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder
from pycline.tools.base import Tool, ToolContext, ToolFacts
from pycline.workspace.environment import EnvironmentInfo, environment_details
from pycline.workspace.mentions import find_mentions
from pycline.workspace.paths import Workspace


@dataclass(frozen=True, slots=True)
class TaskSettings:
    auto_approve: AutoApprove = field(default_factory=AutoApprove)
    approve_all_inside: bool = False  # headless --yes
    headless: bool = False
    max_mistakes: int = 3
    max_retries: int = 3
    retry_base_delay: float = 1.0
    command_timeout: float = 600.0
    mode: str = "act"
    custom_instructions: str = ""
    auto_condense: float | None = None  # autoCondenseThreshold: condense at this share
    context_limit: int | None = None  # contextLimit: tokens at which history is trimmed
    tool_call_format: ToolCallFormat = "auto"


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    completed: bool
    reason: str
    over_budget: bool = False  # stopped at a spending cap
    next_task: str | None = None  # new_task: the text of the task to start next


Sleep = Callable[[float], Awaitable[None]]


class Task:
    def __init__(
        self,
        *,
        provider: Provider,
        tools: Sequence[Tool],
        host: Host,
        folder: TaskFolder,
        workspace: Workspace,
        system_prompt: str,
        record: TaskRecord,
        settings: TaskSettings | None = None,
        history: list[Message] | None = None,
        ui: UiLog | None = None,
        services: TaskServices | None = None,
        checkpoints: TaskCheckpoints | None = None,
        recorder: TaskRecorder | None = None,
        context: ContextManager | None = None,
        prompt_extras: Callable[[Sequence[str]], str] | None = None,
        profiles: Mapping[modes.Mode, modes.ModeProfile] | None = None,
        features: AgentFeatures | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.host = host
        self.folder = folder
        self.workspace = workspace
        self.record = record
        self.settings = settings or TaskSettings()
        single = modes.ModeProfile(provider, tools, system_prompt)
        self._profiles: dict[modes.Mode, modes.ModeProfile] = {m: single for m in modes.MODES}
        self._profiles.update(profiles or {})
        self.mode: modes.Mode = modes.as_mode(self.settings.mode)
        self.history: list[Message] = history if history is not None else []
        self.ui = ui or UiLog()
        self.services = services or TaskServices()
        self.checkpoints = checkpoints or TaskCheckpoints()
        # The only writer of the task's files; without one given, writes happen inline.
        self.recorder = recorder or TaskRecorder(folder)
        if history:
            self.recorder.start_from(self.history, self.ui.messages)
        self.context = context or ContextManager()
        self.prompt_extras = prompt_extras
        self.features = features or AgentFeatures(ToolFormat(self.settings.tool_call_format))
        self._in_play: list[str] = []
        self._seen: dict[str, float | None] = {}
        self._sleep = sleep
        self._retry = RetryPolicy(self.settings.max_retries, self.settings.retry_base_delay)
        self._mistakes = 0
        self._requests = 0
        self._context_tokens = 0
        self._last_error: str | None = None
        self._auto_condensed = False  # never condense twice in a row
        self.running_call = ""  # the tool call running now: its output and questions carry its id
        self._answer_images: list[ImageContent] = []  # for the next user message
        self._interrupted: tuple[str, str] | None = None  # (call id, partial result) on a stop
        self.approver = ApprovalPolicy(
            self.settings.auto_approve,
            self.ask,
            approve_all_inside=self.settings.approve_all_inside,
            show_edit=lambda q: self.say(ToolOutput(bounded_diff(q.preview))),
        )

    @property
    def id(self) -> str:
        return self.folder.id

    @property
    def provider(self) -> Provider:
        return self._profiles[self.mode].provider

    def provider_for(self, mode: modes.Mode) -> Provider:
        return self._profiles[mode].provider

    @property
    def system_prompt(self) -> str:
        profile = self._profiles[self.mode]
        if profile.native_prompt and self.features.tool_format.native(profile.provider.model):
            return profile.native_prompt
        return profile.system_prompt

    @property
    def tools(self) -> dict[str, Tool]:
        return {t.spec.name: t for t in self._profiles[self.mode].tools}

    def facts(self, name: str) -> ToolFacts:
        for profile in (self._profiles[self.mode], *self._profiles.values()):
            for tool in profile.tools:
                if tool.spec.name == name:
                    return tool.spec.facts
        return ToolFacts()

    def set_mode(self, mode: modes.Mode) -> None:
        """Switch Plan/Act; the conversation goes on with the other mode's model and prompt."""
        if mode == self.mode:
            return
        if mode == "act":
            self.features.focus.switched_to_act()
        self.mode = mode
        model = f"{self.provider.name}/{self.provider.model.id}"
        self.record.model = self.provider.model.id
        self.say(ModeChanged(mode, model))

    def set_provider(self, provider: Provider, *, mode: modes.Mode | None = None) -> None:
        """Use `provider` in `mode` (default: the current mode) from the next request on."""
        mode = mode or self.mode
        self._profiles[mode] = dataclasses.replace(self._profiles[mode], provider=provider)
        if mode == self.mode:
            self.record.provider = provider.name
            self.record.model = provider.model.id
            self.say(ModeChanged(mode, f"{provider.name}/{provider.model.id}"))

    # --- host plumbing: everything shown or asked is logged and saved -------------------------

    def say(self, event: Event) -> None:
        if isinstance(event, ToolOutput) and not event.tool_call_id and self.running_call:
            event = dataclasses.replace(event, tool_call_id=self.running_call)
        if self.ui.record(event):
            self.recorder.ui_changed(self.ui.messages)
        self.host.say(event)

    async def ask(self, question: Question) -> Answer:
        if isinstance(question, ApprovalQuestion) and not question.tool_call_id:
            question = dataclasses.replace(question, tool_call_id=self.running_call)
        self.ui.record_question(question)
        self.recorder.ui_changed(self.ui.messages)
        await self.recorder.flush()  # saved before it is shown: a kill while waiting keeps it
        self.features.notify(self, question)
        answer = await self.host.ask(question)
        if answer.text:
            commanded = self.features.expand_commands(answer.text, self)
            answer = dataclasses.replace(answer, text=commanded)
        if answer.text and find_mentions(answer.text):
            expanded = await user_input.expand(answer.text, self.workspace.root, self.services)
            answer = dataclasses.replace(answer, text=expanded)
        self.ui.record_answer(answer)
        self.recorder.ui_changed(self.ui.messages)
        # Pictures sent with an answer go to the model in the next user message, after the
        # result they came with (as the first message carries the task's own images).
        for url in answer.images:
            image = ImageContent.from_data_url(url)
            if image is not None:
                self._answer_images.append(image)
        return answer

    def _save(self) -> None:
        self.record.ts = time.time()
        self.recorder.history_changed(self.history)
        self.recorder.ui_changed(self.ui.messages)
        self.recorder.record_changed(self.record)

    async def _saved(self) -> None:
        """Save, and wait until it is written: what follows must not be lost to a kill."""
        self._save()
        await self.recorder.flush()

    # --- the loop -----------------------------------------------------------------------------

    async def start(self, text: str, images: tuple[ImageContent, ...] = ()) -> TaskOutcome:
        self.say(TaskStarted(self.id, text, str(self.workspace.root)))
        text = self.features.expand_commands(text, self)
        text = await user_input.expand(text, self.workspace.root, self.services)
        first: list[Content] = [TextContent(f"<task>\n{text}\n</task>"), *images]
        return await self._run(first)

    async def resume(self, ago: str, pending: list[Content], message: str = "") -> TaskOutcome:
        """Continue after a restart; `message` is what the user typed to go on with."""
        self.say(TaskStarted(self.id, self.record.task, str(self.workspace.root), resumed=True))
        self.features.recall_commands(self.history)
        text = responses.task_resumption(ago, str(self.workspace.root))
        if message:
            text += f"\n\nNew instructions for task continuation:\n<user_message>\n{message}\n</user_message>"
        return await self._run([*pending, TextContent(text)])

    async def _run(self, user_content: list[Content]) -> TaskOutcome:
        self.record.status = "running"
        outcome = TaskOutcome(False, "The task was cancelled.")
        try:
            await self.checkpoints.at_start(self)
            hooked = await self.features.on_run(self, user_content)
            if self.features.stop_reason is not None:
                outcome = TaskOutcome(False, self.features.stop_reason)
            else:
                outcome = await self._loop([*user_content, *hooked])
            await self.features.on_end(self, completed=outcome.completed, result=outcome.reason)
        except asyncio.CancelledError:
            if self._interrupted is not None:
                # The stopped call's partial result, so the model sees it when the task goes on.
                self.history.append(
                    resumption.interrupted_results(self.history, *self._interrupted)
                )
                self._interrupted = None
            await self.features.on_cancel(self)
            self.record.status = "cancelled"
            self.say(Notice("Task cancelled."))
            raise
        finally:
            if self.record.status == "running":
                self.record.status = "completed" if outcome.completed else "failed"
            self._save()
            await self.features.settle()
            await self.services.close()
            await self.checkpoints.at_end(self)
            self.say(TaskEnded(self.id, outcome.completed, outcome.reason))
            await self.recorder.close()
        return outcome

    async def _loop(self, user_content: list[Content]) -> TaskOutcome:
        first_request = not self.history
        while True:
            notes, over_budget = await self.features.before_request(self)
            if over_budget is not None:
                self.history.append(Message("user", tuple(user_content), time.time()))
                return TaskOutcome(False, over_budget, over_budget=True)
            env = self._environment(first_request)
            first_request = False
            images, self._answer_images = self._answer_images, []
            content = (*user_content, *images, *notes, TextContent(env))
            self.history.append(Message("user", content, time.time()))
            await self._saved()
            reply = await self._request()
            if reply is None:
                return TaskOutcome(False, self._last_error or "The model request failed.")
            self.history.append(calls.history_message(reply, time.time()))
            await self._saved()
            await self.checkpoints.settle()  # the last checkpoint is made before a tool runs
            step = await calls.run_reply(self, reply)
            await self.checkpoints.after_turn(self, reply)
            if step.completed:
                return TaskOutcome(True, "completed")
            if (ended := await self.features.after_step(self)) is not None:
                return ended
            if step.next_mode is not None:
                self.set_mode(step.next_mode)
            if step.mistake:
                self._mistakes += 1
            else:
                self._mistakes = 0
            user_content = step.content
            if self._mistakes >= self.settings.max_mistakes:
                answer = await self.ask(MistakeLimitQuestion(self._mistakes))
                if not answer.chose(CONTINUE) and not answer.text.strip() and not answer.images:
                    return TaskOutcome(
                        False,
                        f"The model made {self._mistakes} mistakes in a row; stopped.",
                    )
                self._mistakes = 0
                user_content = [
                    *user_content,
                    TextContent(responses.too_many_mistakes(answer.text)),
                ]

    async def _request(self) -> Reply | None:
        """Stream one reply, retrying transient failures; None when the user gives up."""
        attempt = 0
        overflow_retried = False
        prepared = self.context.prepare(
            self.history,
            window=self.provider.model.context_window,
            last_total_tokens=self._context_tokens or None,
            auto_condense=self.settings.auto_condense,
            system=self._system(),
            context_limit=self.settings.context_limit,
        )
        condensed: bool | Reply = False
        if prepared.action == "condense" and not self._auto_condensed:
            condensed = await self._condense("auto-condense")
            if isinstance(condensed, Reply):
                return condensed  # the model finished the task instead of summarising it
        self._auto_condensed = condensed is True
        if self._auto_condensed:
            window = self.provider.model.context_window
            prepared = self.context.prepare(
                self.history,
                window=window,
                last_total_tokens=None,
                system=self._system(),
                context_limit=self.settings.context_limit,
            )
        self._context_changed(prepared)
        messages = prepared.messages
        while True:
            self._requests += 1
            self.say(RequestStarted(self._requests))
            tools = self.features.native_tools(self)
            try:
                reply = await stream_reply(
                    self.provider, self._system(), messages, self.say, tools=tools
                )
            except StreamFailed as failed:
                error = failed.error
                if self.features.tool_format.should_fall_back(error, native=bool(tools)):
                    self.say(Notice(self.features.tool_format.notice(error)))
                    continue
                if error.kind is ProviderErrorKind.CONTEXT_OVERFLOW and not overflow_retried:
                    overflow_retried = True
                    go_on, _ = await self.features.pre_compact(
                        self, "standard-truncation-lastquarter", self._context_tokens
                    )
                    trimmed = (
                        self.context.aggressive(self.history, system=self._system())
                        if go_on
                        else None
                    )
                    if trimmed is not None and trimmed.action != "none":
                        self._context_changed(trimmed)
                        messages = trimmed.messages
                        self.say(
                            Notice("The context window overflowed; older history was trimmed.")
                        )
                        continue
                if failed.partial.strip():
                    self.say(
                        Notice(
                            f"The reply was interrupted after {len(failed.partial)} characters; "
                            "that partial reply is discarded (no tool in it was run)."
                        )
                    )
                delay = self._retry.delay(error, attempt)
                if delay is not None:
                    attempt += 1
                    self.say(
                        Notice(
                            f"{error} — retrying in {delay:.0f}s (attempt {attempt} of {self.settings.max_retries})."
                        )
                    )
                    await self._sleep(delay)
                    continue
                self._last_error = one_line(error)
                self.say(ErrorEvent(self._last_error))
                answer = await self.ask(ErrorRetryQuestion(self._last_error))
                if answer.chose(RETRY):
                    attempt = 0
                    continue
                return None
            if tools:
                self.features.tool_format.succeeded()
            self._account(reply.usage, reply.text, messages)
            return reply

    # --- condensing (core/condensing.py) ------------------------------------------------------

    async def compact(self) -> bool:
        """Replace the history by a summary the model writes (`/compact`).

        False when it could not be done (the request failed, the summary was empty, a PreCompact
        hook refused); the history is then unchanged.
        """
        return await self._condense("manual") is True

    async def _condense(self, strategy: str) -> bool | Reply:
        """Condense (core/condensing.py): True when done, or the model's completion reply when
        it finished the task instead of summarising it."""
        from pycline.core import condensing

        go_on, hooked = await self.features.pre_compact(self, strategy, self._context_tokens)
        if not go_on:
            return False
        self.say(Notice("Condensing the conversation into a summary…"))
        reads = self.approver.approve_all_inside or self.approver.settings.allows(
            "read", outside_workspace=False
        )
        try:
            done = await condensing.condense(
                provider=self.provider,
                system=self._system(),
                history=self.history,
                context=self.context,
                workspace=self.workspace,
                access=self.services.access,
                reads_allowed=reads,
                extra=hooked,
            )
        except (StreamFailed, condensing.CondenseFailed) as exc:
            self.say(Notice(f"The conversation was not condensed: {exc}"))
            return False
        self._account(done.usage, done.reply, self.history)
        if done.completion is not None:
            return done.completion if strategy == "auto-condense" else False
        self.history[:] = done.history
        self.context.reset()
        self._context_tokens = estimate_text(self._system()) + estimate_messages(self.history)
        self.recorder.context_changed(self.context.to_json())
        if (progress := self.features.focus.update(done.progress or None)) is not None:
            self.say(progress)
        self._save()
        files = f"; re-read: {', '.join(done.reread)}" if done.reread else ""
        size = len(done.summary)
        self.say(Notice(f"History condensed into a {size:,}-character summary{files}."))
        return True

    def _context_changed(self, prepared: Prepared) -> None:
        if prepared.changed:
            self.recorder.context_changed(self.context.to_json())
            if prepared.action == "truncate":
                self.say(Notice("Older history was trimmed to fit the context window."))

    def _account(self, usage: UsageChunk | None, text: str, sent: Sequence[Message]) -> None:
        if usage is None:
            # The stream was cut short before usage arrived: estimate, so cost is never silently 0.
            usage = UsageChunk(output_tokens=estimate_text(text))
        if not (usage.input_tokens or usage.cache_read_tokens or usage.cache_write_tokens):
            # Some local servers report no prompt tokens; the context gauge still needs a figure.
            estimate = estimate_text(self._system()) + estimate_messages(sent)
            usage = dataclasses.replace(usage, input_tokens=estimate)
        model = self.provider.model
        cost = model.cost(usage)
        r = self.record
        r.tokens_in += usage.input_tokens
        r.tokens_out += usage.output_tokens
        r.cache_writes += usage.cache_write_tokens
        r.cache_reads += usage.cache_read_tokens
        r.total_cost += cost
        total = (
            usage.input_tokens
            + usage.output_tokens
            + usage.cache_read_tokens
            + usage.cache_write_tokens
        )
        if total:
            self._context_tokens = total
        self.features.charged(self, cost, total)
        self.say(
            Usage(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_write_tokens,
                usage.cache_read_tokens,
                cost,
                r.total_cost,
                self._context_tokens,
                model.context_window,
            )
        )

    def _environment(self, first_request: bool) -> str:
        info = EnvironmentInfo(
            mode=self.mode,
            context_tokens=self._context_tokens,
            context_window=self.provider.model.context_window,
            first_request=first_request,
            recently_modified=tuple(self._changed_by_others()),
            terminals=self._terminals(),
        )
        return environment_details(self.workspace.root, info)

    def _terminals(self) -> str:
        registry = self.services.tools.background
        if registry is None or not len(registry):
            return ""
        return user_input.terminal_text(self.services)

    def note_path(self, path: str) -> None:
        """Remember a file the task worked with (for conditional rules) and its state now, so a
        later change by someone else is reported in the environment details."""
        if path not in self._in_play:
            self._in_play.append(path)
        self._seen[path] = _mtime(self.workspace.root / path)

    def _changed_by_others(self) -> list[str]:
        changed = []
        for path, seen in self._seen.items():
            now = _mtime(self.workspace.root / path)
            if now != seen:
                changed.append(path)
                self._seen[path] = now
        return changed

    def _system(self) -> str:
        if self.prompt_extras is None:
            return self.system_prompt
        text = self.prompt_extras(tuple(self._in_play))
        return f"{self.system_prompt}\n{text}\n" if text else self.system_prompt

    def keep_interrupted(self, call_id: str, body: str) -> None:
        self._interrupted = (call_id, body)

    def tool_context(self) -> ToolContext:
        return ToolContext(
            workspace=self.workspace,
            approve=self.approver,
            say_fn=self.say,
            ask_fn=self.ask,
            supports_images=self.provider.model.supports_images,
            model_family="claude" if "claude" in self.provider.model.id.lower() else "",
            command_timeout=self.settings.command_timeout,
            headless=self.settings.headless,
            access=self.services.access,
            services=self.services.tools,
        )


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:  # deleted, or never existed
        return None
