"""The storage contracts: small protocols by concern, and their union.

A backend is a :class:`DurableStore`: the authority for a session's order
(``seq``), its state (current mode and language, owner) and everything kept
long-term. The contract is the union of six protocols, one per concern
(:class:`TimelineStore`, :class:`SessionStore`, :class:`UserDataStore`,
:class:`PrivacyStore`, :class:`VaultStore`, :class:`StoreLifecycle`), so a consumer can ask for
only what it uses. What only some stores can do is a named capability
(:class:`SessionTtlStore`, :class:`EventStateStore`, :class:`SweepReportStore`,
:class:`ItemStore`),
checked with ``isinstance``. The rules every backend applies live in
:mod:`unimem.stores.timeline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from ..models import (
    AuditRecord,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    SessionInfo,
    StoredItem,
    Summary,
)

__all__ = [
    "RECENT_SCAN",
    "AppendResult",
    "ContextSnapshot",
    "DeleteScope",
    "DurableStore",
    "EventStateStore",
    "FactsChanged",
    "ItemStore",
    "PhiGuard",
    "PrivacyStore",
    "SessionStore",
    "SessionTtlStore",
    "SettingsChanged",
    "SettingsGuard",
    "StoreLifecycle",
    "SweepReportStore",
    "TimelineStore",
    "TokensChanged",
    "UserDataStore",
    "VaultStore",
    "VaultValue",
]

DeleteScope = Literal["session", "day", "all"]

#: How many of a user's newest entries cross-session recall looks through
#: (``recent_user_entries``): the short-term layer's size in Redis.
RECENT_SCAN = 200


@dataclass(slots=True)
class AppendResult:
    """What an append stored: the entry as stored, the events it caused, and
    whether it was new (``created=False`` for an idempotent retry)."""

    entry: MemoryEntry
    events: list[MemoryEvent] = field(default_factory=list)
    created: bool = True
    session: SessionInfo | None = None
    #: ``entry.model_dump_json()`` as the store wrote it, when it made one
    #: (a cache in front of it stores the same text instead of encoding again)
    entry_json: str | None = None


@dataclass(frozen=True, slots=True)
class SettingsGuard:
    """The owner's settings an entry was prepared under, as the store holds them:
    ``text`` is the stored settings JSON, ``None`` when the user has none.

    An append given a guard commits only if the stored settings still read
    exactly so (checked inside the write's transaction); otherwise it raises
    :class:`SettingsChanged` and stores nothing. This lets the service keep the
    settings in memory between writes without ever storing a turn under
    settings another process has since replaced.
    """

    text: str | None


class SettingsChanged(Exception):
    """An append's :class:`SettingsGuard` no longer matched; nothing was stored.

    ``current`` is the stored settings JSON now (``None``: none stored), so the
    caller can prepare the entry again without another read. Internal to the
    service, which retries; never raised to its callers.
    """

    def __init__(self, current: str | None) -> None:
        super().__init__("the user's settings changed while the entry was prepared")
        self.current = current


@dataclass(frozen=True, slots=True)
class PhiGuard:
    """The session's PHI token map an entry was redacted with: ``last_seq`` is the
    ``seq`` of the session's last ``phi_detected`` event the map includes
    (``None``: none). An append given a guard commits only if that is still the
    session's last one (checked inside the write's transaction); otherwise it
    raises :class:`TokensChanged` and stores nothing, so two processes never
    hand out the same token number for different values."""

    last_seq: int | None


class FactsChanged(Exception):
    """A fact :meth:`UserDataStore.apply_fact_changes` was to close is no longer
    a current fact of the user (closed or deleted meanwhile); nothing was stored."""

    def __init__(self, fact_id: str) -> None:
        super().__init__("a fact to close is no longer current")
        self.fact_id = fact_id


class TokensChanged(Exception):
    """An append's :class:`PhiGuard` no longer matched (another process recorded
    PHI in the session meanwhile); nothing was stored. Internal to the service,
    which redacts the entry again with the current map."""

    def __init__(self) -> None:
        super().__init__("the session's PHI tokens changed while the entry was prepared")


@dataclass(frozen=True, slots=True)
class VaultValue:
    """One PHI token's original value, sealed: what the PHI vault keeps.

    ``session_id`` is the session that numbers the token. ``sealed`` is the
    value encrypted with the keyring (``enc:v1:...``), its associated data
    binding user, session and token (:mod:`unimem.privacy.vault`); a store
    never sees the value itself. ``created_at`` is the time of the record that
    introduced the token: the vault row lives as long as that record does.
    """

    user_id: str
    session_id: str
    token: str
    sealed: str
    created_at: datetime


@dataclass(slots=True)
class ContextSnapshot:
    """Everything ``get_context`` needs from a store, fetched together.

    ``recent`` is the owner's turns of other sessions when the store read them
    with the context (a layered store's short-term layer; ``None``: the service
    asks ``recent_user_entries``), ``degradations`` what the store could not
    use (e.g. ``session_cache_unavailable``).
    """

    session: SessionInfo | None
    entries: list[MemoryEntry]
    language_events: list[MemoryEvent]
    mode_events: list[MemoryEvent]
    settings: MemorySettings | None
    recent: list[MemoryEntry] | None = None
    degradations: list[str] = field(default_factory=list)


class StoreLifecycle(Protocol):
    """How a store is opened and closed."""

    async def setup(self) -> None:
        """Create or migrate the schema and open connections. Idempotent."""

    async def aclose(self) -> None:
        """Release connections. Idempotent."""


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


class SessionStore(Protocol):
    """Sessions: their state, closing, and a user's list of them."""

    async def get_session(self, session_id: str) -> SessionInfo | None:
        """The session's state, or ``None`` if it does not exist."""

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        """Mark the session closed. Raises ``SessionNotFoundError`` if unknown."""

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""


