"""One session of the in-process store: its state, entries and events."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ...models import MemoryEntry, MemoryEvent, SessionInfo

__all__ = ["StoredSession", "before", "last_events", "seq_of"]


@dataclass(slots=True)
class StoredSession:
    """A session's state with its entries (in ``seq`` order, and by id) and events."""

    state: SessionInfo
    entries: list[MemoryEntry] = field(default_factory=list)
    by_id: dict[str, MemoryEntry] = field(default_factory=dict)
    events: list[MemoryEvent] = field(default_factory=list)

    def recount(self) -> None:
        """Make the state's counts what is left after a deletion (its last seqs stay)."""
        counts = {"message_count": len(self.entries), "event_count": len(self.events)}
        if (self.state.message_count, self.state.event_count) != tuple(counts.values()):
            self.state = self.state.model_copy(update=counts)


def last_events(items: list[MemoryEvent], event_type: str | None, limit: int) -> list[MemoryEvent]:
    """The last ``limit`` of ``items`` (of ``event_type`` if given), oldest first."""
    if event_type is None:
        return items[-limit:] if limit else []
    found: list[MemoryEvent] = []
    for event in reversed(items):
        if event.event_type == event_type:
            found.append(event)
            if len(found) == limit:
                break
    found.reverse()
    return found


def seq_of(entry: MemoryEntry) -> int:
    """A stored entry's ``seq`` (the key entries are kept sorted by)."""
    assert entry.seq is not None
    return entry.seq


def before(timestamp: datetime | None, cutoff: datetime) -> bool:
    """Whether ``timestamp`` is set and earlier than ``cutoff``."""
    return timestamp is not None and timestamp < cutoff
