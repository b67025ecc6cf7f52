"""Facts that keep themselves: the pure core that finds a user's facts in a turn.

Allergies, medications, conditions, procedures, appointments, symptoms, the
preferred name and language, care instructions and preferences are found by
offline rules (:func:`extract_facts`) or proposed by an LLM and checked by
the same rules (:func:`validate_proposal`); :func:`read_turn` tells, from
the turn alone, whether any rule could find anything in it. Each result is a
:class:`FactChange` against the user's current facts, so a correction or a
change closes the old value instead of overwriting it. Synchronous, no I/O.
"""

from __future__ import annotations

from .changes import FACT_KINDS, KIND_LABELS, CurrentFact, FactChange, FactOp, fact_line
from .extract import TurnReading, extract_facts, read_turn
from .proposal import MAX_PROPOSED_CHANGES, validate_proposal

__all__ = [
    "FACT_KINDS",
    "KIND_LABELS",
    "MAX_PROPOSED_CHANGES",
    "CurrentFact",
    "FactChange",
    "FactOp",
    "TurnReading",
    "extract_facts",
    "fact_line",
    "read_turn",
    "validate_proposal",
]
