"""The steps a write passes before PHI redaction and after it (see
:mod:`unimem.privacy.pipeline`): the write itself (:class:`EntryWrite`, with
its :class:`PhiTally`), and the settings ``enabled``, ``save_rag_context``
and ``save_voice_transcripts`` applied to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..models import MemoryEntry, MemorySettings, Mode, Role
from ..stores.contracts import PhiGuard
from .pseudonyms import SessionTokens

__all__ = [
    "DEGRADATION_NOT_STORED",
    "DEGRADATION_NO_DETECTOR",
    "DEGRADATION_VOICE_NOT_SAVED",
    "EntryWrite",
    "PhiTally",
    "drop_rag_context",
    "drop_voice_transcript",
    "skip_when_disabled",
]


DEGRADATION_NOT_STORED = "not_stored_memory_disabled"


DEGRADATION_VOICE_NOT_SAVED = "voice_transcript_not_saved"


DEGRADATION_NO_DETECTOR = "phi_detector_unavailable"


@dataclass(slots=True)
class PhiTally:
    """PHI found in one write: counts per type and the fields it was in (no values)."""

    counts: dict[str, int] = field(default_factory=dict)
    fields: list[str] = field(default_factory=list)
    #: The session tokens used, when the caller must record them (``redact_text``).
    tokens: SessionTokens | None = None

    @property
    def total(self) -> int:
        """Findings of every type together."""
        return sum(self.counts.values())

    def add(self, phi_type: str, where: str) -> None:
        """Count one finding of ``phi_type`` in field ``where``."""
        self.counts[phi_type] = self.counts.get(phi_type, 0) + 1
        if where not in self.fields:
            self.fields.append(where)

    def event_data(self, tokens: SessionTokens | None, **ids: Any) -> dict[str, Any]:
        """Data of the ``phi_detected`` event: ids, types, counts, token digests."""
        return {
            **ids,
            "types": dict(sorted(self.counts.items())),
            "count": self.total,
            "fields": list(self.fields),
            "tokens": tokens.added if tokens is not None else {},
        }


@dataclass(slots=True)
class EntryWrite:
    """One entry on its way to the store, and what the pipeline decided about it."""

    entry: MemoryEntry
    settings: MemorySettings
    #: False when nothing may be stored (memory disabled).
    store: bool = True
    #: What live listeners receive when it differs from what is stored.
    live: MemoryEntry | None = None
    phi: PhiTally = field(default_factory=PhiTally)
    tokens: SessionTokens | None = None
    #: the token map's version the store must confirm (when tokens were used)
    phi_guard: PhiGuard | None = None


def _degrade(entry: MemoryEntry, degradation: str, **update: Any) -> MemoryEntry:
    degradations = list(entry.degradations)
    if degradation not in degradations:
        degradations.append(degradation)
    return entry.model_copy(update={**update, "degradations": degradations})


def skip_when_disabled(write: EntryWrite) -> EntryWrite:
    """``enabled=False``: store nothing; the entry is returned unstored and flagged."""
    if not write.settings.enabled:
        write.store = False
        write.entry = _degrade(write.entry, DEGRADATION_NOT_STORED, seq=None)
    return write


def drop_rag_context(write: EntryWrite) -> EntryWrite:
    """``save_rag_context=False``: retrieved passages and sources are not stored."""
    entry = write.entry
    if not write.settings.save_rag_context and (entry.retrieved_passages or entry.sources):
        write.entry = entry.model_copy(update={"retrieved_passages": [], "sources": []})
    return write


def drop_voice_transcript(write: EntryWrite) -> EntryWrite:
    """``save_voice_transcripts=False``: a voice user entry is stored without its content."""
    entry = write.entry
    if (
        not write.settings.save_voice_transcripts
        and entry.role is Role.USER
        and entry.mode is Mode.VOICE
        and entry.content
    ):
        write.live = entry
        write.entry = _degrade(entry, DEGRADATION_VOICE_NOT_SAVED, content="")
    return write
