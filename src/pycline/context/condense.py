"""Auto-condense: the model summarises the task so far and history restarts from the summary."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pycline.messages import Content, ImageContent, Message, TextContent

FILES_TAG = "files_to_reread"

CONDENSE_REQUEST = f"""[CONTEXT LIMIT] The conversation is close to the model's context window. Before doing anything else, write a summary of the task so far; it will replace the conversation, so anything left out is lost. Do not call any other tool in this reply.

Answer with the summarize_task tool, the summary in its <context> parameter, using exactly these sections:

1. Primary request and intent: what the user asked for, in full, including every explicit requirement and any later change of direction.
2. Key technical concepts: languages, frameworks, libraries, conventions and commands that matter for the work.
3. Files and code sections: every file looked at, created or changed, why it matters, and the important code (signatures, snippets you will need). Then list the files whose current content you need to continue, one workspace-relative path per line, inside <{FILES_TAG}>…</{FILES_TAG}>; their fresh content will be attached to the summary. Keep this list short (the files you are actively working on).
4. Problems solved: errors met and how they were fixed, approaches that failed and why.
5. Pending tasks: what the user asked for that is not done yet.
6. Current work: precisely what was being done right before this request, with file names and code.
7. Next step (optional): the next action, only if it follows directly from the user's latest request; quote the relevant words of that request.

Example:
<summarize_task>
<context>
1. Primary request and intent:
   …
3. Files and code sections:
   - src/app.py: entry point; `main()` parses arguments …
   <{FILES_TAG}>
   src/app.py
   tests/test_app.py
   </{FILES_TAG}>
…
</context>
</summarize_task>"""

SUMMARY_INTRO = (
    "[Condensed history] The earlier conversation was replaced by this summary to fit the "
    "context window. Continue the task from where it leaves off.\n\n"
)
REREAD_INTRO = "[Current content of the files named in the summary]"

_TAGGED = {
    name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL) for name in ("context", "summary")
}
_FILES = re.compile(rf"<{FILES_TAG}>(.*?)</{FILES_TAG}>", re.DOTALL)
_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


def parse_summary(reply: str) -> str:
    """The summary in a reply: the `<context>` (or `<summary>`) content, else the whole text."""
    for pattern in _TAGGED.values():
        match = pattern.search(reply)
        if match is not None and match.group(1).strip():
            return match.group(1).strip()
    return reply.strip()


def files_to_reread(summary: str) -> list[str]:
    """Paths listed in the summary's `<files_to_reread>` blocks, in order, without repeats."""
    paths: list[str] = []
    for block in _FILES.findall(summary):
        for line in block.splitlines():
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
