"""What the session cache's read scripts answer, decoded: a session's
:class:`CachedSession` and a user's :class:`CachedUser`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...models import MemoryEntry, SessionInfo
from ..rows import entries_from_json_array, session_from_json

__all__ = ["CachedSession", "CachedUser"]


@dataclass(slots=True)
class CachedSession:
    """What the cache holds for a session's context."""

    state: SessionInfo
    #: the window holds every entry of the session (none was trimmed)
    complete: bool
    entries: list[MemoryEntry]
    #: the last switch events as the JSON stored
    language_events: list[bytes]
    mode_events: list[bytes]


@dataclass(slots=True)
class CachedUser:
    """What the cache holds for a user: settings and recent turns of other sessions."""

    #: the settings JSON (``b""``: none stored), ``None`` when not cached
    settings: bytes | None
    #: whether the short-term layer is complete (else ``recent`` is empty)
    warm: bool
    #: the user's turns since the cut-off, oldest first, the session read apart
    recent: list[MemoryEntry] = field(default_factory=list)


def _ms(entry: MemoryEntry) -> int:
    assert entry.timestamp is not None
    return int(entry.timestamp.timestamp() * 1000)


def _session(raw: Any) -> CachedSession | None:
    """The session read script's reply (``None``: not cached)."""
    if raw is None:
        return None
    state, complete, entries, lang, mode = raw
    return CachedSession(
        state=session_from_json(state),
        complete=complete == b"1",
        entries=entries_from_json_array(entries),
        language_events=list(lang),
        mode_events=list(mode),
    )


def _user(raw: Any) -> CachedUser:
    """The user read script's reply."""
    settings, warm, *found = raw
    # newest first from Redis; a member whose data expired a moment before is skipped
    kept = [r for r in reversed(found[0]) if r is not None] if found else []
    recent = entries_from_json_array(b"[" + b",".join(kept) + b"]") if kept else []
    return CachedUser(settings=settings, warm=bool(warm), recent=recent)
