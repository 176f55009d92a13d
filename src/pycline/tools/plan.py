"""`plan_mode_respond`: the model presents its plan or answer in Plan mode and waits for the user."""

from __future__ import annotations

from pycline.events import STOP, SWITCH_TO_ACT, PlanQuestion, PlanResponse
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)

PLAN_SPEC = ToolSpec(
    name="plan_mode_respond",
    facts=ToolFacts(effect="plan", title="Plan", kind="switch_mode"),
    description=(
        "PLAN MODE only. Reply to the user: a question, a discussion, or the concrete plan once you "
        "have explored enough (read files and searched first). The user replies or switches to "
        "ACT MODE to carry the plan out."
    ),
    params=(
        ParamSpec("response", "Your reply or plan (Markdown; a mermaid diagram is fine)."),
        ParamSpec(
            "needs_more_exploration",
            "true when you will read more files before planning; the user is not asked then.",
            required=False,
        ),
    ),
    example=(
        "<plan_mode_respond>\n<response>1. Add a --verbose flag in cli.py\n"
        "2. Log each step when set\n3. Test it</response>\n</plan_mode_respond>"
    ),
)

SWITCHED_TO_ACT = (
    "[The user has switched to ACT MODE, so you may now proceed with the task: carry out the plan "
    "with the tools.]"
)


class PlanModeRespondTool:
    spec = PLAN_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        response = call.require("response")
        ctx.say(PlanResponse(response))
        if (call.get("needs_more_exploration") or "").strip().lower() == "true":
            return ToolResult(
                "[You said you need more exploration. Use read_file, search_files or list_files, "
                "then respond again with plan_mode_respond.]"
            )
        answer = await ctx.ask(PlanQuestion(response))
        if answer.chose(SWITCH_TO_ACT):
            extra = (
                f"\n<user_message>\n{answer.text.strip()}\n</user_message>" if answer.text else ""
            )
            return ToolResult(SWITCHED_TO_ACT + extra, next_mode="act")
        if answer.chose(STOP) or not (answer.text.strip() or answer.images):
            return ToolResult("The user accepted the plan and ended the task here.", completed=True)
        return ToolResult(f"<user_message>\n{answer.text.strip()}\n</user_message>")
