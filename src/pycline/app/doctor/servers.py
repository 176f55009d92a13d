"""MCP servers: each configured one is connected and its tools listed, as a task would."""

from __future__ import annotations

from pathlib import Path

from pycline.app.builders.mcp import check_servers, pending_trust
from pycline.app.doctor.check import Check

CONNECT_LIMIT = 30.0


async def check_mcp(home: Path, workspace: Path) -> list[Check]:
    report = await check_servers(home, workspace, timeout=CONNECT_LIMIT)
    checks = [
        Check("mcp settings", "fail", error, f"fix {report.settings_path}")
        for error in report.settings_errors
    ]
    for server in report.servers:
        name = f"mcp: {server.name}"
        if server.status == "disabled":
            checks.append(Check(name, "off", "disabled"))
        elif server.needs_login:
            checks.append(
                Check(
                    name, "warn", "needs login", f"`pycline mcp login {server.name}` (in a browser)"
                )
            )
        elif server.status == "connected":
            tools = ", ".join(t.name for t in server.tools[:6])
            more = f", … ({len(server.tools)} in all)" if len(server.tools) > 6 else ""
            checks.append(
                Check(name, "ok", f"connected: {len(server.tools)} tools ({tools}{more})")
            )
        else:
            why = server.error or server.stderr_tail or server.status
            checks.append(
                Check(
                    name,
                    "fail",
                    f"{server.status}: {why.strip().splitlines()[-1][:200] if why.strip() else why}",
                    f"`pycline mcp restart {server.name}` shows its output; fix its entry "
                    "with `pycline mcp`",
                )
            )
    request = pending_trust(home, workspace)
    if request is not None:
        checks.append(
            Check(
                "mcp: project servers",
                "warn",
                f"{request.file} is new or changed and not trusted: its servers do not start",
                "read it, then `pycline mcp trust`",
            )
        )
    if not checks:
        checks.append(Check("mcp", "ok", "no MCP servers configured"))
    return checks
