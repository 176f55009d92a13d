"""One way to ask a provider's server for its models (the setup wizard, the doctor, the web UI's
Settings and model picker all use it): each provider's own address and key header, a refused key
told apart from an unreachable server."""

from __future__ import annotations

from pycline.app.builders.server_check import list_models
from tests.fakes.server import FakeHTTPServer, Planned, RecordedRequest


def _models(request: RecordedRequest) -> Planned:
    if "bad" in (request.header("x-api-key") or request.header("authorization") or ""):
        return Planned(status=401, json_body={"error": {"message": "invalid x-api-key"}})
    if request.path in ("/v1/models", "/v1beta/models"):
        return Planned(json_body={"data": [{"id": "model-b"}, {"id": "model-a"}]})
    return Planned(status=404, json_body={})


async def test_each_provider_is_asked_at_its_own_address_with_its_own_key_header() -> None:
    with FakeHTTPServer(_models) as server:
        anthropic = await list_models("anthropic", server.origin, "sk-ant")
        openai = await list_models("openai", f"{server.origin}/v1", "sk-oai")
        gemini = await list_models("gemini", server.origin, "g-key")
    assert anthropic.status == openai.status == gemini.status == "ok"
    assert anthropic.models == ("model-b", "model-a")
    first, second, third = server.requests
    assert (first.path, first.header("x-api-key")) == ("/v1/models", "sk-ant")
    assert first.header("anthropic-version") and not first.header("authorization")
    assert (second.path, second.header("authorization")) == ("/v1/models", "Bearer sk-oai")
    assert (third.path, third.header("x-goog-api-key")) == ("/v1beta/models", "g-key")


async def test_a_refused_key_and_an_unreachable_server_are_told_apart() -> None:
    with FakeHTTPServer(_models) as server:
        refused = await list_models("anthropic", server.origin, "bad-key")
        origin = server.origin
    gone = await list_models("openai", f"{origin}/v1", "sk")  # the server has stopped
    nowhere = await list_models("no-such-provider")
    assert refused.status == "rejected" and "invalid x-api-key" in refused.reason
    assert gone.status == "unreachable"
    assert nowhere.status == "error" and "no server address" in nowhere.reason
