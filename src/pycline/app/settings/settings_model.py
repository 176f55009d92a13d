"""The shape of `settings.json`, validated: Cline-style camelCase keys, defaults, bounds.

Global settings live in `PYCLINE_HOME/settings/settings.json`; a workspace may override some of
them in `<workspace>/.pycline/settings.json`. Every validation failure becomes one `ConfigError`
line naming the file and the dotted key, never a traceback.

A workspace file comes with the code someone else wrote: it is read against an allowlist
(`pycline.app.settings.workspace_settings`). API keys belong in no settings file (`pycline auth`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from pycline.app.settings import workspace_settings
from pycline.app.settings.workspace_settings import is_secret_name
from pycline.core.approval import AutoApprove
from pycline.errors import ConfigError
from pycline.providers.presets import PRESET_NAMES

# The OpenAI-compatible presets (openrouter, ollama, …) are data in pycline.providers.presets.
# "local": the built-in model (pycline.localmodel), served by a llama-server pycline starts.
PROVIDERS = (
    "openai", "anthropic", "scripted", *PRESET_NAMES, "gemini", "bedrock", "vertex", "local"
)  # fmt: skip

SandboxMode = Literal["off", "workspace-write", "read-only"]

# The languages whose server `languageServers` may set (see workspace/diagnostics/servers.py).
LANGUAGE_SERVER_KEYS = ("python", "typescript", "go", "rust")


class _Strict(BaseModel):
    # strict: "true" is not a boolean and "3" is not a number in a JSON settings file.
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
    )


class ModelInfoSettings(_Strict):
    """`modelInfo`: facts about the model that win over the catalogue."""

    context_window: int | None = Field(None, ge=1_024)
    max_tokens: int | None = Field(None, ge=1)
    input_price: float | None = Field(None, ge=0)  # USD per million tokens
    output_price: float | None = Field(None, ge=0)
    cache_writes_price: float | None = Field(None, ge=0)
    cache_reads_price: float | None = Field(None, ge=0)
    supports_images: bool | None = None
    supports_prompt_cache: bool | None = None
    supports_reasoning: bool | None = None
    supports_temperature: bool | None = None


class ModelChoice(_Strict):
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    # Model options: OpenAI-style reasoning effort, Anthropic/Gemini thinking budget.
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    thinking_budget: int | None = Field(None, ge=1_024)
    model_info: ModelInfoSettings | None = None

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str | None) -> str | None:
        if value is not None and value not in PROVIDERS:
            raise ValueError(f"unknown provider {value!r}; choose one of: {', '.join(PROVIDERS)}")
        return value

    @field_validator("model")
    @classmethod
    def _model_named(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must start with http:// or https://, not {value!r}")
        return value


class Profile(ModelChoice):
    """A named model choice; `planMode` gives Plan mode its own model; `fallbackModels` are the
    models a task moves to, in order, when this one cannot answer (`[PROVIDER/]MODEL` or a
    profile's label; see core.fallback)."""

    plan_mode: ModelChoice | None = None
    fallback_models: list[str] = Field(default_factory=list)

    @field_validator("fallback_models")
    @classmethod
    def _models_named(cls, value: list[str]) -> list[str]:
        if any(not spec.strip() for spec in value):
            raise ValueError("a fallback model must not be empty")
        return value


_POLICY_DEFAULTS = AutoApprove()


class AutoApproveSettings(_Strict):
    """Cline's auto-approval actions (SPEC §7); the defaults are the policy's own
    (`core.approval.AutoApprove`), so the two cannot drift apart."""

    read_files: bool = _POLICY_DEFAULTS.read_files
    read_files_externally: bool = _POLICY_DEFAULTS.read_files_externally
    edit_files: bool = _POLICY_DEFAULTS.edit_files
    edit_files_externally: bool = _POLICY_DEFAULTS.edit_files_externally
    execute_safe_commands: bool = _POLICY_DEFAULTS.execute_safe_commands
    execute_all_commands: bool = _POLICY_DEFAULTS.execute_all_commands
    use_browser: bool = _POLICY_DEFAULTS.use_browser
    use_mcp: bool = _POLICY_DEFAULTS.use_mcp
    yolo: bool = _POLICY_DEFAULTS.yolo
    auto_sandboxed: bool = _POLICY_DEFAULTS.auto_sandboxed

    def policy(self) -> AutoApprove:
        return AutoApprove(**self.model_dump())


class FocusChainSettings(_Strict):
    """Cline's `focusChainSettings`: the task_progress checklist and how often to remind."""

    enabled: bool = True
    remind_cline_interval: int = Field(default=6, ge=1, le=10)


class TelemetrySettings(_Strict):
    """`telemetry`: OpenTelemetry traces and metrics over OTLP/HTTP (app.telemetry). The
    standard OTEL_EXPORTER_OTLP_* variables also turn it on and say where to send."""

    enabled: bool = False
    endpoint: str | None = None  # OTLP/HTTP base URL; None: the OTEL_* variables' (or :4318)
    include_content: bool = False  # prompts and command lines on spans (off: never sent)

    @field_validator("endpoint")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"must start with http:// or https://, not {value!r}")
        return value


