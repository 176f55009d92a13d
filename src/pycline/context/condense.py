"""Auto-condense: the model summarises the task so far and history restarts from the summary."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pycline.messages import Content, ImageContent, Message, TextContent

REQUIRED_FILES = "9. Required Files"

CONDENSE_REQUEST = f"""[CONTEXT LIMIT] The conversation is close to the model's context window. Before doing anything else, write a summary of the task so far; it will replace the conversation, so anything left out is lost. Do not call any other tool in this reply, with one exception: if the task is already complete, call attempt_completion instead of summarising.

Answer with the summarize_task tool: the summary in its <context> parameter, and, when you keep a task_progress checklist, the checklist in its <task_progress> parameter. Use exactly these sections:

1. Primary Request and Intent: what the user asked for, in full, including every explicit requirement and any later change of direction.
2. Key Technical Concepts: languages, frameworks, libraries, conventions and commands that matter for the work.
3. Files and Code Sections: every file looked at, created or changed, why it matters, and the important code (signatures, snippets you will need).
4. Problem Solving: errors met and how they were fixed, approaches that failed and why.
5. Pending Tasks: what the user asked for that is not done yet.
6. Task Evolution: how the request changed along the way, in the user's words where it matters.
7. Current Work: precisely what was being done right before this request, with file names and code.
8. Next Step (optional): the next action, only if it follows directly from the user's latest request; quote the relevant words of that request.
{REQUIRED_FILES}: the files whose current content you need to continue, one `- path` line each (workspace-relative). Their fresh content will be attached to the summary; keep the list short (the files you are actively working on).

Example:
<summarize_task>
<context>
1. Primary Request and Intent:
   …
7. Current Work:
   …
{REQUIRED_FILES}:
- src/app.py
- tests/test_app.py
</context>
<task_progress>
- [x] Read the entry point
- [ ] Add the flag
</task_progress>
</summarize_task>"""

SUMMARY_INTRO = (
    "[Condensed history] The earlier conversation was replaced by this summary to fit the "
    "context window. Continue the task from where it leaves off.\n\n"
)
REREAD_INTRO = "[Current content of the files named in the summary]"

_TAGGED = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL) for name in ("context", "summary")
}
# The Required Files section runs to the next numbered section or the end of the summary.
_FILES = re.compile(r"^\s*9\.\s*Required Files:?[^\n]*\n(.*?)(?=^\s*\d+\.\s|\Z)", re.M | re.S)
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


def parse_summary(reply: str) -> str:
    """The summary in a reply: the `<context>` (or `<summary>`) content, else the whole text."""
    for pattern in _TAGGED.values():
        match = pattern.search(reply)
        if match is not None and match.group(1).strip():
            return match.group(1).strip()
    return reply.strip()


def files_to_reread(summary: str) -> list[str]:
    """Paths listed under the summary's "9. Required Files", in order, without repeats."""
    paths: list[str] = []
    for block in _FILES.findall(summary):
        for line in block.splitlines():
            if not _BULLET.match(line.strip()):
                continue
            path = _BULLET.sub("", line.strip()).strip().strip("`'\"").strip()
            if path and path not in paths:
                paths.append(path)
    return paths


def history_from_summary(
    first_message: Message, summary: str, reread: Mapping[str, str]
) -> list[Message]:
    """A fresh two-message history: the original task (plus re-read files), then the summary.

    It ends with an assistant message, so the caller appends its next user turn as usual. The
    task's stale environment details, and files attached by an earlier condense, are dropped.
    """
    kept: list[Content] = [
        c for c in first_message.content if isinstance(c, ImageContent) or _is_task_text(c.text)
    ]
    if not kept:
        kept = [TextContent("<task>\n(the original task text was not available)\n</task>")]
    if reread:
        files = "\n\n".join(
            f'<file_content path="{path}">\n{content}\n</file_content>'
            for path, content in reread.items()
        )
        kept.append(TextContent(f"{REREAD_INTRO}\n\n{files}"))
    return [
        Message("user", tuple(kept), first_message.ts),
        Message.assistant(SUMMARY_INTRO + summary.strip()),
    ]


def _is_task_text(text: str) -> bool:
    stripped = text.lstrip()
    return not (stripped.startswith("<environment_details>") or stripped.startswith(REREAD_INTRO))
