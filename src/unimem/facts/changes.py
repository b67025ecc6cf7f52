"""What the facts core hands back: a change to the user's current facts.

A :class:`FactChange` adds a fact under a new key, supersedes a current fact
(the old one is closed, the new one added, so the history is kept) or closes
one with no new value (an allergy retracted). :func:`fact_line` renders the
one line an LLM reads ("Medication: lisinopril 20 mg once daily (taking)").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

__all__ = [
    "FACT_KINDS",
    "KIND_LABELS",
    "CurrentFact",
    "FactChange",
    "FactOp",
    "fact_line",
]

#: The kinds of fact the core finds, in the order a context lists them.
FACT_KINDS: tuple[str, ...] = (
    "allergy",
    "medication",
    "condition",
    "procedure",
    "appointment",
    "symptom",
    "preferred_name",
    "preferred_language",
    "care_instruction",
    "preference",
)

#: How each kind is named in a fact line.
KIND_LABELS: Mapping[str, str] = {
    "allergy": "Allergy",
    "medication": "Medication",
    "condition": "Condition",
    "procedure": "Procedure",
    "appointment": "Appointment",
    "symptom": "Symptom",
    "preferred_name": "Preferred name",
    "preferred_language": "Preferred language",
    "care_instruction": "Care instruction",
    "preference": "Preference",
}

FactOp = Literal["add", "supersede", "close"]

# Attributes shown after the value, in this order, when the value does not say them.
_SHOWN = ("dose", "frequency", "reaction", "date", "time", "when", "onset", "onset_date")


class CurrentFact(Protocol):
    """What the core reads of a current fact (``unimem.models.Fact`` is one)."""

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def key(self) -> str | None: ...

    @property
    def value(self) -> str | None: ...

    @property
    def attributes(self) -> Mapping[str, str]: ...


@dataclass(frozen=True, slots=True)
class FactChange:
    """One change to the user's current facts.

    Attributes:
        op: ``add`` (a key with no current fact), ``supersede`` (replaces the
            current fact ``replaces``: it is closed and this one added) or
            ``close`` (ends the current fact ``replaces`` with no new value).
        kind: one of :data:`FACT_KINDS`.
        key: what the fact is about: ``medication:lisinopril``, ``allergy:sulfa``,
            ``preferred_name``, ``appointment:cardiology``.
        value: the fact's value: ``20 mg once daily``, ``hives``, ``Bea``.
        attributes: details (``name``, ``dose``, ``frequency``, ``status``,
            ``reaction``, ``date``, ``time``, ``when``, ``onset``, ...).
        text: the line an LLM reads, from :func:`fact_line`.
        corrected: the turn corrects what was said before ("actually it's 20 mg").
        replaces: id of the current fact superseded or closed (``None`` for ``add``).
    """

    op: FactOp
    kind: str
    key: str
    value: str
    attributes: Mapping[str, str] = field(default_factory=dict)
    text: str = ""
    corrected: bool = False
    replaces: str | None = None


def fact_line(kind: str, value: str, attributes: Mapping[str, str]) -> str:
    """The one line an LLM reads for a fact.

    ``fact_line("medication", "20 mg once daily", {"name": "lisinopril",
    "status": "taking"})`` is ``"Medication: lisinopril 20 mg once daily (taking)"``.
    The ``name`` attribute leads; attributes the value already says are not repeated.
    """
    label = KIND_LABELS.get(kind, kind.replace("_", " ").capitalize())
    name = attributes.get("name", "")
    head = name
    detail = name and value in (attributes.get(attr) for attr in _SHOWN)
    if value and value.lower().startswith(name.lower()):
        head = value  # the value already leads with the name ("dizziness for 3 days")
    elif value and not detail:
        head = f"{head} {value}".strip()
    said = head.lower()
    extra = [
        f"{attr.replace('_', ' ')}: {attributes[attr]}"
        for attr in _SHOWN
        if attributes.get(attr) and attributes[attr].lower() not in said
    ]
    status = attributes.get("status")
    if status:
        extra.insert(0, status)
    return f"{label}: {head}" + (f" ({', '.join(extra)})" if extra else "")
