"""Request and response bodies of the HTTP API that are not library models.

Entries, events, contexts, sessions, settings and receipts are the library's
own models (:mod:`unimem.models`), so the client and the service share them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..models import EventType, Mode, SessionInfo, SwitchTrigger
from ..validation import json_problem

__all__ = [
    "EventIn",
    "FactDeleted",
    "FactIn",
    "InterruptedIn",
    "LanguageSwitchIn",
    "LlmContextIn",
    "LlmContextOut",
    "ModeSwitchIn",
    "RagResults",
    "SessionPage",
    "Status",
]


def _free_json(value: list[str | dict[str, Any]] | None) -> list[str | dict[str, Any]] | None:
    problem = json_problem(value, "rag_results") if value else None
    if problem is not None:
        raise ValueError(problem)
    return value


#: Retrieved passages: strings, or objects with content/text and source
#: (free-form JSON, under the limits of :mod:`unimem.validation`).
RagResults = Annotated[
    list[str | dict[str, Any]] | None,
    AfterValidator(_free_json),
    Field(description="passages: strings, or objects with content/text and source"),
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class EventIn(_Body):
    """An event to record in a session."""

    event_type: EventType | str = Field(
        description="snake_case name, e.g. topic_change", max_length=64
    )
    data: dict[str, Any] = Field(default_factory=dict)


class FactIn(_Body):
    """A fact to pin for the caller: it appears in every context of theirs until deleted."""

    text: str = Field(description="the fact, e.g. 'Allergic to penicillin'")
    kind: str = Field(
        default="note",
        max_length=64,
        description="allergy, medication, diagnosis, preference, note, ...",
    )
    session_id: str | None = Field(
        default=None, max_length=128, description="the session the fact came from, if any"
    )


class EntryDeleted(BaseModel):
    """Whether the caller's session had the entry (and it is gone now)."""

    session_id: str
    entry_id: str
    deleted: bool


class FactCorrection(_Body):
    """The right value of one of the caller's facts (the old one is kept as history)."""

    value: str = Field(description="the right value, e.g. '20 mg' or 'penicillin'")
    attributes: dict[str, str] | None = Field(
        default=None,
        description="its attributes (dose, reaction, onset, ...); the old ones when omitted",
    )


class FactDeleted(BaseModel):
    """Whether the caller had the fact (and it is gone now)."""

    fact_id: str
    deleted: bool


class ModeSwitchIn(_Body):
    """A voice/text switch."""

    from_mode: Mode
    to_mode: Mode


class LanguageSwitchIn(_Body):
    """A language switch; languages are ISO 639 codes such as ``en`` or ``pt-BR``."""

    from_language: str = Field(max_length=35)
    to_language: str = Field(max_length=35)
    trigger: SwitchTrigger = SwitchTrigger.USER_REQUEST


class LlmContextIn(_Body):
    """What to build an LLM prompt context for."""

    current_query: str = Field(max_length=65536)
    rag_results: RagResults = None
    max_tokens: int = Field(default=4000, ge=1, le=1_000_000)
    model: str = Field(default="gpt-4o", max_length=100)
    budget_ms: float | None = Field(default=None, ge=0, le=60_000)
    reveal_phi: bool = Field(
        default=False,
        description="PHI values in place of tokens, for an LLM the deployment trusts "
        "(only where the server's UNIMEM_LLM_PHI is 'allowed')",
    )


class LlmContextOut(BaseModel):
    """LLM-ready messages within the token limit, and what was degraded to fit."""

    messages: list[dict[str, Any]]
    token_count: int
    degradations: list[str]
    summary_used: bool = False


class InterruptedIn(_Body):
    """What the assistant actually said before the user barged in."""

    spoken_text: str = Field(max_length=1_000_000)


class SessionPage(BaseModel):
    """One page of the caller's sessions, newest first."""

    sessions: list[SessionInfo]
    limit: int
    offset: int
    next_offset: int | None = Field(description="offset of the next page, null on the last")


class Status(BaseModel):
    """Health or readiness."""

    status: Literal["ok", "unavailable"]
    #: ``/healthz``: the store's kind (``sqlite``, ``postgresql``, ``memory``,
    #: ``redis+postgresql`` with a cache in front); ``/readyz``: ``ok``, or the
    #: name of the error the store answered.
    store: str | None = None
    #: Whether the server runs in local mode (no JWT secret: loopback only).
    local_mode: bool | None = None
