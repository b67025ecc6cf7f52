"""Find the facts a turn states about the user: the offline rules.

:func:`extract_facts` reads one turn (typed, or a voice transcript: lowercase,
fillers, numbers in words) clause by clause and returns the changes it makes
to the user's current facts. Clauses about other people ("my mom is allergic
to penicillin"), questions, and chatter give nothing. Synchronous, no I/O.

:func:`read_turn` does the part that needs no current facts (the clauses,
their words and vocabulary terms) once; its :attr:`TurnReading.may_state_facts`
says whether any rule could find anything in the turn whatever the user's
current facts are, so a caller that must fetch those facts skips the fetch
for a turn of chatter, and hands the reading to :func:`extract_facts`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from .changes import CurrentFact, FactChange, FactOp
from .cues import Cues, base_language, cues_for
from .discussed import bind_current
from .kinds import clause_changes
from .reconcile import index_current
from .vocabulary import Mention, find_terms, fold, said_words, words_of
from .when import dose_in, normalize_numbers

__all__ = ["Clause", "TurnReading", "extract_facts", "read_turn"]

_SPLIT = re.compile(r"(?<=[.!?;؟])\s+|\n+|\s+(?:but|pero|mais|لكن)\s+(?=i\b|yo\b|je\b|j'|أنا)")
_FILLERS = frozenset(
    [
        "um",
        "umm",
        "uh",
        "uhh",
        "er",
        "erm",
        "hmm",
        "mm",
        "eh",
        "euh",
        "ben",
        "bah",
        "so",
        "well",
        "voila",
        "bon",
        "bueno",
        "pues",
        "اممم",
        "امم",
        "يعني",
    ]
)
_MAX_TEXT = 4000  # a turn longer than this is read up to here: facts come in short sentences


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a turn, as the rules read it."""

    raw: str  # as written (names keep their case)
    text: str  # folded, fillers dropped, numbers as digits
    words: tuple[str, ...]
    mentions: tuple[Mention, ...]
    asked: bool  # a question
    role: str
    cues: Cues
    language: str | None = None

    def offset(self, word: int) -> int:
        """Where word ``word`` starts in :attr:`text`."""
        return sum(len(w) + 1 for w in self.words[:word])

    def said_tail(self, count: int) -> str:
        """The last ``count`` words as written (accents kept, fillers dropped)."""
        said = [w for w in said_words(self.raw) if fold(w) not in _FILLERS]
        return " ".join(said[-count:]) if count > 0 else ""


_FILLER_PAIRS = frozenset([("you", "know"), ("o", "sea")])
# "este" is a Spanish filler ("eh, este...") unless it names a time ("este jueves")
_AFTER_ESTE = frozenset(
    [
        "lunes",
        "martes",
        "miercoles",
        "jueves",
        "viernes",
        "sabado",
        "domingo",
        "mes",
        "ano",
        "fin",
        "verano",
        "invierno",
        "otono",
    ]
)


def normalize_words(raw: str, language: str | None) -> list[str]:
    """Folded words, fillers dropped ("um", "you know", "o sea"), spoken numbers as digits."""
    words = [w for w in words_of(raw) if w not in _FILLERS]
    words = [
        w
        for i, w in enumerate(words)
        if w != "este" or (i + 1 < len(words) and words[i + 1] in _AFTER_ESTE)
    ]
    kept: list[str] = []
    for word in words:
        if kept and (kept[-1], word) in _FILLER_PAIRS:
            kept.pop()
            continue
        kept.append(word)
    return normalize_numbers(kept, language)


def _clauses(text: str, role: str, language: str | None) -> list[Clause]:
    language = base_language(language)  # es-MX reads as es
    cues = cues_for(language)
    out: list[Clause] = []
    for raw in _SPLIT.split(text[:_MAX_TEXT]):
        raw = raw.strip()
        if not raw:
            continue
        words = tuple(normalize_words(raw, language))
        if not words:
            continue
        folded = " ".join(words)
        asked = raw.rstrip().endswith(("?", "؟")) or raw.lstrip().startswith("¿")
        asked = asked or bool(cues.question.match(folded))
        mentions = tuple(find_terms(list(words)))
        out.append(Clause(raw, folded, words, mentions, asked, role, cues, language))
    return out


