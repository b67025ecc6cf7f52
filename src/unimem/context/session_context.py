"""Build a session's LLM context from the store: the I/O around :func:`assemble`.

Steps: load the session's recent entries, language and mode events, the
owner's settings, pinned facts and cached summary; order the history by turn
start; fold turns that no longer fit the history window into the running
summary (incremental: the new summary extends the cached one and is stored
with the ``seq`` range it covers); assemble within the token limit; record
any degradation on the current (last user) entry.

Bounded work per call: a summary that lags far behind the window (a first
build on a long session, or many writes without a build) is caught up at most
:data:`CATCH_UP_PER_CALL` entries per call, oldest first, so no single call
reads and summarizes thousands of entries; the turns still between the summary
and the window are left out of that call's context (``summary_catching_up``).
Likewise at most that many window entries that do not fit the token limit
are folded per call.

Ordering: a message's place is its turn start, ``(timestamp, seq)``. A voice
client sends ``timestamp`` = when the turn began, so an assistant answer that
was cut off and written *after* the user's barge-in still comes before it.
Summaries cover ranges of ``seq`` (the store's arrival order).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..models import Fact, MemoryEntry, MemorySettings, Role, Summary
from ..recall.block import recall_block, select_hits
from ..recall.hits import MemoryHit
from ..stores.contracts import ContextSnapshot, DurableStore
from .budget import (
    DEGRADATION_MEMORY_TIMEOUT,
    DEGRADATION_SUMMARY_BEHIND,
    Deadline,
    passage_limit,
)
from .builder import (
    ContextParts,
    LLMContext,
    assemble,
    normalize_passages,
    split_history,
)
from .extractive import apply_corrections
from .recall_hook import DENSE_RESERVE_MS, RECALL_SHARE, RecallHook, recall_limit
from .reidentify import Reidentifier, reidentify
from .summarize import Summarizer
from .summary_fold import (
    SUMMARY_STORE_TOKENS,
    fold_summary,
    phi_redactor,
    summary_messages,
    superseded_sources,
)
from .tokens import count_text_tokens, count_tokens

__all__ = [
    "CATCH_UP_PER_CALL",
    "RECALL_SHARE",
    "SUMMARY_STORE_TOKENS",
    "RecallHook",
    "Reidentifier",
    "build_session_context",
    "phi_redactor",
    "recall_limit",
    "turn_order",
]

log = logging.getLogger(__name__)

#: How far back before the history window a lagging summary is caught up;
#: older turns not yet summarized are given up on.
CATCH_UP_LIMIT = 2000
#: Most older entries read and summarized per build: a lagging summary catches
#: up over several calls instead of one call costing O(CATCH_UP_LIMIT).
CATCH_UP_PER_CALL = 100

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def turn_order(entry: MemoryEntry) -> tuple[datetime, int]:
    """Sort key of a message: when its turn started, then arrival order."""
    return (entry.timestamp or _EPOCH, entry.seq or 0)


@dataclasses.dataclass(slots=True)
class _Loaded:
    snapshot: ContextSnapshot
    facts: list[Fact]
    summary: Summary | None


async def _load(
    store: DurableStore, session_id: str, user_id: str, window: int, *, unused: bool = False
) -> _Loaded:
    """The session's snapshot, the owner's facts and the cached summary, read side
    by side (``user_id`` is the owner the caller found; a session found owned by
    another means its owner's facts are read again)."""
    if unused:
        snapshot = ContextSnapshot(
            session=None, entries=[], language_events=[], mode_events=[], settings=None
        )
        return _Loaded(snapshot, await store.list_facts(user_id), None)
    snapshot, facts, summary = await asyncio.gather(
        store.load_context(session_id, max_messages=window, event_limit=5),
        store.list_facts(user_id),
        store.get_summary(session_id),
    )
    if snapshot.session is None:
        summary = None
    elif snapshot.session.user_id != user_id:
        facts = await store.list_facts(snapshot.session.user_id)
    if snapshot.settings is not None and not snapshot.settings.cross_session:
        # cross_session=False: no recall across sessions, pinned facts included;
        # only the facts pinned in this session come back.
        facts = [fact for fact in facts if fact.session_id == session_id]
    return _Loaded(snapshot, facts, summary)


async def _catch_up_chunk(
    store: DurableStore, session_id: str, covered: int, oldest: int
) -> tuple[list[MemoryEntry], int]:
    """The next entries after ``covered`` (at most :data:`CATCH_UP_PER_CALL`, oldest
    first) and the last ``seq`` they stand for; the window starts at ``oldest``.

    Turns more than :data:`CATCH_UP_LIMIT` before the window are skipped. A
    range whose entries were all deleted is passed over; that costs at most
    ``CATCH_UP_LIMIT / CATCH_UP_PER_CALL`` empty reads.
    """
    start = max(covered, oldest - 1 - CATCH_UP_LIMIT)
    while start < oldest - 1:
        end = min(oldest - 1, start + CATCH_UP_PER_CALL)
        found = await store.get_entries(session_id, limit=end - start, before_seq=end + 1)
        chunk = [e for e in found if (e.seq or 0) > start]
        if chunk:
            return chunk, end
        start = end
    return [], start


async def build_session_context(
    store: DurableStore,
    *,
    session_id: str,
    user_id: str,
    query: str,
    rag_results: Sequence[Any] | None,
    max_tokens: int,
    model: str,
    budget_ms: float | None,
    summarizer: Summarizer,
    window: int,
    unused: bool = False,
    recall: RecallHook | None = None,
    reveal: Reidentifier | None = None,
) -> LLMContext:
    """The LLM context of a session (see the module doc). Arguments are validated by the caller.

    ``unused``: build it as for a session never used, whatever is stored
    under its id (the caller's reading of another user's session).
    ``recall`` (when given) finds what is relevant from earlier sessions; the
    block it makes goes between the pinned facts and the summary, sized to
    what was found within the room the session's own history leaves.
    ``reveal`` (when given) re-identifies what the LLM is sent (``reveal_phi``);
    what is stored (the running summary) keeps its tokens.
    """
    deadline = Deadline(budget_ms)
    degradations: list[str] = []
    loaded: _Loaded | None = None
    try:
        async with asyncio.timeout(deadline.remaining_s()):
            loaded = await _load(store, session_id, user_id, window, unused=unused)
    except TimeoutError:
        degradations.append(DEGRADATION_MEMORY_TIMEOUT)

    passages = normalize_passages(rag_results)
    if budget_ms is not None:
        # From the time left when the turn asked, so the same request always
        # gets the same passages (memory reads take a millisecond or two).
        limit = passage_limit(budget_ms)
        if len(passages) > limit:
            degradations.append(f"rag_passages_cut_to_{limit}")
            passages = passages[:limit]
    if loaded is None:
        parts = ContextParts(query=query, passages=passages, degradations=degradations)
        return assemble(parts, max_tokens, model)

    snap = loaded.snapshot
    owner = snap.session.user_id if snap.session else user_id
    cached = loaded.summary
    entries = [e for e in snap.entries if cached is None or (e.seq or 0) > cached.to_seq]
    # The caller usually stored the current user turn before asking: it is the query.
    current = next((e for e in reversed(snap.entries) if e.role is Role.USER), None)
    if entries and entries[-1].role is Role.USER and entries[-1].content == query:
        entries = entries[:-1]
    oldest = entries[0].seq if entries else None
    covered = cached.to_seq if cached else 0
    chunk: list[MemoryEntry] = []
    through: int | None = None
    if oldest is not None and oldest > covered + 1:
        # Turns between the summary and the loaded window: fetch them to summarize,
        # unless the turn's budget forbids the extra read.
        if deadline.limited:
            degradations.append("summary_stale")
        else:
            chunk, through = await _catch_up_chunk(store, session_id, covered, oldest)
    behind = through is not None and through < (oldest or 0) - 1
    if behind:
        # The summary stays contiguous: only the chunk is folded this call and
        # window entries that do not fit are left out, not folded past the gap.
        degradations.append(DEGRADATION_SUMMARY_BEHIND)
    else:
        # ``through`` is kept only to move the summary past a fully deleted range:
        # chunk entries may stay verbatim in the window, so they are not "covered".
        entries = chunk + entries
        through = None if chunk else through
        chunk = []
    entries.sort(key=turn_order)
    hits: list[MemoryHit] = []
    modes: list[str] = []
    if recall is not None:
        dense_ms = (
            max(0.0, deadline.remaining_ms() - DENSE_RESERVE_MS) if deadline.limited else None
        )
        try:
            async with asyncio.timeout(deadline.remaining_s()):
                found = await recall(query, [e.content for e in entries[-3:]], dense_ms)
        except TimeoutError:
            degradations.append("recall_timeout")
        else:
            hits, modes = found.hits, found.modes
            degradations.extend(found.degradations)
    facts = loaded.facts
    if reveal is not None:
        facts, hits = await reidentify(reveal, session_id, facts, hits)
        query = reveal.text(session_id, query)
        passages = [dataclasses.replace(p, text=reveal.text(session_id, p.text)) for p in passages]

    probe = ContextParts(
        query=query,
        mode=snap.session.current_mode if snap.session else None,
        language=snap.session.current_language if snap.session else None,
        language_events=snap.language_events,
        mode_events=snap.mode_events,
        passages=passages,
        facts=facts,
        degradations=degradations,
    )
    fixed = assemble(probe, max_tokens, model)
    room = max_tokens - fixed.token_count
    if hits:
        need = sum(count_text_tokens(e.content, model) + 8 for e in entries)
        budget = max(room - need, int(room * RECALL_SHARE)) - 16  # the block's frame
        chosen = select_hits(hits, budget, lambda line: count_text_tokens(line, model))
        probe.recall = recall_block(chosen, modes)
        if probe.recall:
            fixed = assemble(probe, max_tokens, model)
            room = max_tokens - fixed.token_count
    summary_room = 0
    if cached:
        summary_room = min(count_tokens(cached.text, model), room // 2)
    older, window_entries = split_history(entries, room - summary_room, model)
    older = sorted(chunk if behind else older, key=lambda e: e.seq or 0)
    if len(older) > CATCH_UP_PER_CALL:
        # A loaded window far longer than the token limit: fold its oldest
        # entries now and the rest over the next calls (it is a prefix by seq,
        # so the summary stays contiguous).
        older = older[:CATCH_UP_PER_CALL]
        if DEGRADATION_SUMMARY_BEHIND not in degradations:
            degradations.append(DEGRADATION_SUMMARY_BEHIND)
    summary = await fold_summary(
        superseded=superseded_sources(loaded.facts),
        store=store,
        summarizer=summarizer,
        cached=cached,
        older=older,
        through=through,
        settings=snap.settings or MemorySettings(),
        session_id=session_id,
        owner=owner,
        model=model,
        deadline=deadline,
        degradations=degradations,
    )
    if summary and window_entries:
        summary = apply_corrections(summary, summary_messages(window_entries))
    if reveal is not None:  # after the fold: the stored summary keeps its tokens
        summary = reveal.text(session_id, summary) if summary else summary
        window_entries = [reveal.entry(e) for e in window_entries]
    probe.summary = summary
    probe.history = window_entries
    result = assemble(probe, max_tokens, model)
    if result.degradations and current is not None and current.id:
        merged = list(dict.fromkeys([*current.degradations, *result.degradations]))
        if merged != current.degradations:
            await store.update_entry(session_id, current.id, {"degradations": merged})
    log.debug(
        "llm context %s: %d messages, %d tokens, %d degradations",
        session_id,
        len(result),
        result.token_count,
        len(result.degradations),
    )
    return result
