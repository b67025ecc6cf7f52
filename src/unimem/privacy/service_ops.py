"""The privacy operations of :class:`unimem.UnifiedMemoryService`: deletion, export,
retention sweep, audit log and encryption at rest (a mixin, so ``service.py``
stays the orchestration of writes and reads)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError, InvalidInputError, SessionNotFoundError
from ..ids import new_id
from ..live import LiveBus
from ..models import (
    AuditRecord,
    DeletionReceipt,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    SessionInfo,
    utcnow,
)
from ..stores.contracts import DeleteScope, DurableStore
from ..validation import check_id, check_range
from .crypto import Keyring, load_keyring
from .encrypted_store import EncryptedStore
from .operations import (
    SYSTEM_USER,
    all_session_ids,
    audit_record,
    check_scope,
    start_of_day,
)
from .pipeline import EntryWrite, PhiTally, PrivacyPipeline
from .pseudonyms import SessionTokens

__all__ = ["AUDIT_EXPORT_LIMIT", "POLICY_ACTOR", "PrivacyOperations"]

#: Most audit records an export (or one ``list_audit`` call) returns.
AUDIT_EXPORT_LIMIT = 100_000
#: Actor of the deletions the service makes by itself (``cross_session=False``).
POLICY_ACTOR = "policy"


class PrivacyOperations:
    """Mixin of :class:`unimem.UnifiedMemoryService` (which provides the members below)."""

    store: DurableStore
    privacy: PrivacyPipeline
    live: LiveBus

    if TYPE_CHECKING:  # provided by UnifiedMemoryService

        async def _store(self) -> DurableStore: ...

        def _user(self, user_id: str | None) -> str: ...

        async def _owned_session(
            self, session_id: str, user_id: str | None
        ) -> SessionInfo | None: ...

    def use_encryption(self, keys: Keyring | str | None = None) -> bool:
        """Encrypt content fields written from now on (AES-GCM); earlier plaintext stays readable.

        ``keys``: a :class:`~unimem.privacy.crypto.Keyring`, a
        ``kid:base64key[,...]`` string, or ``None`` to read
        ``UNIMEM_ENCRYPTION_KEYS``. Also keys the PHI token digests, so tokens
        stay consistent across processes. Returns whether encryption is on.

        Raises:
            ConfigurationError: malformed keys.
        """
        keyring = keys if isinstance(keys, Keyring) else None
        if isinstance(keys, str):
            keyring = Keyring.parse(keys)
        elif keys is None:
            keyring = load_keyring()
        if keyring is None:
            return False
        inner = self.store.inner if isinstance(self.store, EncryptedStore) else self.store
        self.store = EncryptedStore(inner, keyring)
        self.privacy.token_key = keyring.digest_key
        return True

    async def rotate_encryption(self, user_ids: Sequence[str]) -> int:
        """Re-encrypt the users' content under the current key (after putting a new
        key first in ``UNIMEM_ENCRYPTION_KEYS``); returns the records rewritten."""
        store = await self._store()
        if not isinstance(store, EncryptedStore):
            raise ConfigurationError("encryption is off; call use_encryption() first")
        total = 0
        for user in user_ids:
            total += await store.rotate_user(self._user(user))
        return total

    async def _settings_of(self, user_id: str) -> MemorySettings:
        # read per write: embedded stores answer in microseconds; a cache may memoize
        stored = await (await self._store()).get_settings(user_id)
        return stored or MemorySettings()

    async def _privacy_entry(
        self, entry: MemoryEntry, store: DurableStore, settings: MemorySettings | None = None
    ) -> EntryWrite:
        """Apply the owner's settings to ``entry`` before any store sees it.

        ``settings``: the owner's, when the caller already read them for this
        write; read here otherwise.
        """
        if settings is None:
            settings = await self._settings_of(entry.user_id)
        return await self.privacy.entry(entry, settings, store)

    def _phi_event(
        self, tally: PhiTally, tokens: SessionTokens | None, entry: MemoryEntry
    ) -> MemoryEvent | None:
        """The ``phi_detected`` event of an entry about to be stored (``None``: no
        PHI), to store in the entry's own transaction; its ``entry_seq`` is filled
        by the store's plan."""
        if not tally.total:
            return None
        return MemoryEvent(
            id=new_id(),
            session_id=entry.session_id,
            user_id=entry.user_id,
            event_type=EventType.PHI_DETECTED,
            timestamp=entry.timestamp or utcnow(),
            data=tally.event_data(tokens, entry_id=entry.id, entry_seq=None),
        )

    async def _record_phi(
        self, tally: PhiTally, tokens: SessionTokens | None, item: MemoryEntry | MemoryEvent
    ) -> None:
        """Record a ``phi_detected`` event for ``item``: types and counts, never values."""
        if not tally.total:
            return
        if isinstance(item, MemoryEntry):
            ids: dict[str, Any] = {"entry_id": item.id, "entry_seq": item.seq}
        else:
            ids = {"event_id": item.id, "event_seq": item.seq, "event_type": item.event_type}
        event = MemoryEvent(
            id=new_id(),
            session_id=item.session_id,
            user_id=item.user_id,
            event_type=EventType.PHI_DETECTED,
            timestamp=item.timestamp or utcnow(),
            data=tally.event_data(tokens, **ids),
        )
        stored = await (await self._store()).append_event(event)
        if tokens is not None:
            self.privacy.recorded(item.session_id, tokens, stored.seq)
        self.live.publish(item.session_id, "event", stored)

    async def delete_user_memory(
        self,
        user_id: str | None,
        scope: DeleteScope | str,
        *,
        tz: str | None = None,
        session_id: str | None = None,
        actor: str | None = None,
    ) -> DeletionReceipt:
        """Delete a user's memory and return what was removed, counted per layer.

        ``scope``: ``session`` deletes the session ``session_id`` (required);
        ``day`` deletes everything written since
        today's midnight in ``tz`` (an IANA name; UTC by default); ``all``
        deletes every layer (entries, events, sessions, summaries, facts, the
        session cache) and keeps the settings and the audit log.

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
        user = self._user(user_id)
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
        store = await self._store()
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
        counts.update(await self._cache_delete_user(user, scope=kind, since=since, session_ids=ids))
        self.privacy.forget(ids, everything=kind == "all")
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
            self.live.publish(
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
        user = self._user(user_id)
        check_id(session_id, "session_id")
        check_id(entry_id, "entry_id")
        try:
            state = await self._owned_session(session_id, user)
        except SessionNotFoundError:
            state = None  # another user's session deletes nothing, as a never-used one
        store = await self._store()
        if state is None or not await store.delete_entry(session_id, entry_id):
            return False
        now = utcnow()
        details: dict[str, Any] = {"scope": "entry", "counts": {"entries": 1}}
        await store.append_audit(
            audit_record(
                "delete", user, actor=actor, now=now, session_id=session_id, details=details
            )
        )
        self.live.publish(
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

    async def _cache_delete_user(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None,
        session_ids: Sequence[str],
    ) -> dict[str, int]:
        """Clear the user's data from the session cache, if the service has one.

        Hook for the cache layer: an object at ``self.cache`` with
        ``async delete_user(user_id, *, scope, since, session_ids) -> dict[str, int]``
        (same arguments as ``DurableStore.delete_user_data``). Its counts appear
        in the receipt prefixed ``cache_``. Runs after the durable deletion so
        that a cache rebuilt in between finds nothing to rebuild from.
        """
        delete = getattr(getattr(self, "cache", None), "delete_user", None)
        if delete is None:
            return {}
        counts = await delete(user_id, scope=scope, since=since, session_ids=session_ids)
        return {f"cache_{kind}": int(n) for kind, n in dict(counts).items()}

    async def export_user_memory(
        self, user_id: str | None, *, actor: str | None = None
    ) -> dict[str, Any]:
        """Everything stored about the user, JSON-ready (data portability).

        Keys: ``format``, ``user_id``, ``exported_at``, ``settings``,
        ``sessions``, ``entries``, ``events``, ``facts``, ``summaries`` and
        ``audit`` (the audit records about the user). The export is audited.
        """
        user = self._user(user_id)
        store = await self._store()
        now = utcnow()
        data = await store.export_user(user)
        audit = await store.list_audit(user, limit=AUDIT_EXPORT_LIMIT)
        data["audit"] = [r.model_dump(mode="json") for r in audit]
        counts = {k: len(v) for k, v in data.items() if isinstance(v, list)}
        await store.append_audit(audit_record("export", user, actor=actor, now=now, details=counts))
        return {
            "format": "unimem-export/1",
            "user_id": user,
            "exported_at": now.isoformat(),
            **data,
        }

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
        deleted = await (await self._store()).sweep_expired(now=when, default_retention_days=days)
        if deleted:
            await self.store.append_audit(
                audit_record(
                    "sweep",
                    SYSTEM_USER,
                    actor="system",
                    now=utcnow(),
                    details={"deleted": deleted, "default_retention_days": days},
                )
            )
        return deleted

    async def list_audit(self, user_id: str | None, *, limit: int = 100) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first
        (``"*"`` for the retention sweeps)."""
        check_range(limit, "limit", 1, AUDIT_EXPORT_LIMIT)
        user = user_id if user_id == SYSTEM_USER else self._user(user_id)
        return await (await self._store()).list_audit(user, limit=limit)

    async def record_audit(
        self,
        user_id: str,
        action: str,
        *,
        actor: str,
        session_id: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> AuditRecord:
        """Append an audit record made outside the service (e.g. the HTTP API
        recording that ``actor`` read ``user_id``'s memory). ``details`` must
        hold ids and counts only, never content."""
        record = AuditRecord(
            id=new_id(),
            timestamp=utcnow(),
            actor=check_id(actor, "actor"),
            action=action,
            user_id=self._user(user_id),
            session_id=session_id,
            details=dict(details or {}),
        )
        await (await self._store()).append_audit(record)
        return record
