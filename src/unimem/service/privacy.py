"""The service's privacy side: the user's settings, redaction before any store
sees a write, deletion, export, the retention sweep, the audit log and
encryption at rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..errors import ConfigurationError, InvalidInputError, SessionNotFoundError
from ..ids import new_id
from ..models import (
    AuditRecord,
    DeletionReceipt,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    utcnow,
)
from ..privacy.crypto import Keyring, load_keyring
from ..privacy.deletion import (
    SYSTEM_USER,
    all_session_ids,
    audit_record,
    check_scope,
    start_of_day,
)
from ..privacy.encrypted_store import EncryptedStore
from ..privacy.pipeline import EntryWrite, PhiTally
from ..privacy.pseudonyms import SessionTokens
from ..privacy.vault import seal_values
from ..stores.contracts import DeleteScope, DurableStore, VaultValue
from ..stores.items import item_store_of
from ..validation import check_id, check_range
from .core import ServiceCore

__all__ = ["AUDIT_EXPORT_LIMIT", "POLICY_ACTOR", "PrivacyOperations"]

#: Most audit records an export (or one ``list_audit`` call) returns.
AUDIT_EXPORT_LIMIT = 100_000
#: Actor of the deletions the service makes by itself (``cross_session=False``).
POLICY_ACTOR = "policy"


class PrivacyOperations:
    """The privacy side of :class:`unimem.UnifiedMemoryService` (which documents
    each public method)."""

    def __init__(self, core: ServiceCore) -> None:
        self._core = core

    def use_encryption(self, keys: Keyring | str | None = None) -> bool:
        """See :meth:`unimem.UnifiedMemoryService.use_encryption`."""
        keyring = keys if isinstance(keys, Keyring) else None
        if isinstance(keys, str):
            keyring = Keyring.parse(keys)
        elif keys is None:
            keyring = load_keyring()
        if keyring is None:
            return False
        store = self._core.store
        self._core.store = EncryptedStore(
            store.inner if isinstance(store, EncryptedStore) else store, keyring
        )
        self._core.privacy.token_key = keyring.digest_key
        self._core.keyring = keyring
        return True

    async def rotate_encryption(self, user_ids: Sequence[str]) -> int:
        """See :meth:`unimem.UnifiedMemoryService.rotate_encryption`."""
        store = await self._core.ready_store()
        if not isinstance(store, EncryptedStore):
            raise ConfigurationError("encryption is off; call use_encryption() first")
        total = 0
        for user in user_ids:
            total += await store.rotate_user(self._core.user(user))
        return total

    # ------------------------------------------------------------------ settings

    async def get_settings(self, *, user_id: str | None = None) -> MemorySettings:
        """See :meth:`unimem.UnifiedMemoryService.get_settings`."""
        stored = await (await self._core.ready_store()).get_settings(self._core.user(user_id))
        return stored or MemorySettings()

    async def update_settings(
        self,
        settings: MemorySettings | Mapping[str, Any],
        *,
        user_id: str | None = None,
        actor: str | None = None,
    ) -> MemorySettings:
        """See :meth:`unimem.UnifiedMemoryService.update_settings`."""
        user = self._core.user(user_id)
        current = await self.get_settings(user_id=user)
        if isinstance(settings, MemorySettings):
            new = settings
        elif isinstance(settings, Mapping):
            new = MemorySettings.model_validate({**current.model_dump(), **dict(settings)})
        else:
            raise InvalidInputError("settings must be MemorySettings or a dict", field="settings")
        store = await self._core.ready_store()
        await store.put_settings(user, new)
        self._core.write_settings.forget(user)
        old, now_set = current.model_dump(), new.model_dump()
        changed = {k: v for k, v in now_set.items() if old[k] != v}
        await store.append_audit(
            audit_record("settings_change", user, actor=actor, now=utcnow(), details=changed)
        )
        return new

    # ------------------------------------------------------------------ writes

    async def privacy_entry(
        self, entry: MemoryEntry, store: DurableStore, settings: MemorySettings | None = None
    ) -> EntryWrite:
        """Apply the owner's settings to ``entry`` before any store sees it.

        ``settings``: the owner's, when the caller already read them for this
        write; read here otherwise.
        """
        if settings is None:
            settings = await self._core.settings_of(entry.user_id)
        return await self._core.privacy.entry(entry, settings, store)

    def phi_event(
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

    def vault_values(
        self,
        tokens: SessionTokens | None,
        user_id: str,
        session_id: str,
        created_at: datetime | None,
    ) -> list[VaultValue]:
        """The sealed values of the tokens ``tokens`` made since they were last
        recorded, for the PHI vault (none without a keyring: tokens only)."""
        keyring = self._core.keyring
        if keyring is None or tokens is None:
            return []
        values = tokens.new_values
        if not values:
            return []
        return seal_values(keyring, user_id, session_id, values, created_at or utcnow())

    async def keep_values(
        self,
        tokens: SessionTokens | None,
        user_id: str,
        session_id: str,
        created_at: datetime | None,
    ) -> None:
        """Store the vault values of ``tokens``' new tokens now, before the record
        holding them (a value may be kept without its token, never the reverse)."""
        values = self.vault_values(tokens, user_id, session_id, created_at)
        if values:
            await (await self._core.ready_store()).put_vault_values(values)

    async def record_phi(
        self, tally: PhiTally, tokens: SessionTokens | None, item: MemoryEntry | MemoryEvent
    ) -> None:
        """Record a ``phi_detected`` event for ``item``: types and counts, never
        values (those go to the vault, sealed, when a keyring is set)."""
        if not tally.total:
            return
        await self.keep_values(tokens, item.user_id, item.session_id, item.timestamp)
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
        stored = await (await self._core.ready_store()).append_event(event)
        if tokens is not None:
            self._core.privacy.recorded(item.session_id, tokens, stored.seq)
        self._core.live.publish(item.session_id, "event", stored)

    async def delete_user_memory(
        self,
        scope: DeleteScope | str,
        *,
        user_id: str | None = None,
        tz: str | None = None,
        session_id: str | None = None,
        actor: str | None = None,
    ) -> DeletionReceipt:
        """See :meth:`unimem.UnifiedMemoryService.delete_user_memory`."""
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
        self, *, user_id: str | None = None, actor: str | None = None
    ) -> dict[str, Any]:
        """See :meth:`unimem.UnifiedMemoryService.export_user_memory`."""
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
        return {
            "format": "unimem-export/1",
            "user_id": user,
            "exported_at": now.isoformat(),
            **data,
        }

    async def sweep_retention(
        self, now: datetime | None = None, *, default_retention_days: int | None = None
    ) -> int:
        """See :meth:`unimem.UnifiedMemoryService.sweep_retention`."""
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

    async def list_audit(
        self, *, user_id: str | None = None, limit: int = 100
    ) -> list[AuditRecord]:
        """See :meth:`unimem.UnifiedMemoryService.list_audit`."""
        check_range(limit, "limit", 1, AUDIT_EXPORT_LIMIT)
        user = user_id if user_id == SYSTEM_USER else self._core.user(user_id)
        return await (await self._core.ready_store()).list_audit(user, limit=limit)

    async def record_audit(
        self,
        action: str,
        *,
        user_id: str | None = None,
        actor: str,
        session_id: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> AuditRecord:
        """See :meth:`unimem.UnifiedMemoryService.record_audit`."""
        record = AuditRecord(
            id=new_id(),
            timestamp=utcnow(),
            actor=check_id(actor, "actor"),
            action=action,
            user_id=self._core.user(user_id),
            session_id=session_id,
            details=dict(details or {}),
        )
        await (await self._core.ready_store()).append_audit(record)
        return record
