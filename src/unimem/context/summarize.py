"""Pluggable summarizers: the offline extractive one and an OpenAI-compatible LLM one.

A summarizer turns older turns (plus the previous summary, so summaries grow
incrementally) into ``- role: sentence`` lines. :class:`LLMSummarizer` calls
any ``/chat/completions`` endpoint (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM)
with a hard deadline; :func:`summarize_with_fallback` turns any failure of it
into the extractive result plus a recorded degradation, so a summarizer
outage never fails a turn.

Configuration: the ``llm`` section of :class:`unimem.settings.Settings`
(``UNIMEM_LLM_*``), turned into a summarizer by :func:`summarizer_for` when
the service is built (:func:`unimem.assembly.build_service`). The client is
:mod:`unimem.context.llm_client`, shared with the server's assistant replies.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..errors import UnimemError
from .extractive import ExtractiveSummarizer, parse_summary
from .llm_client import LLMEndpoint, LLMError, complete, endpoint_from_env
from .tokens import content_text, fit_text

__all__ = [
    "DEGRADATION_SUMMARIZER_FALLBACK",
    "LLMSummarizer",
    "Summarizer",
    "SummarizerError",
    "summarize_with_fallback",
    "summarizer_for",
    "summarizer_from_env",
]

log = logging.getLogger(__name__)

#: Recorded when the LLM summarizer failed and the extractive one stood in.
DEGRADATION_SUMMARIZER_FALLBACK = "summarizer_fallback"

_PROMPT = (
    "You maintain the running summary of a conversation between a patient (user) "
    "and a medical assistant. Merge the previous summary with the new turns into "
    "short bullet lines of the form '- user: ...' or '- assistant: ...'. Keep every "
    "allergy, medication with dose and schedule, diagnosis, procedure and date, care "
    "instruction, decision, the user's preferred name and language. When a later turn "
    "corrects an earlier value, keep only the corrected value. Drop greetings and small "
    "talk. Answer with the bullet lines only."
)


class SummarizerError(UnimemError):
    """The LLM summarizer could not produce a summary (timeout, HTTP error, bad reply)."""

    code = "summarizer_error"


@runtime_checkable
class Summarizer(Protocol):
    """What unimem needs from a summarizer."""

    name: str

    async def summarize(
        self,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        *,
        previous: str | None = None,
        model: str = "gpt-4o",
    ) -> str:
        """The previous summary extended with ``messages``, within ``max_tokens``."""
        ...


@dataclass(slots=True)
class LLMSummarizer:
    """Summarizes through an OpenAI-compatible chat completions endpoint.

    Args:
        base_url: endpoint base; ``/chat/completions`` is appended.
        model: model name sent to the endpoint.
        api_key: bearer token, or ``None``.
        timeout: seconds for the whole call, connection included.
        redact: applied to every text before it leaves the process (set by the
            service when the user's ``anonymize_phi`` is on).
    """

    base_url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout: float = 5.0
    redact: Callable[[str], str] | None = None
    name: str = "llm"

    def _transcript(self, messages: Sequence[Mapping[str, Any]], previous: str | None) -> str:
        redact = self.redact or (lambda text: text)
        lines = []
        if previous:
            lines.append("Previous summary:\n" + redact(previous))
        lines.append("New turns:")
        for message in messages:
            text = content_text(message.get("content"))
            if text and message.get("role") != "tool":
                lines.append(f"{message.get('role', 'user')}: {redact(text)}")
        return "\n".join(lines)

    async def summarize(
        self,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        *,
        previous: str | None = None,
        model: str = "gpt-4o",
    ) -> str:
        """Ask the endpoint for the merged summary.

        Raises:
            SummarizerError: timeout, connection failure, non-2xx status or a
                reply without text. The message names the failure, never content.
        """
        body = {
            "temperature": 0,
            "max_tokens": max(16, max_tokens),
            "messages": [
                {"role": "system", "content": _PROMPT},
                {"role": "user", "content": self._transcript(messages, previous)},
            ],
        }
        endpoint = LLMEndpoint(self.base_url, self.model, self.api_key, self.timeout)
        started = time.perf_counter()
        try:
            text = await complete(endpoint, body, what="summarizer")
        except LLMError as exc:
            raise SummarizerError(exc.message) from None
        log.info(
            "llm summary: %d messages in %.1f ms",
            len(messages),
            1e3 * (time.perf_counter() - started),
        )
        # Keep to the line format and the budget whatever the model did.
        lines = [f"- {line.role}: {line.text}" for line in parse_summary(text)]
        return fit_text("\n".join(lines), max_tokens, model)


def summarizer_for(endpoint: LLMEndpoint | None) -> Summarizer:
    """The LLM summarizer on ``endpoint``, or the extractive one without it."""
    if endpoint is None:
        return ExtractiveSummarizer()
    return LLMSummarizer(
        base_url=endpoint.base_url,
        model=endpoint.model,
        api_key=endpoint.api_key,
        timeout=endpoint.timeout,
    )


def summarizer_from_env(env: Mapping[str, str] | None = None) -> Summarizer:
    """The LLM summarizer when ``UNIMEM_LLM_BASE_URL`` is set (``os.environ`` by
    default), else the extractive one.

    Raises:
        ConfigurationError: ``UNIMEM_LLM_TIMEOUT`` is not a positive number, or the
            base URL is not http(s).
    """
    return summarizer_for(endpoint_from_env(env))


async def summarize_with_fallback(
    summarizer: Summarizer,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int,
    *,
    previous: str | None = None,
    model: str = "gpt-4o",
) -> tuple[str, str, list[str]]:
    """Run ``summarizer``; on failure use the extractive one.

    Returns ``(text, method, degradations)`` where ``method`` is the name of the
    summarizer that produced ``text``.
    """
    try:
        text = await summarizer.summarize(messages, max_tokens, previous=previous, model=model)
        return text, summarizer.name, []
    except Exception as exc:  # any summarizer failure must not fail the turn
        log.warning(
            "summarizer %s failed (%s); using extractive", summarizer.name, type(exc).__name__
        )
    fallback = ExtractiveSummarizer()
    text = fallback.summarize_sync(messages, max_tokens, previous=previous, model=model)
    return text, fallback.name, [DEGRADATION_SUMMARIZER_FALLBACK]
