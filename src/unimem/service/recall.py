"""Searching a user's memory: the I/O around :mod:`unimem.recall`.

:func:`search_user_memory` asks the store for the entries matching the
question's terms and, separately, the terms of the turns before it (a
weaker ranking), and, when an embedder is configured and the store keeps
vectors, the entries nearest the question's embedding (dense); it ranks the
pinned facts and the sessions' summaries by keyword, fuses the rankings
(reciprocal rank), favours recent turns a little and spreads the hits over
sessions. When the embedder fails the search goes on by keyword and says so
(``RecallResult.modes``, ``degradations``). The service's ``search_memory`` and the
recall block of ``build_llm_context`` both use it.

Privacy: nothing is searched for a user whose memory is off; with
``cross_session`` off only the session named by the search is (its entries,
its summary, the facts pinned in it); a search only ever reads one user's
rows (every store query is by ``user_id``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from ..context.session_context import RecallHook
from ..embeddings.base import Embedder, EmbeddingError
from ..errors import InvalidInputError
from ..models import Fact, MemoryEntry, MemorySettings, Mode, Summary, utcnow
from ..recall.hits import HIT_KINDS, HitKind, MemoryHit, SearchFilters
from ..recall.index import TermIndex
from ..recall.query import QUESTION_WEIGHT, RecallQuery, build_query
from ..recall.rank import diversify, fuse, recency_factor
from ..recall.search_terms import terms as search_terms
from ..stores.contracts import DurableStore
from ..stores.search import KeywordHit, keyword_search_of
from ..stores.vectors import vector_store_of
from ..validation import check_content_size, check_id, check_range
from .core import ServiceCore

__all__ = [
    "CANDIDATES",
    "DEFAULT_K",
    "MAX_K",
    "SUMMARY_SESSIONS",
    "RecallOperations",
    "RecallResult",
    "search_user_memory",
]

log = logging.getLogger(__name__)

#: How many candidates each ranking contributes before fusion.
CANDIDATES = 60
#: How many of the user's latest sessions' summaries a search reads.
SUMMARY_SESSIONS = 20
#: Weight of the ranking by the earlier turns' terms (the question's is 1).
CONTEXT_RANKING_WEIGHT = 0.5
#: Weight of the dense ranking (the entries nearest the question's embedding).
DENSE_WEIGHT = 0.7
#: A dense candidate counts only if its cosine is at least this far from the
#: best one's: below it, a turn is "nearest" without being related.
DENSE_MARGIN = 0.03
#: Below this cosine a turn is not related to the question at all (the built-in
#: model's cosines of off-topic questions to a user's turns reach 0.75-0.84, of
#: related ones 0.86-0.92; 0.80 lost nothing on the tune split, 0.84 lost one
#: turn): with nothing above it, dense recall adds nothing. Another model needs
#: its own value (``embedder.min_similarity``). A related pair can sit just
#: above it ("renal doctor visit" to a nephrologist's turn: 0.819) and a word
#: never said just below or above (0.803), hence the one-word rule below.
DENSE_FLOOR = 0.80
#: How many dense candidates take part in the fusion.
DENSE_CANDIDATES = 30
#: A dense candidate needs at least this many search terms: "ok", "got it"
#: are near every short question in embedding space and say nothing.
DENSE_MIN_TERMS = 2
#: Whose turns the dense ranking reads unless the search names roles: the
#: assistant's replies are mostly acknowledgements whose embeddings sit near
#: any conversational question (keyword search still reads them).
DENSE_ROLES = ("user",)

#: Hits a search returns by default, and at most.
DEFAULT_K = 10
MAX_K = 100
#: Longest query (bytes of UTF-8).
MAX_QUERY_BYTES = 4096

_Key = tuple[str, str]  # (kind, id within kind)


@dataclass(slots=True)
class RecallResult:
    """The hits of a search, best first, and how they were found."""

    hits: list[MemoryHit] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    #: what could not be used (``recall_dense_unavailable``: the embedder failed)
    degradations: list[str] = field(default_factory=list)


def _fact_passes(fact: Fact, filters: SearchFilters) -> bool:
    """Whether a pinned fact passes the session and time filters (a search of one
    session sees only the facts pinned in it)."""
    if filters.session_id is not None and fact.session_id != filters.session_id:
        return False
    when = fact.created_at
    if filters.since is not None and (when is None or when < filters.since):
        return False
    return filters.until is None or (when is not None and when < filters.until)


def _fact_hits(facts: Sequence[Fact], terms: Sequence[str], limit: int) -> list[MemoryHit]:
    index: TermIndex[str] = TermIndex()
    by_id = {fact.id: fact for fact in facts}
    for fact in facts:
        index.add(fact.id, fact.text)
    return [
        MemoryHit(
            kind="fact",
            id=fid,
            session_id=by_id[fid].session_id,
            timestamp=by_id[fid].created_at,
            score=score,
            snippet=by_id[fid].text,
            matched_by=["keyword"],
        )
        for fid, score in index.search(terms, limit=limit)
    ]


def _summary_hits(summaries: Sequence[Summary], terms: Sequence[str]) -> list[MemoryHit]:
    index: TermIndex[str] = TermIndex()
    by_id = {s.session_id: s for s in summaries}
    for summary in summaries:
        index.add(summary.session_id, summary.text)
    return [
        MemoryHit(
            kind="summary",
            id=sid,
            session_id=sid,
            timestamp=by_id[sid].created_at,
            score=score,
            snippet=by_id[sid].text,
            matched_by=["keyword"],
        )
        for sid, score in index.search(terms, limit=CANDIDATES)
    ]


def _entry_hit(found: KeywordHit, matched_by: str = "keyword") -> MemoryHit:
    entry = found.entry
    # built from a stored, validated entry: nothing to validate again
    return MemoryHit.model_construct(
        kind="entry",
        entry=entry,
        id=entry.id,
        session_id=entry.session_id,
        timestamp=entry.timestamp,
        score=found.score,
        snippet=entry.content,
        matched_by=[matched_by],
    )


async def _summaries(store: DurableStore, user_id: str, filters: SearchFilters) -> list[Summary]:
    if filters.session_id is not None:
        sessions = [filters.session_id]
    else:
        listed = await store.list_sessions(user_id, limit=SUMMARY_SESSIONS)
        sessions = [s.session_id for s in listed]
    # one read per session, side by side (a pooled store answers them at once)
    read = await asyncio.gather(*(store.get_summary(sid) for sid in sessions))
    return [
        summary
        for sid, summary in zip(sessions, read, strict=True)
        if summary is not None and summary.user_id == user_id and sid != filters.exclude_session
    ]


async def search_user_memory(
    store: DurableStore,
    *,
    user_id: str,
    query: RecallQuery,
    settings: MemorySettings,
    filters: SearchFilters,
    kinds: Sequence[HitKind] = HIT_KINDS,
    k: int,
    now: datetime,
    embedder: Embedder | None = None,
) -> RecallResult:
    """The user's ``k`` best hits for ``query`` (arguments validated by the caller);
    with ``embedder``, dense and keyword rankings fused."""
    result = RecallResult()
    if not settings.enabled or query.empty or k <= 0:
        return result
    if not settings.cross_session and filters.session_id is None:
        return result  # only a session's own memory may be searched, and none was named
    question = list(query.question_terms)
    context = list(query.context_terms)
    rankings: dict[str, tuple[float, list[_Key]]] = {}
    hits: dict[_Key, MemoryHit] = {}

    def add(name: str, weight: float, found: Sequence[MemoryHit]) -> None:
        keys: list[_Key] = []
        for hit in found:
            key: _Key = (hit.kind, f"{hit.session_id}\x00{hit.id}")
            known = hits.setdefault(key, hit)
            if known is not hit and not set(hit.matched_by) <= set(known.matched_by):
                merged = [*known.matched_by, *hit.matched_by]
                hits[key] = known.model_copy(update={"matched_by": list(dict.fromkeys(merged))})
            keys.append(key)
        if keys:
            rankings[name] = (weight, keys)

    searcher = keyword_search_of(store)
    if "entry" in kinds and searcher is not None:
        result.modes.append("keyword")
        wanted = [
            (name, weight, terms)
            for name, weight, terms in (
                ("question", QUESTION_WEIGHT, question),
                ("context", CONTEXT_RANKING_WEIGHT, context),
            )
            if terms
        ]
        # both searches at once: a pooled store answers them side by side
        found_all = await asyncio.gather(
            *(
                searcher.keyword_search(user_id, terms, filters=filters, limit=CANDIDATES)
                for _, _, terms in wanted
            )
        )
        for (name, weight, _), found in zip(wanted, found_all, strict=True):
            add(name, weight, [_entry_hit(f) for f in found])
    elif "entry" in kinds:
        log.warning("the store offers no keyword search; entries are not searched")
    vectors = vector_store_of(store) if embedder is not None else None
    if "entry" in kinds and vectors is not None and embedder is not None:
        try:
            asked = await embedder.embed([query.text], kind="query")
        except EmbeddingError as exc:
            log.warning("dense recall unavailable (%s); searching by keyword", exc)
            result.degradations.append("recall_dense_unavailable")
        else:
            dense_filters = (
                filters if filters.roles is not None else replace(filters, roles=DENSE_ROLES)
            )
            near = [
                f
                for f in await vectors.vector_search(
                    user_id,
                    asked[0],
                    model=embedder.model,
                    filters=dense_filters,
                    limit=DENSE_CANDIDATES,
                )
                if len(search_terms(f.entry.content)) >= DENSE_MIN_TERMS
            ]
            floor = max(near[0].score - DENSE_MARGIN if near else 0.0, _floor(embedder))
            kept = [f for f in near if f.score >= floor]
            if len(question) + len(context) < DENSE_MIN_TERMS:
                # one word alone ("zzyzx") lands near some turn in embedding space:
                # its dense ranking only reorders what the word itself found
                kept = [
                    f for f in kept if ("entry", f"{f.entry.session_id}\x00{f.entry.id}") in hits
                ]
            add("dense", DENSE_WEIGHT, [_entry_hit(f, "dense") for f in kept])
            result.modes.append("dense")
    all_terms = question + context
    if "fact" in kinds:
        facts = [f for f in await store.list_facts(user_id) if _fact_passes(f, filters)]
        add("facts", QUESTION_WEIGHT, _fact_hits(facts, all_terms, CANDIDATES))
    if "summary" in kinds:
        summaries = await _summaries(store, user_id, filters)
        add("summaries", QUESTION_WEIGHT, _summary_hits(summaries, all_terms))
    fused = fuse(rankings)
    scored = [
        (key, score * recency_factor(hits[key].timestamp, now), hits[key].session_id)
        for key, score in fused.items()
    ]
    said: set[str] = set()
    for key, score in diversify(scored):
        if len(result.hits) >= k:
            break
        text = " ".join(hits[key].snippet.lower().split())
        if text in said:
            continue  # the same words again (another session's repeat) add nothing
        said.add(text)
        result.hits.append(hits[key].model_copy(update={"score": round(score, 6)}))
    if not result.modes and result.hits:
        result.modes.append("keyword")
    return result


def _floor(embedder: Embedder) -> float:
    """The embedder's own similarity floor, or :data:`DENSE_FLOOR` for the built-in one."""
    own = getattr(embedder, "min_similarity", None)
    return float(own) if isinstance(own, int | float) else DENSE_FLOOR


