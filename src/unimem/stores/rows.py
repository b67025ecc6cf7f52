"""Models rebuilt from the JSON a store holds (``model_dump_json()`` of each).

Every row was validated when it was written, and validating it again on each
read costs more than the read itself: about 25 µs an entry through
``MemoryEntry.model_validate_json`` against 11 µs through
``MemoryEntry.model_construct``, where a last-10 read from Redis takes about
0.3 ms (``bench/bench_layers.py``). So a row of the shape unimem writes is
rebuilt with pydantic's ``model_construct``, converting the fields whose JSON
form is not their value (times, enums); a row of any other shape (a field
added or dropped since it was written) is validated.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from ..models import Fact, MemoryEntry, MemoryEvent, Mode, Role, SessionInfo

__all__ = [
    "entries_from_json_array",
    "entry_from_dict",
    "entry_from_json",
    "event_from_json",
    "fact_from_json",
    "session_from_json",
]

_ENTRY_KEYS = frozenset(MemoryEntry.model_fields)
_EVENT_KEYS = frozenset(MemoryEvent.model_fields)
_SESSION_KEYS = frozenset(SessionInfo.model_fields)
_FACT_KEYS = frozenset(Fact.model_fields)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def entry_from_dict(data: dict[str, Any]) -> MemoryEntry:
    """An entry from the decoded JSON of ``MemoryEntry.model_dump_json()``
    (``data`` is used up)."""
    if data.keys() != _ENTRY_KEYS:
        return MemoryEntry.model_validate(data)
    data["role"] = Role(data["role"])
    data["mode"] = Mode(data["mode"])
    data["timestamp"] = _time(data["timestamp"])
    return MemoryEntry.model_construct(**data)


def entry_from_json(raw: str | bytes) -> MemoryEntry:
    """An entry from the JSON of ``MemoryEntry.model_dump_json()``."""
    return entry_from_dict(orjson.loads(raw))


def entries_from_json_array(raw: str | bytes) -> list[MemoryEntry]:
    """Entries from a JSON array of ``MemoryEntry.model_dump_json()`` texts
    (one parse for a whole window)."""
    return [entry_from_dict(data) for data in orjson.loads(raw)]


def session_from_json(raw: str | bytes) -> SessionInfo:
    """A session's state from the JSON of ``SessionInfo.model_dump_json()``."""
    data = orjson.loads(raw)
    if data.keys() != _SESSION_KEYS:
        return SessionInfo.model_validate(data)
    data["started_at"] = _time(data["started_at"])
    data["last_active_at"] = _time(data["last_active_at"])
    data["closed_at"] = _time(data["closed_at"])
    if data["current_mode"] is not None:
        data["current_mode"] = Mode(data["current_mode"])
    data["modes_used"] = [Mode(m) for m in data["modes_used"]]
    return SessionInfo.model_construct(**data)


def event_from_json(raw: str | bytes) -> MemoryEvent:
    """An event from the JSON of ``MemoryEvent.model_dump_json()``."""
    data = orjson.loads(raw)
    if data.keys() != _EVENT_KEYS:
        return MemoryEvent.model_validate(data)
    data["timestamp"] = _time(data["timestamp"])
    return MemoryEvent.model_construct(**data)


def fact_from_json(raw: str | bytes) -> Fact:
    """A fact from the JSON of ``Fact.model_dump_json()`` (a fact written before
    its history fields existed is validated, and gets their defaults)."""
    data = orjson.loads(raw)
    if data.keys() != _FACT_KEYS:
        return Fact.model_validate(data)
    for name in ("created_at", "valid_from", "valid_to"):
        data[name] = _time(data[name])
    return Fact.model_construct(**data)
