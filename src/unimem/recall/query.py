"""The recall query: the current question read with the conversation so far (pure).

"and the dose?" alone finds every dose ever mentioned; read with the turn
before it ("let's talk about my metformin") it finds the metformin dose. So
the query is the question's own terms, which weigh most, plus the terms of
the last few turns of the current session, each turn weighing less the
further back it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .search_terms import terms

__all__ = ["CONTEXT_TURNS", "RecallQuery", "build_query", "standalone_text"]

#: How many of the current session's last turns the query reads.
CONTEXT_TURNS = 3
#: A question with fewer search terms is embedded with the turn before it.
STANDALONE_TERMS = 4
#: Weight of the question's own terms, then of each earlier turn, newest first.
QUESTION_WEIGHT = 1.0
CONTEXT_WEIGHTS = (0.5, 0.3, 0.2)


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """What to search for.

    Attributes:
        text: the question with the newest earlier turn when the question is
            short (for a dense embedding of the question in context).
        question_terms: the question's own search terms, in order, unique.
        context_terms: terms of the earlier turns (not in the question), each
            with its weight (0-1).
    """

    text: str
    question_terms: tuple[str, ...]
    context_terms: dict[str, float] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """Whether there is nothing to search for."""
        return not self.question_terms and not self.context_terms


def build_query(question: str, recent: Sequence[str] = ()) -> RecallQuery:
    """The query for ``question`` asked after ``recent`` (the session's last turns'
    texts, oldest first; only the last :data:`CONTEXT_TURNS` are read)."""
    own = tuple(dict.fromkeys(terms(question)))
    context: dict[str, float] = {}
    earlier = list(recent)[-CONTEXT_TURNS:][::-1]
    for weight, text in zip(CONTEXT_WEIGHTS, earlier, strict=False):
        for term in terms(text):
            if term not in own and term not in context:
                context[term] = weight
    text = question
    if earlier and len(own) < STANDALONE_TERMS:
        text = f"{earlier[0]}\n{question}"
    return RecallQuery(text=text, question_terms=own, context_terms=context)


def standalone_text(question: str) -> str | None:
    """The text :func:`build_query` embeds for ``question`` whatever turns came
    before it, or ``None`` when it depends on them (a short question)."""
    own = dict.fromkeys(terms(question))
    return question if len(own) >= STANDALONE_TERMS else None
