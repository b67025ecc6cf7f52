"""Health, readiness and metrics endpoints (outside ``/v1``, never rate limited)."""

from __future__ import annotations

import contextlib
import time

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST

from ..errors import StoreError
from ..service.indexer import IndexStatus
from .deps import MetricsDep, ServiceDep, SettingsDep
from .schemas import Status

__all__ = ["router"]

router = APIRouter(tags=["ops"])


@router.get("/healthz", operation_id="healthz", response_model=Status, summary="Liveness")
async def healthz(settings: SettingsDep) -> Status:
    """The process answers; ``store`` is the kind of store it serves."""
    return Status(status="ok", store=settings.store_kind, local_mode=settings.local_mode)


@router.get(
    "/readyz",
    operation_id="readyz",
    response_model=Status,
    responses={503: {"model": Status, "description": "The store cannot be reached"}},
    summary="Readiness: the store answers",
)
async def readyz(service: ServiceDep, metrics: MetricsDep, settings: SettingsDep) -> Response:
    """Reads a session row from the store; 503 when it fails (``store`` names the error)."""
    start = time.perf_counter()
    try:
        await service.store.get_session("readyz-probe")
    except (StoreError, OSError) as exc:
        body = Status(
            status="unavailable", store=type(exc).__name__, local_mode=settings.local_mode
        )
        return Response(
            body.model_dump_json(), 503, media_type="application/json", headers={"Retry-After": "1"}
        )
    finally:
        metrics.store.labels("readyz", "probe").observe(time.perf_counter() - start)
    return Response(
        Status(status="ok", store="ok", local_mode=settings.local_mode).model_dump_json(),
        200,
        media_type="application/json",
    )


@router.get("/recallz", operation_id="recallz", response_model=IndexStatus, include_in_schema=False)
async def recallz(service: ServiceDep) -> IndexStatus:
    """Recall's mode (``hybrid`` or ``keyword``), model and indexing lag (entries
    waiting for their vectors, the oldest one's wait)."""
    try:
        return await service.recall_index.status()
    except (StoreError, OSError) as exc:
        return IndexStatus(mode="keyword", last_error=type(exc).__name__)


@router.get("/metrics", operation_id="metrics", include_in_schema=False)
async def metrics_endpoint(metrics: MetricsDep, service: ServiceDep) -> Response:
    """Prometheus exposition format (recall's indexing lag read at each scrape)."""
    with contextlib.suppress(StoreError, OSError):  # the store's own metrics say it failed
        metrics.observe_recall_index(await service.recall_index.status())
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