class UserDataStore(Protocol):
    """What a user keeps besides sessions: settings, pinned facts and session summaries."""

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        """The user's stored settings, or ``None`` when never set."""

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        """Store the user's settings."""

    async def put_fact(self, fact: Fact) -> Fact:
        """Store a pinned fact (id, user and ``created_at`` filled by the caller)."""

    async def list_facts(self, user_id: str) -> list[Fact]:
        """The user's facts, oldest first."""

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        """Delete one fact of the user; whether it existed."""

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        """In one atomic step, close facts of the user (``(fact_id, valid_to)``:
        the fact stays, as history) and store new ones; returns the facts added.

        Raises :class:`FactsChanged` and stores nothing when a fact to close is
        not a current fact of the user (another user's, deleted or closed), so
        a supersede never half-writes and two writers never both supersede one
        fact.
        """

    async def put_summary(self, summary: Summary) -> None:
        """Store (replace) the session's running summary."""

    async def get_summary(self, session_id: str) -> Summary | None:
        """The session's running summary, or ``None``."""


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


@runtime_checkable
class DurableStore(
    StoreLifecycle,
    TimelineStore,
    SessionStore,
    UserDataStore,
    PrivacyStore,
    VaultStore,
    Protocol,
):
    """The whole contract of a storage backend (in-process, SQLite, PostgreSQL,
    the Redis-fronted layered store, and the wrappers around any of them)."""


# ------------------------------------------------------------------ capabilities


@runtime_checkable
class SessionTtlStore(Protocol):
    """A store whose sessions expire when idle (a session cache)."""

    async def extend_ttl(self, session_id: str) -> bool:
        """Keep the session's cached layers for another idle period; whether it was cached."""


@runtime_checkable
class EventStateStore(Protocol):
    """A store that hands back the session's new state with an appended event."""

    async def append_event_with_state(self, event: MemoryEvent) -> tuple[MemoryEvent, SessionInfo]:
        """:meth:`TimelineStore.append_event`, and the session's state after it."""


@runtime_checkable
class SweepReportStore(Protocol):
    """A store whose retention sweep reports the sessions it touched."""

    async def sweep(self, *, now: datetime, default_retention_days: int) -> tuple[int, list[str]]:
        """:meth:`PrivacyStore.sweep_expired`, and the ids of the sessions it
        deleted from."""


@runtime_checkable
class ItemStore(Protocol):
    """A store of users' namespaced JSON items (:mod:`unimem.service.items`).

    Every call names the user, and only that user's items are read or written.
    Namespaces arrive checked (non-empty labels without ``.``), values as the
    service prepared them (validated, redacted).
    """

    async def put_item(self, user_id: str, item: StoredItem) -> StoredItem:
        """Insert or replace ``item``; one already under its namespace and key
        keeps its ``created_at``. Returns the item as stored."""

    async def get_item(self, user_id: str, namespace: Sequence[str], key: str) -> StoredItem | None:
        """The item under ``namespace`` and ``key``, or ``None``."""

    async def delete_item(self, user_id: str, namespace: Sequence[str], key: str) -> bool:
        """Delete one item; whether it existed."""

    async def list_items(
        self, user_id: str, namespace_prefix: Sequence[str], *, limit: int
    ) -> list[StoredItem]:
        """The user's items whose namespace starts with ``namespace_prefix`` (all
        of them for ``()``), most recently updated first, at most ``limit``."""

    async def item_namespaces(self, user_id: str) -> list[list[str]]:
        """Every namespace holding an item of the user, sorted."""

    async def delete_user_items(self, user_id: str, *, since: datetime | None = None) -> int:
        """Delete the user's items (those updated at or after ``since`` when
        given); how many."""

    async def sweep_items(self, *, now: datetime, default_retention_days: int) -> int:
        """Delete items not updated within their owner's ``retention_days``
        (``default_retention_days`` for users without settings); how many."""

    async def export_items(self, user_id: str) -> list[StoredItem]:
        """Every item of the user, oldest first."""
