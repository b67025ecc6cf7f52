"""LLM context: token counts, truncation with summaries, pinned facts, the voice budget.

Pure parts (no I/O): :func:`count_tokens`, :func:`truncate_context`,
:func:`assemble` and the extractive summarizer. The store-facing parts back
``UnifiedMemoryService.build_llm_context``, ``pin_entry``, ``add_fact`` and
``mark_interrupted``.
"""

from __future__ import annotations

from .budget import TURN_BUDGET_MS, Deadline, passage_limit
from .builder import DEFAULT_INSTRUCTIONS, ContextParts, LLMContext, Passage, assemble
from .extractive import ExtractiveSummarizer
from .summarize import (
    LLMSummarizer,
    Summarizer,
    SummarizerError,
    summarize_with_fallback,
    summarizer_from_env,
)
from .tokens import (
    approximate_tokens,
    count_message_tokens,
    count_text_tokens,
    count_tokens,
    encoding_name_for_model,
    fit_text,
    warm_up,
)
from .truncate import truncate_context
from .warm import load_models

#: The seed's name for building messages; the same as :func:`assemble`.
build_messages = assemble

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "TURN_BUDGET_MS",
    "ContextParts",
    "Deadline",
    "ExtractiveSummarizer",
    "LLMContext",
    "LLMSummarizer",
    "Passage",
    "Summarizer",
    "SummarizerError",
    "approximate_tokens",
    "assemble",
    "build_messages",
    "count_message_tokens",
    "count_text_tokens",
    "count_tokens",
    "encoding_name_for_model",
    "fit_text",
    "load_models",
    "passage_limit",
    "summarize_with_fallback",
    "summarizer_from_env",
    "truncate_context",
    "warm_up",
]
