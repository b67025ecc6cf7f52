"""Re-identifying what the LLM is sent (``reveal_phi``): facts and recall hits,
each with its own session's PHI values."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Protocol

from ..models import Fact, MemoryEntry
from ..recall.hits import MemoryHit

__all__ = ["Reidentifier", "reidentify"]


class Reidentifier(Protocol):
    """Puts the PHI vault's values back into text (``reveal_phi``): tokens are
    numbered per session, so each text is re-identified with its own session's."""

    async def load(self, session_ids: Collection[str | None]) -> None:
        """Read the values of these sessions."""

    def text(self, session_id: str | None, text: str) -> str:
        """``text`` of that session re-identified."""

    def entry(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` re-identified."""

    def fact(self, fact: Fact) -> Fact:
        """``fact`` re-identified."""


async def reidentify(
    reveal: Reidentifier,
    session_id: str,
    facts: list[Fact],
    hits: list[MemoryHit],
) -> tuple[list[Fact], list[MemoryHit]]:
    """Facts and recall hits re-identified, each with its own session's values."""
    fact_sessions = {f.id: f.session_id for f in facts}
    await reveal.load({session_id, *fact_sessions.values(), *(h.session_id for h in hits)})
    shown: list[MemoryHit] = []
    for hit in hits:
        sid = hit.session_id if hit.kind != "fact" else fact_sessions.get(hit.id)
        update: dict[str, Any] = {"snippet": reveal.text(sid, hit.snippet)}
        if hit.entry is not None:
            update["entry"] = reveal.entry(hit.entry)
        shown.append(hit.model_copy(update=update))
    return [reveal.fact(f) for f in facts], shown
