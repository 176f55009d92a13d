"""A session reads its settings once (again only when a file changes) and builds each provider
once, closing it with the session."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pycline.app.builders.provider_cache import ProviderCache
from pycline.app.live.handle import controls_of
from pycline.app.sessions.session import ConfigOverrides, Session
from pycline.app.settings import config


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []
    real = config.read_json

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "settings.json":
            seen.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(config, "read_json", counted)
    return seen


def _settings(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


async def test_settings_are_read_once_per_session_and_again_when_a_file_changes(
    isolated_home: Path, workspace: Path, tmp_path: Path, reads: list[Path]
) -> None:
    global_file = isolated_home / "settings" / "settings.json"
    _settings(global_file, {"commandTimeout": 30})
    _settings(workspace / ".pycline" / "settings.json", {"maxRetries": 2})
    script = tmp_path / "s.json"
    script.write_text("[]", encoding="utf-8")
    overrides = ConfigOverrides(provider="scripted", script=str(script))
    async with await Session.open(workspace, home=isolated_home, overrides=overrides) as session:
        opened = len(reads)  # (opening also checks the workspace's price floor, raw)
        first = session.prepare_task()
        second = session.prepare_task()
        assert len(reads) == opened  # no task build read them again
        assert controls_of(first).settings.command_timeout == 30
        _settings(global_file, {"commandTimeout": 45})
        os.utime(global_file, ns=(1, 1))  # a change even within the clock's resolution
        third = session.prepare_task()
        assert len(reads) == opened + 2
        assert controls_of(third).settings.command_timeout == 45
        assert controls_of(second).settings.command_timeout == 30


class _Closable:
    def __init__(self, model: str) -> None:
        self.model_id = model
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


async def test_a_provider_is_built_once_per_configuration_and_closed_with_the_cache() -> None:
    built: list[_Closable] = []

    def build(cfg: config.ModelConfig) -> Any:
        built.append(_Closable(cfg.model or ""))
        return built[-1]

    cache = ProviderCache(build)
    a = config.ModelConfig(provider="openai", model="a", api_key="k")
    b = config.ModelConfig(provider="openai", model="b", api_key="k")
    assert cache.get(a) is cache.get(a)
    assert cache.get(b) is not cache.get(a)
    assert len(built) == 2
    await cache.close()
    assert [p.closed for p in built] == [1, 1]


async def test_a_sessions_tasks_share_its_provider_which_closes_with_it(
    isolated_home: Path, workspace: Path
) -> None:
    overrides = ConfigOverrides(
        provider="openai", model="gpt-4o", api_key="sk-test", base_url="http://127.0.0.1:9/v1"
    )
    session = await Session.open(workspace, home=isolated_home, overrides=overrides)
    one, two = session.prepare_task(), session.prepare_task()
    provider = controls_of(one).provider_for("act")
    assert controls_of(two).provider_for("act") is provider
    closed: list[bool] = []
    real_close = provider.aclose  # type: ignore[attr-defined]

    async def aclose() -> None:
        closed.append(True)
        await real_close()

    provider.aclose = aclose  # type: ignore[attr-defined]
    await session.close()
    assert closed == [True]
