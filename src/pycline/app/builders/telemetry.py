"""OpenTelemetry: traces and metrics an operator's tracing system can read.

Off by default. On with the `telemetry` setting (`{"enabled": true}` in the user's settings; a
project's file cannot turn it on) or with the standard OTLP variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, …; `OTEL_SDK_DISABLED=true` turns it off again). Exported
over OTLP/HTTP with the official `opentelemetry-sdk` and `opentelemetry-exporter-otlp-proto-http`
(the `otel` extra), imported only when telemetry is on.

A task is a fold over its events, as a front end is: one span per task (`pycline.task`), a child
per model request (`chat MODEL`: model, tokens, cache reads and writes, cost) and per tool call
(`tool NAME`: name, ok, duration), and counters for tokens, cost and tool calls. No prompt, file or
command text leaves the machine unless the user opts in (`telemetry.includeContent`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pycline.errors import ConfigError
from pycline.events import (
    Envelope,
    ErrorEvent,
    RequestStarted,
    TaskEnded,
    TaskStarted,
    ToolFinished,
    ToolStarted,
    Usage,
)

if TYPE_CHECKING:
    from pycline.app.settings.settings_model import TelemetrySettings

SERVICE_NAME = "pycline"
INSTALL_HINT = "pip install 'pycline-agent[otel]'"
_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def wanted(settings: TelemetrySettings) -> bool:
    """Whether telemetry is on: the setting, or the standard OTLP variables (not disabled)."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return settings.enabled or any(os.environ.get(v, "").strip() for v in _ENDPOINT_VARS)


class Telemetry:
    """The session's tracer and meter; `follow` folds one task's events into spans."""

    def __init__(self, tracing: Any, metering: Any, *, content: bool) -> None:
        self._tracing, self._metering = tracing, metering
        self.content = content
        tracer = tracing.get_tracer("pycline")
        meter = metering.get_meter("pycline")
        self._tracer = tracer
        self.tokens = meter.create_counter("pycline.tokens", unit="{token}", description="tokens")
        self.cost = meter.create_counter("pycline.cost", unit="USD", description="model cost")
        self.tool_calls = meter.create_counter("pycline.tool_calls", description="tool calls")

    @classmethod
    def start(cls, settings: TelemetrySettings) -> Telemetry | None:
        """The session's telemetry, or None when it is off. With the setting on and the SDK
        missing, ConfigError saying what to install; with only the variables set, off."""
        if not wanted(settings):
            return None
        try:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.metrics import MeterProvider
            from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError:
            if settings.enabled:
                raise ConfigError(
                    f"The telemetry setting is on but OpenTelemetry is not installed: {INSTALL_HINT}"
                ) from None
            return None
        resource = Resource.create({"service.name": SERVICE_NAME})
        endpoint = settings.endpoint.rstrip("/") if settings.endpoint else None
        spans = OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces" if endpoint else None)
        tracing = TracerProvider(resource=resource)
        tracing.add_span_processor(BatchSpanProcessor(spans))
        metrics = OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics" if endpoint else None)
        reader = PeriodicExportingMetricReader(metrics)
        metering = MeterProvider(resource=resource, metric_readers=[reader])
        return cls(tracing, metering, content=settings.include_content)

    def follow(self, model: Callable[[], str]) -> Callable[[Envelope], None]:
        """A listener for one task's events; `model`: the `provider/model` it talks to now."""
        return _TaskSpans(self, model).on_event

    def close(self) -> None:
        """Send what is still buffered, then stop (the session is closing)."""
        self._tracing.shutdown()
        self._metering.shutdown()


@dataclass
class _TaskSpans:
    telemetry: Telemetry
    model: Callable[[], str]
    task: Any = None
    context: Any = None
    request: Any = None
    tools: dict[str, tuple[Any, float, str]] = field(default_factory=dict)

    def on_event(self, envelope: Envelope) -> None:
        match envelope.event:
            case TaskStarted() as started:
                self._task_started(started)
            case RequestStarted(index=index):
                self._end_request()
                model = self.model().partition("/")[2] or self.model()
                self.request = self._child(f"chat {model}", {"pycline.request.index": index})
                self._set_model(self.request)
            case Usage() as usage:
                self._usage(usage)
            case ErrorEvent(text=text) if self.request is not None:
                self.request.set_attribute("error.type", "provider_error")
                self.request.set_attribute("pycline.request.error", text[:500])
                self._end_request()
            case ToolStarted(tool=tool, summary=summary, tool_call_id=call_id):
                attributes: dict[str, Any] = {"pycline.tool.name": tool}
                if self.telemetry.content:
                    attributes["pycline.tool.summary"] = summary
                span = self._child(f"tool {tool}", attributes)
                self.tools[call_id] = (span, time.monotonic(), tool)
            case ToolFinished(tool_call_id=call_id, ok=ok):
                self._tool_finished(call_id, ok)
            case TaskEnded(completed=completed, reason=reason):
                self._task_ended(completed, reason)
            case _:
                pass

    def _task_started(self, started: TaskStarted) -> None:
        from opentelemetry import trace

        attributes: dict[str, Any] = {
            "pycline.task.id": started.task_id,
            "pycline.task.resumed": started.resumed,
        }
        if self.telemetry.content:
            attributes["pycline.task.prompt"] = started.task
        self.task = self.telemetry._tracer.start_span("pycline.task", attributes=attributes)
        self.context = trace.set_span_in_context(self.task)

    def _child(self, name: str, attributes: dict[str, Any]) -> Any:
        return self.telemetry._tracer.start_span(name, context=self.context, attributes=attributes)

    def _set_model(self, span: Any) -> None:
        provider, _, model = self.model().partition("/")
        span.set_attribute("gen_ai.system", provider)
        span.set_attribute("gen_ai.request.model", model)

    def _usage(self, usage: Usage) -> None:
        values = {
            "gen_ai.usage.input_tokens": usage.input_tokens,
            "gen_ai.usage.output_tokens": usage.output_tokens,
            "pycline.usage.cache_read_tokens": usage.cache_read_tokens,
            "pycline.usage.cache_write_tokens": usage.cache_write_tokens,
            "pycline.cost_usd": usage.cost,
        }
        if self.request is not None:
            for key, value in values.items():
                self.request.set_attribute(key, value)
            self._end_request()
        model = self.model()
        t = self.telemetry
        for kind, count in (
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cache_read", usage.cache_read_tokens),
            ("cache_write", usage.cache_write_tokens),
        ):
            if count:
                t.tokens.add(count, {"type": kind, "model": model})
        t.cost.add(usage.cost, {"model": model})

    def _end_request(self) -> None:
        if self.request is not None:
            self.request.end()
            self.request = None

    def _tool_finished(self, call_id: str, ok: bool) -> None:
        found = self.tools.pop(call_id, None)
        if found is None:
            return
        span, began, tool = found
        span.set_attribute("pycline.tool.ok", ok)
        span.set_attribute("pycline.tool.duration_ms", int((time.monotonic() - began) * 1000))
        span.end()
        self.telemetry.tool_calls.add(1, {"tool": tool, "ok": ok})

    def _task_ended(self, completed: bool, reason: str) -> None:
        self._end_request()
        for call_id in list(self.tools):
            self._tool_finished(call_id, False)
        if self.task is None:
            return
        self.task.set_attribute("pycline.task.completed", completed)
        if self.telemetry.content:  # a reason may quote a command (a goal's check)
            self.task.set_attribute("pycline.task.reason", reason[:500])
        self.task.end()
        self.task = None
