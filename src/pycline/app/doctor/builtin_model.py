"""The built-in local model: installed and verified, its runtime found, and (when it is the
configured model) its server started once on loopback and stopped again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import cast

from pycline.app.doctor.check import Check, Status
from pycline.app.sessions.session import ConfigOverrides
from pycline.app.settings.config import resolve
from pycline.errors import ConfigError


async def check_builtin_model(
    home: Path, workspace: Path, overrides: ConfigOverrides
) -> list[Check]:
    return await asyncio.to_thread(_check, home, workspace, overrides)


def _check(home: Path, workspace: Path, overrides: ConfigOverrides) -> list[Check]:
    from pycline.app.builders import local_model

    try:
        config = resolve(overrides.flags(), home, workspace=workspace, profile=overrides.profile)
        provider, model = config.provider, config.model
    except ConfigError:
        provider, model = None, None  # the model check says what is wrong with the settings
    try:
        rows = local_model.doctor_checks(home, provider, model)
    except ConfigError as exc:
        return [Check("built-in model", "fail", str(exc), "pycline setup")]
    return [Check(name, cast(Status, status), detail, fix) for name, status, detail, fix in rows]
