"""write_to_file and replace_in_file: propose a change, ask, write it, report what happened.

After a write, the problems the edit introduced are reported to the model: tree-sitter syntax
errors, new findings of the linters configured for the file (`ToolServices.linters`) and new
errors from the session's language servers (`ToolServices.language_servers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path

from pycline.editing import syntax_guard, textfile
from pycline.editing.cleanup import (
    clean_write_content,
    model_text,
    omission_placeholders,
    truncation_warning,
)
from pycline.editing.diffs import unified_diff
from pycline.editing.linters import Confine
from pycline.editing.markers import EXAMPLE_BLOCK, parse_diff
from pycline.editing.problems import ProblemCheck, render_problems
from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from pycline.editing.textfile import TextFile
from pycline.errors import ToolError
from pycline.events import ApprovalQuestion, Notice
from pycline.prompts.responses import DENIED, with_feedback
from pycline.tools.base import (
    Approval,
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)
from pycline.workspace.paths import ResolvedPath
from pycline.workspace.suggest import not_found_hint, same_name_files

# Beyond these sizes the model gets the changed parts with line numbers, not the whole file.
FULL_CONTENT_MAX_LINES = 400
FULL_CONTENT_MAX_CHARS = 40_000
ERROR_CONTENT_MAX_LINES = 300

WRITE_TO_FILE_SPEC = ToolSpec(
    name="write_to_file",
    facts=ToolFacts(
        effect="edit",
        title="Cline wants to create or overwrite this file:",
        done_title="Cline wrote this file:",
        label="Write {path}",
        kind="edit",
        checkpointed=True,
    ),
    description=(
        "Create a file (and missing folders) or replace all of its content; for changes to part "
        "of a file prefer replace_in_file. Send the COMPLETE content, never placeholders such "
        "as '// rest of code unchanged': what they stand for would be lost."
    ),
    params=(
        ParamSpec("path", "The file's path."),
        ParamSpec("content", "The file's complete new content."),
    ),
    example=(
        "<write_to_file>\n<path>src/config.json</path>\n<content>\n"
        '{\n  "port": 8080\n}\n</content>\n</write_to_file>'
    ),
)

REPLACE_IN_FILE_SPEC = ToolSpec(
    name="replace_in_file",
    facts=ToolFacts(
        effect="edit",
        title="Cline wants to edit this file:",
        done_title="Cline edited this file:",
        label="Edit {path}",
        kind="edit",
        checkpointed=True,
    ),
    description=(
        "Change parts of an existing file with SEARCH/REPLACE blocks:\n"
        "------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n+++++++ REPLACE\n"
        "SEARCH must match the file's current lines exactly (whole lines: indentation, "
        "comments), with just enough lines to be unique. Several small blocks may go in one "
        "call, in file order; all apply or none does. An empty REPLACE deletes; to move code, "
        "delete it with one block and insert it with another."
    ),
    params=(
        ParamSpec("path", "The file's path."),
        ParamSpec("diff", "One or more SEARCH/REPLACE blocks."),
    ),
    example=(
        f"<replace_in_file>\n<path>src/app.py</path>\n<diff>\n{EXAMPLE_BLOCK}\n</diff>\n</replace_in_file>"
    ),
)


@dataclass(frozen=True, slots=True)
class _Target:
    resolved: ResolvedPath
    existing: TextFile | None  # None: a new file
    on_disk: bytes | None = None  # the bytes `existing` was read from (None: no file)


def _target(ctx: ToolContext, path: str, *, must_exist: bool) -> _Target:
    resolved = ctx.resolve(path)
    if ctx.access.blocked(resolved.path):
        raise ToolError(
            f"Access to {resolved.display} is blocked by the .clineignore file settings. "
            "Continue without this file, or ask the user to change the ignore rules."
        )
    if resolved.path.is_dir():
        raise ToolError(f"{resolved.display} is a directory, not a file.")
    if not resolved.path.exists():
        if must_exist:
            hint = "" if resolved.outside else not_found_hint(ctx.cwd, resolved.display, ctx.access)
            raise ToolError(
                f"The file {resolved.display} does not exist.{hint} Check the path (list_files "
                "can help), or create the file with write_to_file."
            )
        return _Target(resolved, None)
    data, mode = textfile.read_bytes(resolved.path)
    try:
        return _Target(resolved, textfile.decode(data, mode), data)
    except textfile.BinaryFile:
        if must_exist:
            raise
        return _Target(resolved, None, data)  # write_to_file may replace a binary file entirely


class WriteToFileTool:
    spec = WRITE_TO_FILE_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        path = call.require("path")
        content = call.require("content")
        target = _target(ctx, path, must_exist=False)
        cleaned = clean_write_content(content, path, ctx.model_family)
        base = target.existing or TextFile("")
        proposed = base.conform(cleaned)
        if target.existing is not None and proposed == base.text:
            # Nothing to show or approve: asking Save/Reject over an empty diff helps nobody.
            return ToolResult(
                f"{target.resolved.display} already holds exactly this content; nothing was "
                "written. If the task needs a change to this file, it is not made yet: make it "
                "(replace_in_file is the simpler way)."
            )
        # A rewrite that would break the file's syntax is refused before anyone is asked (an
        # edit's own check is in ReplaceInFileTool.run, with its whole-function hint).
        broken = syntax_guard.refusal(
            target.resolved.display, target.existing.text if target.existing else None, proposed
        )
        if broken is not None:
            return ToolResult(broken, is_error=True)
        warning = truncation_warning(omission_placeholders(proposed, base.text))
        result = await _propose_and_save(
            ctx, self.summary(call), self.spec.name, target, proposed, warning, written=content
        )
        if target.existing is None and target.on_disk is None and not result.denied:
            result = _with_namesake_note(ctx, target.resolved, result)
        return result


def _with_namesake_note(ctx: ToolContext, created: ResolvedPath, result: ToolResult) -> ToolResult:
    """A new file named as one that exists elsewhere is most often a wrong path: say so."""
    if created.outside:
        return result
    others = same_name_files(ctx.cwd, created.display, ctx.access)
    if not others:
        return result
    note = (
        f"\n\nNote: {created.display} is a new file, and {' and '.join(others)} already "
        f"exists with the same name. If you meant to change that file, edit it instead (and "
        f"delete {created.display})."
    )
    return replace(result, text=result.text + note)


class ReplaceInFileTool:
    spec = REPLACE_IN_FILE_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        path = call.require("path")
        diff = call.require("diff")
        target = _target(ctx, path, must_exist=True)
        existing = target.existing
        if existing is None:  # _target raises first; this keeps the type checker informed
            raise ToolError(f"The file {target.resolved.display} cannot be edited.")
        diff = model_text(diff.strip(), path, ctx.model_family)
        try:
            outcome = apply_search_replace(existing.text, diff)
        except SearchReplaceError as exc:
            return ToolResult(
                _edit_failed(str(exc), target.resolved.display, existing), is_error=True
            )
        proposed = existing.conform(outcome.content)
        display = target.resolved.display
        broken = syntax_guard.refusal(display, existing.text, proposed)
        if broken is not None:
            rewrite = syntax_guard.whole_rewrite(path, existing.text, diff, outcome.match_indices)
            return ToolResult(f"{broken}\n{rewrite}" if rewrite else broken, is_error=True)
        if proposed == existing.text:
            return ToolResult(_unchanged(target.resolved.display, diff))
        return await _propose_and_save(
            ctx, self.summary(call), self.spec.name, target, proposed, ""
        )


def _unchanged(display: str, diff: str) -> str:
    text = f"The edit leaves {display} unchanged (each REPLACE equals its SEARCH); nothing was written."
    outside = parse_diff(diff, is_final=True).outside
    if outside:
        # New lines written after the block's end marker (a way small models get it wrong).
        shown = "\n".join(outside[:5])
        text += (
            " The diff has lines outside any block, which were not used:\n"
            f"{shown}\nThe new lines go between ======= and +++++++ REPLACE, in place of the "
            "SEARCH lines they change."
        )
    return text


def _fingerprint(path: Path) -> bytes | None:
    """The file's bytes as they are now (None: absent or unreadable)."""
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _reread(resolved: ResolvedPath) -> _Target:
    """The file as it is now, after a change made while the user was being asked."""
    try:
        if not resolved.path.exists():
            return _Target(resolved, None)
        data, mode = textfile.read_bytes(resolved.path)
        return _Target(resolved, textfile.decode(data, mode), data)
    except (ToolError, OSError):
        return _Target(resolved, None, _fingerprint(resolved.path))


