"""The in-process store's PHI vault (:class:`~unimem.stores.contracts.VaultStore`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from ..contracts import VaultValue

__all__ = ["MemoryVault"]


class MemoryVault:
    """Sealed token values by user, then ``(session_id, token)``."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[tuple[str, str], VaultValue]] = {}

    def put(self, values: Iterable[VaultValue]) -> None:
        """Store ``values``; a token already kept keeps its first value."""
        for value in values:
            self._rows.setdefault(value.user_id, {}).setdefault(
                (value.session_id, value.token), value
            )

    def replace(self, values: Iterable[VaultValue]) -> int:
        """Replace the values already kept (same user, session and token)."""
        replaced = 0
        for value in values:
            rows = self._rows.get(value.user_id, {})
            if (value.session_id, value.token) in rows:
                rows[(value.session_id, value.token)] = value
                replaced += 1
        return replaced

    def get(self, user_id: str, session_ids: Sequence[str]) -> list[VaultValue]:
        """The user's values of these sessions."""
        wanted = set(session_ids)
        rows = self._rows.get(user_id, {})
        return [row for key, row in sorted(rows.items()) if key[0] in wanted]

    def drop(self, user_id: str, keep: Callable[[VaultValue], bool] | None = None) -> None:
        """Delete the user's values (those ``keep`` refuses, when given)."""
        if keep is None:
            self._rows.pop(user_id, None)
            return
        rows = self._rows.get(user_id, {})
        for key in [k for k, row in rows.items() if not keep(row)]:
            del rows[key]

    def drop_sessions(self, user_id: str, session_ids: Iterable[str]) -> None:
        """Delete the user's values of these sessions."""
        gone = set(session_ids)
        self.drop(user_id, lambda row: row.session_id not in gone)

    def drop_since(self, user_id: str, since: datetime) -> None:
        """Delete the user's values created at or after ``since``."""
        self.drop(user_id, lambda row: row.created_at < since)

    def drop_before(self, user_id: str, cutoff: datetime) -> None:
        """Delete the user's values created before ``cutoff``."""
        self.drop(user_id, lambda row: row.created_at >= cutoff)

    def users(self) -> list[str]:
        """The users with values kept."""
        return list(self._rows)
