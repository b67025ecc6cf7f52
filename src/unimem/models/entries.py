"""The two kinds of record on a session's timeline: the entries (messages) and
the events (switches, interruptions, PHI detections, ...), numbered by ``seq``."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from .base import StrictModel, as_utc, check_json, check_language, check_text
from .enums import EventType, Mode, Role

__all__ = ["MemoryEntry", "MemoryEvent"]

_EVENT_TYPE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")


class MemoryEntry(StrictModel):
    """One message of a conversation, with its mode, language, RAG context and metadata.

    Only ``role`` and ``content`` are required. The service fills ``id``
    (time-ordered UUIDv7), ``session_id``, ``user_id``, ``timestamp`` and ``seq``.
    """

    id: str = Field(default="", max_length=128)
    session_id: str = Field(default="", max_length=128)
    user_id: str = Field(default="", max_length=128)
    timestamp: datetime | None = None
    seq: int | None = Field(default=None, ge=1)

    role: Role
    content: str
    mode: Mode = Mode.TEXT

    language: str | None = None
    detected_language: str | None = None
    language_switched: bool = False

    retrieved_passages: list[str] = Field(default_factory=list)
    sources: list[dict[str, Any]] = Field(default_factory=list)

    latency_ms: float | None = Field(default=None, ge=0)
    degradations: list[str] = Field(default_factory=list)
    phi_detected: bool = False

    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        return check_text(value, "content")

    @field_validator("retrieved_passages")
    @classmethod
    def _passages(cls, value: list[str]) -> list[str]:
        for passage in value:
            check_text(passage, "retrieved_passages")
        return value

    @field_validator("language", "detected_language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        return check_language(value)

    @field_validator("timestamp")
    @classmethod
    def _timestamp(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @field_validator("sources")
    @classmethod
    def _sources(cls, value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
        return check_json(value, "sources", info)  # type: ignore[no-any-return]

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return check_json(value, "metadata", info)  # type: ignore[no-any-return]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the entry."""
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryEntry:
        """Build an entry from :meth:`to_dict` output."""
        return cls.model_validate(data)


class MemoryEvent(StrictModel):
    """Something that happened in a session, on the same timeline as its entries.

    ``event["from_language"]`` reads a key of ``data``.
    """

    id: str = Field(default="", max_length=128)
    session_id: str = Field(default="", max_length=128)
    user_id: str = Field(default="", max_length=128)
    seq: int | None = Field(default=None, ge=1)
    event_type: str
    timestamp: datetime | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("event_type", mode="before")
    @classmethod
    def _event_type(cls, value: Any) -> Any:
        if isinstance(value, EventType):
            return value.value
        if isinstance(value, str) and not _EVENT_TYPE_RE.fullmatch(value):
            raise ValueError(
                "event_type must be snake_case (a-z, 0-9, _; at most 64 characters), "
                f"e.g. one of {', '.join(e.value for e in EventType)}"
            )
        return value

    @field_validator("timestamp")
    @classmethod
    def _timestamp(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @field_validator("data")
    @classmethod
    def _data(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return check_json(value, "data", info)  # type: ignore[no-any-return]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        """``data.get(key, default)``."""
        return self.data.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.data

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the event."""
        return self.model_dump(mode="json")
