"""The service's privacy side: the user's settings, redaction before any store
sees a write (with the PHI events and the vault's values), the audit log and
encryption at rest. Deletion, export and retention are in
:mod:`unimem.service.data_rights`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..errors import ConfigurationError, InvalidInputError
from ..ids import new_id
from ..models import (
    AuditRecord,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    utcnow,
)
from ..privacy.crypto import Keyring, load_keyring
from ..privacy.deletion import (
    SYSTEM_USER,
    audit_record,
)
from ..privacy.encrypted_store import EncryptedStore
from ..privacy.pipeline import EntryWrite, PhiTally
from ..privacy.pseudonyms import SessionTokens
from ..privacy.vault import seal_values
from ..stores.contracts import DurableStore, VaultValue
from ..validation import check_id, check_range
from .core import ServiceCore

__all__ = ["AUDIT_EXPORT_LIMIT", "PrivacyOperations"]

#: Most audit records an export (or one ``list_audit`` call) returns.
AUDIT_EXPORT_LIMIT = 100_000


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
        """Re-encrypt the users' content under the current key (after putting a new
        key first in ``UNIMEM_ENCRYPTION_KEYS``); returns the records rewritten."""
        store = await self._core.ready_store()
        if not isinstance(store, EncryptedStore):
            raise ConfigurationError("encryption is off; call use_encryption() first")
        total = 0
        for user in user_ids:
            total += await store.rotate_user(self._core.user(user))
        return total

    # ------------------------------------------------------------------ settings

    async def get_settings(self, *, user_id: str | None = None) -> MemorySettings:
        """The user's memory settings (defaults until they set any)."""
        stored = await (await self._core.ready_store()).get_settings(self._core.user(user_id))
        return stored or MemorySettings()

    async def update_settings(
        self,
        settings: MemorySettings | Mapping[str, Any],
        *,
        user_id: str | None = None,
        actor: str | None = None,
    ) -> MemorySettings:
        """Replace the user's settings; a dict may name only the fields to change.

        The change is audited (``settings_change``: the fields changed and their
        new values, which are flags and a number of days, never content);
        ``actor`` is who made it (the user by default).
        """
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

    # ------------------------------------------------------------------ audit

    async def list_audit(
        self, *, user_id: str | None = None, limit: int = 100
    ) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first
        (``"*"`` for the retention sweeps)."""
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
        """Append an audit record made outside the service (e.g. the HTTP API
        recording that ``actor`` read ``user_id``'s memory). ``details`` must
        hold ids and counts only, never content."""
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