class RecallOperations:
    """``search_memory`` and the recall of ``build_llm_context``, for
    :class:`unimem.UnifiedMemoryService` (which documents each public method)."""

    def __init__(self, core: ServiceCore, embedder: Embedder | None = None) -> None:
        self._core = core
        #: the model of dense recall (``None``: keyword only)
        self.embedder = embedder

    async def search_memory(
        self,
        query: str,
        *,
        user_id: str | None = None,
        k: int = DEFAULT_K,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        modes: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[MemoryHit]:
        """See :meth:`unimem.UnifiedMemoryService.search_memory`."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query must be a non-empty string", field="query")
        check_content_size(query, MAX_QUERY_BYTES, field="query")
        check_range(k, "k", 1, MAX_K)
        owner = self._core.user(user_id)
        filters = SearchFilters(
            session_id=check_id(session_id, "session_id") if session_id is not None else None,
            since=_time(since, "since"),
            until=_time(until, "until"),
            modes=_choices(modes, "modes", [m.value for m in Mode]),
            languages=_languages(languages),
        )
        if filters.since and filters.until and filters.since >= filters.until:
            raise InvalidInputError("since must be before until", field="since")
        chosen = _choices(kinds, "kinds", list(HIT_KINDS))
        if filters.session_id is not None:
            # another user's session reads as one never used: nothing in it
            state = await (await self._core.ready_store()).get_session(filters.session_id)
            if state is None or state.user_id != owner:
                return []
        result = await search_user_memory(
            await self._core.ready_store(),
            user_id=owner,
            query=build_query(query),
            settings=await self._core.settings_of(owner),
            filters=filters,
            kinds=[kind for kind in HIT_KINDS if chosen is None or kind in chosen],
            k=k,
            now=utcnow(),
            embedder=self.embedder,
        )
        return result.hits

    def context_recall(self, user_id: str, session_id: str, limit: int) -> RecallHook:
        """The recall of ``build_llm_context`` for a session of ``user_id``: the
        turns of the user's other sessions (the pinned facts are in the context
        already), up to ``limit`` hits."""

        async def recall(query: str, recent: Sequence[str]) -> tuple[list[MemoryHit], list[str]]:
            settings = await self._core.settings_of(user_id)
            if not settings.cross_session:
                return [], []  # the session's own older turns are in its summary
            result = await search_user_memory(
                await self._core.ready_store(),
                user_id=user_id,
                query=build_query(query, recent),
                settings=settings,
                filters=SearchFilters(exclude_session=session_id),
                kinds=("entry",),
                k=limit,
                now=utcnow(),
                embedder=self.embedder,
            )
            return result.hits, result.modes

        return recall


def _time(value: datetime | None, field: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field} must be a date and time", field=field)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _choices(values: Sequence[str] | None, field: str, allowed: list[str]) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInputError(f"{field} must be a list", field=field)
    bad = [v for v in values if v not in allowed]
    if bad:
        raise InvalidInputError(
            f"{field} may hold {', '.join(allowed)}; got {bad[0]!r}", field=field
        )
    return list(values)


def _languages(values: Sequence[str] | None) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInputError("languages must be a list", field="languages")
    out = []
    for value in values:
        try:
            code = MemoryEntry(role="user", content="", language=value).language
        except InvalidInputError:
            code = None
        if not code:
            raise InvalidInputError(
                f"languages must be ISO 639 codes such as 'en'; got {value!r}", field="languages"
            )
        out.append(code)
    return out
