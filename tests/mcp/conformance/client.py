"""The conformance suite's client command: makes `pycline run` the MCP client of one scenario.

The suite (npm `@modelcontextprotocol/conformance`, pinned in .ci/run) starts the server side of
a scenario and runs `python client.py URL` with `MCP_CONFORMANCE_SCENARIO` (and, for some,
`MCP_CONFORMANCE_CONTEXT`) set. This adapter writes a fresh PYCLINE_HOME whose MCP settings name
that server, and runs `pycline run` headless with the scripted provider calling the scenario's
tool, exactly as a user's task would. The browser pycline opens for a login is this same file
(`client.py --browse URL`): it loads the page and follows its redirects back to pycline's
loopback listener, as a user's browser does once the user has approved.

    python client.py URL          (what the suite runs)
    python client.py --browse URL (the "browser" pycline opens for a login)
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

SERVER = "conformance"
# The Client ID Metadata Document URL the suite's authorization server accepts as a client id.
CIMD_URL = "https://conformance-test.local/client-metadata.json"

# The tool each scenario's server offers, and the arguments to call it with.
TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}
AUTH_TOOL = ("test-tool", {})


def browse(url: str) -> int:
    """Load the authorization page; its redirect ends at pycline's loopback callback."""
    with urllib.request.urlopen(url, timeout=30) as response:  # follows redirects
        response.read()
    return 0


def _server_entry(scenario: str, url: str, context: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "streamableHttp", "url": url, "timeout": 20}
    if scenario.startswith("auth/"):
        oauth: dict[str, Any] = {"clientMetadataUrl": CIMD_URL}
        if context.get("client_id"):
            oauth["clientId"] = context["client_id"]
        if context.get("client_secret"):
            oauth["clientSecret"] = context["client_secret"]
        entry["oauth"] = oauth
    return entry


def _script(scenario: str) -> list[dict[str, Any]]:
    done = {"tool_calls": [{"name": "attempt_completion", "arguments": {"result": "Done."}}]}
    if scenario == "initialize":
        return [done]
    tool, arguments = TOOLS.get(scenario, AUTH_TOOL)
    call = {
        "name": "use_mcp_tool",
        "arguments": {
            "server_name": SERVER,
            "tool_name": tool,
            "arguments": json.dumps(arguments),
        },
    }
    return [{"tool_calls": [call]}, done]


def run(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    scratch = Path(tempfile.mkdtemp(prefix="pycline-conformance-"))
    home, workspace = scratch / "home", scratch / "workspace"
    (home / "settings").mkdir(parents=True)
    workspace.mkdir()
    settings = {"mcpServers": {SERVER: _server_entry(scenario, url, context)}}
    (home / "settings" / "cline_mcp_settings.json").write_text(json.dumps(settings), "utf-8")
    script = scratch / "script.json"
    script.write_text(json.dumps(_script(scenario)), "utf-8")
    command = [
        *shlex.split(os.environ.get("PYCLINE_COMMAND", f"{sys.executable} -m pycline")),
        "run",
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        *(
            []
            if os.environ.get("CONFORMANCE_BASELINE")
            else ["--mcp-login", "--mcp-elicitation", "defaults"]
        ),
        "--cwd",
        str(workspace),
        f"Use the {SERVER} MCP server.",
    ]
    env = {
        **os.environ,
        "PYCLINE_HOME": str(home),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "BROWSER": f"{shlex.quote(sys.executable)} {shlex.quote(__file__)} --browse %s",
    }
    proc = subprocess.run(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=float(os.environ.get("CONFORMANCE_RUN_TIMEOUT", "120")),
        check=False,
    )
    return proc.returncode


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--browse":
        return browse(argv[1])
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    return run(argv[-1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
