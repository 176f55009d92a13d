"""What a later message makes redundant is left out of every request, not only near the budget.

Long tasks resend their whole history on every request, so anything superseded costs again on
each turn. Five rules, applied to the messages being sent (history on disk stays complete), each
a pure function of those messages, so a resumed task sends the same view:

- file copies: every copy of a file but the latest one (a read, an edit's echo of the saved file,
  a mention) becomes a short note; the latest copy is never touched (`dedupe`).
- repeated calls: the output of a search or listing repeated later becomes a note; a command
  run again keeps the start and end of its earlier output (`git pull`, `tail log` say something
  new each time); the latest run's output stays whole.
- old outputs: other outputs of commands, searches and listings more than `RECENT_TURNS` turns
  old keep their first and last lines (an error is printed at the end), with a note in the
  middle saying how much was left out.
- spent steps: old steps whose results are only such notes leave the request, counted in one
  line (`collapse`).
- per-request context: the environment details and progress reminders the loop appends to each
  request are kept in the first message (it has the workspace listing) and the latest one only;
  older ones that report something beyond time, mode and usage (recently modified files, running
  terminals) are kept as well.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pycline.context.collapse import collapse_spent
from pycline.context.dedupe import NOTE, apply_edits, find_duplicate_reads
from pycline.context.results import parse_header
from pycline.messages import Content, Message, TextContent, ToolUseContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.stream import parse_assistant_message

RERUN_NOTE = "[Output removed to save context: the same call was made again later (see there).]"
# Outputs of commands, searches and listings more than this many turns old are cut to their
# first lines: the model has acted on them by then, and can repeat the call.
RECENT_TURNS = 10
OLD_OUTPUT_LINES = 4  # kept from the start of an old output
OLD_OUTPUT_TAIL_LINES = 8  # and from its end
OLD_OUTPUT_CHARS = 800  # an old output longer than this is cut (head and tail within it)
_HEAD_CHARS = 300
# Tools whose output a later identical call replaces: it reports the same thing, newer.
RERUNNABLE = frozenset(
    {"execute_command", "search_files", "list_files", "list_code_definition_names"}
)
# Of those, the ones whose earlier output may say what the later one does not (a command's).
CUT_WHEN_RERUN = frozenset({"execute_command"})
# Parameters that do not change what a call does (the focus-chain checklist rides on any call).
_IGNORED_PARAMS = frozenset({"task_progress"})
# Blocks the loop appends to each request; only the newest copy says anything current.
ENVIRONMENT = "<environment_details>"
PROGRESS_REMINDER = "# Task progress"
# Sections of the environment details that are news when they appear, not just state.
_NEWS = ("# Recently Modified Files", "# Actively Running Terminals")

CallKey = tuple[str, tuple[tuple[str, str], ...]]


def lighten(messages: Sequence[Message], *, start: int = 1) -> list[Message]:
    """`messages` with superseded content replaced by notes; from `start` on (the task's first
    message is never changed)."""
    out = _drop_stale_context(messages, start)
    plan = find_duplicate_reads(out, start)
    out = apply_edits(out, plan.edits)
    out = _shorten_outputs(out, start)
    return collapse_spent(out, markers=(NOTE, RERUN_NOTE, OLD_OUTPUT_MARKER), recent=RECENT_TURNS)


OLD_OUTPUT_MARKER = "removed to save context; repeat the call if you need it.]"


def old_output_note(chars: int, turns: int) -> str:
    return f"[{chars:,} more characters of this output, from {turns} turns ago, {OLD_OUTPUT_MARKER}"


def rerun_cut_note(chars: int) -> str:
    return f"[{chars:,} more characters of this output (the command ran again later) {OLD_OUTPUT_MARKER}"


# --- per-request context ----------------------------------------------------------------------


def _is_stale_context(block: Content) -> bool:
    if not isinstance(block, TextContent) or block.tool_use_id is not None:
        return False
    start = block.text[:64].lstrip()  # not the whole text: results can be long
    if start.startswith(PROGRESS_REMINDER):
        return True
    return start.startswith(ENVIRONMENT) and not any(news in block.text for news in _NEWS)


def drop_stale(message: Message) -> Message:
    """A user message before the latest one without its per-request context (itself when none)."""
    kept = tuple(b for b in message.content if not _is_stale_context(b))
    if kept and len(kept) != len(message.content):
        return Message(message.role, kept, message.ts)
    return message


def _drop_stale_context(messages: Sequence[Message], start: int) -> list[Message]:
    out = list(messages)
    last_user = max((i for i, m in enumerate(out) if m.role == "user"), default=-1)
    for i in range(max(start, 1), last_user):
        if out[i].role == "user":
            out[i] = drop_stale(out[i])
    return out


# --- repeated calls -------------------------------------------------------------------------


def call_key(name: str, params: Sequence[tuple[str, str]]) -> CallKey | None:
    if name not in RERUNNABLE:
        return None
    return name, tuple(sorted((k, v) for k, v in params if k not in _IGNORED_PARAMS))


@lru_cache(maxsize=4096)
def xml_call(message: Message) -> CallKey | None:
    """The first tool call written in an assistant message's text (XML tool calling); cached per
    message, as a long task checks the same ones on every request."""
    for block in parse_assistant_message(message.text):
        if isinstance(block, ToolUseBlock):
            return call_key(block.name, tuple(block.params.items()))
    return None


def _results(messages: Sequence[Message]) -> list[tuple[int, int, CallKey]]:
    """(message, block, call) of every tool result whose call is rerunnable."""
    found: list[tuple[int, int, CallKey]] = []
    native: dict[str, CallKey] = {}
    xml: CallKey | None = None
    for i, message in enumerate(messages):
        if message.role == "assistant":
            xml = None
            for block in message.content:
                if isinstance(block, ToolUseContent):
                    key = call_key(block.name, block.params)
                    if key is not None:
                        native[block.id] = key
            if not any(isinstance(b, ToolUseContent) for b in message.content):
                xml = xml_call(message)
            continue
        for j, block in enumerate(message.content):
            if not isinstance(block, TextContent):
                continue
            if block.tool_use_id is not None:
                key = native.get(block.tool_use_id)
                if key is not None:
                    found.append((i, j, key))
            elif j == 0 and xml is not None and parse_header(block.text) is not None:
                found.append((i, j, xml))
        xml = None
    return found


def shortened(text: str, key_seen: bool, turns_ago: int, *, cut_rerun: bool = False) -> str | None:
    """The text to send instead of an older output, None to send it as it is. `key_seen`: the
    same call was made later; `cut_rerun`: its output is then cut, not replaced by a note."""
    header = parse_header(text)
    end = header.end if header is not None else 0
    body = text[end:]
    if key_seen and not cut_rerun:
        return text[:end] + RERUN_NOTE if len(body) > len(RERUN_NOTE) else None
    if (turns_ago < RECENT_TURNS and not key_seen) or len(body) <= OLD_OUTPUT_CHARS:
        return None
    lines = body.rstrip("\n").split("\n")
    head = "\n".join(lines[:OLD_OUTPUT_LINES])[:_HEAD_CHARS]
    tail = "\n".join(lines[OLD_OUTPUT_LINES:][-OLD_OUTPUT_TAIL_LINES:])
    tail = tail[-(OLD_OUTPUT_CHARS - len(head)) :]
    left_out = len(body) - len(head) - len(tail)
    # A rerun's note does not name its age: it stays the same on later requests.
    note = rerun_cut_note(left_out) if key_seen else old_output_note(left_out, turns_ago)
    return f"{text[:end]}{head}\n{note}\n{tail}"


def _shorten_outputs(messages: list[Message], start: int) -> list[Message]:
    seen: set[CallKey] = set()
    replace: dict[int, dict[int, str]] = {}
    user_turns = [0] * len(messages)  # user messages after each index
    count = 0
    for i in range(len(messages) - 1, -1, -1):
        user_turns[i] = count
        count += messages[i].role == "user"
    for i, j, key in reversed(_results(messages)):
        if i >= start:
            block = messages[i].content[j]
            assert isinstance(block, TextContent)
            text = shortened(
                block.text, key in seen, user_turns[i], cut_rerun=key[0] in CUT_WHEN_RERUN
            )
            if text is not None:
                replace.setdefault(i, {})[j] = text
        seen.add(key)
    for i, blocks in replace.items():
        content = list(messages[i].content)
        for j, text in blocks.items():
            old = content[j]
            assert isinstance(old, TextContent)
            content[j] = TextContent(text, old.tool_use_id)
        messages[i] = Message(messages[i].role, tuple(content), messages[i].ts)
    return messages
