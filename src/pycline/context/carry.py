"""What a trimming step carries over from the history it leaves out (SPEC §8).

Trimming removes the oldest turns after the task, but some of what they held is still what the
model must work from: the user's own words (feedback, answers, messages typed mid-task), the
latest copy of every file the task read or wrote, the last error, the end of each command's last
output, and the focus-chain checklist. Those are copied into the notice at the gap, with a list
of the calls that were removed, so the model knows what it may re-read. A piece whose newer
version is still sent (a later read of the file, a later run of the command) is not copied.

A pure function of the messages: a resumed task builds the same notice from the same history.
The notice is bounded (`budget` characters): the user's words first, then the error and the
checklist, then files newest first and command tails; what does not fit is named.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pycline.context.dedupe import NOTE, copies_of
from pycline.context.results import looks_failed, parse_header
from pycline.messages import Message, TextContent, ToolUseContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.stream import parse_assistant_message

HEADING = (
    "[NOTE] Older conversation history was removed at this point to stay within the context "
    "window. The original task above is kept in full; the messages that follow come from later "
    "in the work."
)
USER_WORDS_CHARS = 2_000  # each of the user's messages, cut in the middle beyond this
ERROR_CHARS = 1_200
TAIL_LINES = 15
TAIL_CHARS = 1_000
TAIL_COMMANDS = 3  # the latest distinct commands whose output's end is carried
FILE_CHARS = 12_000  # one file's copy, cut in the middle beyond this
_SAID = re.compile(r"<(feedback|answer|user_message)>\n?(.*?)\n?</\1>", re.DOTALL)
_PER_REQUEST = ("<environment_details>", "# Task progress")
_WRITE_TOOLS = frozenset({"write_to_file", "replace_in_file"})


@dataclass(slots=True)
class _Found:
    """What the removed messages hold, newest last."""

    words: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # path -> latest copy
    edited_unseen: set[str] = field(default_factory=set)  # edited, no full copy in history
    written: set[str] = field(default_factory=set)  # paths the task wrote or edited
    error: str = ""
    outputs: dict[str, str] = field(default_factory=dict)  # command -> latest output
    checklist: str = ""
    calls: Counter[str] = field(default_factory=Counter)


def notice(removed: Sequence[Message], after: Sequence[Message], budget: int) -> str:
    """The notice for a gap that removed `removed`, followed by `after` (still sent); at most
    about `budget` characters beyond its fixed text."""
    found = _scan(removed)
    later = _scan(after)
    parts = [HEADING]
    left = budget
    for title, items in _sections(found, later):
        kept: list[str] = []
        for item in reversed(items):  # newest first: the oldest are the ones left out
            if len(item) + 2 > left:
                continue
            kept.append(item)
            left -= len(item) + 2
        if kept:
            dropped = len(items) - len(kept)
            more = f"\n({dropped} older left out: re-read them if needed)" if dropped else ""
            parts.append(f"\n\n## {title}\n" + "\n\n".join(reversed(kept)) + more)
    parts.append(
        "\n\nRe-read any other file you need rather than relying on what the removed messages "
        "said, and keep working towards the user's latest request."
    )
    return "".join(parts)


def _sections(found: _Found, later: _Found) -> list[tuple[str, list[str]]]:
    files = [(p, t) for p, t in found.files.items() if p not in later.files]
    written = [(p, t) for p, t in files if p in found.written]
    read = [(p, t) for p, t in files if p not in found.written]
    unseen = sorted(found.edited_unseen - set(later.files) - {p for p, _ in files})
    error = found.error if not later.error else ""
    # The failed command's output is the error's: not told twice.
    outputs = [
        (c, o) for c, o in found.outputs.items() if c not in later.outputs and o not in error
    ]
    calls = ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in found.calls.items())
    return [
        ("What the user said in the removed part", found.words),
        ("The last error", [error] if error else []),
        (
            "The task's checklist",
            [found.checklist] if found.checklist and not later.checklist else [],
        ),
        ("The end of each command's latest output", _outputs(outputs[-TAIL_COMMANDS:])),
        ("The latest copy of each file written in the removed part", _files(written)),
        (
            "Files edited in the removed part (re-read them before editing)",
            [", ".join(unseen)] if unseen else [],
        ),
        ("Calls removed", [middle_cut(calls, 2_000)] if calls else []),
        ("The latest copy of each file read in the removed part", _files(read)),
    ]


def _files(files: Sequence[tuple[str, str]]) -> list[str]:
    return [
        f'<file_content path="{path}">\n{middle_cut(text, FILE_CHARS)}\n</file_content>'
        for path, text in files
    ]


def _outputs(outputs: Sequence[tuple[str, str]]) -> list[str]:
    return [f"$ {command}\n…\n{tail(output)}" for command, output in outputs]


def tail(text: str, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> str:
    end = "\n".join(text.rstrip("\n").split("\n")[-lines:])
    return end[-chars:]


def middle_cut(text: str, chars: int) -> str:
    """`text` with its middle left out beyond `chars`, a third kept from its start and the rest
    from its end (an error's cause is printed last), cut at line ends where there are some."""
    if len(text) <= chars:
        return text
    head = text[: chars // 3]
    head = head[: head.rfind("\n")] if "\n" in head else head
    end = text[len(text) - (chars - len(head)) :]
    end = end[end.find("\n") + 1 :] if "\n" in end[:-1] else end
    skipped = len(text) - len(head) - len(end)
    return f"{head}\n[… {skipped:,} characters left out …]\n{end}"


# --- reading the messages ---------------------------------------------------------------------


def _scan(messages: Sequence[Message]) -> _Found:
    found = _Found()
    calls: dict[str, tuple[str, dict[str, str]]] = {}  # native call id -> (tool, params)
    xml: tuple[str, dict[str, str]] | None = None
    for message in messages:
        if message.role == "assistant":
            xml = _assistant(message, calls, found)
            continue
        for i, block in enumerate(message.content):
            if not isinstance(block, TextContent) or not block.text.strip():
                continue
            call = calls.get(block.tool_use_id) if block.tool_use_id else (xml if i == 0 else None)
            _user_block(block.text, call, found)
        xml = None
    return found


def _assistant(
    message: Message, calls: dict[str, tuple[str, dict[str, str]]], found: _Found
) -> tuple[str, dict[str, str]] | None:
    native = [b for b in message.content if isinstance(b, ToolUseContent)]
    for use in native:
        calls[use.id] = (use.name, dict(use.params))
        _called(use.name, dict(use.params), found)
    if native:
        return None
    block = next(
        (b for b in parse_assistant_message(message.text) if isinstance(b, ToolUseBlock)), None
    )
    if block is None:
        return None
    _called(block.name, dict(block.params), found)
    return block.name, dict(block.params)


def _called(tool: str, params: dict[str, str], found: _Found) -> None:
    found.calls[_label(tool, params)] += 1
    if progress := params.get("task_progress", "").strip():
        found.checklist = progress


def _label(tool: str, params: dict[str, str]) -> str:
    arg = params.get("path") or params.get("command") or params.get("regex") or params.get("url")
    if not arg:
        return tool
    arg = arg.strip().split("\n", 1)[0]
    return f"{tool} {arg[:80]}"


def _user_block(text: str, call: tuple[str, dict[str, str]] | None, found: _Found) -> None:
    header = parse_header(text)
    if header is None:
        if not text.lstrip().startswith(_PER_REQUEST):
            found.words.append(middle_cut(text.strip(), USER_WORDS_CHARS))
        return
    body = text[header.end :]
    found.words.extend(
        middle_cut(m.group(2).strip(), USER_WORDS_CHARS) for m in _SAID.finditer(body)
    )
    if looks_failed(body):
        found.error = middle_cut(text.strip(), ERROR_CHARS)
    if header.tool == "execute_command" or (call and call[0] == "execute_command"):
        command = (call[1].get("command", "") if call else "") or (header.arg or "")
        found.outputs.pop(command, None)  # keep commands in the order of their latest run
        found.outputs[command] = body
    for copied, (a, b), done in copies_of(text):
        if not done and text[a:b] != NOTE:
            found.files.pop(copied, None)
            found.files[copied] = text[a:b]
            found.edited_unseen.discard(copied)
    if call is not None and call[0] in _WRITE_TOOLS and (written := call[1].get("path")):
        found.written.add(_key(written))
        _written(_key(written), call, body, found)


def _written(path: str, call: tuple[str, dict[str, str]], body: str, found: _Found) -> None:
    """A saved edit: its whole content is the call's when the result says it holds exactly that."""
    if "holds exactly what you wrote" in body and call[0] == "write_to_file":
        found.files.pop(path, None)
        found.files[path] = call[1].get("content", "")
        found.edited_unseen.discard(path)
    elif "<final_file_content" not in body and "The content was saved" in body:
        found.files.pop(path, None)  # only a diff was shown: the copy held before is stale
        found.edited_unseen.add(path)


def _key(path: str) -> str:
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    return path
