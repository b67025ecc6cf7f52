"""The timeline rules every backend applies, as plain functions.

Backends differ only in how they make one append atomic; *what* an append
does is decided here (:func:`plan_entry`, :func:`plan_event`,
:func:`plan_close`, :func:`apply_entry_changes`, :func:`check_write_guards`),
so that every backend behaves the same, which the conformance suite checks.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..errors import InvalidInputError, SessionClosedError, SessionNotFoundError
from ..ids import new_id
from ..language.policy import same_language
from ..models import EventType, MemoryEntry, MemoryEvent, Mode, Role, SessionInfo, SwitchTrigger
from .contracts import PhiGuard, SettingsChanged, SettingsGuard, TokensChanged

__all__ = [
    "UPDATABLE_ENTRY_FIELDS",
    "apply_entry_changes",
    "check_write_guards",
    "number_events",
    "plan_close",
    "plan_entry",
    "plan_event",
]


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
    language_detected: bool = False,
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
    ``language_detected``: the entry's ``language`` is a detection of its text
    (no region), not the caller's choice; when the session's current language
    is the same language in a regional spelling (``pt-BR`` for ``pt``), the
    entry takes the session's spelling and does not switch it. Decided here,
    against the state the write commits on, so no writer reads the state first.
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
    seq = state.last_entry_seq + 1
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
        if language_detected and entry.language and same_language(entry.language, language):
            entry = entry.model_copy(update={"language": language})
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
            "message_count": state.message_count + 1,
            "last_entry_seq": seq,
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
    last = state.last_event_seq
    for event in events:
        last += 1
        event.seq = last
    if not events:
        return state
    return state.model_copy(
        update={"event_count": state.event_count + len(events), "last_event_seq": last}
    )


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
