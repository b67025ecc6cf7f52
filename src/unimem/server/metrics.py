"""Prometheus metrics of one app: request latency by route template, store
latency by operation, degradations by name.

Each app has its own registry (nothing global), and no label ever carries
content, a session id or a user id: routes are templates, degradations are
reduced to known-safe names.

The two latency histograms are recorded on every request and every store call,
so they are kept as plain numbers of this process (:class:`LatencyHistogram`)
and turned into Prometheus samples only when ``/metrics`` is scraped: the same
names, labels, buckets and values as ``prometheus_client.Histogram`` exposes,
without its two locks and bucket loop per observation.
"""

from __future__ import annotations

import inspect
import math
import re
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import wraps
from typing import Any, cast

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.metrics_core import HistogramMetricFamily, Metric
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString as _float_to_go

from ..stores.base import ContextSnapshot, stored_json_reader

__all__ = ["HistogramSeries", "LatencyHistogram", "Metrics", "TimedStore"]

_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_SAFE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
# How prometheus_client writes a bucket's bound in ``le`` (untyped there).
_le_text = cast(Callable[[float], str], _float_to_go)


class HistogramSeries:
    """The observations of one label set: a count per bucket and their sum.

    Not locked: observations come from the event loop's thread (middleware,
    store calls, handlers), and ``/metrics`` is read there too.
    """

    __slots__ = ("_bounds", "counts", "created", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self._bounds = bounds
        #: Observations per bucket (not cumulative), the last one ``+Inf``.
        self.counts = [0] * len(bounds)
        self.sum = 0.0
        #: When the series was made, as Prometheus reports it (``_created``).
        self.created = time.time()

    def observe(self, amount: float) -> None:
        """Record one observation (seconds)."""
        self.sum += amount
        i = bisect_left(self._bounds, amount)
        # False only for NaN, which Prometheus counts in no bucket either.
        if amount <= self._bounds[i]:
            self.counts[i] += 1


class LatencyHistogram:
    """A Prometheus histogram with labels whose series are :class:`HistogramSeries`.

    ``labels(...)`` gives a series as ``prometheus_client.Histogram.labels``
    gives a child (``.observe(seconds)``); series are made on first use and
    never removed, and the exposition lists them in that order.
    """

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        buckets: Sequence[float],
        registry: CollectorRegistry | None = None,
    ) -> None:
        bounds = [float(b) for b in buckets]
        if bounds != sorted(bounds) or not bounds:
            raise ValueError("buckets must be given in increasing order")
        if bounds[-1] != math.inf:
            bounds.append(math.inf)
        self.name = name
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self._bounds = tuple(bounds)
        self._le = tuple(_le_text(b) for b in bounds)
        self._series: dict[tuple[str, ...], HistogramSeries] = {}
        if registry is not None:
            registry.register(self)

    def labels(self, *values: object, **by_name: object) -> HistogramSeries:
        """The series of these label values, in ``labelnames`` order or by name
        (as prometheus_client's ``labels`` takes them).

        Raises:
            ValueError: not one value per label name.
        """
        if by_name:
            if values or set(by_name) != set(self.labelnames):
                raise ValueError(f"{self.name} takes the labels {', '.join(self.labelnames)}")
            values = tuple(by_name[name] for name in self.labelnames)
        key = tuple(str(v) for v in values)
        series = self._series.get(key)
        if series is None:
            if len(key) != len(self.labelnames):
                raise ValueError(f"{self.name} takes {len(self.labelnames)} label values")
            series = self._series[key] = HistogramSeries(self._bounds)
        return series

    def describe(self) -> Iterable[Metric]:
        """The family without samples: the names a registry reserves for it."""
        return [HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)]

    def collect(self) -> Iterable[Metric]:
        """The family with every series, as ``prometheus_client.Histogram`` has it."""
        family = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        created = _created_series_on()
        for values, series in list(self._series.items()):
            buckets: list[tuple[str, float]] = []
            total = 0.0
            for le, count in zip(self._le, list(series.counts), strict=True):
                total += count
                buckets.append((le, total))
            family.add_metric(values, buckets, series.sum)
            if created:
                labels = dict(zip(self.labelnames, values, strict=True))
                family.samples.append(Sample(self.name + "_created", labels, series.created))
        return [family]


