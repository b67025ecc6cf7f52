"""Building blocks of the privacy operations: deletion scopes, audit records.

The service (:class:`unimem.UnifiedMemoryService`) orchestrates deletion,
export, retention and audit; the pure parts live here so they can be tested
without a store.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import InvalidInputError
from ..ids import new_id
from ..models import AuditRecord
from ..stores.contracts import DeleteScope, DurableStore

__all__ = [
    "SYSTEM_USER",
    "AuditAction",
    "all_session_ids",
    "audit_record",
    "check_scope",
    "start_of_day",
]

#: ``AuditRecord.user_id`` of records about no single user (the retention sweep).
SYSTEM_USER = "*"

AuditAction = Literal["export", "delete", "settings_change", "sweep", "read", "reveal"]

_PAGE = 500


def check_scope(scope: object) -> DeleteScope:
    """``scope`` as a :data:`DeleteScope`.

    Raises:
        InvalidInputError: not one of ``session``, ``day``, ``all``.
    """
    if scope not in ("session", "day", "all"):
        raise InvalidInputError(
            f"scope must be one of session, day, all; got {scope!r}", field="scope"
        )
    return scope


def start_of_day(now: datetime, tz: str | None = None) -> datetime:
    """Today's midnight in time zone ``tz`` (IANA name, UTC when ``None``), as UTC.

    Raises:
        InvalidInputError: ``tz`` is not a known IANA time zone name.
    """
    zone: ZoneInfo | Any = UTC
    if tz:
        try:
            zone = ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError):
            raise InvalidInputError(
                f"unknown time zone {tz!r}; use an IANA name such as 'Europe/Paris'", field="tz"
            ) from None
    local = now.astimezone(zone)
    midnight = datetime.combine(local.date(), time(0), tzinfo=zone)
    return midnight.astimezone(UTC)


async def all_session_ids(store: DurableStore, user_id: str) -> list[str]:
    """Ids of every session of the user."""
    found: list[str] = []
    offset = 0
    while True:
        page = await store.list_sessions(user_id, limit=_PAGE, offset=offset)
        found.extend(s.session_id for s in page)
        if len(page) < _PAGE:
            return found
        offset += _PAGE


def audit_record(
    action: AuditAction,
    user_id: str,
    *,
    actor: str | None,
    now: datetime,
    session_id: str | None = None,
    details: dict[str, Any] | None = None,
) -> AuditRecord:
    """An audit record; ``details`` must hold ids, counts and setting names only."""
    return AuditRecord(
        id=new_id(),
        timestamp=now,
        actor=actor or user_id,
        action=action,
        user_id=user_id,
        session_id=session_id,
        details=details or {},
    )
