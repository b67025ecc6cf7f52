"""The part of the memory API the adapters use, met by the service and the client alike."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from ..client import MemoryClient
    from ..service import UnifiedMemoryService

log = logging.getLogger(__name__)

#: What every adapter takes: memory in this process or a remote ``unimem serve``.
Memory: TypeAlias = "UnifiedMemoryService | MemoryClient"

#: The most entries one history read returns (the service's ``get_history`` limit).
HISTORY_LIMIT = 10_000

__all__ = ["HISTORY_LIMIT", "Memory", "context_messages", "prewarm"]


def prewarm(models: tuple[str, ...] = ("gpt-4o",)) -> None:
    """Load what unimem loads on first use, now: the language models (about
    5 s, holding the interpreter), the token vocabularies of ``models`` and the
    PHI lexicon, as ``unimem serve`` does at start-up
    (:func:`unimem.context.load_models`).

    Call it where the framework prepares a process before its first
    conversation (LiveKit: the worker's ``prewarm`` function; Pipecat: before
    the pipeline runs), so that no user turn pays for it.
    """
    from ..context.warm import load_models

    load_models(models)


async def context_messages(
    memory: Memory,
    session_id: str,
    query: str,
    *,
    max_tokens: int,
    model: str,
    budget_ms: float | None,
    user_id: str | None,
) -> list[str] | None:
    """unimem's context for a turn: the texts of the leading system messages of
    ``build_llm_context`` (prompt, facts, recall, summary, passages).

    ``None`` when there is nothing to add, or when memory failed: a voice turn
    goes on without it (the failure is logged, without ids or content).
    """
    try:
        built = await memory.build_llm_context(
            session_id,
            query,
            max_tokens=max_tokens,
            model=model,
            budget_ms=budget_ms,
            user_id=user_id,
        )
    except Exception:
        log.exception("unimem: no context for this turn")
        return None
    block = []
    for message in built:
        if message.get("role") != "system":
            break
        block.append(str(message["content"]))
    return block or None
