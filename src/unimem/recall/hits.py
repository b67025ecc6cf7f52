"""What a search of a user's memory returns: :class:`MemoryHit`, and the
filters a search takes (:class:`SearchFilters`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models import MemoryEntry

__all__ = ["HIT_KINDS", "SEARCH_MODES", "HitKind", "MemoryHit", "SearchFilters"]

HitKind = Literal["entry", "fact", "summary"]
HIT_KINDS: tuple[HitKind, ...] = ("entry", "fact", "summary")
#: How a hit was found: by its words (keyword) or by meaning (dense vectors).
SEARCH_MODES = ("keyword", "dense")


class MemoryHit(BaseModel):
    """One thing found in a user's memory.

    Attributes:
        kind: ``entry`` (a turn of any session), ``fact`` (a pinned fact) or
            ``summary`` (a session's summary).
        entry: the turn, for an entry hit.
        id: the entry's, fact's or summarized session's id.
        session_id: the session it belongs to (``None`` for a fact).
        timestamp: when it was said or written.
        score: relevance, higher is better (comparable within one search only).
        snippet: the text found (an entry's content, a fact's or summary's text).
        matched_by: how it was found (``keyword``, ``dense``).
    """

    model_config = ConfigDict(frozen=True)

    kind: HitKind
    entry: MemoryEntry | None = None
    id: str
    session_id: str | None = None
    timestamp: datetime | None = None
    score: float
    snippet: str
    matched_by: list[str] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Which entries a search may return (every field ``None``: all of the user's)."""

    session_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    modes: Sequence[str] | None = None
    languages: Sequence[str] | None = None
    roles: Sequence[str] | None = None
    #: leave out this session's entries (the current one, already in the context)
    exclude_session: str | None = None

    def accepts(self, entry: MemoryEntry) -> bool:
        """Whether ``entry`` passes every filter."""
        if self.session_id is not None and entry.session_id != self.session_id:
            return False
        if self.exclude_session is not None and entry.session_id == self.exclude_session:
            return False
        ts = entry.timestamp
        if self.since is not None and (ts is None or ts < self.since):
            return False
        if self.until is not None and (ts is None or ts >= self.until):
            return False
        if self.modes is not None and entry.mode.value not in self.modes:
            return False
        if self.languages is not None and (entry.language or "") not in self.languages:
            return False
        return self.roles is None or entry.role.value in self.roles
