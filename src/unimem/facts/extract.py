"""Find the facts a turn states about the user: the offline rules.

:func:`extract_facts` reads one turn (typed, or a voice transcript: lowercase,
fillers, numbers in words) and returns the changes it makes to the user's
current facts. Statements about other people ("my mom is allergic to
penicillin") and chatter give nothing. Synchronous, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .changes import CurrentFact, FactChange

__all__ = ["extract_facts"]


def extract_facts(
    text: str,
    *,
    role: str,
    language: str | None,
    current: Sequence[CurrentFact],
    now: datetime | None = None,
) -> list[FactChange]:
    """The changes one turn makes to the user's current facts.

    Args:
        text: the turn as written or transcribed.
        role: ``user`` (the patient's own statements) or ``assistant`` (only
            its confirmations count: "I've noted a sulfa allergy").
        language: ISO 639-1 code of the turn, ``None`` when unknown (every
            language's cues are tried).
        current: the user's current facts (``valid_to`` is None).
        now: when the turn was said, to resolve relative dates ("next
            thursday"); without it dates are kept as said.

    Returns:
        The changes in the order the turn states them; at most one per key.
    """
    del text, role, language, current, now
    return []
