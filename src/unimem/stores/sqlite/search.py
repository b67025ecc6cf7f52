"""Keyword search of the SQLite store: an FTS5 table kept by triggers.

Schema version 3 adds ``entry_search`` (one row per entry: its key) and the
FTS5 table ``entry_terms`` (the entry's search terms, from
:func:`unimem.recall.search_terms.terms`, and its owner as one hashed token), and
triggers on ``entries`` that insert, update and delete their rows in the
statement that writes the entry: an entry is findable as soon as its append
commits, and leaves the index when it is deleted or swept. The triggers call
``unimem_terms``, a function the store registers on its connection (so the
file is written only through :class:`~unimem.stores.sqlite.SQLiteStore`).

Schema version 6 splits ``entry_terms`` into :data:`SHARDS` FTS5 tables
``entry_terms_0`` ... by a hash of the owner (``entry_search.shard`` says
which), because FTS5 keeps a deleted row's terms in its index segments until
they are merged, and a merge (``optimize``) rewrites the whole table: after
a deletion the store merges only the tables that lost rows (the delete
trigger marks them in ``entry_terms_dirty``), a sixteenth of the index for
one user's deletion instead of all of it. With ``secure_delete`` on the
freed pages are zeroed, so nothing of a deleted entry stays in the file.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...recall.hits import SearchFilters
from ...recall.search_terms import terms_text
from ..rows import entry_from_json
from ..search import KeywordHit
from .filters import filter_clauses

__all__ = [
    "SEARCH_MIGRATION",
    "SHARDS",
    "SHARD_MIGRATION",
    "SQLiteSearch",
    "owner_token",
    "purge_deleted_terms",
    "register",
    "shard_of",
]

_CONTENT = "json_extract(new.data, '$.content')"
_KEY = "session_id = {row}.session_id AND seq = {row}.seq"

#: Schema version 3: the keyword index (single statements: triggers hold ``;``).
SEARCH_MIGRATION: tuple[str, ...] = (
    "CREATE TABLE entry_search (rid INTEGER PRIMARY KEY, session_id TEXT NOT NULL, "
    "seq INTEGER NOT NULL, UNIQUE (session_id, seq))",
    # terms and owner; the owner weighs nothing in the ranking (bm25 weight 0)
    "CREATE VIRTUAL TABLE entry_terms USING fts5(terms, owner, tokenize = "
    "\"unicode61 remove_diacritics 0 categories 'L* N* Co M*' tokenchars '.:'\")",
    f"""CREATE TRIGGER entries_search_insert AFTER INSERT ON entries BEGIN
        INSERT INTO entry_search (session_id, seq) VALUES (new.session_id, new.seq);
        INSERT INTO entry_terms (rowid, terms, owner) VALUES (last_insert_rowid(),
            unimem_terms({_CONTENT}), unimem_owner(new.user_id));
    END""",
    f"""CREATE TRIGGER entries_search_update AFTER UPDATE OF data ON entries BEGIN
        UPDATE entry_terms SET terms = unimem_terms({_CONTENT})
        WHERE rowid = (SELECT rid FROM entry_search WHERE {_KEY.format(row="new")});
    END""",
    f"""CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
        DELETE FROM entry_terms
        WHERE rowid = (SELECT rid FROM entry_search WHERE {_KEY.format(row="old")});
        DELETE FROM entry_search WHERE {_KEY.format(row="old")};
    END""",
    # entries written before this version
    "INSERT INTO entry_search (session_id, seq) SELECT session_id, seq FROM entries",
    "INSERT INTO entry_terms (rowid, terms, owner) SELECT s.rid, "
    "unimem_terms(json_extract(e.data, '$.content')), unimem_owner(e.user_id) "
    "FROM entry_search s JOIN entries e ON e.session_id = s.session_id AND e.seq = s.seq",
)


#: Without a selective filter a search ranks every match but joins only the
#: best ``limit`` times this many (at least :data:`MIN_CANDIDATES`) to their
#: entries; if too few of those pass, it joins them all.
CANDIDATE_FACTOR = 2
MIN_CANDIDATES = 100


#: How many FTS5 tables the index is split into (by owner).
SHARDS = 16
_FTS = (
    "USING fts5(terms, owner, tokenize = "
    "\"unicode61 remove_diacritics 0 categories 'L* N* Co M*' tokenchars '.:'\")"
)
_NEW_TERMS = (
    "SELECT rid, unimem_terms(json_extract(new.data, '$.content')), unimem_owner(new.user_id) "
    "FROM entry_search WHERE session_id = new.session_id AND seq = new.seq AND shard = {k}"
)
_ROW = "(SELECT rid FROM entry_search WHERE {key} AND shard = {k})"

#: Schema version 6: the index in :data:`SHARDS` tables by owner, merged apart.
SHARD_MIGRATION: tuple[str, ...] = (
    "DROP TRIGGER entries_search_insert",
    "DROP TRIGGER entries_search_update",
    "DROP TRIGGER entries_search_delete",
    "ALTER TABLE entry_search ADD COLUMN shard INTEGER NOT NULL DEFAULT 0",
    "UPDATE entry_search SET shard = unimem_shard((SELECT e.user_id FROM entries e "
    "WHERE e.session_id = entry_search.session_id AND e.seq = entry_search.seq))",
    "CREATE TABLE entry_terms_dirty (shard INTEGER PRIMARY KEY)",
    *(f"CREATE VIRTUAL TABLE entry_terms_{k} {_FTS}" for k in range(SHARDS)),
    *(
        f"INSERT INTO entry_terms_{k} (rowid, terms, owner) SELECT t.rowid, t.terms, t.owner "
        f"FROM entry_terms t JOIN entry_search s ON s.rid = t.rowid WHERE s.shard = {k}"
        for k in range(SHARDS)
    ),
    "DROP TABLE entry_terms",
    "CREATE TRIGGER entries_search_insert AFTER INSERT ON entries BEGIN "
    "INSERT INTO entry_search (session_id, seq, shard) "
    "VALUES (new.session_id, new.seq, unimem_shard(new.user_id)); "
    + " ".join(
        f"INSERT INTO entry_terms_{k} (rowid, terms, owner) {_NEW_TERMS.format(k=k)};"
        for k in range(SHARDS)
    )
    + " END",
    "CREATE TRIGGER entries_search_update AFTER UPDATE OF data ON entries BEGIN "
    + " ".join(
        f"UPDATE entry_terms_{k} SET terms = unimem_terms({_CONTENT}) "
        f"WHERE rowid = {_ROW.format(key=_KEY.format(row='new'), k=k)};"
        for k in range(SHARDS)
    )
    + " END",
    "CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN "
    "INSERT OR IGNORE INTO entry_terms_dirty (shard) "
    f"SELECT shard FROM entry_search WHERE {_KEY.format(row='old')}; "
    + " ".join(
        f"DELETE FROM entry_terms_{k} WHERE rowid = {_ROW.format(key=_KEY.format(row='old'), k=k)};"
        for k in range(SHARDS)
    )
    + f" DELETE FROM entry_search WHERE {_KEY.format(row='old')}; END",
)


def owner_token(user_id: str) -> str:
    """The one FTS5 token that stands for ``user_id`` (a hash: ids hold ``-@``)."""
    return "u" + hashlib.sha256(user_id.encode()).hexdigest()[:24]


def shard_of(user_id: str) -> int:
    """Which of the :data:`SHARDS` tables holds ``user_id``'s terms."""
    return int(hashlib.sha256(user_id.encode()).hexdigest()[:8], 16) % SHARDS


