"""What a user may ask of their data, and what their settings ask of it:
deletion (one session, today's memory, everything, one entry), the portable
export, and the retention sweep that deletes what outlived ``retention_days``.

Every deletion and export is audited (ids and counts, never content), and the
live listeners of each session it touched receive a ``memory_deleted`` event.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from ..errors import InvalidInputError, SessionNotFoundError
from ..ids import new_id
from ..models import DeletionReceipt, MemoryEvent, MemorySettings, utcnow
from ..privacy.deletion import (
    SYSTEM_USER,
    all_session_ids,
    audit_record,
    check_scope,
    start_of_day,
)
from ..stores.contracts import DeleteScope
from ..stores.items import item_store_of
from ..validation import check_flag, check_id, check_range
from .core import ServiceCore
from .privacy import AUDIT_EXPORT_LIMIT
from .reveal import RevealOperations

__all__ = ["POLICY_ACTOR", "DataRights"]

#: Actor of the deletions the service makes by itself (``cross_session=False``).
POLICY_ACTOR = "policy"


class DataRights:
    """Deletion, export and retention of :class:`unimem.UnifiedMemoryService`.

    Args:
        core: the shared state.
        reveal: the owner's copy of an export (PHI tokens given their values).
        forget: drops what this process holds in memory of a user's stored
            text (recall's vector matrices and question embeddings), called
            after each deletion of the user's data.
    """

    def __init__(
        self,
        core: ServiceCore,
        reveal: RevealOperations,
        forget: Callable[[str], None] | None = None,
    ) -> None:
        self._core = core
        self._reveal = reveal
        self._forget = forget

    async def delete_user_memory(
        self,
        scope: DeleteScope | str,
        *,
        user_id: str | None = None,
        tz: str | None = None,
        session_id: str | None = None,
        actor: str | None = None,
    ) -> DeletionReceipt:
        """Delete a user's memory and return what was removed, counted per layer.

        ``scope``: ``session`` deletes the session ``session_id`` (required);
        ``day`` deletes everything written since
        today's midnight in ``tz`` (an IANA name; UTC by default); ``all``
        deletes every layer (entries, events, sessions, summaries, facts,
        namespaced items, the session cache) and keeps the settings and the
        audit log; ``day`` deletes the items updated today too.

        A write racing the deletion: the deletion is one atomic step in the
        durable store's commit order. What was committed before it is gone;
        what commits after it is kept as a new message (on the embedded stores
        the service stamps entries right before committing, so that is the same
        as: entries timestamped before ``receipt.deleted_at`` are gone).

        The deletion is audited (``delete``: scope and counts). Live listeners
        of each deleted session receive a ``memory_deleted`` event (not stored).

        Raises:
            InvalidInputError: bad scope, time zone, ``session_id`` missing with
                scope ``session`` or given with another scope.

        A ``session_id`` of another user's session deletes nothing and answers
        as one never used does (all counts 0).
        """
        user = self._core.user(user_id)
        kind = check_scope(scope)
        if session_id is not None and kind != "session":
            raise InvalidInputError(
                "session_id applies to scope 'session' only", field="session_id"
            )
        if kind == "session" and session_id is None:
            raise InvalidInputError(
                "scope 'session' needs session_id, the session to delete "
                "(scope 'day' deletes today's memory, 'all' everything)",
                field="session_id",
            )
        store = await self._core.ready_store()
        ids: list[str]
        if kind == "session":
            sid = check_id(session_id, "session_id")
            state = await store.get_session(sid)
            # another user's session is deleted from as a session never used:
            # nothing of the caller's is in it (the counts say 0)
            ids = [sid] if state is None or state.user_id == user else []
        else:
            ids = await all_session_ids(store, user)
        now = utcnow()
        since = start_of_day(now, tz) if kind == "day" else None
        counts = await store.delete_user_data(user, scope=kind, since=since, session_ids=ids)
        items = item_store_of(store)
        if items is not None and kind != "session":  # items belong to no session
            counts["items"] = await items.delete_user_items(user, since=since)
        self._core.privacy.forget(ids, everything=kind == "all")
        if self._forget is not None:
            self._forget(user)
        receipt = DeletionReceipt(user_id=user, scope=kind, deleted_at=now, counts=counts)
        details: dict[str, Any] = {"scope": kind, "counts": counts, "sessions": len(ids)}
        if since is not None:
            details["since"] = since.isoformat()
        await store.append_audit(
            audit_record(
                "delete", user, actor=actor, now=now, session_id=session_id, details=details
            )
        )
        for sid in ids:
            self._core.live.publish(
                sid,
                "event",
                MemoryEvent.model_construct(
                    id=new_id(),
                    session_id=sid,
                    user_id=user,
                    seq=None,
                    event_type="memory_deleted",
                    timestamp=now,
                    data={"scope": kind},
                ),
            )
        return receipt

    async def delete_entry(
        self,
        session_id: str,
        entry_id: str,
        *,
        user_id: str | None = None,
        actor: str | None = None,
    ) -> bool:
        """Delete one message of a session; whether it existed.

        The entry is removed from every layer (durable store, session cache,
        short-term layer) with the session's running summary, which may quote
        it and is rebuilt from what is left. The rest of the session, its
        events and its numbering stay. The deletion is audited (``delete``,
        scope ``entry``), and live listeners of the session receive a
        ``memory_deleted`` event (not stored).

        Another user's session deletes nothing (``False``), as one never used.

        Raises:
            InvalidInputError: a malformed id.
        """
        user = self._core.user(user_id)
        check_id(session_id, "session_id")
        check_id(entry_id, "entry_id")
        try:
            state = await self._core.owned_session(session_id, user)
        except SessionNotFoundError:
            state = None  # another user's session deletes nothing, as a never-used one
        store = await self._core.ready_store()
        if state is None or not await store.delete_entry(session_id, entry_id):
            return False
        if self._forget is not None:
            self._forget(user)
        now = utcnow()
        details: dict[str, Any] = {"scope": "entry", "counts": {"entries": 1}}
        await store.append_audit(
            audit_record(
                "delete", user, actor=actor, now=now, session_id=session_id, details=details
            )
        )
        self._core.live.publish(
            session_id,
            "event",
            MemoryEvent.model_construct(
                id=new_id(),
                session_id=session_id,
                user_id=user,
                seq=None,
                event_type="memory_deleted",
                timestamp=now,
                data={"scope": "entry", "entry_id": entry_id},
            ),
        )
        return True

    async def export_user_memory(
        self, *, user_id: str | None = None, actor: str | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """Everything stored about the user, JSON-ready (data portability).

        Keys: ``format``, ``user_id``, ``exported_at``, ``settings``,
        ``sessions``, ``entries``, ``events``, ``facts``, ``summaries``,
        ``items`` and ``audit`` (the audit records about the user). The export is audited.
        ``reveal``: the owner's copy, PHI tokens of entries, events, facts and
        summaries replaced by their values (as :meth:`get_history`); the vault
        itself is never exported.
        """
        user = self._core.user(user_id)
        store = await self._core.ready_store()
        now = utcnow()
        data = await store.export_user(user)
        items = item_store_of(store)
        if items is not None:
            data["items"] = [i.model_dump(mode="json") for i in await items.export_items(user)]
        audit = await store.list_audit(user, limit=AUDIT_EXPORT_LIMIT)
        data["audit"] = [r.model_dump(mode="json") for r in audit]
        counts = {k: len(v) for k, v in data.items() if isinstance(v, list)}
        await store.append_audit(audit_record("export", user, actor=actor, now=now, details=counts))
        export = {
            "format": "unimem-export/1",
            "user_id": user,
            "exported_at": now.isoformat(),
            **data,
        }
        if check_flag(reveal, "reveal"):
            export = await self._reveal.export(export, user, actor=actor)
        return export

    async def sweep_retention(
        self, now: datetime | None = None, *, default_retention_days: int | None = None
    ) -> int:
        """Delete (not hide) every entry and event older than its owner's
        ``retention_days``; returns how many rows were deleted.

        ``default_retention_days`` applies to users who never set theirs (the
        ``MemorySettings`` default otherwise). ``unimem sweep`` and the
        server's periodic job call this. A sweep that deleted something is
        audited under the user id ``"*"``.
        """
        if now is None:
            when = utcnow()
        else:  # a naive time is taken as UTC, like every timestamp unimem stores
            when = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
        days = default_retention_days or MemorySettings().retention_days
        check_range(days, "default_retention_days", 1, 36500)
        store = await self._core.ready_store()
        deleted = await store.sweep_expired(now=when, default_retention_days=days)
        items = item_store_of(store)
        if items is not None:
            deleted += await items.sweep_items(now=when, default_retention_days=days)
        if deleted:
            await (await self._core.ready_store()).append_audit(
                audit_record(
                    "sweep",
                    SYSTEM_USER,
                    actor="system",
                    now=utcnow(),
                    details={"deleted": deleted, "default_retention_days": days},
                )
            )
        return deleted
