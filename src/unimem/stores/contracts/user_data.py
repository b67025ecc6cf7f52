"""The user-data concern: settings, pinned facts and session summaries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from ...models import Fact, MemorySettings, Summary

__all__ = ["UserDataStore"]


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
