"""OpenAI-compatible hosts as data: where they live, which key they take, and their quirks.

Every preset is served by `OpenAIProvider`; nothing here imports an SDK. `--provider openrouter`
picks the OpenRouter row, and so on. Quirks are flags the adapter reads, never `if name == …`
branches in the adapter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias

# How a host takes a reasoning-effort setting: OpenAI's top-level `reasoning_effort`,
# OpenRouter's `reasoning: {effort}` object, or not at all.
EffortStyle: TypeAlias = Literal["openai", "openrouter", "none"]
# How a host can tell us about a model it serves (context window, prices): see model_probe.py.
ProbeKind: TypeAlias = Literal["ollama", "lmstudio", "models_list", "none"]


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    label: str  # as shown in messages ("OpenRouter")
    base_url: str
    key_env: str | None  # None: a local server that needs no key
    default_model: str | None = None  # None: the user must name one (local servers)
    # `stream_options: {include_usage: true}`: hosts that reject unknown fields (Mistral) get
    # usage in the last chunk anyway.
    stream_options: bool = True
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    extra_body: Mapping[str, object] = field(default_factory=dict)
    effort_style: EffortStyle = "none"
    probe: ProbeKind = "none"
    # The request field of the output limit: OpenAI's own API has moved to
    # `max_completion_tokens` (its reasoning models refuse `max_tokens`); every compatible server
    # reads `max_tokens`.
    output_limit_field: str = "max_tokens"

    @property
    def local(self) -> bool:
        return self.key_env is None


# OpenRouter ranks apps by these headers; they carry no user data.
_OPENROUTER_HEADERS: Final = {
    "HTTP-Referer": "https://github.com/pycline/pycline",
    "X-Title": "pycline",
}

PRESETS: Final[Mapping[str, Preset]] = {
    p.name: p
    for p in (
        Preset(
            "openrouter",
            "OpenRouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            default_model="anthropic/claude-sonnet-4.5",
            extra_headers=_OPENROUTER_HEADERS,
            # Ask for usage accounting: the reply's usage then carries `cost` in USD.
            extra_body={"usage": {"include": True}},
            effort_style="openrouter",
            probe="models_list",
        ),
        Preset(
            "deepseek",
            "DeepSeek",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            default_model="deepseek-chat",
        ),
        Preset(
            "groq",
            "Groq",
            "https://api.groq.com/openai/v1",
            "GROQ_API_KEY",
            default_model="llama-3.3-70b-versatile",
            effort_style="openai",
        ),
        Preset(
            "together",
            "Together AI",
            "https://api.together.xyz/v1",
            "TOGETHER_API_KEY",
            default_model="meta-llama/Llama-3.3-70B-Instruct-Turbo",
            probe="models_list",
        ),
        Preset(
            "xai",
            "xAI",
            "https://api.x.ai/v1",
            "XAI_API_KEY",
            default_model="grok-4",
            effort_style="openai",
        ),
        Preset(
            "mistral",
            "Mistral",
            "https://api.mistral.ai/v1",
            "MISTRAL_API_KEY",
            default_model="devstral-medium-latest",
            stream_options=False,
        ),
        Preset("ollama", "Ollama", "http://localhost:11434/v1", None, probe="ollama"),
        Preset("lmstudio", "LM Studio", "http://localhost:1234/v1", None, probe="lmstudio"),
        Preset("vllm", "vLLM", "http://localhost:8000/v1", None, probe="models_list"),
        Preset("llamacpp", "llama.cpp", "http://localhost:8080/v1", None, probe="models_list"),
    )
}

# The plain OpenAI API and any server the user points --base-url at.
OPENAI: Final = Preset(
    "openai",
    "OpenAI",
    "https://api.openai.com/v1",
    "OPENAI_API_KEY",
    default_model="gpt-4.1",
    effort_style="openai",
    output_limit_field="max_completion_tokens",
)

PRESET_NAMES: Final[tuple[str, ...]] = tuple(PRESETS)


def preset(name: str) -> Preset | None:
    """The preset for an OpenAI-compatible provider name (including "openai")."""
    return OPENAI if name == "openai" else PRESETS.get(name)


def key_env(name: str) -> str | None:
    found = preset(name)
    return found.key_env if found is not None else None


def is_local_url(url: str) -> bool:
    """A server on this machine or the local network (loopback, private or link-local address,
    `localhost`, a `.local` name): a local model, with its own limits and pace."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".localhost", ".local")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def for_custom_url(base_url: str) -> Preset:
    """ "openai" pointed at another server (vLLM, a proxy): ask it what it serves."""
    return Preset(
        "openai",
        base_url.rstrip("/"),
        base_url,
        OPENAI.key_env,
        effort_style="openai",
        probe="models_list",
    )


# Providers outside the OpenAI-compatible family that take a key from the environment.
_OTHER_KEY_ENV: Final[Mapping[str, str]] = {
    "gemini": "GEMINI_API_KEY",
    "bedrock": "AWS_BEARER_TOKEN_BEDROCK",  # a Bedrock API key; else the AWS credential chain
}
_OTHER_DEFAULT_MODELS: Final[Mapping[str, str]] = {
    "gemini": "gemini-2.5-pro",
    "bedrock": "us.anthropic.claude-sonnet-4-6",
    "vertex": "claude-sonnet-4-6",
}


def key_envs() -> dict[str, str]:
    """Provider name → environment variable of its API key (for every keyed provider here)."""
    keyed = {name: p.key_env for name, p in PRESETS.items() if p.key_env is not None}
    return {**keyed, **_OTHER_KEY_ENV}


def default_models() -> dict[str, str]:
    named = {name: p.default_model for name, p in PRESETS.items() if p.default_model is not None}
    return {**named, **_OTHER_DEFAULT_MODELS}
