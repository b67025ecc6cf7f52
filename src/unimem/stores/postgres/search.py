"""Keyword search of the PostgreSQL store: a tsvector table kept by a trigger.

Schema version 3 adds ``entry_search`` (one row per entry: its owner, time
and a ``tsvector`` under a GIN index) and a trigger on ``entries`` that
inserts, updates and deletes the row in the statement that writes the
entry, so an entry is findable as soon as its append commits and leaves the
index when it is deleted or swept.

The vector is built from the stored (redacted) content with the text-search
configuration of the entry's language (``english``, ``spanish``, ``arabic``,
``hindi`` ...; ``simple`` where PostgreSQL has no stemmer), plus the words
as written (``simple``, Latin accents folded as :mod:`unimem.recall.search_terms`
folds them) and the character pairs of Chinese, Japanese and Korean text
(the bigrams of :mod:`unimem.recall.search_terms`, made in SQL). A query is the
search terms OR-ed, as written (a prefix match for longer words, so
"headache" finds "headaches") and under each stemming configuration.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from ...recall.hits import SearchFilters
from ..rows import entry_from_json
from ..search import KeywordHit
from .filters import Params, filter_clauses

if TYPE_CHECKING:
    import asyncpg

__all__ = ["SEARCH_MIGRATION", "PostgresSearch", "tsquery_text"]

_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+"
_ACCENTED = "áàâäãåāéèêëēíìîïīóòôöõøōúùûüūñçýÿ"
_PLAIN = "aaaaaaaeeeeeiiiiiooooooouuuuuncyy"
#: Stemming configurations a query is also read with (the entry's own is unknown).
QUERY_CONFIGS = (
    "english", "spanish", "french", "german", "italian", "portuguese",
    "russian", "turkish", "arabic", "hindi",
)  # fmt: skip

#: Schema version 3: the keyword index.
SEARCH_MIGRATION = f"""
CREATE FUNCTION unimem_ts_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE AS $$
    SELECT (CASE split_part(coalesce(lang, ''), '-', 1)
        WHEN 'en' THEN 'english' WHEN 'es' THEN 'spanish' WHEN 'fr' THEN 'french'
        WHEN 'de' THEN 'german' WHEN 'it' THEN 'italian' WHEN 'pt' THEN 'portuguese'
        WHEN 'ru' THEN 'russian' WHEN 'tr' THEN 'turkish' WHEN 'ar' THEN 'arabic'
        WHEN 'hi' THEN 'hindi' ELSE 'simple' END)::regconfig
