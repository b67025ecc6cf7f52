"""Data model of unimem: entries, events, sessions, settings and context.

The models are pydantic models so that the library, the HTTP API and the
client share one definition. Invalid input raises
:class:`unimem.errors.InvalidInputError` naming the field, never a bare
pydantic error.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

import pydantic
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from .errors import InvalidInputError
from .validation import is_valid_id, json_problem

__all__ = [
    "AuditRecord",
    "ConversationContext",
    "DeletionReceipt",
    "EventType",
    "Fact",
    "FactStatus",
    "MemoryEntry",
    "MemoryEvent",
    "MemorySettings",
    "Mode",
    "RagContext",
    "Role",
    "SessionInfo",
    "StoredItem",
    "Summary",
    "SwitchTrigger",
]

_EVENT_TYPE_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_LANGUAGE_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")


class Role(StrEnum):
    """Who spoke: the user, the assistant, or the system."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class Mode(StrEnum):
    """How the turn was made: spoken (voice) or typed (text)."""

    VOICE = "voice"
    TEXT = "text"


class EventType(StrEnum):
    """Event types unimem itself records. Any other ``snake_case`` name is accepted too."""

    MODE_SWITCH = "mode_switch"
    LANGUAGE_SWITCH = "language_switch"
    TOPIC_CHANGE = "topic_change"
    PHI_DETECTED = "phi_detected"
    RAG_RETRIEVAL = "rag_retrieval"
    INTERRUPTION = "interruption"
    SESSION_CLOSED = "session_closed"


class SwitchTrigger(StrEnum):
    """What caused a language switch."""

    USER_REQUEST = "user_request"
    AUTO_DETECTED = "auto_detected"
    EXPLICIT_SETTING = "explicit_setting"


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(body)"


def translate_validation_error(model: str, exc: pydantic.ValidationError) -> InvalidInputError:
    """Turn a pydantic error into an :class:`InvalidInputError` naming every field."""
    errors: list[dict[str, Any]] = []
    for err in exc.errors(include_url=False, include_input=False):
        item: dict[str, Any] = {"field": _field_path(tuple(err["loc"])), "message": err["msg"]}
        ctx = err.get("ctx") or {}
        for key in ("limit_value", "max_length", "min_length", "le", "ge", "lt", "gt"):
            if key in ctx:
                item["limit"] = ctx[key]
                break
        errors.append(item)
    first = errors[0] if errors else {"field": None, "message": "invalid"}
    detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
    return InvalidInputError(
        f"invalid {model}: {detail}", field=first["field"], limit=first.get("limit"), errors=errors
    )


class _Model(BaseModel):
    """Base: unknown fields are refused and errors come from unimem's tree."""

    # allow_inf_nan: a float field never takes NaN or an infinity (``1e400``)
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    @model_validator(mode="wrap")
    @classmethod
    def _translate_errors(cls, data: Any, handler: pydantic.ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(data)
        except pydantic.ValidationError as exc:
            raise translate_validation_error(cls.__name__, exc) from exc


def utcnow() -> datetime:
    """The current time, UTC, tz-aware."""
    return datetime.now(UTC)


def _as_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _check_text(value: str, field: str) -> str:
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL character (U+0000), which cannot be stored")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{field} is not valid Unicode (lone surrogate at {exc.start})") from None
    return value


def _check_json(value: Any, field: str, info: ValidationInfo) -> Any:
    """``value`` if it can be stored as free-form JSON (the rules of
    :func:`unimem.validation.json_problem`: depth, size, JSON types, 64-bit
    integers, valid Unicode in keys as in values, finite numbers). JSON read
    back from a store may hold ``null`` where a non-finite number was, never
    the number: NaN is let through in JSON mode only."""
    if not value:
        return value
    problem = json_problem(value, field, finite=info.mode != "json")
    if problem is not None:
        raise ValueError(problem)
    return value


def _check_language(value: str | None) -> str | None:
    if value is None or value == "":
        return None
    value = value.strip()
    if not _LANGUAGE_RE.fullmatch(value):
        raise ValueError("language must be an ISO 639 code such as 'en', 'ar' or 'pt-BR'")
    head, _, tail = value.partition("-")
    return head.lower() + (f"-{tail}" if tail else "")


