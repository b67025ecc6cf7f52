"""FastAPI's OpenTelemetry request telemetry: off (and never consulted per
request) when nothing set OpenTelemetry up before the app was built, kept as
FastAPI ships it when a provider or an ``OTEL_*`` variable is there."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.util.types import Attributes

from server_support import asgi_client, auth, create_app, settings
from unimem.server.app import opentelemetry_configured

BODY = {"role": "user", "content": "hello there", "mode": "voice", "language": "en"}


@pytest.fixture(autouse=True)
def _no_otel_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without OpenTelemetry variables, whatever the shell has."""
    for name in list(os.environ):
        if name.startswith("OTEL_") or name == "FASTAPI_OTEL_AUTO_CONFIGURE":
            monkeypatch.delenv(name)


class _Counting:
    """Counts the calls of the API's ``get_tracer_provider`` (FastAPI's
    per-request question) and answers as the real one does."""

    def __init__(self, provider: trace.TracerProvider | None = None) -> None:
        self.calls = 0
        self._real = trace.get_tracer_provider
        self._provider = provider

    def __call__(self) -> trace.TracerProvider:
        self.calls += 1
        return self._provider if self._provider is not None else self._real()


class _RecordingTracer(trace.NoOpTracer):
    def __init__(self) -> None:
        self.spans: list[tuple[str, trace.SpanKind]] = []

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: trace.SpanKind = trace.SpanKind.INTERNAL,
        attributes: Attributes = None,
        links: Any = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> trace.Span:
        self.spans.append((name, kind))
        return trace.INVALID_SPAN


class _RecordingProvider(trace.TracerProvider):
    """A real (not stand-in) provider whose tracer records the spans started."""

    def __init__(self) -> None:
        self.tracer = _RecordingTracer()

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        return self.tracer


async def _requests(app: Any, counting: _Counting | None = None) -> None:
    """Three requests (one by FastAPI's router, two by the fast path); the
    ``counting`` count starts after start-up."""
    async with asgi_client(app, headers=auth("alice")) as client:
        if counting is not None:
            counting.calls = 0
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.post("/v1/sessions/s-1/entries", json=BODY)).status_code == 201
        context = await client.get("/v1/sessions/s-1/context?max_messages=5")
        assert context.status_code == 200
        assert [m["content"] for m in context.json()["messages"]] == ["hello there"]


def test_configured_means_a_real_provider_or_an_otel_variable() -> None:
    assert opentelemetry_configured({}) is False
    assert opentelemetry_configured({"OTEL_SERVICE_NAME": "unimem"}) is True
    assert opentelemetry_configured({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}) is True
    assert opentelemetry_configured({"FASTAPI_OTEL_AUTO_CONFIGURE": "true"}) is True
    assert opentelemetry_configured({"FASTAPI_OTEL_AUTO_CONFIGURE": "false"}) is False
    assert opentelemetry_configured({"UNIMEM_OTEL": "1"}) is False


def test_an_installed_tracer_provider_counts_as_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (the global provider can be set once per process: the getter is swapped instead)
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    assert opentelemetry_configured({}) is True


async def test_without_opentelemetry_requests_never_ask_for_its_providers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(settings(tmp_path))
    assert app.state.opentelemetry is False
    counting = _Counting()
    monkeypatch.setattr(trace, "get_tracer_provider", counting)
    await _requests(app, counting)
    assert counting.calls == 0


async def test_an_otel_variable_keeps_fastapi_telemetry_per_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "unimem")
    app = create_app(settings(tmp_path))
    assert app.state.opentelemetry is True
    counting = _Counting()
    monkeypatch.setattr(trace, "get_tracer_provider", counting)
    await _requests(app, counting)
    # FastAPI still asks on every request (a provider may appear at any time).
    assert counting.calls >= 3


async def test_a_provider_installed_before_the_app_gets_request_spans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = _RecordingProvider()
    monkeypatch.setattr(trace, "get_tracer_provider", _Counting(provider))
    app = create_app(settings(tmp_path))
    assert app.state.opentelemetry is True
    await _requests(app)
    server_spans = [name for name, kind in provider.tracer.spans if kind is trace.SpanKind.SERVER]
    assert server_spans == ["GET", "POST", "GET"]


async def test_a_provider_installed_after_the_app_is_built_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings(tmp_path))
    provider = _RecordingProvider()
    monkeypatch.setattr(trace, "get_tracer_provider", _Counting(provider))
    with caplog.at_level(logging.INFO, logger="unimem.server"):
        await _requests(app)
    assert provider.tracer.spans == []
    messages = [r.getMessage() for r in caplog.records if r.name == "unimem.server"]
    assert any("OpenTelemetry was set up after the app was built" in m for m in messages)
    assert any(m.endswith("OpenTelemetry off") for m in messages)
