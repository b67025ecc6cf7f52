"""The storage contract, and the timeline rules every backend applies.

A backend is a :class:`DurableStore`: the authority for a session's order
(``seq``), its state (current mode and language, owner) and everything kept
long-term. Backends differ only in how they make one append atomic; the rules
for *what* an append does live here as plain functions (:func:`plan_entry`,
:func:`plan_event`) so that every backend behaves the same, which the
conformance suite checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import InvalidInputError, SessionClosedError, SessionNotFoundError
from ..ids import new_id
from ..models import (
    AuditRecord,
    EventType,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    Role,
    SessionInfo,
    Summary,
    SwitchTrigger,
)

__all__ = [
    "RECENT_SCAN",
    "UPDATABLE_ENTRY_FIELDS",
    "AppendResult",
    "ContextSnapshot",
    "DeleteScope",
    "DurableStore",
    "apply_entry_changes",
    "plan_entry",
    "plan_event",
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


class TokensChanged(Exception):
    """An append's :class:`PhiGuard` no longer matched (another process recorded
    PHI in the session meanwhile); nothing was stored. Internal to the service,
    which redacts the entry again with the current map."""

    def __init__(self) -> None:
        super().__init__("the session's PHI tokens changed while the entry was prepared")


def check_write_guards(
    settings_guard: SettingsGuard | None,
    current_settings: str | None,
    phi_guard: PhiGuard | None,
    last_phi_seq: int | None,
) -> None:
    """Raise :class:`SettingsChanged` or :class:`TokensChanged` when a guard no
    longer matches what the store holds now (the values of an absent guard are
    not looked at)."""
    if settings_guard is not None and current_settings != settings_guard.text:
        raise SettingsChanged(current_settings)
    if phi_guard is not None and last_phi_seq != phi_guard.last_seq:
        raise TokensChanged()


@dataclass(slots=True)
class ContextSnapshot:
    """Everything ``get_context`` needs from a store, fetched together."""

    session: SessionInfo | None
    entries: list[MemoryEntry]
    language_events: list[MemoryEvent]
    mode_events: list[MemoryEvent]
    settings: MemorySettings | None


@runtime_checkable
class DurableStore(Protocol):
    """The contract of a storage backend (in-process, SQLite, PostgreSQL).

    Every method is atomic: it either stores all it was asked to or nothing.
    """

    async def setup(self) -> None:
        """Create or migrate the schema and open connections. Idempotent."""

    async def aclose(self) -> None:
        """Release connections. Idempotent."""

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
    ) -> AppendResult:
        """Store ``entry`` (id, user, timestamp filled) atomically with the events it causes.

        With ``settings_guard``, raises :class:`SettingsChanged` (nothing stored)
        unless the owner's stored settings still match it. ``events_after`` are
        stored in the same transaction, after the entry's own events (see
        :func:`plan_entry`); a retried entry stores none of them. With
        ``phi_guard``, raises :class:`TokensChanged` (nothing stored) unless the
        session's last ``phi_detected`` event is still the one it names.

        Assigns ``seq``. An entry whose ``id`` is already stored in the session is
        not stored again: the stored one is returned with ``created=False``.
        Raises ``SessionNotFoundError`` when the session belongs to another user
        and ``SessionClosedError`` when it was closed.
        """

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        """Store ``event`` (id, user, timestamp filled) and apply it to the session state."""

    async def get_session(self, session_id: str) -> SessionInfo | None:
        """The session's state, or ``None`` if it does not exist."""

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

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        """Mark the session closed. Raises ``SessionNotFoundError`` if unknown."""

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        """The user's stored settings, or ``None`` when never set."""

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        """Store the user's settings."""

    async def list_sessions(
        self, user_id: str, *, limit: int, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""

    # -------------------------------------------------------------- later layers
    # Episodic memory, summaries, privacy operations. Every backend implements
    # them; the conformance suite covers them.

    async def update_entry(
        self, session_id: str, entry_id: str, changes: dict[str, Any]
    ) -> MemoryEntry | None:
        """Replace some fields of a stored entry (``content``, ``metadata``,
        ``degradations``, ``phi_detected``, ``retrieved_passages``, ``sources``,
        ``timestamp``); ``id``, ``seq``, ``session_id`` and ``user_id`` never
        change. Returns the entry as now stored, or ``None`` if unknown."""

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

    async def put_fact(self, fact: Fact) -> Fact:
        """Store a pinned fact (id, user and ``created_at`` filled by the caller)."""

    async def list_facts(self, user_id: str) -> list[Fact]:
        """The user's facts, oldest first."""

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        """Delete one fact of the user; whether it existed."""

    async def put_summary(self, summary: Summary) -> None:
        """Store (replace) the session's running summary."""

    async def get_summary(self, session_id: str) -> Summary | None:
        """The session's running summary, or ``None``."""

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
        (facts pinned from them stay).
        """

    async def sweep_expired(self, *, now: datetime, default_retention_days: int) -> int:
        """Delete entries and events older than their user's ``retention_days``
        (``default_retention_days`` for users without settings), summaries made
        before that cutoff, and sessions left empty and idle since; facts stay.
        Returns how many rows were deleted."""

    async def export_user(self, user_id: str) -> dict[str, Any]:
        """Everything stored about the user: ``settings``, ``sessions``,
        ``entries``, ``events``, ``facts``, ``summaries`` (JSON-ready)."""

    async def append_audit(self, record: AuditRecord) -> None:
        """Append to the audit log (never updated or deleted by unimem)."""

    async def list_audit(self, user_id: str, *, limit: int) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first."""


# --------------------------------------------------------------------------- rules


def _new_session(entry_or_event: MemoryEntry | MemoryEvent, now: datetime) -> SessionInfo:
    return SessionInfo(
        session_id=entry_or_event.session_id,
        user_id=entry_or_event.user_id,
        started_at=now,
        last_active_at=now,
    )


def _check_owner(state: SessionInfo, user_id: str, *, write: bool) -> None:
    if state.user_id != user_id:
        raise SessionNotFoundError(f"no session {state.session_id!r} for this user")
    if write and state.closed_at is not None:
        raise SessionClosedError(
            f"session {state.session_id!r} is closed; continue in a new session id"
        )


def _event(kind: EventType, entry: MemoryEntry, data: dict[str, Any]) -> MemoryEvent:
    assert entry.timestamp is not None
    return MemoryEvent.model_construct(
        id=new_id(),
        session_id=entry.session_id,
        user_id=entry.user_id,
        seq=None,
        event_type=kind.value,
        timestamp=entry.timestamp,
        data=data,
    )


def plan_entry(
    state: SessionInfo | None,
    entry: MemoryEntry,
    *,
    trigger: str | None = None,
    events_after: Sequence[MemoryEvent] = (),
) -> tuple[SessionInfo, MemoryEntry, list[MemoryEvent]]:
    """Apply one entry to a session's state.

    Returns the new state, the entry as it must be stored (``seq`` and
    ``language_switched`` set) and the events it causes, still without ``seq``
    (number them with :func:`number_events`). Pure: the caller holds the lock
    or transaction that makes read-plan-write atomic.

    Rules: a *user* entry whose mode differs from the session's current mode
    records a ``mode_switch`` event; a *user* entry whose language differs from
    the session's current language is marked ``language_switched`` and records a
    ``language_switch`` event with ``trigger`` (``auto_detected`` unless given).
    The first entry of a session sets the mode and language without an event;
    an entry without a language takes the session's.
    Assistant and system entries follow the session and never switch it.
    ``events_after`` (events about this entry, e.g. its ``phi_detected``) come
    after the entry's own events; one whose ``data["entry_id"]`` is the entry's
    id gets ``data["entry_seq"]``.
    """
    assert entry.timestamp is not None
    now = entry.timestamp
    if state is None:
        state = _new_session(entry, now)
    else:
        _check_owner(state, entry.user_id, write=True)
    seq = state.message_count + 1
    events: list[MemoryEvent] = []
    switched = False
    mode = state.current_mode
    language = state.current_language

    if entry.role is Role.USER:
        if mode is not None and entry.mode != mode:
            events.append(
                _event(
                    EventType.MODE_SWITCH,
                    entry,
                    {
                        "from_mode": mode.value,
                        "to_mode": entry.mode.value,
                        "trigger": "entry",
                        "entry_id": entry.id,
                        "entry_seq": seq,
                    },
                )
            )
        mode = entry.mode
        if entry.language:
            if language is not None and entry.language != language:
                switched = True
                events.append(
                    _event(
                        EventType.LANGUAGE_SWITCH,
                        entry,
                        {
                            "from_language": language,
                            "to_language": entry.language,
                            "trigger": trigger or SwitchTrigger.AUTO_DETECTED.value,
                            "entry_id": entry.id,
                            "entry_seq": seq,
                        },
                    )
                )
            language = entry.language
    else:
        if mode is None:
            mode = entry.mode
        if language is None and entry.language:
            language = entry.language

    modes_used = (
        state.modes_used if entry.mode in state.modes_used else [*state.modes_used, entry.mode]
    )
    languages_used = state.languages_used
    if entry.language and entry.language not in languages_used:
        languages_used = [*languages_used, entry.language]
    new_state = state.model_copy(
        update={
            "last_active_at": max(now, state.last_active_at),
            "current_mode": mode,
            "current_language": language,
            "message_count": seq,
            "modes_used": modes_used,
            "languages_used": languages_used,
        }
    )
    stored = entry.model_copy(
        update={
            "seq": seq,
            "language_switched": switched,
            "language": entry.language or language,
        }
    )
    for event in events_after:
        if event.data.get("entry_id") == entry.id:
            event.data["entry_seq"] = seq
        events.append(event)
    new_state = number_events(new_state, events)
    return new_state, stored, events


def number_events(state: SessionInfo, events: Sequence[MemoryEvent]) -> SessionInfo:
    """Give ``events`` consecutive ``seq`` numbers after the session's last event."""
    count = state.event_count
    for event in events:
        count += 1
        event.seq = count
    if count == state.event_count:
        return state
    return state.model_copy(update={"event_count": count})


def plan_event(state: SessionInfo | None, event: MemoryEvent) -> tuple[SessionInfo, MemoryEvent]:
    """Apply one explicitly added event to a session's state.

    A ``mode_switch`` event sets the current mode to ``data["to_mode"]`` and a
    ``language_switch`` event the current language to ``data["to_language"]``,
    when those are valid. Returns the new state and the numbered event.
    """
    assert event.timestamp is not None
    now = event.timestamp
    if state is None:
        state = _new_session(event, now)
    else:
        _check_owner(state, event.user_id, write=True)
    update: dict[str, Any] = {"last_active_at": max(now, state.last_active_at)}
    if event.event_type == EventType.MODE_SWITCH.value:
        to_mode = event.data.get("to_mode")
        if to_mode in (Mode.VOICE.value, Mode.TEXT.value):
            update["current_mode"] = Mode(to_mode)
            if Mode(to_mode) not in state.modes_used:
                update["modes_used"] = [*state.modes_used, Mode(to_mode)]
    elif event.event_type == EventType.LANGUAGE_SWITCH.value:
        to_language = event.data.get("to_language")
        if isinstance(to_language, str) and to_language:
            update["current_language"] = to_language
            if to_language not in state.languages_used:
                update["languages_used"] = [*state.languages_used, to_language]
    new_state = number_events(state.model_copy(update=update), [event])
    return new_state, event


def plan_close(
    state: SessionInfo | None, session_id: str, user_id: str | None, now: datetime
) -> SessionInfo:
    """The state of a session once closed (closing twice keeps the first time)."""
    if state is None or (user_id is not None and state.user_id != user_id):
        raise SessionNotFoundError(f"no session {session_id!r} for this user")
    if state.closed_at is not None:
        return state
    return state.model_copy(update={"closed_at": now, "last_active_at": now})


#: Fields of a stored entry that ``DurableStore.update_entry`` may replace.
UPDATABLE_ENTRY_FIELDS = frozenset(
    {
        "content",
        "metadata",
        "degradations",
        "phi_detected",
        "retrieved_passages",
        "sources",
        "timestamp",
    }
)


def apply_entry_changes(entry: MemoryEntry, changes: dict[str, Any]) -> MemoryEntry:
    """``entry`` with ``changes`` applied and validated (for ``update_entry``).

    Raises:
        InvalidInputError: a field outside :data:`UPDATABLE_ENTRY_FIELDS`, or a bad value.
    """
    refused = sorted(set(changes) - UPDATABLE_ENTRY_FIELDS)
    if refused:
        raise InvalidInputError(
            f"cannot update entry field(s) {', '.join(refused)}; updatable: "
            f"{', '.join(sorted(UPDATABLE_ENTRY_FIELDS))}",
            field=refused[0],
        )
    return MemoryEntry.model_validate({**entry.model_dump(), **changes})
