"""Models behind cloud platforms: Amazon Bedrock and Google Vertex AI.

Bedrock: Claude through Anthropic's official `AsyncAnthropicBedrock` client, which signs requests
with AWS SigV4 (botocore) and decodes Bedrock's binary event stream (invoke-with-response-stream);
the Anthropic adapter does the rest. Credentials come from the usual AWS chain (environment,
profile, instance role) or a Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`).

Vertex: Claude through `AsyncAnthropicVertex`, any other model (Gemini) through google-genai in
Vertex mode. Credentials come from Google's Application Default Credentials, or an access token.

Every SDK is optional (extras `bedrock`, `vertex`) and imported only when such a provider is built.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Final

from pycline.errors import ConfigError
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.base import ModelInfo, Provider

BEDROCK_HINT: Final = "Amazon Bedrock needs boto3: sh install.sh bedrock (in pycline's folder), or pip install 'pycline-agent[bedrock]'."
VERTEX_HINT: Final = "Google Vertex AI needs google-auth: sh install.sh vertex (in pycline's folder), or pip install 'pycline-agent[vertex]'."
# Prefixes of Bedrock model ids that route a request (cross-region inference profiles).
REGION_PREFIXES: Final = ("us.", "eu.", "apac.", "jp.", "au.", "global.")


def _require(module: str, hint: str) -> None:
    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package ("google") is missing too
        found = False
    if not found:
        raise ConfigError(hint)


def bedrock_region(explicit: str | None = None) -> str:
    region = explicit or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        return region
    import boto3

    region = boto3.Session().region_name
    if not region:
        raise ConfigError(
            "No AWS region for Bedrock: set AWS_REGION (for example us-east-1) or configure a "
            "region for your AWS profile."
        )
    return str(region)


def bedrock_provider(
    *,
    model: ModelInfo,
    region: str | None = None,
    api_key: str | None = None,
    base_url: str | None = None,
    access_key: str | None = None,
    secret_key: str | None = None,
    session_token: str | None = None,
    profile: str | None = None,
    thinking_budget: int | None = None,
) -> AnthropicProvider:
    """Claude on Bedrock. With no key and no explicit credentials, the AWS chain is checked now,
    so a missing login is reported before the task starts rather than on the first request."""
    _require("botocore", BEDROCK_HINT)
    from botocore.exceptions import BotoCoreError

    where = bedrock_region(region)
    explicit = any(v is not None for v in (access_key, secret_key, session_token, profile))
    if not api_key and not explicit:
        import boto3

        if boto3.Session().get_credentials() is None:
            raise ConfigError(
                "No AWS credentials for Bedrock: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
                "AWS_PROFILE, or a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)."
            )

    def factory(timeout: Any) -> Any:
        from anthropic import AsyncAnthropicBedrock

        return AsyncAnthropicBedrock(
            aws_region=where,
            aws_access_key=access_key,
            aws_secret_key=secret_key,
            aws_session_token=session_token,
            aws_profile=profile,
            api_key=api_key or None,
            base_url=base_url or None,
            max_retries=0,
            timeout=timeout,
        )

    return AnthropicProvider(
        api_key=api_key or "",
        model=model,
        base_url=base_url or f"https://bedrock-runtime.{where}.amazonaws.com",
        thinking_budget=thinking_budget,
        name="bedrock",
        label="Amazon Bedrock" if not base_url else None,
        client_factory=factory,
        credential_errors=(BotoCoreError,),
    )


def vertex_settings(project: str | None = None, region: str | None = None) -> tuple[str, str]:
    env = os.environ
    project = (
        project
        or env.get("GOOGLE_CLOUD_PROJECT")
        or env.get("ANTHROPIC_VERTEX_PROJECT_ID")
        or env.get("GCLOUD_PROJECT")
    )
    region = region or env.get("CLOUD_ML_REGION") or env.get("GOOGLE_CLOUD_LOCATION")
    if not project:
        raise ConfigError("No Google Cloud project for Vertex AI: set GOOGLE_CLOUD_PROJECT.")
    if not region:
        raise ConfigError(
            "No Vertex AI region: set GOOGLE_CLOUD_LOCATION (for example us-east5, or global)."
        )
    return project, region


def vertex_provider(
    *,
    model: ModelInfo,
    project: str | None = None,
    region: str | None = None,
    access_token: str | None = None,
    base_url: str | None = None,
    thinking_budget: int | None = None,
) -> Provider:
    """Claude models through Anthropic's Vertex client; every other model through google-genai."""
    _require("google.auth", VERTEX_HINT)
    from google.auth.exceptions import GoogleAuthError

    project, region = vertex_settings(project, region)
    if model.id.lower().startswith("claude"):

        def factory(timeout: Any) -> Any:
            from anthropic import AsyncAnthropicVertex

            return AsyncAnthropicVertex(
                region=region,
                project_id=project,
                access_token=access_token or None,
                base_url=base_url or None,
                max_retries=0,
                timeout=timeout,
            )

        return AnthropicProvider(
            api_key=access_token or "",
            model=model,
            base_url=base_url or f"https://{region}-aiplatform.googleapis.com/v1",
            thinking_budget=thinking_budget,
            name="vertex",
            label="Vertex AI" if not base_url else None,
            client_factory=factory,
            credential_errors=(GoogleAuthError,),
        )
    _require("google.genai", VERTEX_HINT.replace("google-auth", "google-genai"))
    from pycline.providers.gemini_provider import GeminiProvider, VertexTarget

    credentials = None
    if access_token:
        from google.oauth2.credentials import Credentials

        credentials = Credentials(token=access_token)  # type: ignore[no-untyped-call]
    return GeminiProvider(
        model=model,
        vertex=VertexTarget(project, region, credentials),
        base_url=base_url,
        thinking_budget=thinking_budget,
    )