class MemoryEntry(_Model):
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
        return _check_text(value, "content")

    @field_validator("retrieved_passages")
    @classmethod
    def _passages(cls, value: list[str]) -> list[str]:
        for passage in value:
            _check_text(passage, "retrieved_passages")
        return value

    @field_validator("language", "detected_language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        return _check_language(value)

    @field_validator("timestamp")
    @classmethod
    def _timestamp(cls, value: datetime | None) -> datetime | None:
        return _as_utc(value)

    @field_validator("sources")
    @classmethod
    def _sources(cls, value: list[dict[str, Any]], info: ValidationInfo) -> list[dict[str, Any]]:
        return _check_json(value, "sources", info)  # type: ignore[no-any-return]

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return _check_json(value, "metadata", info)  # type: ignore[no-any-return]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the entry."""
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryEntry:
        """Build an entry from :meth:`to_dict` output."""
        return cls.model_validate(data)


class MemoryEvent(_Model):
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
        return _as_utc(value)

    @field_validator("data")
    @classmethod
    def _data(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return _check_json(value, "data", info)  # type: ignore[no-any-return]

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


class MemorySettings(_Model):
    """A user's memory and privacy preferences."""

    enabled: bool = True
    retention_days: int = Field(default=30, ge=1, le=36500)
    cross_session: bool = True
    save_voice_transcripts: bool = True
    save_rag_context: bool = True
    anonymize_phi: bool = True


class SessionInfo(_Model):
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


#: Who stands behind a fact's value: the patient said it (``reported``), someone
#: confirmed it (``confirmed``), or it replaced a wrong value (``corrected``).
FactStatus = Literal["reported", "confirmed", "corrected"]

_ATTRIBUTE_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,63}")

#: Bounds of a fact's structured part (the stored form: an encrypted value is
#: longer than the plain one, so these leave room for the ciphertext; the
#: service checks what a caller gives against :data:`FACT_VALUE_CHARS`).
FACT_KEY_CHARS = 2048
FACT_MAX_ATTRIBUTES = 32
FACT_MAX_SOURCES = 64
#: The longest value or attribute value a caller may give a fact, in characters.
FACT_VALUE_CHARS = 1000


class Fact(_Model):
    """A fact of the user's episodic layer: it stays in every context of the user
    while it is current (allergies, current medications, preferred name and language).

    ``kind`` is free text; ``allergy``, ``medication``, ``condition``,
    ``preference``, ``pinned_entry`` and ``session_summary`` are among the ones
    unimem uses. Facts found in the conversation carry a ``key`` (what the fact
    is about, e.g. ``medication:lisinopril``), a ``value`` and ``attributes``
    (``dose``, ``reaction``, ``onset``, ...). A fact is current while
    ``valid_to`` is ``None``; a correction or a change closes the old fact
    (``valid_to`` set) and adds the new one, so the history is kept. Facts
    pinned by hand have no key and are current.
    """

    id: str = Field(default="", max_length=128)
    user_id: str = Field(default="", max_length=128)
    kind: str = Field(default="note", min_length=1, max_length=64)
    text: str = Field(min_length=1)
    session_id: str | None = Field(default=None, max_length=128)
    entry_id: str | None = Field(default=None, max_length=128)
    created_at: datetime | None = None
    key: str | None = Field(default=None, min_length=1, max_length=FACT_KEY_CHARS)
    value: str | None = Field(default=None, max_length=4 * FACT_KEY_CHARS)
    status: FactStatus = "reported"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    source_entry_ids: list[str] = Field(default_factory=list, max_length=FACT_MAX_SOURCES)
    attributes: dict[str, str] = Field(default_factory=dict, max_length=FACT_MAX_ATTRIBUTES)

    @field_validator("text", "key", "value")
    @classmethod
    def _text(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else _check_text(value, str(info.field_name))

    @field_validator("source_entry_ids")
    @classmethod
    def _sources(cls, value: list[str]) -> list[str]:
        for item in value:
            if not is_valid_id(item):
                raise ValueError("source_entry_ids must hold entry ids (A-Za-z0-9._:@-, 1-128)")
        return value

    @field_validator("attributes")
    @classmethod
    def _attributes(cls, value: dict[str, str]) -> dict[str, str]:
        for name, item in value.items():
            if not _ATTRIBUTE_KEY_RE.fullmatch(name):
                raise ValueError(
                    f"attribute names are snake_case words of up to 64 characters, got {name!r}"
                )
            if len(item) > 4 * FACT_KEY_CHARS:
                raise ValueError(f"attribute {name!r} is longer than {4 * FACT_KEY_CHARS}")
            _check_text(item, f"attributes.{name}")
        return value

    @field_validator("created_at", "valid_from", "valid_to")
    @classmethod
    def _created(cls, value: datetime | None) -> datetime | None:
        return _as_utc(value)

    @property
    def current(self) -> bool:
        """Whether the fact holds now (it was not closed by a later one)."""
        return self.valid_to is None


class Summary(_Model):
    """The running summary of a session's older turns, covering ``from_seq..to_seq``."""

    session_id: str
    user_id: str
    text: str
    from_seq: int = Field(ge=1)
    to_seq: int = Field(ge=1)
    created_at: datetime
    method: str = "extractive"


class AuditRecord(_Model):
    """Who did what to whose memory, and when: ids and counts, never content."""

    id: str = ""
    timestamp: datetime
    actor: str
    action: str
    user_id: str
    session_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class DeletionReceipt(_Model):
    """What a deletion removed, counted per layer."""

    user_id: str
    scope: str
    deleted_at: datetime
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def total(self) -> int:
        """Everything removed, all layers together."""
        return sum(self.counts.values())


class RagContext(_Model):
    """Retrieved passages and their sources behind the recent entries."""

    passages: list[str] = Field(default_factory=list)
    sources: list[dict[str, Any]] = Field(default_factory=list)


class ConversationContext(_Model):
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


class StoredItem(_Model):
    """A JSON value a user keeps under a namespace and a key (an agent's long-term
    memory, as LangGraph's ``BaseStore`` keeps it; see :mod:`unimem.service.items`).

    ``namespace`` is a path of labels (``["memories", "food"]``), ``key`` names the
    item within it; ``score`` is set on search results ranked by a query.
    """

    namespace: list[str]
    key: str
    value: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    score: float | None = None
