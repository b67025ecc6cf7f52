"""Prometheus metrics of one app: request latency by route template, store
latency by operation, degradations by name, open live connections.

Each app has its own ``CollectorRegistry`` (nothing global) holding
``prometheus_client``'s own ``Histogram``, ``Counter`` and ``Gauge``; no label
ever carries content, a session id or a user id: routes are templates,
degradations are reduced to known-safe names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from ..service.indexer import IndexStatus

__all__ = ["Metrics"]

#: Latency histogram buckets, seconds (``+Inf`` is added by prometheus_client).
BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_SAFE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")


class Metrics:
    """The collectors of one app, in their own registry."""

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
        self.recall_pending = Gauge(
            "unimem_recall_index_pending",
            "Entries waiting for their recall vectors",
            registry=self.registry,
        )
        self.recall_oldest = Gauge(
            "unimem_recall_index_oldest_pending_seconds",
            "How long the oldest entry waiting for its vector has waited",
            registry=self.registry,
        )
        self.recall_indexed = Gauge(
            "unimem_recall_index_indexed",
            "Entries this process embedded since it started",
            registry=self.registry,
        )
        self.recall_failures = Gauge(
            "unimem_recall_index_failures",
            "Indexing batches that failed since this process started",
            registry=self.registry,
        )

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Record one HTTP request's latency under its method, route template and status."""
        self.requests.labels(method, route, str(status)).observe(seconds)

    def observe_store(self, operation: str, outcome: str, seconds: float) -> None:
        """Record one store operation's latency under its name and outcome."""
        self.store.labels(operation, outcome).observe(seconds)

    def count_degradations(self, names: Iterable[str]) -> None:
        """Count each degradation; names that are not plain identifiers count as ``other``."""
        for name in names:
            base = name.split(":", 1)[0]
            self.degradations.labels(base if _SAFE_NAME.match(base) else "other").inc()

    def observe_recall_index(self, status: IndexStatus) -> None:
        """Set the recall indexer's gauges from its status."""
        self.recall_pending.set(status.pending)
        self.recall_oldest.set(status.oldest_pending_seconds or 0.0)
        self.recall_indexed.set(status.indexed)
        self.recall_failures.set(status.failures)

    def render(self) -> bytes:
        """The exposition text of every collector."""
        return generate_latest(self.registry)
