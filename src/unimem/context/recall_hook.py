"""What the context builder asks recall for, and how much room it gives it.

The service hands :func:`~unimem.context.session_context.build_session_context`
a :data:`RecallHook`: given the question, the session's last turns and the
milliseconds the dense part may take (``None``: no limit), it returns the
hits from earlier sessions, the search modes used and what it had to leave
out (:class:`RecallAnswer`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from ..recall.hits import MemoryHit

__all__ = [
    "DENSE_RESERVE_MS",
    "RECALL_LINE_TOKENS",
    "RECALL_SHARE",
    "RecallAnswer",
    "RecallHook",
    "recall_limit",
]

#: Share of the room left after the fixed parts the recall block may always
#: take; it takes more when the session's own history needs less.
RECALL_SHARE = 0.4
#: A recall line costs about this many tokens (for how many hits to ask for).
RECALL_LINE_TOKENS = 20
#: Of a voice turn's remaining budget, what is kept for the work after recall
#: (assembling the context): the dense part must be done this long before it.
DENSE_RESERVE_MS = 5.0


@dataclass(slots=True)
class RecallAnswer:
    """Hits from earlier sessions, best first; the search modes used; what was
    left out (``recall_dense_unavailable``, ``recall_dense_timeout``)."""

    hits: list[MemoryHit] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    degradations: list[str] = field(default_factory=list)


#: ``(query, the session's last turns' texts, ms the dense part may take)`` → answer.
RecallHook = Callable[[str, Sequence[str], float | None], Awaitable[RecallAnswer]]


def recall_limit(max_tokens: int) -> int:
    """How many hits to ask recall for, for a context of ``max_tokens``."""
    return max(5, min(100, max_tokens // RECALL_LINE_TOKENS))
