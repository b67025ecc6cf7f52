"""The facts of a user's episodic layer, with their history and bounds."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from ..validation import is_valid_id
from .base import StrictModel, as_utc, check_text

__all__ = [
    "FACT_KEY_CHARS",
    "FACT_MAX_ATTRIBUTES",
    "FACT_MAX_SOURCES",
    "FACT_VALUE_CHARS",
    "Fact",
    "FactStatus",
]

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


class Fact(StrictModel):
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
        return None if value is None else check_text(value, str(info.field_name))

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
            check_text(item, f"attributes.{name}")
        return value

    @field_validator("created_at", "valid_from", "valid_to")
    @classmethod
    def _created(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @property
    def current(self) -> bool:
        """Whether the fact holds now (it was not closed by a later one)."""
        return self.valid_to is None
