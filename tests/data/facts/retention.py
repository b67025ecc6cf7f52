"""Fact-retention evaluation shared by ``tests/test_context_retention.py`` and
``bench/bench_context.py``.

A fact counts as kept when all its keywords appear, as whole words, in one
line of the built context (a summary line, a pinned fact, or a message).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context import count_tokens

DIALOGUES = Path(__file__).with_name("dialogues.json")
HELDOUT = Path(__file__).with_name("heldout.json")
QUERY = "Can you remind me of everything important we talked about?"
_START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def load_dialogues(path: Path = DIALOGUES) -> list[dict[str, Any]]:
    """The labelled dialogues (``make_dialogues.py``; ``HELDOUT``: ``make_heldout.py``)."""
    return list(json.loads(path.read_text(encoding="utf-8")))


def _lines(messages: Sequence[dict[str, Any]]) -> list[str]:
    return [line.lower() for m in messages for line in str(m.get("content") or "").splitlines()]


def fact_kept(fact: dict[str, Any], lines: Sequence[str]) -> bool:
    """Whether one line holds every keyword of ``fact`` as a whole word."""
    patterns = [re.compile(rf"(?<!\w){re.escape(k)}(?!\w)") for k in fact["keywords"]]
    return any(all(p.search(line) for p in patterns) for line in lines)


def kept_flags(dialogue: dict[str, Any], messages: Sequence[dict[str, Any]]) -> list[bool]:
    """For each labelled fact of ``dialogue``, whether ``messages`` keep it."""
    lines = _lines(messages)
    return [fact_kept(fact, lines) for fact in dialogue["facts"]]


def newest_only(
    dialogue: dict[str, Any], max_tokens: int, model: str = "gpt-4o"
) -> list[dict[str, Any]]:
    """The baseline: a system prompt, the newest messages that fit, the query."""
    head = [{"role": "system", "content": "You are a careful medical assistant."}]
    query = [{"role": "user", "content": QUERY}]
    kept: list[dict[str, Any]] = []
    for turn in reversed(dialogue["turns"]):
        candidate = [{"role": turn["role"], "content": turn["content"]}, *kept]
        if count_tokens([*head, *candidate, *query], model) > max_tokens:
            break
        kept = candidate
    return [*head, *kept, *query]


async def replay(
    memory: UnifiedMemoryService,
    dialogue: dict[str, Any],
    session_id: str,
    *,
    max_tokens: int,
    every: int = 0,
    model: str = "gpt-4o",
) -> tuple[list[dict[str, Any]], int]:
    """Store the dialogue's turns and build the context at the end.

    With ``every`` > 0 the context is also built after every ``every``-th user
    turn, as a live assistant would, so the running summary grows in steps.
    Returns the final messages and their token count as reported. PHI
    anonymization is switched off for the dialogue's user (see below).
    """
    # Retention measures the summarizer; with anonymize_phi on, dates and names
    # are redacted before storage (by design), which would be counted as lost.
    await memory.update_settings({"anonymize_phi": False}, user_id=None)
    user_turns = 0
    for index, turn in enumerate(dialogue["turns"]):
        await memory.add_entry(
            session_id,
            MemoryEntry(
                role=turn["role"],
                content=turn["content"],
                mode=turn["mode"],
                language="en",
                timestamp=_START + timedelta(seconds=20 * index),
            ),
        )
        if turn["role"] == "user":
            user_turns += 1
            if every and user_turns % every == 0:
                await memory.build_llm_context(
                    session_id, turn["content"], max_tokens=max_tokens, model=model
                )
    context = await memory.build_llm_context(session_id, QUERY, max_tokens=max_tokens, model=model)
    return list(context), context.token_count
