"""Settings and MCP screens' API: model per mode, keys (write-only), auto-approve, features; MCP
servers with status, tools and resources, enable/disable, restart, per-tool auto-approve, add,
and trusting the project's MCP file."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from aiohttp import web

from pycline.errors import ConfigError, PyclineError
from pycline.web.api import fail, json_body, offered_providers, state
from pycline.web.tasks import Run, WebSession, session_of

if TYPE_CHECKING:
    from pycline.app.builders.mcp import Change

FEATURES = ("enableCheckpoints", "notifications")
CHECK_TIMEOUT = 10.0
LISTED_TIMEOUT = 5.0
HUB_APPEARS = 50  # turns of the event loop


# --- settings ------------------------------------------------------------------------------------


def read_settings(session: WebSession) -> dict[str, Any]:
    from pycline.app.settings.config import load
    from pycline.app.settings.secrets import SecretStore

    settings = load(session.home)
    choice = settings.choice()
    secrets = SecretStore(session.home)

    def mode(provider: str | None, model: str | None, base_url: str | None) -> dict[str, Any]:
        has_key = bool(provider) and secrets.get(provider or "") is not None
        return {"provider": provider, "model": model, "baseUrl": base_url, "hasKey": has_key}

    plan = choice.plan_mode
    return {
        "providers": offered_providers(choice.provider, plan.provider if plan else None),
        "act": mode(choice.provider, choice.model, choice.base_url),
        "plan": mode(plan.provider or choice.provider, plan.model, plan.base_url) if plan else None,
        "autoApprove": settings.auto_approve.model_dump(by_alias=True),
        "features": {
            "enableCheckpoints": settings.enable_checkpoints,
            "notifications": settings.notifications,
        },
    }


def _mode_entry(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ConfigError("a mode's settings must be an object")
    entry = {k: data.get(k) for k in ("provider", "model", "baseUrl") if data.get(k)}
    return entry


def write_settings(session: WebSession, body: dict[str, Any]) -> None:
    """Merge the screen's values into the global settings file; keys go to the secret store."""
    from pycline.app.settings.config import load_settings, locked, settings_path
    from pycline.app.settings.config import write_settings as write
    from pycline.app.settings.secrets import SecretStore

    plan = body.get("plan")
    with locked(settings_path(session.home)):
        data = load_settings(session.home)
        act = _mode_entry(body.get("act") or {})
        for key in ("provider", "model", "baseUrl"):
            data.pop(key, None)
        data.update(act)
        if plan:
            data["planMode"] = _mode_entry(plan)
        else:
            data.pop("planMode", None)
        auto = body.get("autoApprove")
        if isinstance(auto, dict):
            data["autoApprove"] = {k: v for k, v in auto.items() if isinstance(v, bool)}
        features = body.get("features")
        if isinstance(features, dict):
            data.update(
                {k: v for k, v in features.items() if k in FEATURES and isinstance(v, bool)}
            )
        write(settings_path(session.home), data, home=session.home, workspace=False)
    secrets = SecretStore(session.home)
    for mode in (body.get("act"), plan):
        if isinstance(mode, dict) and mode.get("apiKey") and mode.get("provider"):
            secrets.set(str(mode["provider"]), str(mode["apiKey"]))


async def list_models(session: WebSession, body: dict[str, Any]) -> list[str]:
    """The models of the server the Settings screen names (its key typed there, else stored)."""
    from pycline.app.settings.secrets import SecretStore

    provider = str(body.get("provider") or "")
    key = body.get("apiKey") or SecretStore(session.home).get(provider)
    return await server_models(provider, body.get("baseUrl"), key)


async def task_models(session: WebSession, run: Run, mode: str, provider: str) -> list[str]:
    """What the model picker offers for a running task: the models of `provider`'s server,
    reached as the task reaches it (same provider) or as the settings say (another one)."""
    from pycline.app.settings.config import ModelConfig, resolve

    base = run.handle.model_config(mode)
    if provider != base.provider:
        base = resolve(ModelConfig(provider=provider), session.home, workspace=session.cwd)
    if provider == "scripted":
        return [base.model] if base.model else []
    return await server_models(provider, base.base_url, base.api_key)


async def server_models(provider: str, base: Any, key: Any) -> list[str]:
    """The models `provider`'s server lists (proves it answers, and takes the key)."""
    from pycline.app.builders.server_check import list_models

    reply = await list_models(provider, str(base) if base else None, str(key) if key else None)
    if reply.status != "ok":
        raise ConfigError(f"The server did not answer as expected: {reply.reason}")
    return sorted(reply.models)


# --- MCP -----------------------------------------------------------------------------------------


