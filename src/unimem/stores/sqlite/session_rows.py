"""A session's row in the SQLite store: read, written, and recounted after a deletion."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ...models import SessionInfo
from ..rows import session_from_json
from .times import us

__all__ = ["recount", "save_state", "session_state"]

# a session's counts made what is left after a deletion; its last seqs stay
# (taken from the counts of a state stored before they were kept)
_RECOUNT = (
    "UPDATE sessions SET data = json_set(data, "
    "'$.last_entry_seq', COALESCE(json_extract(data, '$.last_entry_seq'), "
    "json_extract(data, '$.message_count')), "
    "'$.last_event_seq', COALESCE(json_extract(data, '$.last_event_seq'), "
    "json_extract(data, '$.event_count')), "
    "'$.message_count', (SELECT COUNT(*) FROM entries e WHERE e.session_id = sessions.session_id), "
    "'$.event_count', (SELECT COUNT(*) FROM events v WHERE v.session_id = sessions.session_id)) "
    "WHERE session_id = ?"
)


def session_state(cur: sqlite3.Cursor, session_id: str) -> SessionInfo | None:
    """The session's stored state, or ``None``."""
    row = cur.execute("SELECT data FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
    return session_from_json(row[0]) if row else None


def save_state(cur: sqlite3.Cursor, state: SessionInfo) -> None:
    """Insert or replace the session's state row."""
    cur.execute(
        "INSERT INTO sessions (session_id, user_id, last_active_us, data) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (session_id) DO UPDATE SET last_active_us = excluded.last_active_us, "
        "data = excluded.data",
        (state.session_id, state.user_id, us(state.last_active_at), state.model_dump_json()),
    )


def recount(cur: sqlite3.Cursor, session_ids: Sequence[str]) -> None:
    """Correct the counts of the sessions' states after rows of theirs were deleted."""
    cur.executemany(_RECOUNT, [(sid,) for sid in sorted(set(session_ids))])
