"""The app's Prometheus metrics: the families and labels docs/ops.md lists,
latency histograms with the documented buckets, degradations by safe name,
store calls timed with their outcome, and what one app records for its
requests and its readiness probe."""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from server_support import asgi_client, create_app, settings
from unimem.models import MemoryEntry, MemoryEvent
from unimem.server.metrics import Metrics
from unimem.server.timed_store import TimedStore
from unimem.stores import InMemoryStore

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _families(metrics: Metrics) -> dict[str, tuple[str, list[tuple[str, dict[str, str], float]]]]:
    """Each family of the exposition: its type and samples (name, labels, value)."""
    return {
        f.name: (f.type, [(s.name, s.labels, s.value) for s in f.samples])
        for f in text_string_to_metric_families(metrics.render().decode())
    }


def test_an_empty_app_exposes_the_documented_families() -> None:
    families = _families(Metrics())
    assert {name: kind for name, (kind, _) in families.items()} == {
        "unimem_http_request_duration_seconds": "histogram",
        "unimem_store_operation_duration_seconds": "histogram",
        "unimem_degradations": "counter",
        "unimem_live_clients": "gauge",
        "unimem_recall_index_pending": "gauge",
        "unimem_recall_index_oldest_pending_seconds": "gauge",
        "unimem_recall_index_indexed": "gauge",
        "unimem_recall_index_failures": "gauge",
    }
    assert families["unimem_live_clients"][1] == [("unimem_live_clients", {}, 0.0)]


def test_requests_are_counted_in_the_documented_buckets() -> None:
    metrics = Metrics()
    for seconds in (0.0004, 0.0005, 0.003, 3.0):
        metrics.observe_request("GET", "/v1/sessions/{session_id}/context", 200, seconds)
    metrics.observe_request("POST", "/v1/sessions/{session_id}/entries", 201, 0.02)
    _, samples = _families(metrics)["unimem_http_request_duration_seconds"]
    context = {"method": "GET", "route": "/v1/sessions/{session_id}/context", "status": "200"}
    buckets = {
        s[1]["le"]: s[2]
        for s in samples
        if s[0].endswith("_bucket") and {k: v for k, v in s[1].items() if k != "le"} == context
    }
    assert list(buckets) == [*(str(b) for b in BUCKETS), "+Inf"]
    assert buckets["0.0005"] == 2 and buckets["0.005"] == 3 and buckets["2.5"] == 3
    assert buckets["+Inf"] == 4
    total = [s[2] for s in samples if s[0].endswith("_sum") and s[1] == context]
    assert total == [pytest.approx(0.0004 + 0.0005 + 0.003 + 3.0)]
    statuses = {s[1]["status"] for s in samples if s[0].endswith("_count")}
    assert statuses == {"200", "201"}


def test_a_nan_store_latency_is_summed_but_counted_in_no_bucket() -> None:
    metrics = Metrics()
    for seconds in (0.001, math.nan):
        metrics.observe_store("load_context", "ok", seconds)
    _, samples = _families(metrics)["unimem_store_operation_duration_seconds"]
    inf = [s[2] for s in samples if s[0].endswith("_bucket") and s[1]["le"] == "+Inf"]
    assert inf == [1.0]


def test_degradations_count_by_safe_name_only() -> None:
    metrics = Metrics()
    for name in ("history_trimmed", "bad name!", "summary_stale:3", "history_trimmed"):
        metrics.count_degradations([name])
    _, samples = _families(metrics)["unimem_degradations"]
    totals = {s[1]["name"]: s[2] for s in samples if s[0] == "unimem_degradations_total"}
    assert totals == {"history_trimmed": 2.0, "other": 1.0, "summary_stale": 1.0}


def test_each_app_has_its_own_registry() -> None:
    one, two = Metrics(), Metrics()
    one.live_clients.inc()
    assert _families(one)["unimem_live_clients"][1][0][2] == 1.0
    assert _families(two)["unimem_live_clients"][1][0][2] == 0.0


class _Failing(InMemoryStore):
    """The in-process store, with a session read that fails and one that hangs."""

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        raise OSError("down")

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        await asyncio.sleep(3600)
        return []


async def test_timed_store_records_each_call_with_its_outcome() -> None:
    metrics = Metrics()
    store = TimedStore(_Failing(), metrics)
    await store.setup()  # not timed
    assert await store.get_session("s") is None
    with pytest.raises(OSError, match="down"):
        await store.get_entries("s", limit=1)
    task = asyncio.create_task(store.get_events("s", limit=1))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.get_session("t") is None
    assert await store.extend_ttl("s") is False  # nothing expires in process
    text = metrics.render().decode()
    counts = re.findall(r"unimem_store_operation_duration_seconds_count\{(.*)\} (\S+)", text)
    assert counts == [
        ('operation="get_session",outcome="ok"', "2.0"),
        ('operation="get_entries",outcome="error"', "1.0"),
        ('operation="get_events",outcome="error"', "1.0"),
    ]
    assert 'operation="setup"' not in text


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