def mcp_state(session: WebSession) -> dict[str, Any]:
    from pycline.app.builders.mcp import untrusted_file
    from pycline.app.settings.config import load

    hub = session.session.mcp
    settings = load(session.home, session.cwd)
    extra = settings.mcp_auto_approve
    servers = []
    for s in hub.servers() if hub is not None else []:
        servers.append(
            {
                "name": s.name,
                "status": str(s.status),
                "source": s.source,
                "error": s.error,
                "needsLogin": s.needs_login,
                "tools": [{"name": t.name, "description": t.description} for t in s.tools],
                "resources": [{"uri": r.uri, "name": r.name} for r in s.resources],
                "autoApprove": sorted({*s.auto_approve, *extra.get(s.name, [])}),
            }
        )
    untrusted = untrusted_file(session.home, session.cwd)
    # What really happens: with useMcp (or YOLO) on, every tool runs without asking.
    everything = settings.auto_approve.use_mcp or settings.auto_approve.yolo
    return {
        "servers": servers,
        "untrusted": str(untrusted) if untrusted else None,
        "allAutoApproved": everything,
    }


async def _refresh(session: WebSession) -> None:
    await session.session.reload_mcp()


async def _refresh_soon(session: WebSession, name: str | None = None) -> None:
    """Reload the MCP settings in the background and return once the servers are listed (a new
    one as "connecting"), not once they are connected: a server may take its whole connect
    timeout, and the page shows it meanwhile."""
    job = session.spawn(_refresh(session))
    for _ in range(HUB_APPEARS):  # a first server: the hub is made as the job's first step
        if session.session.mcp is not None or job.done():
            break
        await asyncio.sleep(0)
    hub = session.session.mcp
    if hub is None or job.done():
        return

    def listed() -> bool:
        assert hub is not None
        if name is None:  # every server of the settings, each at least connecting
            servers = hub.servers()
            return bool(servers) and all(s.status != "disconnected" for s in servers)
        state = hub.server(name)
        return state is not None and state.status != "disconnected"

    await hub.wait_until(listed, LISTED_TIMEOUT)


ROUTES = web.RouteTableDef()


@ROUTES.get("/api/settings")
async def get_settings(request: web.Request) -> web.Response:
    try:
        return web.json_response(read_settings(session_of(request)))
    except PyclineError as exc:
        return fail(exc)


@ROUTES.post("/api/settings")
async def post_settings(request: web.Request) -> web.Response:
    session = session_of(request)
    try:
        # Off the loop: the settings file's lock may be held by another pycline.
        await asyncio.to_thread(write_settings, session, await json_body(request))
        session.reload_models()
    except PyclineError as exc:
        return fail(exc)
    return web.json_response(state(session))


@ROUTES.get("/api/settings/file")
async def settings_file(request: web.Request) -> web.Response:
    """`pycline config list`: a settings file as written, and every value in force."""
    from pycline.app.settings.config import load, load_settings, load_workspace_settings

    session = session_of(request)
    project = request.query.get("scope") == "project"
    try:
        written = load_workspace_settings(session.cwd) if project else load_settings(session.home)
        in_force = load(session.home, session.cwd).model_dump(by_alias=True, mode="json")
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"file": written, "inForce": in_force})


@ROUTES.post("/api/settings/file")
async def save_settings_file(request: web.Request) -> web.Response:
    """`pycline config set/unset`, the whole file at once: validated before it is replaced."""
    from pycline.app.settings.config import settings_path
    from pycline.app.settings.config import write_settings as write
    from pycline.app.settings.settings_model import workspace_settings_path

    session = session_of(request)
    body = await json_body(request)
    data, project = body.get("file"), body.get("scope") == "project"
    if not isinstance(data, dict):
        return fail(ConfigError("the settings are a JSON object"))
    path = workspace_settings_path(session.cwd) if project else settings_path(session.home)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, data, home=session.home, workspace=project)
        session.reload_models()
    except (PyclineError, OSError) as exc:
        return fail(exc)
    return web.json_response(state(session))


@ROUTES.post("/api/settings/check")
async def check(request: web.Request) -> web.Response:
    try:
        models = await list_models(session_of(request), await json_body(request))
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"models": models})


@ROUTES.get("/api/tasks/{id}/models")
async def models_for_task(request: web.Request) -> web.Response:
    session = session_of(request)
    run = session.get(request.match_info["id"])
    mode = request.query.get("mode", "act")
    if run is None or run.handle.done or mode not in ("act", "plan"):
        return fail(ConfigError("no such running task or mode"), 404)
    provider = request.query.get("provider") or run.handle.model_config(mode).provider or ""
    try:
        models = await task_models(session, run, mode, provider)
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"models": models})


@ROUTES.get("/api/hooks")
async def hooks(request: web.Request) -> web.Response:
    """`pycline hooks list`: the hooks that would run, and the project's not yet trusted."""
    from pycline.app.settings.hook_trust import hook_states

    session = session_of(request)
    found = hook_states(session.home, session.cwd)
    return web.json_response(
        [
            {"scope": h.scope, "name": h.path.name, "path": str(h.path), "state": h.state}
            for h in found
        ]
    )


@ROUTES.post("/api/hooks/trust")
async def trust_hooks(request: web.Request) -> web.Response:
    """`pycline hooks trust`: the project's hook files, as they are now."""
    from pycline.app.settings.hook_trust import HookTrust, workspace_hook_files

    session = session_of(request)
    trust = HookTrust(session.home)
    files = workspace_hook_files(session.cwd)
    for file in files:
        trust.trust(file)
    return web.json_response({"trusted": [str(f) for f in files]})


