"""A server's form (elicitation) answered as a user does it at the terminal's prompt: the answer
reaches the server and its result the model. (The web page: tests/web/test_mcp_elicitation.py;
an editor: tests/acp/test_mcp_elicitation.py.)

The server is tests/mcp/servers/asking.py, run for real over stdio.
"""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.cli.test_interactive import spawn
from tests.mcp.conftest import py_server

ORDER = (
    "<use_mcp_tool>\n<server_name>asking</server_name>\n<tool_name>order</tool_name>\n"
    "<arguments>{}</arguments>\n</use_mcp_tool>"
)
DONE = "<attempt_completion>\n<result>Ordered.</result>\n</attempt_completion>"


def asking_server(home: Path) -> None:
    settings = home / "settings" / "cline_mcp_settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"mcpServers": {"asking": py_server("asking")}}))


def _sent_to_model(home: Path) -> str:
    (task,) = (home / "tasks").iterdir()
    return (task / "api_conversation_history.json").read_text(encoding="utf-8")


def test_the_form_is_filled_in_at_the_terminals_prompt(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    asking_server(isolated_home)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([ORDER, DONE]), encoding="utf-8")
    child = spawn(["--provider", "scripted", "--script", str(script)], isolated_home, workspace)
    child.expect("Task> ")
    child.sendline("order an ice cream")
    child.expect(r"Allow Use tool 'order' of MCP server 'asking'\? ")
    child.sendline("y")
    child.expect_exact("The MCP server 'asking' asks: Which ice cream would you like?")
    child.expect_exact("- scoops (integer): Scoops; default 2")
    child.expect_exact("> ")
    child.sendline("flavour: pistachio; scoops: 3")  # one line: the prompt takes one
    child.expect_exact("accepted: 3 x pistachio")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert "accepted: 3 x pistachio" in _sent_to_model(isolated_home)
