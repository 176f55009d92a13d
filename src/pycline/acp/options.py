"""The session's selectable settings: mode, the model of each mode, the auto-approve preset,
and the slash commands the client may offer."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from acp.schema import (
    AvailableCommand,
    AvailableCommandInput,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    UnstructuredCommandInput,
)

from pycline.app.services.menus import Workflow, workflow_menu
from pycline.app.settings.config import ModelConfig, load, resolve
from pycline.commands import AutoApprove
from pycline.errors import ConfigError

MODES = (
    SessionMode(id="act", name="Act", description="Read, edit and run commands to do the task"),
    SessionMode(id="plan", name="Plan", description="Explore and agree on a plan; no changes"),
)

# Named auto-approval presets; "settings" is whatever the user's settings files say.
PRESETS: dict[str, tuple[str, str]] = {
    "settings": ("From settings", "The autoApprove settings of pycline's configuration"),
    "ask": ("Ask every time", "Every read, edit and command asks first"),
    "read": ("Reads only", "Reads and safe commands run; edits and other commands ask"),
    "edit": ("Reads and edits", "Reads, edits and safe commands run; other commands ask"),
    "auto": (
        "Auto (sandboxed)",
        "Commands run in the sandbox with the network off and edits inside the workspace, "
        "without asking; the network and paths outside ask (needs bubblewrap)",
    ),
    "yolo": ("Everything", "Nothing asks first (edits outside the workspace included)"),
}


def preset_policy(name: str, settings: AutoApprove) -> AutoApprove:
    match name:
        case "settings":
            return settings
        case "ask":
            return AutoApprove(read_files=False, execute_safe_commands=False, use_mcp=False)
        case "read":
            return AutoApprove(edit_files=False, execute_all_commands=False)
        case "edit":
            return AutoApprove(edit_files=True, execute_all_commands=False)
        case "auto":
            return AutoApprove(auto_sandboxed=True)
        case "yolo":
            return AutoApprove(yolo=True)
    raise ConfigError(f"Unknown auto-approve preset {name!r}.")


def model_label(config: ModelConfig) -> str:
    return f"{config.provider}/{config.model}" if config.model else str(config.provider)


@dataclass
class ModelChoices:
    """The models a session can pick from: the configured ones and every saved profile's."""

    by_value: dict[str, ModelConfig]

    @staticmethod
    def gather(home: Path, workspace: Path, *configs: ModelConfig) -> ModelChoices:
        found: dict[str, ModelConfig] = {}
        for config in configs:
            if config.provider is not None:
                found.setdefault(model_label(config), config)
        try:
            profiles = list(load(home, workspace).profiles)
        except ConfigError:
            profiles = []
        for name in profiles:
            try:
                config = resolve(ModelConfig(), home, workspace=workspace, profile=name)
            except ConfigError:
                continue  # a broken profile is not offered
            if config.provider is not None:
                found.setdefault(model_label(config), config)
        return ModelChoices(found)

    def options(self) -> list[SessionConfigSelectOption]:
        return [SessionConfigSelectOption(value=v, name=v) for v in self.by_value]

    def pick(self, value: str, keep_script: ModelConfig) -> ModelConfig:
        config = self.by_value.get(value)
        if config is None:
            raise KeyError(value)
        # A scripted session stays scripted: its replies file belongs to the session.
        return replace(config, script=config.script or keep_script.script)


@dataclass(frozen=True, slots=True)
class OptionValues:
    mode: str
    act_model: str
    plan_model: str
    preset: str


def config_options(values: OptionValues, models: ModelChoices) -> list[Any]:
    choices = models.options()
    return [
        SessionConfigOptionSelect(
            type="select",
            id="mode",
            name="Mode",
            category="mode",
            current_value=values.mode,
            options=[SessionConfigSelectOption(value=m.id, name=m.name) for m in MODES],
        ),
        SessionConfigOptionSelect(
            type="select",
            id="model",
            name="Model (Act)",
            category="model",
            current_value=values.act_model,
            options=choices,
        ),
        SessionConfigOptionSelect(
            type="select",
            id="plan_model",
            name="Model (Plan)",
            category="model",
            current_value=values.plan_model,
            options=choices,
        ),
        SessionConfigOptionSelect(
            type="select",
            id="auto_approve",
            name="Auto-approve",
            current_value=values.preset,
            options=[
                SessionConfigSelectOption(value=k, name=n, description=d)
                for k, (n, d) in PRESETS.items()
            ],
        ),
    ]


def mode_state(mode: str) -> SessionModeState:
    return SessionModeState(current_mode_id=mode, available_modes=list(MODES))


# Slash commands: handled by the session before a prompt reaches the model.
COMMANDS: dict[str, str] = {
    "compact": "Condense the conversation into a summary to free the context window",
    "plan": "Switch to Plan mode (explore and plan; no changes)",
    "act": "Switch to Act mode",
    "verify": "Complete only when a command exits 0: /verify CMD (off removes it)",
}


def available_commands(found: list[Workflow]) -> list[AvailableCommand]:
    """The session's own commands, then the workflows (which the agent core expands)."""
    commands = [AvailableCommand(name=n, description=d) for n, d in COMMANDS.items()]
    for flow in sorted(workflow_menu(found, taken=COMMANDS), key=lambda w: w.stem):
        commands.append(
            AvailableCommand(
                name=flow.stem,
                description=f"Run the workflow {flow.name}",
                input=AvailableCommandInput(
                    root=UnstructuredCommandInput(hint="extra instructions (optional)")
                ),
            )
        )
    return commands
