"""Cline's hand-off tools: `new_rule` writes a rule file; `condense` and `new_task` carry a summary
the model wrote. The last two change the task itself, so the loop runs them (`core.handoffs`);
here are their specs, shown to the model like any tool's.
"""

from __future__ import annotations

from pathlib import PurePosixPath

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
from pycline.tools.edit import WriteToFileTool
from pycline.workspace.agents import CustomAgent

# A custom agent's tool (`use_subagent_<name>`): one read-only sub-agent.
AGENT_FACTS = ToolFacts(
    effect="delegate",
    title="Cline wants to run a sub-agent:",
    done_title="Cline ran a sub-agent:",
    kind="think",
)

NEW_RULE_SPEC = ToolSpec(
    name="new_rule",
    facts=ToolFacts(
        effect="edit",
        title="Cline wants to create a rule:",
        done_title="Cline created a rule:",
        label="Write {path}",
        kind="edit",
    ),
    description=(
        "Create a rule file for this project in .clinerules/ (Markdown), e.g. when the user asks "
        "for one with /newrule. The user approves the file like any edit."
    ),
    params=(
        ParamSpec("path", "The file, under .clinerules/ and ending in .md."),
        ParamSpec("content", "The rule: starts with '## Brief overview', then concrete guidance."),
    ),
    example=(
        "<new_rule>\n<path>.clinerules/testing.md</path>\n<content>## Brief overview\n"
        "...</content>\n</new_rule>"
    ),
)

CONDENSE_SPEC = ToolSpec(
    name="condense",
    facts=ToolFacts(
        effect="handoff",
        title="Cline wants to condense the conversation:",
        done_title="Cline condensed the conversation:",
        kind="other",
    ),
    description=(
        "Replace the conversation so far by a detailed summary, when the user asks for it "
        "(/smol, /compact). The user approves the summary first."
    ),
    params=(
        ParamSpec(
            "context",
            "The summary: previous conversation, current work, key technical concepts, relevant "
            "files and code, problem solving, pending tasks and next steps.",
        ),
    ),
)

NEW_TASK_SPEC = ToolSpec(
    name="new_task",
    facts=ToolFacts(
        effect="handoff",
        title="Cline wants to start a new task:",
        done_title="Cline started a new task:",
        kind="other",
    ),
    description=(
        "Start a new task that continues this one with only the context you give, when the user "
        "asks (/newtask). The user approves first."
    ),
    params=(
        ParamSpec(
            "context",
            "What the new task needs: current work, key concepts, relevant files and code, "
            "problem solving, pending tasks and next steps.",
        ),
    ),
)


SUBAGENTS_SPEC = ToolSpec(
    name="use_subagents",
    facts=ToolFacts(
        effect="delegate",
        title="Cline wants to run sub-agents:",
        done_title="Cline ran sub-agents:",
        kind="think",
    ),
    description=(
        "Run up to five read-only research sub-agents in parallel, each with its own context "
        "window: they read, list, search and fetch, then report. Use for broad investigations "
        "whose details you do not need in your own context. Each prompt is a self-contained "
        "research question."
    ),
    params=(
        ParamSpec("prompt_1", "The first sub-agent's research question."),
        *(ParamSpec(f"prompt_{i}", "Another sub-agent's question.", False) for i in range(2, 6)),
    ),
)


class NewRuleTool:
    spec = NEW_RULE_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("path"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        path = call.require("path").strip()
        parts = PurePosixPath(path.replace("\\", "/")).parts
        if len(parts) < 2 or parts[0] != ".clinerules" or ".." in parts or not path.endswith(".md"):
            raise ToolError("A rule's path must be inside .clinerules/ and end in .md.")
        write = ToolCall("write_to_file", {"path": path, "content": call.require("content")})
        return await WriteToFileTool().run(write, ctx)


class HandoffSpecTool:
    """A tool the loop handles itself (its run is never reached through this object)."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def summary(self, call: ToolCall) -> str:
        return self._spec.name

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        raise ToolError(f"{self._spec.name} cannot be used here.")


class CustomAgentTool(HandoffSpecTool):
    """`use_subagent_<name>`: one of the user's custom agents, run by the loop as a sub-agent."""

    def __init__(self, agent: CustomAgent) -> None:
        super().__init__(
            ToolSpec(
                name=agent.tool_name,
                description=(
                    f"{agent.description} (The {agent.name} agent: a read-only sub-agent with "
                    "its own context window; give it a self-contained task, it reports back.)"
                ),
                params=(ParamSpec("prompt", f"What the {agent.name} agent should do."),),
                facts=AGENT_FACTS,
            )
        )
        self.agent = agent
