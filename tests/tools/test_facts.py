"""Facts about tools live on their specs: what a call does, Cline's titles, the editor's kind,
whether a checkpoint follows it, whether a read-only sub-agent may make it. Every policy and
front end reads them from there, so a tool that is new to them is handled by its facts."""

from __future__ import annotations

from pathlib import Path

from pycline.acp.mapping import tool_kind, tool_locations, tool_title
from pycline.app.builders import wiring
from pycline.app.services.tool_catalogue import builtin_specs, catalogue_json, facts_of
from pycline.core import modes
from pycline.events import ApprovalQuestion, Envelope, QuestionAsked
from pycline.tools.base import ToolCall, ToolFacts
from pycline.web.wire import event_json


def test_every_tool_this_build_offers_has_its_facts_on_its_spec(isolated_home: Path) -> None:
    offered = [
        *wiring.default_tools(browser=True),
        *wiring.mcp_tools(),
        *wiring.subagent_tools(isolated_home),
    ]
    known = {spec.name for spec in builtin_specs()}
    for tool in offered:
        assert tool.spec.name in known
        assert tool.spec.facts.effect != "other", tool.spec.name
    catalogue = catalogue_json()
    assert catalogue["replace_in_file"] == {
        "effect": "edit",
        "title": "Cline wants to edit this file:",
        "done_title": "Cline edited this file:",
        "label": "Edit {path}",
        "kind": "edit",
        "checkpointed": True,
        "read_only": False,
        "conversational": False,
    }
    assert catalogue["attempt_completion"]["conversational"]
    assert {n for n, f in catalogue.items() if f["read_only"]} == {
        "read_file",
        "list_files",
        "search_files",
        "list_code_definition_names",
        "web_fetch",
        "use_skill",
        "attempt_completion",
    }


def test_plan_mode_refuses_by_effect_not_by_name() -> None:
    edit = ToolFacts(effect="edit")
    assert modes.refusal("plan", ToolCall("my_patch_tool", {}), edit) is not None
    assert modes.refusal("act", ToolCall("my_patch_tool", {}), edit) is None
    run = ToolFacts(effect="execute")
    assert modes.refusal("plan", ToolCall("my_shell", {"requires_approval": "false"}), run) is None
    assert modes.refusal("plan", ToolCall("my_shell", {}), run) is not None
    planned = ToolFacts(effect="plan")
    refused = modes.refusal("act", ToolCall("my_plan", {}), planned)
    assert refused is not None and "only available in PLAN MODE" in refused


def test_a_custom_agents_tool_is_known_by_its_facts() -> None:
    facts = facts_of("use_subagent_scout")
    assert facts.effect == "delegate" and not facts.read_only
    assert facts_of("no_such_tool") == ToolFacts()


def test_editors_get_the_kind_title_and_locations_from_the_facts(tmp_path: Path) -> None:
    facts = ToolFacts(effect="edit", label="Patch {path}", kind="edit")
    assert tool_kind("my_patch", facts) == "edit"
    assert tool_title("my_patch", {"path": "a.py"}, facts) == "Patch a.py"
    (location,) = tool_locations("my_patch", {"path": "a.py"}, tmp_path, facts)
    assert location.path == str(tmp_path / "a.py")


def test_the_web_labels_an_edits_approval_save_from_its_effect() -> None:
    labels = {}
    for tool in ("new_rule", "write_to_file", "execute_command", "browser_action"):
        data = event_json(Envelope("t", 1, 0.0, QuestionAsked("q", ApprovalQuestion(tool, "s"))))
        labels[tool] = data["question"]["options"][0]["label"]
    assert labels == {
        "new_rule": "Save",
        "write_to_file": "Save",
        "execute_command": "Run Command",
        "browser_action": "Approve",
    }
