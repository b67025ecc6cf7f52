"""The sessions concern: a session's state, closing it, a user's list."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from ...models import SessionInfo

__all__ = ["SessionStore"]


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
