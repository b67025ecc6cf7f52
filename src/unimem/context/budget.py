"""The voice turn's latency budget, as context building sees it.

A voice turn has 700 ms end to end (see the field notes). The caller passes
``budget_ms``: the milliseconds of the turn still left when it asks for the
context. Context building then never waits past that: slow store reads are
abandoned (the context is built from what arrived), a new summary is not
made with an LLM (the cached one is used), and retrieved passages are cut to
5 when more than 600 ms remain, 3 when more than 400 ms remain, otherwise 1
(judged on ``budget_ms`` as passed, so one request always gets the same cut).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

__all__ = [
    "DEGRADATION_MEMORY_TIMEOUT",
    "DEGRADATION_SUMMARY_BEHIND",
    "DEGRADATION_SUMMARY_CACHED",
    "TURN_BUDGET_MS",
    "Deadline",
    "passage_limit",
]

#: The whole voice turn, capture to first audio.
TURN_BUDGET_MS = 700.0
#: Store reads did not finish inside the budget; the context lacks history.
DEGRADATION_MEMORY_TIMEOUT = "memory_timeout"
#: The budget forbade a new LLM summary; the cached one (plus an extractive
#: summary of newer turns) was used.
DEGRADATION_SUMMARY_CACHED = "summary_cached"
#: The running summary lagged far behind the history window; this call folded
#: one bounded chunk of the turns in between and left out the rest (later calls
#: fold them).
DEGRADATION_SUMMARY_BEHIND = "summary_catching_up"


def passage_limit(remaining_ms: float) -> int:
    """How many retrieved passages fit the time left: 5 above 600 ms, 3 above 400 ms, else 1."""
    if remaining_ms > 600:
        return 5
    if remaining_ms > 400:
        return 3
    return 1


@dataclass(slots=True)
class Deadline:
    """A point in time ``budget_ms`` after creation (``None``: no deadline)."""

    budget_ms: float | None
    started: float = field(default_factory=time.perf_counter)

    def remaining_ms(self) -> float:
        """Milliseconds left (infinite without a budget, never negative)."""
        if self.budget_ms is None:
            return float("inf")
        return max(0.0, self.budget_ms - 1e3 * (time.perf_counter() - self.started))

    def remaining_s(self) -> float | None:
        """Seconds left, or ``None`` without a budget (for ``asyncio.timeout``)."""
        return None if self.budget_ms is None else self.remaining_ms() / 1e3

    @property
    def limited(self) -> bool:
        """Whether a budget applies."""
        return self.budget_ms is not None
