"""Which facts a context states, in which order, as which lines (pure: no I/O).

Only current facts are stated (a fact a change or a correction closed never
appears as current); allergies first, then medications, then conditions, then
the rest in the order they were learned, so that when the block must be cut
what matters most for safety is kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Fact

__all__ = ["FIRST_KINDS", "current_facts", "fact_bullet"]

#: Kinds stated first, in this order (``diagnosis`` is a condition pinned by hand).
FIRST_KINDS = {"allergy": 0, "medication": 1, "condition": 2, "diagnosis": 2}


def current_facts(facts: Sequence[Fact]) -> list[Fact]:
    """The current facts of ``facts`` (given oldest first), allergies, medications
    and conditions first, the rest after them in their order."""
    now = [f for f in facts if f.current]
    ranked = sorted(range(len(now)), key=lambda i: (FIRST_KINDS.get(now[i].kind, 3), i))
    return [now[i] for i in ranked]


def fact_bullet(fact: Fact) -> str:
    """The fact's line: its own text when it was found in the conversation (that
    text names its kind), ``[kind] text`` when it was pinned."""
    if fact.key is not None:
        return f"- {fact.text}"
    return f"- [{fact.kind}] {fact.text}"
