"""The timeline concern: a session's entries and events, in ``seq`` order."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from ...models import MemoryEntry, MemoryEvent, SessionInfo
from .guards import PhiGuard, SettingsGuard
from .values import AppendResult, ContextSnapshot, VaultValue

__all__ = ["TimelineStore"]


class TimelineStore(Protocol):
    """A session's timeline: its entries and events, in ``seq`` order.

    Every write is atomic: it stores all it was asked to or nothing.
    """

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
        language_detected: bool = False,
    ) -> AppendResult:
        """Store ``entry`` (id, user, timestamp filled) atomically with the events it causes.

        With ``settings_guard``, raises :class:`SettingsChanged` (nothing stored)
        unless the owner's stored settings still match it. ``events_after`` are
        stored in the same transaction, after the entry's own events (see
        :func:`~unimem.stores.timeline.plan_entry`); a retried entry stores none of them. With
        ``phi_guard``, raises :class:`TokensChanged` (nothing stored) unless the
        session's last ``phi_detected`` event is still the one it names.
        ``vault`` (the sealed values of the tokens the entry introduced) is
        stored in the same transaction (see :meth:`VaultStore.put_vault_values`).
        ``language_detected``: the entry's ``language`` is a detection of its
        text, which takes the session's regional spelling when they are the
        same language (see :func:`~unimem.stores.timeline.plan_entry`).

        Assigns ``seq``. An entry whose ``id`` is already stored in the session is
        not stored again: the stored one is returned with ``created=False``.
        Raises ``SessionNotFoundError`` when the session belongs to another user
        and ``SessionClosedError`` when it was closed.
        """

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        """Store ``event`` (id, user, timestamp filled) and apply it to the session state."""

    async def get_entries(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> list[MemoryEntry]:
        """The last ``limit`` entries (below ``before_seq`` if given), oldest first."""

    async def load_history(
        self, session_id: str, *, limit: int, before_seq: int | None = None
    ) -> tuple[SessionInfo | None, list[MemoryEntry]]:
        """The session's state (``None``: unknown session) with :meth:`get_entries`'s
        answer, read together (one round trip where the store allows it), so the
        owner check of a history read costs nothing extra."""

    async def get_entry(self, session_id: str, entry_id: str) -> MemoryEntry | None:
        """One entry by id, or ``None``."""

    async def get_events(
        self, session_id: str, *, event_type: str | None = None, limit: int
    ) -> list[MemoryEvent]:
        """The last ``limit`` events (of ``event_type`` if given), oldest first."""

    async def load_context(
        self, session_id: str, *, max_messages: int, event_limit: int
    ) -> ContextSnapshot:
        """Session state, last messages, last language and mode events and the
        owner's settings, in as few round trips as the backend allows."""

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        """Replace some fields of a stored entry (``content``, ``metadata``,
        ``degradations``, ``phi_detected``, ``retrieved_passages``, ``sources``,
        ``timestamp``); ``id``, ``seq``, ``session_id`` and ``user_id`` never
        change. Returns the entry as now stored, or ``None`` if unknown."""

    async def delete_entry(self, session_id: str, entry_id: str) -> bool:
        """Delete one stored entry and the session's running summary (it may quote
        the entry); whether the entry existed. The session's numbering stays: the
        next entry still gets the next ``seq``."""

    async def recent_user_entries(
        self, user_id: str, *, since: datetime, exclude_session: str | None, limit: int
    ) -> list[MemoryEntry]:
        """The user's last ``limit`` entries with ``timestamp >= since`` from any
        session but ``exclude_session``, oldest first (cross-session recall),
        among the user's last :data:`RECENT_SCAN` entries since then: the
        short-term layer's size, so that the cost does not grow with the
        length of the session left out, and every store recalls the same
        turns (but where several share the 200th one's exact timestamp: the
        stores break such ties each their own way)."""