$$;
CREATE FUNCTION unimem_cjk_bigrams(t text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(string_agg(CASE WHEN length(r) = 1 THEN r ELSE
        (SELECT string_agg(substr(r, i, 2), ' ') FROM generate_series(1, length(r) - 1) AS i)
        END, ' '), '')
    FROM (SELECT (regexp_matches(t, '{_CJK}', 'g'))[1] AS r) AS runs
$$;
CREATE FUNCTION unimem_search_vector(content text, lang text) RETURNS tsvector
LANGUAGE sql IMMUTABLE AS $$
    SELECT to_tsvector(unimem_ts_config(lang), words)
        || to_tsvector('simple', translate(lower(words), '{_ACCENTED}', '{_PLAIN}'))
        || to_tsvector('simple', unimem_cjk_bigrams(content))
    FROM (SELECT regexp_replace(coalesce(content, ''), '{_CJK}', ' ', 'g') AS words) AS w
$$;
CREATE TABLE entry_search (
    session_id text NOT NULL,
    seq bigint NOT NULL,
    user_id text NOT NULL,
    ts timestamptz NOT NULL,
    terms tsvector NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX entry_search_terms ON entry_search USING gin (terms);
CREATE INDEX entry_search_by_user ON entry_search (user_id, ts);
CREATE FUNCTION unimem_entry_search() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        DELETE FROM entry_search WHERE session_id = OLD.session_id AND seq = OLD.seq;
        RETURN OLD;
    END IF;
    INSERT INTO entry_search (session_id, seq, user_id, ts, terms)
    VALUES (NEW.session_id, NEW.seq, NEW.user_id, NEW.ts,
            unimem_search_vector(NEW.data->>'content', NEW.data->>'language'))
    ON CONFLICT (session_id, seq) DO UPDATE
        SET user_id = EXCLUDED.user_id, ts = EXCLUDED.ts, terms = EXCLUDED.terms;
    RETURN NEW;
END
$$;
CREATE TRIGGER entries_search AFTER INSERT OR UPDATE OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION unimem_entry_search();
INSERT INTO entry_search (session_id, seq, user_id, ts, terms)
    SELECT session_id, seq, user_id, ts,
           unimem_search_vector(data->>'content', data->>'language') FROM entries;
"""


def _lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery_text(terms: Sequence[str], *, prefix: bool) -> str:
    """``to_tsquery`` input matching any of ``terms`` (longer ones as prefixes)."""
    return " | ".join(
        _lexeme(t) + (":*" if prefix and len(t) >= 5 else "") for t in dict.fromkeys(terms) if t
    )


#: The query's terms (``$1``, as :func:`tsquery_text` writes them) OR-ed with
#: their stems under every configuration (``$2``: the terms joined by spaces),
#: each lexeme once (a tsvector keeps distinct lexemes).
_QUERY_SQL = (
    "SELECT (to_tsquery('simple', $1) || coalesce(to_tsquery('simple', "
    "(SELECT string_agg(quote_literal(lexeme), ' | ') FROM unnest(tsvector_to_array("
    + " || ".join(f"to_tsvector('{cfg}', $2)" for cfg in QUERY_CONFIGS)
    + ")) AS lexeme)), ''::tsquery))::text"
)
#: How many queries' tsquery texts a store keeps (they depend on the terms alone).
QUERY_CACHE = 1024


class PostgresSearch:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: keyword search.

    A search is two statements: the query's tsquery (its stems under every
    configuration; kept for the last :data:`QUERY_CACHE` queries), then the
    ranking with that tsquery as a value, so that the planner sees it and
    reads the GIN index. The matches are ranked in ``entry_search`` alone and
    only the ``limit`` best are joined to their entries, so only the rows
    returned are read and decoded; a filter on mode, language or role (which
    the entries hold) joins before ranking.
    """

    if TYPE_CHECKING:  # provided by PostgresStore

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    async def _tsquery(self, conn: asyncpg.Connection, terms: list[str]) -> str:
        cache: dict[tuple[str, ...], str] = self.__dict__.setdefault("_tsqueries", {})
        key = tuple(terms)
        found = cache.get(key)
        if found is None:
            found = str(
                await conn.fetchval(_QUERY_SQL, tsquery_text(terms, prefix=True), " ".join(terms))
            )
            if len(cache) >= QUERY_CACHE:
                cache.pop(next(iter(cache)))
            cache[key] = found
        return found

    async def keyword_search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """The user's entries matching any of ``terms``, best first (``ts_rank``)."""
        wanted = list(dict.fromkeys(t for t in terms if t))
        if not wanted or limit <= 0:
            return []
        arg = Params(user_id, "")
        on_row, on_entry = filter_clauses(filters, arg, row="s", time="s")
        where = ["s.user_id = $1", "s.terms @@ $2::tsquery", *on_row]
        join = "JOIN entries e ON e.session_id = s.session_id AND e.seq = s.seq"
        if on_entry:  # the filter needs the entry: join, then rank what passes
            sql = (
                "SELECT e.data::text, ts_rank(s.terms, $2::tsquery) AS score "
                f"FROM entry_search s {join} WHERE {' AND '.join(where + on_entry)} "
                f"ORDER BY score DESC, s.ts DESC LIMIT {arg(limit)}"
            )
        else:  # rank the index rows, join the best only
            sql = (
                "SELECT e.data::text, s.score FROM (SELECT s.session_id, s.seq, s.ts, "
                "ts_rank(s.terms, $2::tsquery) AS score FROM entry_search s "
                f"WHERE {' AND '.join(where)} ORDER BY score DESC, s.ts DESC "
                f"LIMIT {arg(limit)}) AS s {join} ORDER BY s.score DESC, s.ts DESC"
            )
        async with self._conn() as conn:
            arg.values[1] = await self._tsquery(conn, wanted)
            rows = await conn.fetch(sql, *arg.values)
        return [KeywordHit(entry_from_json(data), float(score)) for data, score in rows]
