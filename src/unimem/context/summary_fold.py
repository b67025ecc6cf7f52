"""Folding older turns into a session's running summary, and storing it.

The cached summary is extended with the turns that left the history window
(incremental: the new summary extends the cached one and is stored with the
``seq`` range it covers). Inside a voice turn no LLM is called: newer turns
are summarized extractively for that context only, and a later unhurried
call stores the LLM summary. What a summarizer writes is redacted like any
stored text when the owner's ``anonymize_phi`` is on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..models import Fact, MemoryEntry, MemorySettings, Summary, utcnow
from ..stores.contracts import DurableStore
from .budget import DEGRADATION_SUMMARY_CACHED, Deadline
from .builder import entry_message
from .extractive import ExtractiveSummarizer
from .summarize import LLMSummarizer, Summarizer, summarize_with_fallback

__all__ = [
    "SUMMARY_STORE_TOKENS",
    "fold_summary",
    "phi_redactor",
    "summary_messages",
    "superseded_sources",
]

#: Largest stored running summary; it is re-selected down to what fits each build.
SUMMARY_STORE_TOKENS = 1500


def phi_redactor() -> Callable[[str], str]:
    """``unimem.privacy.redact`` as ``text -> text``, with one token numbering per
    redactor so that ``[PERSON_1]`` is the same person throughout one summary."""
    from ..privacy import PhiTokenMap, redact

    mapping = PhiTokenMap()

    def apply(text: str) -> str:
        return redact(text, mapping=mapping).text

    return apply


def superseded_sources(facts: Sequence[Fact]) -> frozenset[str]:
    """The turns every automatic fact of which is closed (a later turn changed,
    corrected or retracted what they said)."""
    current = {i for f in facts if f.key and f.current for i in f.source_entry_ids}
    return (
        frozenset(i for f in facts if f.key and not f.current for i in f.source_entry_ids) - current
    )


def summary_messages(entries: Sequence[MemoryEntry]) -> list[dict[str, Any]]:
    """Entries as the messages a summarizer reads."""
    # No mode markers in summaries: they describe the moment, not the facts.
    return [entry_message(entry, None) for entry in entries]


async def fold_summary(
    *,
    store: DurableStore,
    summarizer: Summarizer,
    cached: Summary | None,
    older: list[MemoryEntry],
    through: int | None = None,
    settings: MemorySettings,
    session_id: str,
    owner: str,
    model: str,
    deadline: Deadline,
    degradations: list[str],
    superseded: frozenset[str] = frozenset(),
) -> str | None:
    """The cached summary extended with ``older``; stored when it is a real new summary.

    Entries in ``superseded`` (turns whose automatic facts are all closed) are
    not summarized.

    ``through`` is the last ``seq`` the new summary covers when that is past
    the last of ``older`` (a catch-up chunk whose tail entries were deleted).
    """
    previous = cached.text if cached else None
    if not older:
        if cached is not None and through is not None and through > cached.to_seq:
            # Nothing left to read up to ``through``: the summary covers it as is.
            await store.put_summary(cached.model_copy(update={"to_seq": through}))
        return previous
    # A turn whose only facts were since changed or retracted stated a value no
    # longer true: summarized, it would read as current ("I take levothyroxine
    # 10 mg" after the dose went up); the facts block states what holds now.
    told = [e for e in older if e.id not in superseded]
    if not told:
        last = max([through or 1, *(e.seq or 1 for e in older)])
        if cached is not None and last > cached.to_seq:
            await store.put_summary(cached.model_copy(update={"to_seq": last}))
        return previous
    messages = summary_messages(told)
    use = summarizer
    persist = True
    if isinstance(summarizer, LLMSummarizer):
        if deadline.limited:
            # No LLM call inside a voice turn: newer turns are summarized
            # extractively for this context only; a later unhurried call stores
            # the LLM summary.
            use, persist = ExtractiveSummarizer(), False
            degradations.append(DEGRADATION_SUMMARY_CACHED)
        elif settings.anonymize_phi:
            # Text leaving the process is redacted (stored content already is
            # when the privacy pipeline ran; this also covers older entries).
            use = dataclasses.replace(summarizer, redact=phi_redactor())
    text, method, failed = await summarize_with_fallback(
        use, messages, SUMMARY_STORE_TOKENS, previous=previous, model=model
    )
    degradations.extend(failed)
    if text and settings.anonymize_phi:
        # What a summarizer writes is redacted like any stored text: an LLM may
        # repeat a value its input carried in a form the detector missed.
        text = phi_redactor()(text)
    if persist and text:
        await store.put_summary(
            Summary(
                session_id=session_id,
                user_id=owner,
                text=text,
                from_seq=cached.from_seq if cached else min(e.seq or 1 for e in older),
                to_seq=max([through or 1, *(e.seq or 1 for e in older)]),
                created_at=utcnow(),
                method=method,
            )
        )
    return text