def _terms(content: object) -> str:
    return terms_text(content) if isinstance(content, str) else ""


def _owner(user_id: object) -> str:
    return owner_token(user_id) if isinstance(user_id, str) else ""


def _shard(user_id: object) -> int:
    return shard_of(user_id) if isinstance(user_id, str) else 0


def register(db: sqlite3.Connection) -> None:
    """Register the functions the index's triggers call on ``db``."""
    db.create_function("unimem_terms", 1, _terms, deterministic=True)
    db.create_function("unimem_owner", 1, _owner, deterministic=True)
    db.create_function("unimem_shard", 1, _shard, deterministic=True)


def purge_deleted_terms(db: sqlite3.Connection) -> None:
    """Merge the FTS5 tables that lost rows, so deleted entries' terms leave the
    file (the others are not rewritten)."""
    with db:
        for (k,) in db.execute("SELECT shard FROM entry_terms_dirty").fetchall():
            db.execute(
                f"INSERT INTO entry_terms_{int(k)} (entry_terms_{int(k)}) VALUES ('optimize')"
            )
        db.execute("DELETE FROM entry_terms_dirty")


def _phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class SQLiteSearch:
    """Mixin of :class:`~unimem.stores.sqlite.SQLiteStore`: keyword search."""

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _conn(self) -> sqlite3.Connection: ...

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """The user's entries matching any of ``terms``, best first (FTS5 bm25)."""
        wanted = [t for t in dict.fromkeys(terms) if t]
        if not wanted or limit <= 0:
            return []
        anyof = " OR ".join(map(_phrase, wanted))
        match = f"owner : {_phrase(owner_token(user_id))} AND terms : ({anyof})"
        table = f"entry_terms_{shard_of(user_id)}"
        more, args = filter_clauses(filters)
        where = ["e.user_id = ?", *more]
        sql = (
            # the full-text match first (the owner's token narrows it to the
            # user), its best ``?`` by bm25, then the filters on those rows; only
            # the rows returned are decoded. (Sorting bm25() here is faster than
            # FTS5's own ``ORDER BY rank``, and joining only the best halves the
            # cost of a search with thousands of matches.)
            f"WITH found AS MATERIALIZED (SELECT rowid AS rid, bm25({table}, 1.0, 0.0) AS rank "
            f"FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?) "
            "SELECT e.data, found.rank, (SELECT COUNT(*) FROM found) FROM found "
            "JOIN entry_search s ON s.rid = found.rid "
            "JOIN entries e ON e.session_id = s.session_id AND e.seq = s.seq "
            f"WHERE {' AND '.join(where)} ORDER BY found.rank LIMIT ?"
        )
        # the current session left out drops few of the best matches: read the
        # best few; if too few pass (or any other filter), read every match
        selective = len(where) > 1 + (filters.exclude_session is not None)
        candidates = -1 if selective else max(limit * CANDIDATE_FACTOR, MIN_CANDIDATES)
        rows = self._conn().execute(sql, (match, candidates, user_id, *args, limit)).fetchall()
        if candidates > 0 and len(rows) < limit and (not rows or rows[0][2] == candidates):
            rows = self._conn().execute(sql, (match, -1, user_id, *args, limit)).fetchall()
        return [KeywordHit(entry_from_json(data), -rank) for data, rank, _ in rows]
