"""The ``facts`` section: whether each turn updates the user's facts, and how
long the LLM extractor may take."""

from __future__ import annotations

from .section import PositiveSeconds, Section

__all__ = ["FactsSettings"]


class FactsSettings(Section):
    """The facts each turn updates (allergies, medicines, names, ...)."""

    #: Whether user and assistant turns update the user's facts.
    auto: bool = True
    #: Seconds the LLM extractor (when an LLM is configured) may take.
    llm_timeout: PositiveSeconds = 2.0