def _created_series_on() -> bool:
    """Whether prometheus_client exposes ``_created`` series now (its
    ``PROMETHEUS_DISABLE_CREATED_SERIES`` / ``disable_created_metrics()``
    switch), asked of a throwaway counter so the histograms follow the same
    switch as the library's own metrics."""
    probe = Counter("unimem_probe", "", registry=None)
    return any(s.name.endswith("_created") for m in probe.collect() for s in m.samples)


class Metrics:
    """The collectors of one app, in their own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = LatencyHistogram(
            "unimem_http_request_duration_seconds",
            "HTTP request latency by route template",
            ("method", "route", "status"),
            _BUCKETS,
            registry=self.registry,
        )
        self.store = LatencyHistogram(
            "unimem_store_operation_duration_seconds",
            "Durable store latency by operation",
            ("operation", "outcome"),
            _BUCKETS,
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
        # Series by raw label values: a dict hit instead of converting and
        # checking the values on every call. The label sets are small and
        # fixed (route templates).
        self._request_series: dict[tuple[str, str, int], HistogramSeries] = {}

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Record one HTTP request's latency under its method, route template and status."""
        key = (method, route, status)
        series = self._request_series.get(key)
        if series is None:
            series = self._request_series[key] = self.requests.labels(method, route, status)
        series.observe(seconds)

    def observe_store(self, operation: str, outcome: str, seconds: float) -> None:
        """Record one store operation's latency under its name and outcome (a
        ``TimedStore`` keeps its methods' series itself)."""
        self.store.labels(operation, outcome).observe(seconds)

    def count_degradations(self, names: Iterable[str]) -> None:
        """Count each degradation; names that are not plain identifiers count as ``other``."""
        for name in names:
            base = name.split(":", 1)[0]
            self.degradations.labels(base if _SAFE_NAME.match(base) else "other").inc()

    def render(self) -> bytes:
        """The exposition text of every collector."""
        return generate_latest(self.registry)


class TimedStore:
    """Wraps a store so every coroutine method call is timed into ``Metrics.store``.

    Attribute access falls through to the wrapped store, so the service sees
    the same object surface.
    """

    def __init__(self, store: Any, metrics: Metrics) -> None:
        self._inner = store
        self._metrics = metrics
        #: the wrapped store's ``load_context_json``, else its ``load_context``,
        #: timed as ``load_context`` (made on first use)
        self._load_context_json: Callable[..., Awaitable[Any]] | None = None

    async def load_context_json(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """The wrapped store's ``load_context_json`` where its class has one (see
        :func:`unimem.stores.base.stored_json_reader`), else its ``load_context``:
        timing changes no entry, so this wrapper may hand stored JSON on."""
        timed = self._load_context_json
        if timed is None:
            read = stored_json_reader(self._inner) or self._inner.load_context
            timed = self._load_context_json = _timed(read, "load_context", self._metrics.store)
        snap: ContextSnapshot = await timed(
            session_id, max_messages=max_messages, event_limit=event_limit
        )
        return snap

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not yet in this instance's __dict__: a timed
        # method is put there once, so later calls skip this lookup entirely.
        value = getattr(self._inner, name)
        if name.startswith("_") or not callable(value) or name in ("setup", "aclose"):
            return value
        if not inspect.iscoroutinefunction(value):
            return value
        self.__dict__[name] = wrapped = _timed(value, name, self._metrics.store)
        return wrapped


def _timed(
    fn: Callable[..., Awaitable[Any]], name: str, histogram: LatencyHistogram
) -> Callable[..., Awaitable[Any]]:
    """``fn`` observing its duration under ``(name, "ok")``, or ``(name,
    "error")`` when it raises (cancellation included). Each series is looked
    up on its first use, so the exposition lists what happened, in order."""
    perf_counter = time.perf_counter
    ok: HistogramSeries | None = None
    error: HistogramSeries | None = None

    @wraps(fn)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        nonlocal ok, error
        start = perf_counter()
        try:
            result = await fn(*args, **kwargs)
        except BaseException:
            if error is None:
                error = histogram.labels(name, "error")
            error.observe(perf_counter() - start)
            raise
        if ok is None:
            ok = histogram.labels(name, "ok")
        ok.observe(perf_counter() - start)
        return result

    return timed
