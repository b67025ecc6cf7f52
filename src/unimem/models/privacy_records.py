"""A user's memory settings and the records of what was done to their memory:
audit records and deletion receipts."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from .base import StrictModel

__all__ = ["AuditRecord", "DeletionReceipt", "MemorySettings"]


class MemorySettings(StrictModel):
    """A user's memory and privacy preferences."""

    enabled: bool = True
    retention_days: int = Field(default=30, ge=1, le=36500)
    cross_session: bool = True
    save_voice_transcripts: bool = True
    save_rag_context: bool = True
    anonymize_phi: bool = True


class AuditRecord(StrictModel):
    """Who did what to whose memory, and when: ids and counts, never content."""

    id: str = ""
    timestamp: datetime
    actor: str
    action: str
    user_id: str
    session_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class DeletionReceipt(StrictModel):
    """What a deletion removed, counted per layer."""

    user_id: str
    scope: str
    deleted_at: datetime
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def total(self) -> int:
        """Everything removed, all layers together."""
        return sum(self.counts.values())
