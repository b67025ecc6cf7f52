"""Fusing rankings and spreading the result over time and sessions (pure).

Keyword and dense search each rank candidates; reciprocal-rank fusion adds
``weight / (RRF_K + rank)`` over the rankings a candidate appears in, so a
turn found both ways rises and neither scale has to be calibrated against
the other. Re-ranking then favours recent turns a little and lowers the
third, fourth ... hit of one session, so that one long session does not
crowd out the others.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

__all__ = ["RRF_K", "diversify", "fuse", "recency_factor"]

K = TypeVar("K", bound=Hashable)

#: The usual constant of reciprocal-rank fusion (Cormack et al. 2009).
RRF_K = 60
#: Age (days) at which recency's bonus has halved.
RECENCY_HALF_LIFE_DAYS = 60.0
#: At most this much is added for being said today (a factor 1 + bonus).
RECENCY_BONUS = 0.15
#: Each further hit of a session already represented keeps this share of its score.
SESSION_DECAY = 0.85


def fuse(rankings: Mapping[str, tuple[float, Sequence[K]]], k: int = RRF_K) -> dict[K, float]:
    """Reciprocal-rank fusion: ``{name: (weight, keys best first)}`` → ``{key: score}``."""
    scores: dict[K, float] = {}
    for weight, keys in rankings.values():
        for rank, key in enumerate(keys, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return scores


def recency_factor(when: datetime | None, now: datetime) -> float:
    """``1 + RECENCY_BONUS`` for today, halving every ``RECENCY_HALF_LIFE_DAYS``."""
    if when is None:
        return 1.0
    days = max(0.0, (now - when).total_seconds() / 86400)
    return 1.0 + RECENCY_BONUS * math.pow(0.5, days / RECENCY_HALF_LIFE_DAYS)


def diversify(scored: Sequence[tuple[K, float, str | None]]) -> list[tuple[K, float]]:
    """``(key, score, group)`` → ``(key, score)`` best first, each further key of
    a group (a session) scoring :data:`SESSION_DECAY` times less per key of
    that group ranked before it."""
    seen: dict[str | None, int] = {}
    out: list[tuple[K, float]] = []
    for key, score, group in sorted(scored, key=lambda item: item[1], reverse=True):
        n = seen.get(group, 0) if group is not None else 0
        seen[group] = n + 1
        out.append((key, score * SESSION_DECAY**n))
    out.sort(key=lambda item: item[1], reverse=True)
    return out
