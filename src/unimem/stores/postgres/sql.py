"""The SQL of the PostgreSQL store's write and context statements, and the
recount of a session's rows after a deletion."""

from __future__ import annotations

from .vault import VAULT_CTE

__all__ = ["CONTEXT", "RECOUNT", "STATE", "WRITE_EXISTING", "WRITE_NEW", "rows_affected"]

STATE = """
SELECT s.data, s.version,
       (SELECT e.data FROM entries e WHERE e.session_id = $1 AND e.id = $2 AND e.user_id = $3)
FROM sessions s WHERE s.session_id = $1
"""
# $1 session, $2 user, $3 new version, $4 last active, $5 state json, $6 expected version,
# $7 seq, $8 entry id, $9 entry ts, $10 entry json, $11..$15 event columns, $16 the
# settings JSON the entry was prepared under, $17 whether to hold the write to it
# (see SettingsGuard), $18 whether to hold it to the session's last phi_detected
# event being $19 (see PhiGuard): the session row is written only if all match.
# $20..$22: the entry's PHI vault values (unimem.stores.postgres.vault).
_LAST_PHI = (
    "(SELECT max(ph.seq) FROM events ph WHERE ph.session_id = $1 "
    "AND ph.event_type = 'phi_detected')"
)
_GUARD = (
    "AND ($17::bool IS NOT TRUE OR (SELECT st.data::text FROM settings st "
    "WHERE st.user_id = $2) IS NOT DISTINCT FROM $16::text) "
    f"AND ($18::bool IS NOT TRUE OR {_LAST_PHI} IS NOT DISTINCT FROM $19::bigint)"
)
_WRITE_TAIL = (
    """
, e AS (
    INSERT INTO entries (session_id, seq, id, user_id, ts, data)
    SELECT $1, $7, $8, $2, $9, $10::json FROM s WHERE $7::bigint IS NOT NULL RETURNING 1
), ev AS (
    INSERT INTO events (session_id, seq, id, user_id, event_type, ts, data)
    SELECT $1, u.seq, u.id, $2, u.t, u.ts, u.d::json
    FROM s, unnest($11::bigint[], $12::text[], $13::text[], $14::timestamptz[], $15::text[])
         AS u(seq, id, t, ts, d)
    RETURNING 1
)"""
    + VAULT_CTE
    + """
SELECT (SELECT count(*) FROM s),
       CASE WHEN $17::bool AND NOT EXISTS (SELECT 1 FROM s)
            THEN (SELECT data::text FROM settings WHERE user_id = $2) END,
       CASE WHEN $18::bool AND NOT EXISTS (SELECT 1 FROM s) THEN """
    + _LAST_PHI
    + """ END
"""
)
WRITE_NEW = (
    """
WITH s AS (
    INSERT INTO sessions (session_id, user_id, version, last_active_at, data)
    SELECT $1, $2, $3, $4, $5::json WHERE $6::bigint = 0 """
    + _GUARD
    + """
    ON CONFLICT (session_id) DO NOTHING RETURNING 1
)"""
    + _WRITE_TAIL
)
WRITE_EXISTING = (
    """
WITH s AS (
    UPDATE sessions SET version = $3, last_active_at = $4, data = $5::json
    WHERE session_id = $1 AND user_id = $2 AND version = $6 """
    + _GUARD
    + """ RETURNING 1
)"""
    + _WRITE_TAIL
)


def _events_of(kind: str) -> str:
    return (
        "ARRAY(SELECT data::text FROM events WHERE session_id = $1 AND event_type = "
        f"'{kind}' ORDER BY seq DESC LIMIT $3)"
    )


CONTEXT = f"""
SELECT s.data::text,
       ARRAY(SELECT data::text FROM entries WHERE session_id = $1 ORDER BY seq DESC LIMIT $2),
       {_events_of("language_switch")},
       {_events_of("mode_switch")},
       (SELECT data::text FROM settings WHERE user_id = s.user_id)
FROM sessions s WHERE s.session_id = $1
"""

# a session's counts made what is left after a deletion; its last seqs stay
# (taken from the counts of a state stored before they were kept). The version
# moves, so a writer holding the state from before writes nothing and reads it again.
RECOUNT = """
UPDATE sessions s SET version = s.version + 1, data = (s.data::jsonb || jsonb_build_object(
    'last_entry_seq',
    COALESCE((s.data->>'last_entry_seq')::bigint, (s.data->>'message_count')::bigint),
    'last_event_seq',
    COALESCE((s.data->>'last_event_seq')::bigint, (s.data->>'event_count')::bigint),
    'message_count', (SELECT count(*) FROM entries e WHERE e.session_id = s.session_id),
    'event_count', (SELECT count(*) FROM events v WHERE v.session_id = s.session_id)
))::json
WHERE s.session_id = ANY($1::text[])
"""


def rows_affected(status: str) -> int:
    """Rows affected, from a command tag such as ``DELETE 3``."""
    return int(status.rsplit(" ", 1)[-1])