async def _propose_and_save(
    ctx: ToolContext,
    summary: str,
    tool: str,
    target: _Target,
    proposed: str,
    warning: str,
    *,
    written: str | None = None,
) -> ToolResult:
    """Ask, save, and report; `written` is the whole content the model wrote (write_to_file)."""
    resolved = target.resolved
    on_disk = target.on_disk  # read once, with the file's text
    old_text = target.existing.text if target.existing else ""
    file = target.existing or TextFile("")
    # A replacement the file's encoding cannot hold is refused before anyone is asked.
    file.encode(proposed)
    servers = ctx.services.language_servers
    if servers is not None and (installing := servers.prepare(resolved.path)):
        ctx.say(Notice(installing))  # a one-time wait the user should know the reason for
    check = ProblemCheck(
        resolved.path,
        resolved.display,
        ctx.cwd,
        ctx.services.linters,
        servers,
        confine=_linter_confinement(ctx),
        wait=servers.wait_for(resolved.path) if servers is not None else None,
        late=servers.late if servers is not None else None,
    )
    # The old file's lint runs while the user looks at the proposal.
    before = asyncio.create_task(check.before(target.existing.text if target.existing else None))
    approval: Approval | None = None
    try:
        approval = await ctx.approve(
            ApprovalQuestion(
                tool,
                summary,
                preview=unified_diff(old_text, proposed, resolved.display),
                outside_workspace=resolved.outside,
                content=proposed,
                path=resolved.display,
            ),
            "edit",
            outside_workspace=resolved.outside,
        )
    finally:
        if approval is None or not approval.approved:  # denied, failed or cancelled
            before.cancel()
            check.discard()
            with contextlib.suppress(asyncio.CancelledError):
                await before
    if not approval.approved:
        return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)
    check.approved()
    if _fingerprint(resolved.path) != on_disk:
        # Someone (the user, in their editor) changed the file while the question was open:
        # saving now would silently undo that, so the user is asked again with the real diff.
        check.discard()
        return await _propose_and_save(
            ctx,
            f"{summary} (the file changed while waiting for approval; review again)",
            tool,
            _reread(resolved),
            proposed,
            warning,
            written=written,
        )

    final = proposed
    user_changes = ""
    if approval.edited_content is not None:
        final = approval.edited_content.replace("\r\n", "\n")
        if final != proposed:
            user_changes = unified_diff(proposed, final, resolved.display)
    data = file.encode(final)  # the user's own edits may not fit the encoding either
    await before
    textfile.write(resolved.path, data, mode=file.mode)
    problems = await check.after(final)
    for notice in servers.take_notices() if servers is not None else ():
        ctx.say(Notice(notice))

    parts = [f"The content was saved to {resolved.display}."]
    if user_changes:
        parts.append(
            "The user edited your proposal before saving it. Their changes (from your version "
            f"to the saved one):\n```diff\n{user_changes.rstrip()}\n```"
        )
    if written is not None and _same_text(written, final):
        # The model's own call already holds the file: echoing it would send it twice on every
        # later request.
        parts.append(
            "The file holds exactly what you wrote: use that as the reference for further edits."
        )
    else:
        parts.append(_saved_content(resolved.display, old_text, final))
    if problems:
        parts.append(render_problems(resolved.display, problems))
    if warning:
        parts.append(warning)
    return ToolResult(with_feedback("\n\n".join(parts), approval.feedback))


