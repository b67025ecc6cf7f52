"""Searching a user's memory: the I/O around :mod:`unimem.recall`.

:func:`search_user_memory` asks the store for the entries matching the
question's terms and, separately, the terms of the turns before it (a
weaker ranking), and, when dense recall is configured and the store keeps
vectors, the entries nearest the question's embedding
(:mod:`~unimem.service.recall_dense`); it ranks the pinned facts and the
sessions' summaries by keyword, fuses the rankings (reciprocal rank),
favours recent turns a little and spreads the hits over sessions. Every
read is independent of the others, so they run side by side (a pooled store
answers them at once; the embedding runs in a worker thread meanwhile).
When dense recall cannot run the search goes on by keyword and says so
(``RecallResult.modes``, ``degradations``).

Privacy: nothing is searched for a user whose memory is off; with
``cross_session`` off only the session named by the search is (its entries,
its summary, the facts pinned in it); a search only ever reads one user's
rows (every store query is by ``user_id``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..models import Fact, MemorySettings, Summary
from ..recall.hits import HIT_KINDS, HitKind, MemoryHit, SearchFilters
from ..recall.index import TermIndex
from ..recall.query import QUESTION_WEIGHT, RecallQuery
from ..recall.rank import diversify, fuse, recency_factor
from ..stores.contracts import DurableStore
from ..stores.search import KeywordHit, keyword_search_of
from ..stores.vectors import vector_store_of
from .recall_dense import DENSE_MIN_TERMS, DenseRecall, DenseResult

__all__ = [
    "CANDIDATES",
    "CONTEXT_RANKING_WEIGHT",
    "DENSE_WEIGHT",
    "SUMMARY_SESSIONS",
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

_Key = tuple[str, str]  # (kind, id within kind)


@dataclass(slots=True)
class RecallResult:
    """The hits of a search, best first, and how they were found."""

    hits: list[MemoryHit] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    #: what could not be used (``recall_dense_unavailable``: the embedder failed;
    #: ``recall_dense_timeout``: its answer came too late for the turn)
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


async def _facts(store: DurableStore, user_id: str, filters: SearchFilters) -> list[Fact]:
    return [f for f in await store.list_facts(user_id) if _fact_passes(f, filters)]


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
    dense: DenseRecall | None = None,
    dense_deadline: float | None = None,
) -> RecallResult:
    """The user's ``k`` best hits for ``query`` (arguments validated by the caller);
    with ``dense``, dense and keyword rankings fused. ``dense_deadline``
    (``time.perf_counter`` seconds): the dense ranking is left out when the
    question's embedding is not there by then."""
    result = RecallResult()
    if not settings.enabled or query.empty or k <= 0:
        return result
    if not settings.cross_session and filters.session_id is None:
        return result  # only a session's own memory may be searched, and none was named
    question = list(query.question_terms)
    context = list(query.context_terms)
    all_terms = question + context
    searcher = keyword_search_of(store) if "entry" in kinds else None
    if "entry" in kinds and searcher is None:
        log.warning("the store offers no keyword search; entries are not searched")
    vectors = vector_store_of(store) if dense is not None and "entry" in kinds else None

    # every read at once: the keyword rankings, the dense one, facts, summaries
    wanted = [
        (name, weight, terms)
        for name, weight, terms in (
            ("question", QUESTION_WEIGHT, question),
            ("context", CONTEXT_RANKING_WEIGHT, context),
        )
        if terms and searcher is not None
    ]
    reads: list[Awaitable[Any]] = [
        searcher.keyword_search(user_id, terms, filters=filters, limit=CANDIDATES)
        for _, _, terms in wanted
        if searcher is not None
    ]
    if vectors is not None and dense is not None:
        reads.append(dense.search(vectors, user_id, query.text, filters, deadline=dense_deadline))
    if "fact" in kinds:
        reads.append(_facts(store, user_id, filters))
    if "summary" in kinds:
        reads.append(_summaries(store, user_id, filters))
    answers = list(await asyncio.gather(*reads))

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

    if searcher is not None:
        result.modes.append("keyword")
    for name, weight, _ in wanted:
        add(name, weight, [_entry_hit(f) for f in answers.pop(0)])
    if vectors is not None:
        found: DenseResult = answers.pop(0)
        result.degradations.extend(found.degradations)
        if found.hits is not None:
            kept = found.hits
            if len(all_terms) < DENSE_MIN_TERMS:
                # one word alone ("zzyzx") lands near some turn in embedding space:
                # its dense ranking only reorders what the word itself found
                kept = [
                    f for f in kept if ("entry", f"{f.entry.session_id}\x00{f.entry.id}") in hits
                ]
            add("dense", DENSE_WEIGHT, [_entry_hit(f, "dense") for f in kept])
            result.modes.append("dense")
    if "fact" in kinds:
        add("facts", QUESTION_WEIGHT, _fact_hits(answers.pop(0), all_terms, CANDIDATES))
    if "summary" in kinds:
        add("summaries", QUESTION_WEIGHT, _summary_hits(answers.pop(0), all_terms))

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
