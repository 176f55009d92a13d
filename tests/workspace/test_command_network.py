"""Which command lines plainly need the network (auto mode asks for those instead of running
them offline)."""

from __future__ import annotations

import pytest

from pycline.workspace.command_network import needs_network


@pytest.mark.parametrize(
    "line",
    [
        "curl -s https://example.com",
        "cd sub && wget http://x/y",
        "git push origin main",
        "git -C repo fetch",
        "pip install requests",
        "npm i left-pad",
        "npx cowsay hi",
        "echo $(curl -s http://x)",
        "(ssh host true)",
        "sudo apt-get install jq",
        "env A=1 cargo add serde",
    ],
)
def test_network_commands_are_recognised(line: str) -> None:
    assert needs_network(line)


@pytest.mark.parametrize(
    "line",
    ["pytest -q", "git status", "git commit -m x", "npm test", "pip list", "echo curl", "ls 'x"],
)
def test_local_commands_are_not(line: str) -> None:
    assert needs_network(line) is None
