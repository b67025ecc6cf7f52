"""Compose the messages handed to the LLM (pure: no I/O).

Layout of a built context, in order:

1. system: instructions, the conversation language and recent language
   switches, the current mode (a voice turn asks for a speakable answer) and
   recent mode switches, and the retrieved passages numbered ``[1]..[n]`` with
   their sources;
2. system: the user's current facts, allergies, medications and conditions
   first (:mod:`unimem.context.fact_block`; never dropped, trimmed only if
   they alone exceed their share);
3. system: what is relevant from earlier conversations (the recall block,
   dated lines, see :mod:`unimem.recall.block`), when anything is;
4. system: ``[Previous conversation summary: ...]`` of turns older than the
   history window, when there are any;
5. the history window, verbatim, ordered by turn start ``(timestamp, seq)``;
6. user: the current query.

The token limit is split in that priority: the query and the fixed system
parts first, then the summary and history share what is left, the history
window taking at most :data:`HISTORY_SHARE` of it once older turns exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import Fact, MemoryEntry, MemoryEvent, Mode, Role
from .extractive import ExtractiveSummarizer, parse_summary
from .fact_block import current_facts, fact_bullet
from .tokens import count_message_tokens, count_text_tokens, count_tokens, fit_text
from .truncate import SUMMARY_PREFIX, truncate_context

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "HISTORY_SHARE",
    "ContextParts",
    "LLMContext",
    "Passage",
    "assemble",
    "entry_message",
    "normalize_passages",
    "split_history",
]

DEFAULT_INSTRUCTIONS = (
    "You are a careful medical assistant. Use the conversation, the pinned facts and "
    "the retrieved passages below; cite passages as [n]. If unsure, say so."
)
#: Share of the free tokens the verbatim history may take once older turns exist.
HISTORY_SHARE = 0.4
#: Share of the limit retrieved passages may take.
PASSAGE_SHARE = 0.35
#: Share of the limit pinned facts may take before they are trimmed.
FACT_SHARE = 0.4

_LANGUAGE_NAMES = {
    "en": "English", "es": "Spanish", "fr": "French", "de": "German", "it": "Italian",
    "pt": "Portuguese", "ar": "Arabic", "zh": "Chinese", "hi": "Hindi", "ur": "Urdu",
    "ja": "Japanese", "ko": "Korean", "ru": "Russian", "tr": "Turkish",
}  # fmt: skip
_PASSAGE_TEXT_KEYS = ("content", "text", "passage", "page_content", "chunk")
_PASSAGE_SOURCE_KEYS = ("source", "title", "url", "document", "doc_id", "id")
_INTERRUPTED = " [interrupted: the user heard only this much]"
_INTERRUPTED_UNHEARD = "[interrupted: the user heard nothing of this answer]"


class LLMContext(list[dict[str, Any]]):
    """The messages for the LLM (a plain ``list`` of ``{"role", "content"}`` dicts)
    plus how they were built.

    Attributes:
        token_count: exact tokens of the messages for the model (estimated for
            non-OpenAI models, see :mod:`unimem.context.tokens`).
        degradations: what was cut or skipped to meet the token or time budget.
        summary_used: whether a summary of older turns is included.
    """

    def __init__(
        self,
        messages: Sequence[dict[str, Any]] = (),
        *,
        token_count: int = 0,
        degradations: Sequence[str] = (),
        summary_used: bool = False,
    ) -> None:
        super().__init__(messages)
        self.token_count = token_count
        self.degradations = list(degradations)
        self.summary_used = summary_used


@dataclass(slots=True, frozen=True)
class Passage:
    """One retrieved passage and where it came from."""

    text: str
    source: str | None = None


def normalize_passages(rag_results: Sequence[Any] | None) -> list[Passage]:
    """Passages from strings or dicts (``content``/``text``/``page_content`` and
    ``source``/``title``/``url``, or those keys under ``metadata``)."""
    passages: list[Passage] = []
    for item in rag_results or ():
        if isinstance(item, str):
            text, source = item, None
        elif isinstance(item, Mapping):
            raw_meta = item.get("metadata")
            meta: Mapping[str, Any] = raw_meta if isinstance(raw_meta, Mapping) else {}
            text = next((str(item[k]) for k in _PASSAGE_TEXT_KEYS if item.get(k)), "")
            source = next(
                (str(d[k]) for d in (item, meta) for k in _PASSAGE_SOURCE_KEYS if d.get(k)), None
            )
        else:
            text, source = str(item), None
        text = " ".join(text.split())
        if text and all(p.text != text for p in passages):  # the same chunk twice helps nobody
            passages.append(Passage(text, source))
    return passages


def entry_message(entry: MemoryEntry, previous_user_mode: Mode | None) -> dict[str, Any]:
    """The chat message of a stored entry: what was heard for an interrupted
    answer, and a marker where the user switched between speaking and typing."""
    content = entry.content
    if entry.role is Role.ASSISTANT and entry.metadata.get("interrupted"):
        content = content + _INTERRUPTED if content else _INTERRUPTED_UNHEARD
    if (
        entry.role is Role.USER
        and previous_user_mode is not None
        and entry.mode != previous_user_mode
    ):
        content = ("[now speaking] " if entry.mode is Mode.VOICE else "[now typing] ") + content
    return {"role": entry.role.value, "content": content}


def _language(code: str | None) -> str:
    if not code:
        return "unknown"
    return f"{_LANGUAGE_NAMES.get(code.split('-')[0], code)} ({code})"


@dataclass(slots=True)
class ContextParts:
    """Everything :func:`assemble` puts together, already fetched."""

    query: str
    mode: Mode | None = None
    language: str | None = None
    language_events: Sequence[MemoryEvent] = ()
    mode_events: Sequence[MemoryEvent] = ()
    passages: Sequence[Passage] = ()
    facts: Sequence[Fact] = ()
    summary: str | None = None
    history: Sequence[MemoryEntry] = ()
    #: the recall block, already sized (``""``: none)
    recall: str = ""
    instructions: str = DEFAULT_INSTRUCTIONS
    degradations: list[str] = field(default_factory=list)


def _system_prompt(parts: ContextParts, passages: Sequence[Passage]) -> str:
    lines = [parts.instructions]
    if parts.language:
        name = _language(parts.language)
        lines.append(f"Conversation language: {name}. Answer in it unless the user asks otherwise.")
    switches = [
        f"{_language(e.get('from_language'))} → {_language(e.get('to_language'))}"
        f" ({e.get('trigger', 'auto_detected')})"
        for e in parts.language_events[-3:]
    ]
    if switches:
        lines.append("Recent language switches: " + "; ".join(switches) + ".")
    if parts.mode is Mode.VOICE:
        lines.append(
            "The user is speaking (voice mode); their turns are speech transcripts. Your answer "
            "is read aloud: short plain sentences, no markdown, lists, tables, URLs or symbols; "
            "write numbers, doses and units as they are spoken."
        )
    elif parts.mode is Mode.TEXT:
        lines.append("The user is typing (text mode); brief formatting is fine.")
    mode_switches = [f"{e.get('from_mode')} → {e.get('to_mode')}" for e in parts.mode_events[-3:]]
    if mode_switches:
        lines.append("Recent mode switches: " + "; ".join(mode_switches) + ".")
    if passages:
        lines.append("Retrieved passages:")
        for number, passage in enumerate(passages, 1):
            source = f" (source: {passage.source})" if passage.source else ""
            lines.append(f"[{number}] {passage.text}{source}")
    return "\n".join(lines)


def _fit_passages(
    passages: Sequence[Passage], budget: int, model: str, degradations: list[str]
) -> list[Passage]:
    """Trim passages evenly so that together they take at most ``budget`` tokens."""
    costs = [count_text_tokens(p.text, model) + 8 for p in passages]
    if sum(costs) <= budget:
        return list(passages)
    degradations.append("rag_passages_trimmed")
    kept: list[Passage] = []
    remaining = budget
    for index, passage in enumerate(passages):
        share = remaining // (len(passages) - index)
        if share < 16:
            break  # too little left for a useful passage: drop the rest
        text = fit_text(passage.text, share - 8, model)
        kept.append(Passage(text, passage.source))
        remaining -= count_text_tokens(text, model) + 8
    return kept


def _facts_text(facts: Sequence[Fact], budget: int, model: str, degradations: list[str]) -> str:
    current = current_facts(facts)
    pinned = [f for f in current if f.kind != "session_summary"]
    earlier = [f for f in current if f.kind == "session_summary"]
    lines = ["Pinned facts about the user (true until removed):"]
    lines += [fact_bullet(f) for f in pinned]
    text = "\n".join(lines)
    if earlier:
        # Summaries of closed sessions are context, not commitments: they go
        # after the pinned facts and are the first thing cut.
        more = "\n".join(["Earlier sessions:", *(f"- {f.text}" for f in earlier)])
        room = budget - count_text_tokens(text, model) - 1
        cut = fit_text(more, room, model) if room > 8 else ""
        if cut != more:
            degradations.append("earlier_sessions_trimmed")
        if cut:
            text = f"{text}\n{cut}"
    if count_text_tokens(text, model) > budget:
        degradations.append("facts_truncated")
        text = fit_text(text, budget, model)
    return text


def split_history(
    history: Sequence[MemoryEntry], room: int, model: str, *, keep_last: int = 3
) -> tuple[list[MemoryEntry], list[MemoryEntry]]:
    """Split ``history`` (oldest first) into ``(older, window)``.

    Everything stays in the window when it fits in ``room`` tokens. Otherwise
    the window is the newest entries within ``HISTORY_SHARE`` of ``room`` (at
    least ``keep_last`` when they fit in ``room``) and the rest is older, to
    be summarized.
    """
    costs = [count_text_tokens(e.content, model) + 8 for e in history]
    if sum(costs) <= room:
        return [], list(history)
    share = int(room * HISTORY_SHARE)
    used = 0
    start = len(history)
    while start > 0:
        cost = costs[start - 1]
        newest_few = len(history) - start < keep_last
        if used + cost > (room if newest_few else share):
            break
        used += cost
        start -= 1
    return list(history[:start]), list(history[start:])


def assemble(parts: ContextParts, max_tokens: int, model: str) -> LLMContext:
    """Build the message list within ``max_tokens`` (see the module doc for the layout)."""
    degradations = list(parts.degradations)
    query = parts.query
    query_cap = max(1, max_tokens // 2)
    if count_text_tokens(query, model) > query_cap:
        degradations.append("query_truncated")
        query = fit_text(query, query_cap, model)
    query_message = {"role": "user", "content": query}

    passages = _fit_passages(parts.passages, int(max_tokens * PASSAGE_SHARE), model, degradations)
    head = [{"role": "system", "content": _system_prompt(parts, passages)}]
    if current_facts(parts.facts):
        facts = _facts_text(parts.facts, int(max_tokens * FACT_SHARE), model, degradations)
        head.append({"role": "system", "content": facts})
    if parts.recall:
        head.append({"role": "system", "content": parts.recall})
    fixed = count_tokens([*head, query_message], model)
    if fixed > max_tokens:
        degradations.append("system_prompt_truncated")
        over = fixed - max_tokens
        content = head[0]["content"]
        head[0]["content"] = fit_text(content, count_text_tokens(content, model) - over, model)
        fixed = count_tokens([*head, query_message], model)

    room = max_tokens - fixed
    previous_mode: Mode | None = None
    window: list[dict[str, Any]] = []
    for entry in parts.history:
        window.append(entry_message(entry, previous_mode))
        if entry.role is Role.USER:
            previous_mode = entry.mode
    # A request's count is exactly 3 + the sum of its messages' counts.
    costs = [count_message_tokens(m, model) for m in window]
    used = sum(costs)
    while window and used > room:
        window.pop(0)  # the caller sized the window; this only guards the limit
        used -= costs.pop(0)
        if "history_trimmed" not in degradations:
            degradations.append("history_trimmed")
    room -= used
    total = fixed + used

    summary_used = False
    if parts.summary:
        frame = count_message_tokens({"role": "system", "content": SUMMARY_PREFIX + "]"}, model)
        budget = room - frame
        text = parts.summary
        if budget > 8 and count_text_tokens(text, model) > budget:
            text = ExtractiveSummarizer().select(parse_summary(text), budget, model)
        if budget > 8 and text:
            summary_message = {"role": "system", "content": f"{SUMMARY_PREFIX}{text}]"}
            head.append(summary_message)
            total += count_message_tokens(summary_message, model)
            summary_used = True
        else:
            degradations.append("summary_dropped")

    messages = [*head, *window, query_message]
    if total > max_tokens:
        # The summary's lines were counted apart; joined with the prefix they
        # can differ by a token or two. The general truncation settles it.
        messages = truncate_context(messages, max_tokens, model)
        total = count_tokens(messages, model)
        degradations.append("context_truncated")
    return LLMContext(
        messages,
        token_count=total,
        degradations=degradations,
        summary_used=summary_used,
    )