def _candidate(clause: Clause) -> bool:
    """Whether any rule could find a change in ``clause``, whatever the current
    facts: every rule of :func:`~unimem.facts.kinds.clause_changes` needs a
    vocabulary term, a dose, a rejected number ("25, not 50") or, from the
    user, a cue of a name, a care instruction or a preference; an assistant's
    clause needs a confirmation and anyone's must speak of the patient."""
    cues, text = clause.cues, clause.text
    if clause.role == "assistant" and not cues.confirm.search(text):
        return False
    if cues.other.search(text):  # someone else's: only a disowned fact or a name is read
        return clause.role == "user" and bool(cues.disown.search(text) or cues.name.search(text))
    if clause.mentions or cues.stale.search(text) or dose_in(text):
        return True
    # a current fact named in words the vocabulary lacks: "le baclofène, il l'a arrêté"
    if any(cue.search(text) for cue in (cues.stop, cues.change, cues.correction, cues.move)):
        return True
    return clause.role == "user" and any(
        cue.search(text) for cue in (cues.name, cues.care, cues.preference)
    )


@dataclass(frozen=True, slots=True)
class TurnReading:
    """One turn as the rules read it before looking at any current fact.

    Attributes:
        text: the turn.
        role: its role.
        language: its language, ``None`` when unknown.
        clauses: its clauses.
        may_state_facts: whether :func:`extract_facts` could return a change
            for it with any current facts; ``False`` means it returns none.
    """

    text: str
    role: str
    language: str | None
    clauses: tuple[Clause, ...]
    may_state_facts: bool


def read_turn(text: str, *, role: str, language: str | None) -> TurnReading:
    """Read a turn once: its clauses, and whether it may state any fact.

    Args:
        text: the turn as written or transcribed.
        role: ``user`` or ``assistant`` (any other role states no fact).
        language: ISO 639-1 code of the turn, ``None`` when unknown.
    """
    if role not in ("user", "assistant") or not text or text.isspace():
        return TurnReading(text, role, language, (), False)
    clauses = tuple(_clauses(text, role, language))
    return TurnReading(text, role, language, clauses, any(_candidate(c) for c in clauses))


def extract_facts(
    text: str,
    *,
    role: str,
    language: str | None,
    current: Sequence[CurrentFact],
    now: datetime | None = None,
    reading: TurnReading | None = None,
) -> list[FactChange]:
    """The changes one turn makes to the user's current facts.

    Args:
        text: the turn as written or transcribed.
        role: ``user`` (the patient's own statements) or ``assistant`` (only
            its confirmations count: "I've noted a sulfa allergy"); any other
            role gives nothing.
        language: ISO 639-1 code of the turn, ``None`` when unknown. English,
            Spanish, French and Arabic have cues of their own; any other
            language is read with all of theirs (drug names, doses and dates
            are found in any language).
        current: the user's current facts (``valid_to`` is None).
        now: when the turn was said, to resolve relative dates ("next
            thursday"); without it dates are kept as said.
        reading: :func:`read_turn` of this same text, role and language,
            when the caller has it (read again otherwise).

    Returns:
        The changes in the order the turn states them, at most one per key and
        one per current fact.
    """
    if reading is None or (reading.text, reading.role, reading.language) != (text, role, language):
        reading = read_turn(text, role=role, language=language)
    index: dict[str, CurrentFact] = index_current(current)
    ordered = [fact for fact in current if fact.key]
    found: dict[str, FactChange] = {}
    for clause in reading.clauses:
        if role == "assistant" and not clause.cues.confirm.search(clause.text):
            continue
        for change in clause_changes(bind_current(clause, index), index, ordered, now):
            previous = found.get(change.key)
            merged = change if previous is None else _carry(change, previous)
            if merged is None:
                del found[change.key]
                index = _after(index, change)
                continue
            found[change.key] = merged
            index = _after(index, merged)
    return list(found.values())


def _carry(change: FactChange, previous: FactChange) -> FactChange | None:
    """A second change of one key in a turn: an add stays an add (or vanishes when
    closed at once); a supersede still replaces the fact the first one replaced."""
    if previous.op == "add":
        if change.op == "close":
            return None
        op: FactOp = "add"
        replaces = None
    else:
        op = "close" if change.op == "close" else "supersede"
        replaces = previous.replaces
    return FactChange(
        op,
        change.kind,
        change.key,
        change.value,
        change.attributes,
        change.text,
        change.corrected or previous.corrected,
        replaces,
    )


@dataclass(frozen=True, slots=True)
class _Pending:
    id: str
    kind: str
    key: str | None
    value: str | None
    attributes: Mapping[str, str]


def _after(index: dict[str, CurrentFact], change: FactChange) -> dict[str, CurrentFact]:
    """The current facts as they stand after ``change``, for the turn's next clause."""
    out = dict(index)
    if change.op == "close":
        out.pop(change.key, None)
        return out
    old = index.get(change.key)
    out[change.key] = _Pending(
        old.id if old is not None else "", change.kind, change.key, change.value, change.attributes
    )
    return out
