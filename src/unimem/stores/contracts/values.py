"""What the store contract passes around: an append's result, a context
snapshot, a sealed vault value, the deletion scopes and the recall scan size."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from ...models import MemoryEntry, MemoryEvent, MemorySettings, SessionInfo

__all__ = ["RECENT_SCAN", "AppendResult", "ContextSnapshot", "DeleteScope", "VaultValue"]

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
