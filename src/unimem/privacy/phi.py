"""PHI detection: find protected health information in one utterance.

:func:`detect_phi` is pure and synchronous: rules, a medical-terms lexicon and
context cues, no model and no I/O after the lexicon's first lazy load. It reads
typed text and voice transcripts (lowercase, unpunctuated, numbers and dates
spoken as words) in English, and Spanish, French and Arabic for phones, emails,
numbers, dates, ages and introduced names.

Detectors run from the most structured to the least, each claiming tokens the
later ones can no longer take: emails/URLs/IPs, dates, street addresses, names,
ages, then identifiers and phone numbers.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import StrEnum

from ..errors import InvalidInputError
from .phi_dates import find_dates
from .phi_doc import Doc
from .phi_lexicon import get_lexicon
from .phi_names import find_names
from .phi_numbers import find_ages, find_identifiers
from .phi_patterns import find_spoken_addresses, find_typed_patterns
from .phi_places import find_addresses

__all__ = ["PhiFinding", "PhiType", "detect_phi"]


class PhiType(StrEnum):
    """The kinds of PHI found (HIPAA Safe Harbor identifiers relevant to conversations)."""

    PERSON = "PERSON"
    PHONE = "PHONE"
    EMAIL = "EMAIL"
    #: A calendar date of a person (birth, admission, visit), not "this morning".
    DATE = "DATE"
    MRN = "MRN"
    SSN = "SSN"
    ADDRESS = "ADDRESS"
    URL = "URL"
    IP_ADDRESS = "IP_ADDRESS"
    #: Insurance, member, policy, group and account numbers.
    ACCOUNT = "ACCOUNT"
    AGE_OVER_89 = "AGE_OVER_89"


@dataclass(frozen=True, slots=True)
class PhiFinding:
    """One piece of PHI: ``text == source[start:end]``; ``score`` in 0..1 (rule confidence).

    ``text`` is PHI itself: never log it; log ``type`` and counts instead.
    """

    type: PhiType
    start: int
    end: int
    text: str
    score: float

    def __repr__(self) -> str:
        # Keep the value out of tracebacks and debug logs.
        return f"PhiFinding(type={self.type.value}, start={self.start}, end={self.end})"


#: The detectors claim spans with these values only.
_TYPES = {type_.value: type_ for type_ in PhiType}
_START = operator.attrgetter("start")

_STEPS = (
    find_typed_patterns,
    find_spoken_addresses,
    find_dates,
    find_addresses,
    find_names,
    find_ages,
    find_identifiers,
)


def detect_phi(text: str, language: str | None = None) -> list[PhiFinding]:
    """Find the PHI in ``text``, sorted by position, never overlapping.

    Args:
        text: one utterance or message, typed or transcribed.
        language: optional ISO 639-1 hint ("en", "es-MX", ...). Every supported
            language's rules always run; the hint only settles words that are a
            number in one language and a plain word in another (Spanish "once").

    Raises:
        InvalidInputError: ``text`` is not a string or ``language`` not a string or None.
        ConfigurationError: the deployment's medical terms file cannot be read.
    """
    if not isinstance(text, str):
        raise InvalidInputError("text must be a string", field="text")
    if language is not None and not isinstance(language, str):
        raise InvalidInputError("language must be an ISO 639-1 code or None", field="language")
    if not text.strip():
        return []
    lang = language.split("-")[0].split("_")[0].lower() if language else None
    doc = Doc.build(text, get_lexicon(), lang)
    for step in _STEPS:
        step(doc)
    return [
        PhiFinding(_TYPES[s.type], s.start, s.end, text[s.start : s.end], s.score)
        for s in sorted(doc.spans, key=_START)
    ]
