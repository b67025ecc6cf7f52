"""A session besides its messages: its metadata, the running summary of its
older turns, and the context a conversation continues with."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field, model_validator

from .base import StrictModel
from .entries import MemoryEntry, MemoryEvent
from .enums import Mode
from .privacy_records import MemorySettings

__all__ = ["ConversationContext", "RagContext", "SessionInfo", "Summary"]


class SessionInfo(StrictModel):
    """What unimem knows about a session besides its messages."""

    session_id: str
    user_id: str
    started_at: datetime
    last_active_at: datetime
    closed_at: datetime | None = None
    current_mode: Mode | None = None
    current_language: str | None = None
    #: Entries and events the session holds now (deletions and retention lower them).
    message_count: int = 0
    event_count: int = 0
    #: The highest ``seq`` given to an entry / an event of the session: seqs are
    #: never given twice, whatever was deleted since.
    last_entry_seq: int = 0
    last_event_seq: int = 0
    modes_used: list[Mode] = Field(default_factory=list)
    languages_used: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _last_seqs(cls, data: Any) -> Any:
        # a state stored before the last seqs were kept: its counts were them
        if isinstance(data, dict) and not {"last_entry_seq", "last_event_seq"} <= data.keys():
            data = {
                "last_entry_seq": data.get("message_count", 0),
                "last_event_seq": data.get("event_count", 0),
                **data,
            }
        return data

    @property
    def closed(self) -> bool:
        """Whether the session was closed."""
        return self.closed_at is not None


class Summary(StrictModel):
    """The running summary of a session's older turns, covering ``from_seq..to_seq``."""

    session_id: str
    user_id: str
    text: str
    from_seq: int = Field(ge=1)
    to_seq: int = Field(ge=1)
    created_at: datetime
    method: str = "extractive"


class RagContext(StrictModel):
    """Retrieved passages and their sources behind the recent entries."""

    passages: list[str] = Field(default_factory=list)
    sources: list[dict[str, Any]] = Field(default_factory=list)


class ConversationContext(StrictModel):
    """Everything the assistant needs to continue a session, in whichever mode."""

    session_id: str
    user_id: str
    messages: list[MemoryEntry] = Field(default_factory=list)
    current_mode: Mode | None = None
    current_language: str | None = None
    language_events: list[MemoryEvent] = Field(default_factory=list)
    mode_events: list[MemoryEvent] = Field(default_factory=list)
    rag_context: RagContext = Field(default_factory=RagContext)
    recent: list[MemoryEntry] = Field(default_factory=list)
    settings: MemorySettings = Field(default_factory=MemorySettings)
    session: SessionInfo | None = None
    degradations: list[str] = Field(default_factory=list)

    @property
    def preferences(self) -> MemorySettings:
        """The user's memory settings (alias of ``settings``)."""
        return self.settings
