"""``/v1/me``: the caller's settings, deletion and export of their memory."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Query, Response

from ..models import AuditRecord, DeletionReceipt, MemorySettings
from ..service.privacy import AUDIT_EXPORT_LIMIT
from .deps import ServiceDep, UserDep
from .error_handlers import ERROR_RESPONSES
from .responses import ModelResponse
from .sessions import ID_PATTERN

__all__ = ["MEMORY_DELETED", "router"]

#: Live-socket notice (never stored) that the owner deleted memory of the session.
MEMORY_DELETED = "memory_deleted"

router = APIRouter(prefix="/v1/me", tags=["me"], responses=ERROR_RESPONSES)


@router.get(
    "/settings",
    operation_id="get_settings",
    response_model=MemorySettings,
    summary="The caller's memory settings",
)
async def get_settings(service: ServiceDep, user: UserDep) -> Response:
    """Defaults until the caller sets any."""
    return ModelResponse(await service.get_settings(user_id=user))


@router.put(
    "/settings",
    operation_id="update_settings",
    response_model=MemorySettings,
    summary="Replace the caller's memory settings",
)
async def put_settings(body: MemorySettings, service: ServiceDep, user: UserDep) -> Response:
    """Replace the settings; fields left out take their defaults."""
    return ModelResponse(await service.update_settings(body, user_id=user))


@router.delete(
    "/memory",
    operation_id="delete_user_memory",
    response_model=DeletionReceipt,
    summary="Delete the caller's memory",
)
async def delete_memory(
    service: ServiceDep,
    user: UserDep,
    scope: Annotated[Literal["session", "day", "all"], Query()],
    session_id: Annotated[
        str | None, Query(min_length=1, max_length=128, pattern=ID_PATTERN)
    ] = None,
    tz: Annotated[str | None, Query(max_length=64, description="IANA zone for 'day'")] = None,
) -> Response:
    """``session`` (``session_id``, or every session not yet closed), ``day``
    (since midnight in ``tz``, UTC by default) or ``all``; returns what was
    removed, per layer. A ``session_id`` of another user is 404. The service
    tells the user's other open clients of each deleted session (live socket
    ``memory_deleted``) to reload."""
    receipt: DeletionReceipt = await service.delete_user_memory(
        scope, user_id=user, tz=tz, session_id=session_id
    )
    return ModelResponse(receipt)


@router.get(
    "/export",
    operation_id="export_user_memory",
    response_model=dict[str, Any],
    summary="Everything stored about the caller",
)
async def export_memory(
    service: ServiceDep,
    user: UserDep,
    reveal: Annotated[bool, Query(description="PHI tokens replaced by their values")] = False,
) -> Response:
    """Settings, sessions, entries, events, facts and summaries, as JSON;
    with ``reveal``, the caller's own words in place of PHI tokens (audited)."""
    data = await service.export_user_memory(user_id=user, reveal=reveal)
    return Response(
        orjson.dumps(data, default=_default),
        media_type="application/json",
        headers={"Content-Disposition": 'attachment; filename="unimem-export.json"'},
    )


@router.get(
    "/audit",
    operation_id="list_audit",
    response_model=list[AuditRecord],
    summary="Who did what to the caller's memory",
)
async def list_audit(
    service: ServiceDep,
    user: UserDep,
    limit: Annotated[int, Query(ge=1, le=AUDIT_EXPORT_LIMIT)] = 100,
) -> Response:
    """The last ``limit`` audit records about the caller, oldest first (ids and
    counts, never content)."""
    return ModelResponse(await service.list_audit(user_id=user, limit=limit))


def _default(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    raise TypeError(f"cannot serialize {type(value).__name__}")
