"""The recall block of an LLM context: the hits that fit, dated (pure).

Each line says when and how a turn was said, so the model can answer "when
did ...": ``[2026-05-08, voice] user: my cardiologist changed the dose``.
Hits are taken best first while they fit the budget, then written oldest
first. No hit, no block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .hits import MemoryHit

__all__ = ["RECALL_HEADER", "format_hit", "recall_block", "select_hits"]

RECALL_HEADER = "[Relevant earlier conversations ({modes}), dated, oldest first:"
#: A line longer than this many characters is cut (with "…").
MAX_LINE_CHARS = 600


def format_hit(hit: MemoryHit) -> str:
    """One dated line: ``[YYYY-MM-DD, mode] role: text``."""
    day = hit.timestamp.date().isoformat() if hit.timestamp is not None else "undated"
    text = " ".join(hit.snippet.split())
    if len(text) > MAX_LINE_CHARS:
        text = text[: MAX_LINE_CHARS - 1] + "…"
    if hit.kind == "entry" and hit.entry is not None:
        return f"[{day}, {hit.entry.mode.value}] {hit.entry.role.value}: {text}"
    return f"[{day}, {hit.kind}] {text}"


def select_hits(
    hits: Sequence[MemoryHit], budget: int, cost: Callable[[str], int]
) -> list[MemoryHit]:
    """The best hits whose lines fit in ``budget`` tokens (``cost`` counts a
    line), oldest first; a hit too long to fit is skipped for shorter ones."""
    chosen: list[MemoryHit] = []
    used = 0
    for hit in hits:
        line_cost = cost(format_hit(hit)) + 1
        if used + line_cost > budget:
            continue
        chosen.append(hit)
        used += line_cost
    chosen.sort(key=lambda h: (h.timestamp is None, h.timestamp, h.id))
    return chosen


def recall_block(hits: Sequence[MemoryHit], modes: Sequence[str]) -> str:
    """The block's text for the chosen hits ("" when there are none)."""
    if not hits:
        return ""
    head = RECALL_HEADER.format(modes=" + ".join(modes) or "keyword")
    return head + "\n" + "\n".join(format_hit(h) for h in hits) + "]"