@ROUTES.get("/api/toggles")
async def toggles(request: web.Request) -> web.Response:
    """`pycline rules|workflows list`: every rules file and workflow, on or off."""
    from pycline.app.settings.toggles import rule_toggles, workflow_toggles

    session = session_of(request)
    found = [
        *rule_toggles(session.home, session.cwd),
        *workflow_toggles(session.home, session.cwd),
    ]
    return web.json_response(
        [
            {
                "kind": t.kind,
                "name": t.name,
                "path": str(t.path),
                "global": t.is_global,
                "on": t.on,
            }
            for t in found
        ]
    )


@ROUTES.post("/api/toggles")
async def set_toggle(request: web.Request) -> web.Response:
    """`pycline rules|workflows enable|disable`, for the file at `path`."""
    from pycline.app.settings.toggles import switch

    session = session_of(request)
    body = await json_body(request)
    kind, path = body.get("kind"), body.get("path")
    if kind not in ("rules", "workflows") or not isinstance(path, str):
        return fail(ValueError("kind must be rules or workflows, path a string"), 400)
    try:
        switch(session.home, session.cwd, kind, path, bool(body.get("on")))
    except KeyError:
        return fail(KeyError(f"no such file: {path}"), 404)
    return web.json_response({"ok": True})


@ROUTES.get("/api/mcp")
async def mcp(request: web.Request) -> web.Response:
    return web.json_response(mcp_state(session_of(request)))


@ROUTES.post("/api/mcp/trust")
async def trust(request: web.Request) -> web.Response:
    from pycline.app.builders.mcp import grant, pending_trust

    session = session_of(request)
    pending = pending_trust(session.home, session.cwd)
    if pending is None:
        return fail(ConfigError("There is no untrusted project MCP file."))
    grant(session.home, pending)
    await _refresh_soon(session)
    return web.json_response({"ok": True})


@ROUTES.post("/api/mcp/add")
async def add(request: web.Request) -> web.Response:
    from pycline.app.builders.mcp import NewServer, add_server

    session = session_of(request)
    body = await json_body(request)
    try:
        server = NewServer.parse(str(body.get("command", "")))
        name = str(body.get("name", "")).strip()
        add_server(session.home, session.cwd, name, server)
    except PyclineError as exc:
        return fail(exc)
    await _refresh_soon(session, name)
    return web.json_response({"ok": True})


async def edit_server(session: WebSession, name: str, change: Change) -> web.Response:
    from pycline.app.builders.mcp import change_server, is_project_server

    try:
        project = is_project_server(session.session.mcp, name)
        change_server(session.home, session.cwd, name, change, project=project)
    except PyclineError as exc:
        return fail(exc)
    if change == "enable":
        await _refresh_soon(session, name)
    else:  # stopping is quick: the page reads the list once it is done
        await _refresh(session)
    return web.json_response({"ok": True})


@ROUTES.post("/api/mcp/{name}/enabled")
async def enabled(request: web.Request) -> web.Response:
    session = session_of(request)
    name = request.match_info["name"]
    enable = bool((await json_body(request)).get("enabled"))
    return await edit_server(session, name, "enable" if enable else "disable")


@ROUTES.post("/api/mcp/{name}/delete")
async def delete(request: web.Request) -> web.Response:
    return await edit_server(session_of(request), request.match_info["name"], "remove")


@ROUTES.post("/api/mcp/{name}/restart")
async def restart(request: web.Request) -> web.Response:
    session = session_of(request)
    hub = session.session.mcp
    if hub is None:
        return fail(ConfigError("No MCP servers are running."))
    try:
        await hub.restart_server(request.match_info["name"])
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"ok": True})


@ROUTES.post("/api/mcp/{name}/login")
async def login(request: web.Request) -> web.Response:
    # The browser opens on this machine (the page is served on loopback); the tokens go to
    # pycline's secrets store, then the session's hub reconnects the server with them.
    from pycline.app.builders import mcp_login

    session = session_of(request)
    name = request.match_info["name"]
    try:
        state = await mcp_login.login(session.home, session.cwd, name)
    except PyclineError as exc:
        return fail(exc)
    if state.status != "connected":
        return fail(ConfigError(state.error or f"The login to {name} did not complete."))
    hub = session.session.mcp
    if hub is not None:
        with contextlib.suppress(PyclineError):
            await hub.restart_server(name)
    return web.json_response({"ok": True})


@ROUTES.post("/api/mcp/{name}/auto-approve")
async def auto_approve(request: web.Request) -> web.Response:
    body = await json_body(request)
    from pycline.app.builders.mcp import set_tool_auto_approve

    try:
        set_tool_auto_approve(
            session_of(request).home,
            request.match_info["name"],
            str(body.get("tool", "")),
            bool(body.get("approve")),
        )
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"ok": True})
