"""The latency histograms, kept as plain per-process numbers, expose at
``/metrics`` exactly what ``prometheus_client.Histogram`` (their previous
recording) exposes for the same observations: names, help, labels, buckets,
counts, sums and ``_created`` series."""

from __future__ import annotations

import asyncio
import math
import random
import re
import time
from pathlib import Path

import pytest
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    enable_created_metrics,
    generate_latest,
)

from server_support import asgi_client, create_app, settings
from unimem.server.metrics import LatencyHistogram, Metrics, TimedStore

# The buckets and definitions the metrics had when recorded by prometheus_client.
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class _Reference:
    """The previous recording: prometheus_client's own collectors."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Histogram(
            "unimem_http_request_duration_seconds",
            "HTTP request latency by route template",
            ("method", "route", "status"),
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.store = Histogram(
            "unimem_store_operation_duration_seconds",
            "Durable store latency by operation",
            ("operation", "outcome"),
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.degradations = Counter(
            "unimem_degradations",
            "Degraded results returned, by degradation name",
            ("name",),
            registry=self.registry,
        )
        self.live_clients = Gauge(
            "unimem_live_clients", "Open live WebSocket connections", registry=self.registry
        )


_CREATED = re.compile(rb"^(\w+_created\{.*\}) (\S+)$", re.MULTILINE)


def _created_blanked(text: bytes) -> tuple[bytes, list[float]]:
    """The exposition with ``_created`` values (creation times) blanked, and those values."""
    values = [float(m[2]) for m in _CREATED.finditer(text)]
    return _CREATED.sub(rb"\1 T", text), values


def _observations(seed: int) -> list[tuple[str, tuple[object, ...], float]]:
    """Requests and store calls in a mixed order, with values on, between and
    beyond every bucket bound."""
    rng = random.Random(seed)
    edges = [*BUCKETS, 0.0, 1e-9, 3.0, 100.0, math.inf]
    edges += [b * (1 + 1e-12) for b in BUCKETS] + [b * (1 - 1e-12) for b in BUCKETS]
    routes = ["/v1/sessions/{session_id}/context", "/v1/sessions/{session_id}/entries", "<static>"]
    out: list[tuple[str, tuple[object, ...], float]] = []
    for i in range(3000):
        seconds = edges[i % len(edges)] if i % 3 == 0 else rng.lognormvariate(-7, 2)
        if rng.random() < 0.5:
            key: tuple[object, ...] = (
                rng.choice(["GET", "POST"]),
                rng.choice(routes),
                rng.choice([200, 201, 404, 500]),
            )
            out.append(("request", key, seconds))
        else:
            key = (rng.choice(["load_context", "append_entry", "get_session"]),)
            key += (rng.choice(["ok", "ok", "ok", "error"]),)
            out.append(("store", key, seconds))
    return out


def _record_both(seed: int) -> tuple[bytes, bytes]:
    new, old = Metrics(), _Reference()
    for kind, key, seconds in _observations(seed):
        if kind == "request":
            method, route, status = key
            assert isinstance(method, str) and isinstance(route, str) and isinstance(status, int)
            new.observe_request(method, route, status, seconds)
            old.requests.labels(method, route, str(status)).observe(seconds)
        else:
            operation, outcome = key
            assert isinstance(operation, str) and isinstance(outcome, str)
            new.observe_store(operation, outcome, seconds)
            old.store.labels(operation, outcome).observe(seconds)
    # as /readyz records its probe
    new.store.labels("readyz", "probe").observe(0.003)
    old.store.labels("readyz", "probe").observe(0.003)
    for name in ("history_trimmed", "bad name!", "summary_stale:3"):
        new.count_degradations([name])
    for name in ("history_trimmed", "other", "summary_stale"):
        old.degradations.labels(name).inc()
    new.live_clients.inc()
    old.live_clients.inc()
    return new.render(), generate_latest(old.registry)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exposition_equals_prometheus_histograms_for_the_same_observations(seed: int) -> None:
    started = time.time()
    new, old = _record_both(seed)
    new_text, new_created = _created_blanked(new)
    old_text, old_created = _created_blanked(old)
    assert new_text == old_text
    assert b'le="+Inf"' in new_text and b"unimem_store_operation_duration_seconds_sum" in new_text
    # one creation time per series, taken when the series was first used
    assert len(new_created) == len(old_created) > 20
    assert all(started <= t <= time.time() for t in new_created)


def test_exposition_follows_prometheus_clients_created_series_switch() -> None:
    disable_created_metrics()
    try:
        new, old = _record_both(7)
    finally:
        enable_created_metrics()
    assert new == old
    assert b"_created" not in new


def test_an_empty_app_exposes_the_same_families() -> None:
    assert Metrics().render() == generate_latest(_Reference().registry)


def test_nan_is_summed_but_counted_in_no_bucket_as_prometheus_does() -> None:
    new, old = Metrics(), _Reference()
    for seconds in (0.001, math.nan, 0.3):
        new.observe_store("load_context", "ok", seconds)
        old.store.labels("load_context", "ok").observe(seconds)
    assert _created_blanked(new.render())[0] == _created_blanked(generate_latest(old.registry))[0]


def test_labels_need_one_value_per_label_name() -> None:
    histogram = LatencyHistogram("x_seconds", "x", ("a", "b"), BUCKETS)
    with pytest.raises(ValueError, match="takes 2 label values"):
        histogram.labels("only-one")
    assert histogram.labels("p", 2) is histogram.labels("p", "2")
    # by name, as prometheus_client takes them
    assert histogram.labels(b="2", a="p") is histogram.labels("p", "2")
    with pytest.raises(ValueError, match="takes the labels a, b"):
        histogram.labels(a="p")
    with pytest.raises(ValueError, match="takes the labels a, b"):
        histogram.labels("p", b="2")
    with pytest.raises(ValueError, match="increasing"):
        LatencyHistogram("y_seconds", "y", (), (0.5, 0.1))


class _Store:
    """A stand-in store with coroutine and plain methods."""

    answer = 42

    async def get_session(self, session_id: str) -> str:
        return session_id

    async def fail(self) -> None:
        raise OSError("down")

    async def hang(self) -> None:
        await asyncio.sleep(3600)

    def plain(self) -> str:
        return "plain"

    async def setup(self) -> None:
        return None


async def test_timed_store_records_each_coroutine_call_as_prometheus_did() -> None:
    metrics, old = Metrics(), _Reference()
    store = TimedStore(_Store(), metrics)
    assert await store.get_session("s") == "s"
    with pytest.raises(OSError, match="down"):
        await store.fail()
    task = asyncio.create_task(store.hang())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.get_session("t") == "t"
    assert store.plain() == "plain" and store.answer == 42
    await store.setup()  # not timed
    for operation, outcome, times in (
        ("get_session", "ok", 2),
        ("fail", "error", 1),
        ("hang", "error", 1),
    ):
        for _ in range(times):
            old.store.labels(operation, outcome).observe(0.0)
    text = metrics.render().decode()
    counts = re.findall(r"unimem_store_operation_duration_seconds_count\{(.*)\} (\S+)", text)
    old_counts = re.findall(
        r"unimem_store_operation_duration_seconds_count\{(.*)\} (\S+)",
        generate_latest(old.registry).decode(),
    )
    assert (
        counts
        == old_counts
        == [
            ('operation="get_session",outcome="ok"', "2.0"),
            ('operation="fail",outcome="error"', "1.0"),
            ('operation="hang",outcome="error"', "1.0"),
        ]
    )
    assert 'operation="setup"' not in text and 'operation="plain"' not in text


async def test_app_metrics_count_requests_store_calls_and_the_readiness_probe(
    tmp_path: Path,
) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as client:
        for _ in range(3):
            assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/readyz")).status_code == 200
        assert (await client.get("/v1/nowhere")).status_code == 404
        text = (await client.get("/metrics")).text
    request = "unimem_http_request_duration_seconds"
    assert f'{request}_count{{method="GET",route="/healthz",status="200"}} 3.0' in text
    assert f'{request}_bucket{{le="+Inf",method="GET",route="/healthz",status="200"}} 3.0' in text
    assert f'{request}_count{{method="GET",route="/readyz",status="200"}} 1.0' in text
    assert f'{request}_count{{method="GET",route="<unmatched>",status="404"}} 1.0' in text
    assert (
        'unimem_store_operation_duration_seconds_count{operation="readyz",outcome="probe"} 1.0'
        in text
    )
    assert (
        'unimem_store_operation_duration_seconds_count{operation="get_session",outcome="ok"}'
        in text
    )