class Settings(Profile):
    profiles: dict[str, Profile] = Field(default_factory=dict)
    active_profile: str | None = None
    auto_approve: AutoApproveSettings = Field(default_factory=AutoApproveSettings)
    # Per MCP server, tools that run without asking (added to the server's own autoApprove list).
    mcp_auto_approve: dict[str, list[str]] = Field(default_factory=dict)
    # None: 3, or 6 for a model on this machine (see core.options.mistake_limit).
    max_consecutive_mistakes: int | None = Field(None, ge=1)
    max_retries: int = Field(3, ge=0, le=20)
    retry_base_delay: float = Field(1.0, ge=0, le=600)
    command_timeout: float = Field(600.0, ge=1)
    enable_checkpoints: bool = True
    checkpoint_retention: int | None = Field(None, ge=1)  # newest checkpoints kept; None: all
    browser_executable_path: str | None = None
    auto_condense_threshold: float | None = Field(None, gt=0, le=1)  # fraction of the window
    use_auto_condense: bool = False  # Cline's switch: condense at the threshold (default 0.75)
    # Tokens a request may reach before the oldest history is trimmed (None: a share of the
    # model's window chosen for cost, context.steps.default_limit); the window caps it.
    context_limit: int | None = Field(None, ge=4_000)
    notifications: bool = False
    linters: dict[str, list[str]] = Field(default_factory=dict)
    # Commands run in an OS sandbox (terminal.sandbox); None: on wherever it is available.
    sandbox: SandboxMode | None = None
    sandbox_network: bool = True  # whether sandboxed commands may reach the network
    # Paths in the user's home a sandboxed command may read besides toolchains (relative to the
    # home, or absolute inside it); credential files stay hidden.
    sandbox_readable: list[str] = Field(default_factory=list)
    # Language servers checking each edit: language -> command ([] turns a language off).
    language_servers: dict[str, list[str]] = Field(default_factory=dict)
    diagnostics_timeout: float = Field(1.2, gt=0, le=120)  # seconds an edit may wait
    # A language server found nowhere (TypeScript's) is installed into PYCLINE_HOME/lsp on first use.
    install_language_servers: bool = True
    # Native API tool calls, XML tool calls, or native where the model's catalogue entry says so.
    tool_call_format: Literal["auto", "native", "xml"] = "auto"
    # The system prompt: "compact" (the core tools, short, an example each) for small models,
    # "full", or "auto": compact for a model of fewer than 10B parameters.
    prompt_profile: Literal["auto", "full", "compact"] = "auto"
    # Cline's double-check completion: an attempt to finish after changing files, before any
    # command checked them, is sent back once (core.double_check). None: on for the compact
    # prompt profile, off otherwise.
    double_check_completion_enabled: bool | None = None
    focus_chain_settings: FocusChainSettings = Field(default_factory=FocusChainSettings)
    hooks_enabled: bool = True  # a project's hooks also need the user's trust
    subagents_enabled: bool = False  # offer use_subagents (Cline's default: off)
    # Spending caps (USD, tokens); None: no cap.
    max_task_cost: float | None = Field(None, gt=0)
    max_session_cost: float | None = Field(None, gt=0)
    max_daily_cost: float | None = Field(None, gt=0)
    max_task_tokens: int | None = Field(None, ge=1)
    max_session_tokens: int | None = Field(None, ge=1)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)

    @field_validator("linters")
    @classmethod
    def _commands_not_empty(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for glob, command in value.items():
            if not command:
                raise ValueError(f"the command for {glob!r} is empty")
        return value

    @field_validator("language_servers")
    @classmethod
    def _known_languages(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for language in value:
            if language not in LANGUAGE_SERVER_KEYS:
                raise ValueError(
                    f"unknown language {language!r}; choose one of: "
                    f"{', '.join(LANGUAGE_SERVER_KEYS)} (an empty command turns one off)"
                )
        return value

    @model_validator(mode="after")
    def _profile_exists(self) -> Settings:
        if self.active_profile is not None and self.active_profile not in self.profiles:
            raise ValueError(
                f"activeProfile {self.active_profile!r} is not one of the profiles "
                f"({', '.join(self.profiles) or 'none defined'})"
            )
        return self

    def choice(self, profile: str | None = None) -> Profile:
        """The model choice in force: the named profile, else the active one, else top level."""
        name = profile or self.active_profile
        if name is None:
            return Profile(**{name: getattr(self, name) for name in Profile.model_fields})
        if name not in self.profiles:
            known = ", ".join(self.profiles) or "none defined"
            raise ConfigError(f"Unknown profile {name!r} (profiles: {known}).")
        return self.profiles[name]


# ---- validation with one-line errors -------------------------------------------------------


def _dotted(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc if part != "[key]")


def _explain(error: Mapping[str, Any], source: str) -> str:
    loc = tuple(error.get("loc", ()))
    key = _dotted(loc) or "(top level)"
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "extra_forbidden":
        if loc and is_secret_name(str(loc[-1])):
            return (
                f"{source}: {key!r} looks like a credential; API keys are never kept in settings "
                "files. Store it with `pycline auth PROVIDER`."
            )
        return f"{source}: unknown setting {key!r}."
    if kind in ("bool_type", "bool_parsing"):
        return f"{source}: setting {key!r} must be true or false, not {value!r}."
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return f"{source}: setting {key!r} must be a whole number, not {value!r}."
    if kind in ("float_type", "float_parsing"):
        return f"{source}: setting {key!r} must be a number, not {value!r}."
    if kind == "string_type":
        return f"{source}: setting {key!r} must be a string, not {value!r}."
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"{source}: setting {key!r} must be an object, not {value!r}."
    if kind == "list_type":
        return f"{source}: setting {key!r} must be a list, not {value!r}."
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    bounds = error.get("ctx") or {}
    for name, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
        if kind.startswith(("greater_than", "less_than")) and name in bounds:
            return f"{source}: setting {key!r} must be {sign} {bounds[name]}, not {value!r}."
    if not loc:
        return f"{source}: {message}."
    return f"{source}: setting {key!r}: {message}."


def validate(data: Mapping[str, Any], *, source: str) -> Settings:
    """`data` as `Settings`, or a `ConfigError` naming `source` and the first bad key."""
    try:
        return Settings.model_validate(dict(data))
    except ValidationError as exc:
        raise ConfigError(_explain(exc.errors()[0], source)) from None


def check_workspace(
    data: Mapping[str, Any], *, source: str, lower: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A workspace file's data, allowlisted and spelled canonically (see `workspace_settings`)."""
    return workspace_settings.check_workspace(Settings, data, source=source, lower=lower)


def canonical(data: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    """Settings data with every key spelled as its camelCase alias."""
    return workspace_settings.canonical(Settings, data, where=f"{source}: ")


def merge(lower: Mapping[str, Any], upper: Mapping[str, Any]) -> dict[str, Any]:
    """`upper` over `lower`; objects merge key by key, anything else is replaced."""
    out = dict(lower)
    for key, value in upper.items():
        below = out.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            out[key] = merge(below, value)
        else:
            out[key] = value
    return out


def flatten(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted keys for nested objects (autoApprove.editFiles); maps of user names stay whole."""
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and key in ("autoApprove", "planMode"):
            yield from flatten(value, dotted + ".")
        else:
            yield dotted, value


def workspace_settings_path(workspace: Path) -> Path:
    return workspace / ".pycline" / "settings.json"
