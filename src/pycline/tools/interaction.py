"""Tools that talk to the user: follow-up questions and completion."""

from __future__ import annotations

import json

from pycline.errors import ToolError
from pycline.events import ACCEPT, CompletionQuestion, CompletionResult, FollowupQuestion
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)

FOLLOWUP_SPEC = ToolSpec(
    name="ask_followup_question",
    facts=ToolFacts(effect="interaction", title="Cline has a question:", kind="think"),
    description=(
        "Ask the user a question, only when a detail needed to proceed cannot be found with the "
        "tools (prefer the tools)."
    ),
    params=(
        ParamSpec("question", "The question: clear and specific."),
        ParamSpec("options", "JSON array of 2-5 short suggested answers.", required=False),
    ),
    example=(
        "<ask_followup_question>\n<question>Which port should the server use?</question>\n"
        '<options>["8000", "8080"]</options>\n</ask_followup_question>'
    ),
)

COMPLETION_SPEC = ToolSpec(
    name="attempt_completion",
    facts=ToolFacts(
        effect="interaction",
        title="Task Completed",
        kind="think",
        checkpointed=True,
        read_only=True,
    ),
    description=(
        "Present the final result once the task is done and every earlier tool use has succeeded. "
        "The user may accept it or give feedback."
    ),
    params=(
        ParamSpec("result", "What was done; final, not ending in a question or offer."),
        ParamSpec(
            "command",
            "A command that shows the result (e.g. `open index.html`); not echo/cat.",
            required=False,
        ),
    ),
    example=(
        "<attempt_completion>\n<result>Added the --verbose flag and its test.</result>\n"
        "</attempt_completion>"
    ),
)


# Not offered to the model: the check a verified goal runs before a completion is accepted
# (core.goal), shown by every front end as a call of its own.
VERIFY_GOAL_SPEC = ToolSpec(
    name="verify_goal",
    facts=ToolFacts(
        effect="execute",
        title="pycline checks the goal before the task completes:",
        done_title="pycline checked the goal:",
        label="Verify: {command}",
        kind="execute",
    ),
    description="The user's check of the task's goal; only its exit 0 completes the task.",
    params=(ParamSpec("command", "The check's command line."),),
)


def parse_options(raw: str | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(f"options must be a JSON array of strings: {exc.msg}.") from exc
    except RecursionError:
        raise ToolError("options must be a JSON array of strings, not nested arrays.") from None
    if not isinstance(value, list):
        raise ToolError("options must be a JSON array of strings.")
    return tuple(str(v) for v in value)


class AskFollowupQuestionTool:
    spec = FOLLOWUP_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("question"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        question = call.require("question")
        options = parse_options(call.get("options"))
        asked = FollowupQuestion.suggesting(question, options)
        answer = await ctx.ask(asked)
        chosen = next((o.label for o in asked.options if answer.chose(o)), "")
        text = "\n".join(t for t in (chosen, answer.text) if t)
        return ToolResult(f"<answer>\n{text}\n</answer>")


class AttemptCompletionTool:
    spec = COMPLETION_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        result = call.require("result")
        ctx.say(CompletionResult(result, call.get("command")))
        answer = await ctx.ask(CompletionQuestion(result))
        if answer.chose(ACCEPT) or not (answer.text.strip() or answer.images):
            return ToolResult("The user accepted the result.", completed=True)
        return ToolResult(
            "The user has provided feedback on the results. Consider their input to continue the "
            "task, and then attempt completion again.\n"
            f"<feedback>\n{answer.text.strip()}\n</feedback>"
        )
