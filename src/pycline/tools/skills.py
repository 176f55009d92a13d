"""`use_skill`: load a skill's instructions into the conversation (no approval: it only reads)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pycline.errors import ToolError
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)
from pycline.workspace.skills import discover_skills

USE_SKILL_SPEC = ToolSpec(
    name="use_skill",
    facts=ToolFacts(
        effect="read",
        title="Cline wants to use a skill:",
        done_title="Cline loaded a skill:",
        label="Skill {skill_name}",
        kind="read",
        read_only=True,
    ),
    description=(
        "Load the instructions of one of the skills listed under SKILLS. Call it once per skill, "
        "before doing the job the skill describes."
    ),
    params=(ParamSpec("skill_name", "The skill's name, exactly as listed."),),
    example="<use_skill>\n<skill_name>release-notes</skill_name>\n</use_skill>",
)


class UseSkillTool:
    """`only`, when given, limits the skills it loads to those names (a custom agent's)."""

    def __init__(
        self, global_dirs: Sequence[Path] = (), *, only: frozenset[str] | None = None
    ) -> None:
        self._global_dirs = tuple(global_dirs)
        self._only = only

    def limited_to(self, names: Sequence[str]) -> UseSkillTool:
        return UseSkillTool(self._global_dirs, only=frozenset(names))

    @property
    def spec(self) -> ToolSpec:
        return USE_SKILL_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe("use_skill", call.get("skill_name"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        name = call.require("skill_name").strip()
        skills = discover_skills(ctx.workspace.root, self._global_dirs)
        if self._only is not None:
            skills = [s for s in skills if s.name in self._only]
        if not skills:
            raise ToolError("No skills are available.")
        skill = next((s for s in skills if s.name == name), None)
        if skill is None:
            known = ", ".join(s.name for s in skills)
            raise ToolError(f"Unknown skill '{name}'. Available skills: {known}.")
        try:
            body = skill.body()
        except OSError as exc:
            raise ToolError(f"The skill '{name}' could not be read: {exc.strerror}.") from exc
        return ToolResult(
            f'# Skill "{name}" is now active\n\n{body}\n\n'
            "(These instructions stay in force for this task; do not call use_skill for this "
            f"skill again. Files the skill refers to are in {skill.path.parent}.)"
        )
