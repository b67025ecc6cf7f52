"""The privacy concern: deletion, retention, export, audit, and the PHI vault."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from ...models import AuditRecord
from .values import DeleteScope, VaultValue

__all__ = ["PrivacyStore", "VaultStore"]


class PrivacyStore(Protocol):
    """Deletion, retention, export and the audit log of a user's memory."""

    async def delete_user_data(
        self,
        user_id: str,
        *,
        scope: DeleteScope,
        since: datetime | None = None,
        session_ids: Sequence[str] = (),
    ) -> dict[str, int]:
        """Delete a user's memory; returns counts per kind (``entries``,
        ``events``, ``sessions``, ``summaries``, ``facts``).

        ``all``: everything of the user except settings and the audit log.
        ``day``: entries and events with ``timestamp >= since``; summaries of
        the sessions touched are deleted too (they may quote those entries),
        so are facts with ``created_at >= since`` and sessions left empty.
        ``session``: everything of the listed sessions that belong to the user
        and the facts found in their turns (``source_entry_ids`` set; facts
        pinned from them stay).
        """

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        """Delete entries and events older than their user's ``retention_days``
        (``default_retention_days`` for users without settings), summaries made
        before that cutoff, facts found in turns (``source_entry_ids`` set)
        created before it, and sessions left empty and idle since; pinned
        facts stay.
        Returns how many rows were deleted."""

    async def export_user(self, user_id: str) -> dict[str, Any]:
        """Everything stored about the user: ``settings``, ``sessions``,
        ``entries``, ``events``, ``facts``, ``summaries`` (JSON-ready)."""

    async def append_audit(self, record: AuditRecord) -> None:
        """Append to the audit log (never updated or deleted by unimem)."""

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first."""


class VaultStore(Protocol):
    """The PHI vault: each user's sealed token values (:class:`VaultValue`).

    Deletion takes the vault with the data (crypto-shredding):
    :meth:`PrivacyStore.delete_user_data` removes the values of the sessions
    it deletes (``session``), those created since ``since`` (``day``) or all
    the user's (``all``), and :meth:`PrivacyStore.sweep_expired` those created
    before their owner's cutoff, as it does the ``phi_detected`` events that
    number the tokens. :meth:`PrivacyStore.export_user` never includes them.
    """

    async def put_vault_values(self, values: Sequence[VaultValue]) -> None:
        """Store sealed values atomically; a token already in the vault keeps its
        first value (a token means one value in its session)."""

    async def get_vault_values(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        """The user's sealed values of these sessions (another user's: none)."""

    async def reseal_vault_values(self, values: Sequence[VaultValue]) -> int:
        """Replace the sealed text of values already in the vault (the same user,
        session and token: a key rotation); values not there are not added.
        Returns how many were replaced."""
