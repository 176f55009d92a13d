"""Files the agent writes: a change the user makes while the approval question is open is never
overwritten unseen, and a killed write leaves no temp file behind for good."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pycline.events import ApprovalQuestion
from pycline.storage.atomic import atomic_write_bytes
from pycline.tools.base import Approval, ApprovalCategory
from pycline.tools.edit import WriteToFileTool
from tests.editing.tooling import FakeApprover, call, make_context


class EditsWhileAsked(FakeApprover):
    """The user saves the file in their editor before answering the first question."""

    def __init__(self, path: Path, answers: list[bool]) -> None:
        super().__init__()
        self.path = path
        self.answers = answers

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.asked.append((question, category, outside_workspace))
        if len(self.asked) == 1:
            self.path.write_text("the user's own change\n", encoding="utf-8")
        return Approval(self.answers[len(self.asked) - 1])


async def test_a_file_changed_during_the_question_is_asked_about_again(workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("original\n", encoding="utf-8")
    approver = EditsWhileAsked(target, [True, False])
    result = await WriteToFileTool().run(
        call("write_to_file", path="a.txt", content="model\n"), make_context(workspace, approver)
    )
    assert len(approver.asked) == 2
    second = approver.asked[1][0]
    assert "changed while waiting" in second.summary
    assert "the user's own change" in (second.preview or "")
    assert result.denied
    assert target.read_text(encoding="utf-8") == "the user's own change\n"


async def test_approving_again_after_the_change_writes_the_proposal(workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("original\n", encoding="utf-8")
    approver = EditsWhileAsked(target, [True, True])
    await WriteToFileTool().run(
        call("write_to_file", path="a.txt", content="model\n"), make_context(workspace, approver)
    )
    assert len(approver.asked) == 2
    assert target.read_text(encoding="utf-8") == "model\n"


def test_a_temp_file_left_by_a_killed_writer_is_removed_by_the_next_write(
    workspace: Path,
) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stray = workspace / f".a.txt.pycline-{dead.stdout.strip()}-x1y2.tmp"
    stray.write_bytes(b"half a file")
    atomic_write_bytes(workspace / "a.txt", b"whole\n")
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]
