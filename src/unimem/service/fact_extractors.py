"""Who finds the facts in a turn: the offline rules (:func:`unimem.facts.extract_facts`,
the default) or, when an OpenAI-compatible LLM is configured, the LLM proposing
add / supersede / close against the user's current facts, each proposal kept
only when the rules accept it (:func:`unimem.facts.validate_proposal`), and the
rules again on any failure or timeout.

The LLM is sent the turn as storage holds it (redacted when the user's
``anonymize_phi`` is on) and the current facts as stored, never more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import orjson

from ..context.llm_client import LLMEndpoint, LLMError, complete
from ..facts import FactChange, TurnReading, extract_facts, read_turn, validate_proposal
from ..models import Fact

__all__ = [
    "FactExtractor",
    "FactTurn",
    "LLMFactExtractor",
    "RuleFactExtractor",
    "ScreeningExtractor",
]

logger = logging.getLogger("unimem.facts")

#: Seconds the LLM extractor waits before the rules decide alone.
LLM_FACTS_TIMEOUT = 2.0


@dataclass(frozen=True, slots=True)
class FactTurn:
    """One turn to find facts in.

    Attributes:
        text: the turn as written (held in memory only, never stored).
        stored_text: the turn as stored (redacted when ``anonymize_phi`` is on).
        role: ``user`` or ``assistant``.
        language: the turn's language, when known.
        current: the user's current facts, as stored.
        now: when the turn was said.
        reading: the extractor's own :meth:`ScreeningExtractor.screen` of the
            turn, when it screened it.
    """

    text: str
    stored_text: str
    role: str
    language: str | None
    current: Sequence[Fact]
    now: datetime
    reading: TurnReading | None = None


class FactExtractor(Protocol):
    """Finds what a turn adds to, changes in, or closes of the user's facts."""

    #: Whether it runs off the write path (a remote call): ``add_entry`` then
    #: returns once the turn is stored, and the facts follow.
    background: bool

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        """The changes the turn makes (empty when it carries no fact)."""


@runtime_checkable
class ScreeningExtractor(Protocol):
    """An extractor that can tell from a turn alone that it finds nothing in it,
    whatever the user's current facts: the turn's owner's facts are then not read."""

    def screen(self, text: str, role: str, language: str | None) -> TurnReading | None:
        """The turn as read (passed back as :attr:`FactTurn.reading`), or ``None``
        when no current facts could make :meth:`FactExtractor.extract` find anything."""


class RuleFactExtractor:
    """The offline rules of :mod:`unimem.facts` (synchronous, no I/O)."""

    background = False

    def screen(self, text: str, role: str, language: str | None) -> TurnReading | None:
        """:func:`unimem.facts.read_turn`: ``None`` for a turn no rule could find a fact in."""
        reading = read_turn(text, role=role, language=language)
        return reading if reading.may_state_facts else None

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        """:func:`unimem.facts.extract_facts` on the turn as written."""
        return extract_facts(
            turn.text,
            role=turn.role,
            language=turn.language,
            current=turn.current,
            now=turn.now,
            reading=turn.reading,
        )


_INSTRUCTIONS = (
    "You keep the medical facts of one patient. Given the patient's current facts "
    "and one new turn of the conversation, answer with JSON only: "
    '{"facts": [{"op": "add" | "supersede" | "close", "kind": "...", "key": "...", '
    '"value": "...", "attributes": {"name": "value"}, "replaces": "<id of the current '
    'fact superseded or closed, else null>", "corrected": true | false}]}. '
    "Kinds: allergy (attribute reaction), medication (dose, frequency, status), "
    "condition, procedure, appointment (date, time), symptom (onset), preferred_name, "
    "preferred_language, care_instruction, preference. Only the patient's own facts: "
    "not relatives', not chatter. A correction or a change supersedes the current "
    'fact; a stopped medicine closes it. Nothing new: {"facts": []}.'
)


def _proposal_text(reply: str) -> Any:
    """The JSON of a reply, with a Markdown code fence around it or not."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    return orjson.loads(text)


class LLMFactExtractor:
    """Asks the LLM for proposals, keeps what the rules accept, and falls back
    to ``fallback`` on any failure.

    Args:
        endpoint: the OpenAI-compatible endpoint.
        timeout: seconds to wait for the LLM (the endpoint's own timeout when shorter).
        fallback: the extractor used when the LLM fails (the rules by default).
    """

    background = True

    def __init__(
        self,
        endpoint: LLMEndpoint,
        *,
        timeout: float = LLM_FACTS_TIMEOUT,
        fallback: FactExtractor | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.timeout = min(timeout, endpoint.timeout)
        self.fallback: FactExtractor = fallback or RuleFactExtractor()

    def _body(self, turn: FactTurn) -> dict[str, Any]:
        current = [
            {
                "id": f.id,
                "kind": f.kind,
                "key": f.key,
                "value": f.value or f.text,
                "attributes": f.attributes,
            }
            for f in turn.current
        ]
        prompt = orjson.dumps(
            {"current_facts": current, "turn": {"role": turn.role, "text": turn.stored_text}}
        ).decode()
        return {
            "messages": [
                {"role": "system", "content": _INSTRUCTIONS},
                {"role": "user", "content": prompt},
            ],
            "temperature": 0,
        }

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        """The LLM's proposals the rules accept; the fallback's changes on failure."""
        try:
            async with asyncio.timeout(self.timeout):
                reply = await complete(self.endpoint, self._body(turn), what="fact extractor")
            return validate_proposal(_proposal_text(reply), current=turn.current)
        except (LLMError, TimeoutError, ValueError, TypeError, KeyError) as exc:
            # the error's type only: a message could quote the turn
            logger.warning("LLM fact extraction failed (%s); the rules decide", type(exc).__name__)
            return await self.fallback.extract(turn)
