"""'Always allow' for commands: remembered per workspace in pycline's home, never for a line
with a part the user did not allow."""

from __future__ import annotations

from pathlib import Path

from pycline.core.approval import ApprovalPolicy, AutoApprove
from pycline.events import ALWAYS_ALLOW, APPROVE, Answer, ApprovalQuestion, Question
from pycline.terminal.command_rules import workspace_rules
from pycline.tools.base import ToolCall, ToolContext
from pycline.tools.command import ExecuteCommandTool
from pycline.workspace.paths import Workspace
from tests.tools.readcmd_support import Recorder


class Asker:
    """The user: answers each approval with the next reply, and keeps what was asked."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.asked: list[ApprovalQuestion] = []

    async def __call__(self, question: Question, /) -> Answer:
        assert isinstance(question, ApprovalQuestion)
        self.asked.append(question)
        return Answer(self.replies.pop(0))


def _ctx(root: Path, asker: Asker) -> ToolContext:
    recorder = Recorder()
    policy = ApprovalPolicy(AutoApprove(), asker)
    return ToolContext(
        workspace=Workspace.at(root), approve=policy, say_fn=recorder.say, ask_fn=asker
    )


def _call(command: str) -> ToolCall:
    return ToolCall("execute_command", {"command": command, "requires_approval": "true"})


async def test_always_once_runs_the_same_command_unasked_in_that_workspace_only(
    isolated_home: Path, tmp_path: Path
) -> None:
    first, other = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    other.mkdir()
    asker = Asker(ALWAYS_ALLOW.id)
    result = await ExecuteCommandTool().run(_call("echo one"), _ctx(first, asker))
    assert "Output:\none" in result.text
    [question] = asker.asked
    assert any("`echo one`" in o.label for o in question.options if o.id == ALWAYS_ALLOW.id)
    assert workspace_rules(isolated_home, first) == ("echo one",)

    again = Asker()  # asking would fail: no replies left
    result = await ExecuteCommandTool().run(_call("echo one  two"), _ctx(first, again))
    assert "Output:\none two" in result.text and again.asked == []

    elsewhere = Asker(APPROVE.id)
    await ExecuteCommandTool().run(_call("echo one"), _ctx(other, elsewhere))
    assert len(elsewhere.asked) == 1
    assert workspace_rules(isolated_home, other) == ()


async def test_a_compound_command_with_an_unallowed_part_still_asks(
    isolated_home: Path, workspace: Path
) -> None:
    await ExecuteCommandTool().run(_call("echo one"), _ctx(workspace, Asker(ALWAYS_ALLOW.id)))
    asker = Asker("deny")
    result = await ExecuteCommandTool().run(
        _call("echo one && touch made.txt"), _ctx(workspace, asker)
    )
    assert len(asker.asked) == 1 and result.denied
    assert not (workspace / "made.txt").exists()


async def test_dangerous_commands_are_never_offered_always(
    isolated_home: Path, workspace: Path
) -> None:
    asker = Asker("deny")
    await ExecuteCommandTool().run(_call("git push --force origin main"), _ctx(workspace, asker))
    [question] = asker.asked
    assert ALWAYS_ALLOW.id not in [o.id for o in question.options]


async def test_an_always_answer_the_question_did_not_offer_is_no_approval(
    isolated_home: Path, workspace: Path
) -> None:
    asker = Asker(ALWAYS_ALLOW.id)
    result = await ExecuteCommandTool().run(_call("sudo ls"), _ctx(workspace, asker))
    assert result.denied
    assert workspace_rules(isolated_home, workspace) == ()