def _same_text(a: str, b: str) -> bool:
    """Equal but for line endings and trailing newlines (which the file's own style decides)."""
    return a.replace("\r\n", "\n").rstrip("\n") == b.replace("\r\n", "\n").rstrip("\n")


def _saved_content(display: str, old: str, final: str) -> str:
    lines = final.count("\n") + (0 if final.endswith("\n") else 1)
    if lines <= FULL_CONTENT_MAX_LINES and len(final) <= FULL_CONTENT_MAX_CHARS:
        return (
            f"The file as saved (use this as the reference for further edits):\n"
            f'<final_file_content path="{display}">\n{final.rstrip(chr(10))}\n</final_file_content>'
        )
    changes = unified_diff(old, final, display).rstrip()
    return (
        f"The file has {lines} lines, so only the changed parts are shown (unified diff, line "
        f"numbers in the @@ headers); read_file shows the rest:\n```diff\n{changes}\n```"
    )


def _edit_failed(message: str, display: str, file: TextFile) -> str:
    lines = file.text.split("\n")
    if len(lines) <= ERROR_CONTENT_MAX_LINES:
        content = (
            f'The file was not changed. Its current content:\n<file_content path="{display}">\n'
            f"{file.text.rstrip(chr(10))}\n</file_content>"
        )
    else:
        content = (
            f"The file was not changed. It has {len(lines)} lines; read the part you want to "
            "edit with read_file before retrying."
        )
    return (
        f"{message}\n\n{content}\n\nNext: send replace_in_file again, with fewer "
        "SEARCH/REPLACE blocks whose SEARCH lines are copied exactly from the file. (Only after "
        "three failures in a row, write the whole file with write_to_file, your change made in "
        "it.)"
    )


def _linter_confinement(ctx: ToolContext) -> Confine:
    """Linters run as language servers do: in the commands' sandbox, without secrets."""
    from pycline.terminal.sandbox import program_argv

    policy, cwd = ctx.services.sandbox, ctx.cwd
    return lambda argv: program_argv(argv, policy, cwd, os.environ)
