"""`pycline setup` (also the first interactive run): choose a provider and model, and save them.

Nothing is saved until it was checked: a local server is contacted and lists its models (and the
context window it runs them with); a key is typed hidden and tried with a free call first. Empty
or wrong input asks again. The base URL is saved with its provider and applies to no other.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pycline.app.builders import server_check
from pycline.app.settings.config import DEFAULT_MODELS, preset_base_url
from pycline.cli.style import style
from pycline.errors import ConfigError, PyclineError

Kind = Literal["builtin", "local", "server", "key", "cloud"]


@dataclass(frozen=True, slots=True)
class Choice:
    provider: str
    label: str
    kind: Kind


CHOICES: tuple[Choice, ...] = (
    Choice("local", "A small local model on this machine — no key, about 1.1 GB", "builtin"),
    Choice("ollama", "Ollama (local)", "local"),
    Choice("lmstudio", "LM Studio (local)", "local"),
    Choice("llamacpp", "llama.cpp server (local)", "local"),
    Choice("vllm", "vLLM (local or self-hosted)", "local"),
    Choice("openai", "Another OpenAI-compatible server (you give the URL)", "server"),
    Choice("anthropic", "Anthropic (API key)", "key"),
    Choice("openai", "OpenAI (API key)", "key"),
    Choice("openrouter", "OpenRouter (API key)", "key"),
    Choice("gemini", "Google Gemini (API key)", "key"),
    Choice("deepseek", "DeepSeek (API key)", "key"),
    Choice("groq", "Groq (API key)", "key"),
    Choice("together", "Together AI (API key)", "key"),
    Choice("xai", "xAI (API key)", "key"),
    Choice("mistral", "Mistral (API key)", "key"),
    Choice("bedrock", "Amazon Bedrock (AWS credentials)", "cloud"),
    Choice("vertex", "Google Vertex AI (gcloud credentials)", "cloud"),
)

CLOUD_HINTS = {
    "bedrock": "pycline uses your AWS credentials (AWS_PROFILE, ~/.aws, or a Bedrock API key in "
    "AWS_BEARER_TOKEN_BEDROCK) and AWS_REGION; install the bedrock extra (`sh install.sh bedrock`).",
    "vertex": "pycline uses Google application default credentials (`gcloud auth "
    "application-default login`), GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION; install "
    "the vertex extra (`sh install.sh vertex`).",
}


@dataclass(frozen=True, slots=True)
class SetupResult:
    provider: str
    model: str
    base_url: str | None = None
    api_key: str | None = None
    context_window: int | None = None


class Prompter:
    """Questions on the terminal; EOFError when the input ends."""

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        secret: Callable[[str], str] = getpass.getpass,
        say: Callable[[str], None] = print,
    ) -> None:
        self.ask, self.secret, self.say = ask, secret, say

    def line(self, prompt: str, default: str = "") -> str:
        shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
        return self.ask(shown).strip() or default

    def yes(self, prompt: str) -> bool:
        return self.ask(f"{prompt} [y/N] ").strip().lower() in ("y", "yes")


def run_wizard(home: Path, p: Prompter) -> SetupResult:
    current = _current(home)
    _say_running_servers(p)
    p.say(style("Choose the model provider pycline talks to:", "bold"))
    for i, choice in enumerate(CHOICES, 1):
        p.say(f"  {i:>2}. {choice.label}")
    choice = _pick_choice(p, current)
    match choice.kind:
        case "builtin":
            result = _builtin(p, home)
        case "local" | "server":
            result = _server(choice, p)
        case "key":
            result = _keyed(choice, p, home)
        case "cloud":
            p.say(CLOUD_HINTS[choice.provider])
            default = DEFAULT_MODELS.get(choice.provider, "")
            result = SetupResult(choice.provider, _required(p, "Model", default))
    return result


def _say_running_servers(p: Prompter) -> None:
    """Local model servers already running here, with their models (a second at most)."""
    from pycline.app.builders import local_model

    found = local_model.discover_servers()
    if not found:
        return
    p.say(style("Running on this machine:", "bold"))
    for _, label, url, models in found:
        listed = ", ".join(models[:6]) + (", …" if len(models) > 6 else "")
        p.say(f"  {label} at {url}: {listed or 'no models listed'}")


def _builtin(p: Prompter, home: Path) -> SetupResult:
    """Install the built-in model (and its runtime), after saying what it takes and can do."""
    from pycline.app.builders import local_model

    plan = local_model.plan(home)
    words = local_model.size_words
    p.say(local_model.honest_note())
    needs = [f"{plan.spec.label}"]
    if plan.download:
        needs.append(f"a {words(plan.download)} download (pinned, verified)")
    else:
        needs.append("already downloaded")
    if plan.runtime is None:
        tools = f"; it needs {' and '.join(plan.build_missing)}" if plan.build_missing else ""
        needs.append(f"a one-time build of llama-server (about 25 minutes{tools})")
    else:
        needs.append(f"the runtime {plan.runtime}")
    p.say("This installs " + ", ".join(needs) + ".")
    p.say(f"Disk: {words(plan.disk)} more in {home}, {words(plan.free)} free. "
          f"Time: about {plan.minutes} min.")  # fmt: skip
    if plan.disk + 100_000_000 > plan.free:
        raise ConfigError(f"Not enough free disk space in {home} for the built-in model.")
    if not p.yes("Install it now?"):
        raise ConfigError("The built-in model was not installed; nothing was changed.")
    try:
        local_model.install(home, plan.spec.key, p.say, _Bar())
    except PyclineError as exc:
        raise ConfigError(f"The built-in model could not be installed: {exc}") from exc
    return SetupResult("local", plan.spec.key, None, None, plan.spec.context_window)


class _Bar:
    """A progress bar that redraws itself on a terminal; elsewhere a line at each quarter."""

    def __init__(self) -> None:
        self.shown: tuple[str, int] = ("", -1)

    def __call__(self, what: str, done: int, total: int) -> None:
        share = min(100, done * 100 // total) if total else 100
        if sys.stdout.isatty():
            end = "\n" if share >= 100 else ""
            print(f"\r{what} [{'#' * (share // 4):<25}] {share:3d}%", end=end, flush=True)
            return
        quarter = share // 25
        if (what, quarter) != self.shown:
            self.shown = (what, quarter)
            print(f"{what}: {share}%", flush=True)


def _current(home: Path) -> str | None:
    from pycline.app.settings.config import load_settings

    try:
        saved = load_settings(home)
    except ConfigError:
        return None
    provider = saved.get("provider")
    return provider if isinstance(provider, str) else None


def _pick_choice(p: Prompter, current: str | None) -> Choice:
    while True:
        reply = p.line(
            f"Provider (1-{len(CHOICES)} or a name)",
            current or "",
        ).lower()
        if reply.isdigit() and 1 <= int(reply) <= len(CHOICES):
            return CHOICES[int(reply) - 1]
        named = [c for c in CHOICES if c.provider == reply]
        if named:
            return named[-1] if reply == "openai" else named[0]
        p.say(style(f"Type a number from 1 to {len(CHOICES)}, or a provider name.", "yellow"))


def _required(p: Prompter, prompt: str, default: str = "") -> str:
    while True:
        value = p.line(prompt, default)
        if value:
            return value
        p.say(style("This cannot be empty.", "yellow"))


def _server(choice: Choice, p: Prompter) -> SetupResult:
    preset_url = preset_base_url(choice.provider)
    default_url = preset_url if choice.kind == "local" and preset_url is not None else ""
    key: str | None = None
    while True:
        url = _required(
            p, "Server URL (the OpenAI-compatible base, usually ending in /v1)", default_url
        )
        if not url.startswith(("http://", "https://")):
            p.say(style("The URL must start with http:// or https://.", "yellow"))
            continue
        reply = server_check.list_models_now(choice.provider, url, key)
        if reply.status == "rejected":
            p.say(style(f"The server wants an API key ({reply.reason}).", "yellow"))
            check = functools.partial(server_check.list_models_now, choice.provider, url)
            key, reply = _key_until_accepted(p, check)
        if reply.status == "ok":
            break
        p.say(style(f"Cannot use {url}: {reply.reason}. Is the server running?", "yellow"))
        default_url = url
    model = _pick_model(p, reply.models)
    window = server_check.context_window(choice.provider, url, model, key)
    if window:
        p.say(f"Context window: {window:,} tokens (as the server runs {model}).")
    else:
        p.say(style("The server did not say its context window; a safe default is used.", "dim"))
    base = None if url.rstrip("/") == preset_url else url.rstrip("/")
    return SetupResult(choice.provider, model, base, key, window)


def _key_until_accepted(
    p: Prompter, check: Callable[[str], server_check.Reply]
) -> tuple[str, server_check.Reply]:
    while True:
        key = p.secret("API key (typing is hidden): ").strip()
        if not key:
            p.say(style("No key typed; try again (Ctrl-C stops).", "yellow"))
            continue
        reply = check(key)
        if reply.status == "rejected":
            p.say(style(f"That key was refused ({reply.reason}). Try again.", "yellow"))
            continue
        return key, reply


def _pick_model(p: Prompter, models: tuple[str, ...]) -> str:
    if not models:
        p.say("The server lists no models; type the model name it serves.")
        return _required(p, "Model")
    p.say("Models on this server:")
    for i, name in enumerate(models, 1):
        p.say(f"  {i:>2}. {name}")
    while True:
        reply = p.line(f"Model (1-{len(models)} or a name)", "1" if len(models) == 1 else "")
        if reply.isdigit() and 1 <= int(reply) <= len(models):
            return models[int(reply) - 1]
        if reply in models:
            return reply
        p.say(style("Pick a number from the list or type one of the names.", "yellow"))


def _keyed(choice: Choice, p: Prompter, home: Path) -> SetupResult:
    from pycline.app.settings.secrets import SecretStore

    stored = SecretStore(home).get(choice.provider)
    while True:
        prompt = "API key (typing is hidden" + ("; Enter keeps the stored one" if stored else "")
        key = p.secret(prompt + "): ").strip() or (stored or "")
        if not key:
            p.say(style("No key typed; try again (Ctrl-C stops).", "yellow"))
            continue
        reply = server_check.list_models_now(choice.provider, None, key)
        if reply.status == "ok":
            p.say(style("The key works.", "green"))
            break
        if reply.status == "rejected":
            p.say(style(f"That key was refused ({reply.reason}). Try again.", "yellow"))
            stored = None
            continue
        if p.yes(f"Could not check the key ({reply.reason}). Save it anyway?"):
            break
    default = DEFAULT_MODELS.get(choice.provider) or "gpt-4o"
    model = _required(p, "Model", default)
    return SetupResult(choice.provider, model, None, key if key != stored else None)


def save_result(home: Path, result: SetupResult) -> None:
    """Write the choice; a model fact learnt from the server replaces any stale one."""
    from pycline.app.settings.config import load_settings, locked, settings_path, write_settings
    from pycline.app.settings.secrets import SecretStore

    with locked(settings_path(home)):
        settings: dict[str, Any] = load_settings(home)
        settings.update({"provider": result.provider, "model": result.model})
        if result.base_url:
            settings["baseUrl"] = result.base_url
        else:
            settings.pop("baseUrl", None)
        if result.context_window:
            settings["modelInfo"] = {"contextWindow": result.context_window}
        else:
            settings.pop("modelInfo", None)
        write_settings(settings_path(home), settings, home=home, workspace=False)
    if result.api_key:
        SecretStore(home).set(result.provider, result.api_key)


def setup(home: Path, p: Prompter) -> SetupResult:
    result = run_wizard(home, p)
    save_result(home, result)
    where = f" at {result.base_url}" if result.base_url else ""
    p.say(style(f"Saved: {result.provider}/{result.model}{where}.", "green"))
    return result


def first_run(ns: argparse.Namespace) -> None:
    """Before the first interactive session: no model configured anywhere, so set one up."""
    from pycline.cli.common import resolved_config

    home, config = resolved_config(ns)
    if config.provider is None:
        print(style("No model is configured yet. Let's set one up (saved for next time).", "bold"))
        setup(home, Prompter())


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="pycline setup",
        description="Choose the provider and model (checked before saving). Safe to re-run.",
    )


def run_setup(argv: list[str]) -> int:
    build_parser().parse_args(argv)
    from pycline.app.settings.home import pycline_home

    try:
        setup(pycline_home(), Prompter())
    except (EOFError, KeyboardInterrupt):
        print(style("\nSet-up stopped; nothing was changed.", "yellow"), file=sys.stderr)
        return 130
    except ConfigError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    return 0
