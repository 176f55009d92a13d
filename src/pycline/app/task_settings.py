"""Task behaviour from `settings.json`: auto-approval, retries, limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pycline.app.config import load_settings
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.errors import ConfigError

# settings.json keys (Cline's names) → AutoApprove fields
_AUTO_APPROVE_KEYS = {
    "readFiles": "read_files",
    "readFilesExternally": "read_files_externally",
    "editFiles": "edit_files",
    "editFilesExternally": "edit_files_externally",
    "executeSafeCommands": "execute_safe_commands",
    "executeAllCommands": "execute_all_commands",
    "useBrowser": "use_browser",
    "useMcp": "use_mcp",
    "yolo": "yolo",
}


def _number(data: dict[str, Any], key: str, default: float, *, minimum: float = 0) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise ConfigError(f"Setting {key!r} must be a number ≥ {minimum}, not {value!r}.")
    return float(value)


def task_settings(
    home: Path, *, headless: bool, approve_all_inside: bool = False, mode: str = "act"
) -> TaskSettings:
    data = load_settings(home)
    raw = data.get("autoApprove", {})
    if not isinstance(raw, dict):
        raise ConfigError("Setting 'autoApprove' must be an object.")
    flags: dict[str, bool] = {}
    for key, value in raw.items():
        if key not in _AUTO_APPROVE_KEYS:
            raise ConfigError(
                f"Unknown autoApprove setting {key!r}; known: {', '.join(_AUTO_APPROVE_KEYS)}."
            )
        if not isinstance(value, bool):
            raise ConfigError(f"autoApprove.{key} must be true or false.")
        flags[_AUTO_APPROVE_KEYS[key]] = value
    return TaskSettings(
        auto_approve=AutoApprove(**flags),
        approve_all_inside=approve_all_inside,
        headless=headless,
        max_mistakes=int(_number(data, "maxConsecutiveMistakes", 3, minimum=1)),
        max_retries=int(_number(data, "maxRetries", 3)),
        retry_base_delay=_number(data, "retryBaseDelay", 1.0),
        command_timeout=_number(data, "commandTimeout", 600.0, minimum=1),
        mode=mode,
    )
