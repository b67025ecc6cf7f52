"""The rules of each kind of fact, applied to one clause of a turn.

Medications (dose, frequency, status), allergies (reaction), conditions,
appointments and procedures (date, time), symptoms (onset), the preferred
name and language, care instructions and preferences. Each rule needs a
term from the vocabulary and a cue that the patient states it of themself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from .changes import CurrentFact, FactChange
from .identity import preferred_language_changes, preferred_name_changes
from .medications import medications
from .ordinals import day_of_month
from .reconcile import add_or_supersede, close, slug
from .vocabulary import said_words, words_of
from .when import find_date, find_onset, find_slash_date, find_time

if TYPE_CHECKING:
    from .extract import Clause

__all__ = ["clause_changes"]

_REACTION_WORDS = re.compile(
    r"\b(?:hives|rash|swell\w*|welts|itch\w*|anaphyla\w*|nausea|vomit\w*|throw(?:ing|s)? up|"
    r"threw up|wheez\w*|blister\w*|throat|lips?|tongue|diarrh\w*|trouble breathing|can't breathe|"
    r"urticaria|sarpullido|ronchas|picazon|comezon|hinch\w*|pica|me pica|diarrea|vomito\w*|"
    r"urticaire|plaques|demangeaisons|eczema|boutons|oedeme|gonfl\w*|gratt\w*|diarrhee|vomi\w*)\b|"
    r"طفح|تورم|حكة|إسهال|اسهال|قيء|استفراغ"
)
_CALLED_ME = re.compile(r"\b(?:calls? me|called me|me dicen|me llaman|m'appellent)\b|ينادونني")
_CUT = re.compile(r"\s*(?:,|\.|;|\band\b|\bbut\b|\by\b|\bet\b|\bو)\s*")


def _first(match: re.Match[str]) -> str:
    return next((g for g in match.groups() if g), "")


def _mentions(clause: Clause, section: str) -> list[tuple[int, str]]:
    return [(m.start, m.key) for m in clause.mentions if m.section == section]


def _for_self(clause: Clause) -> bool:
    """The clause speaks of the patient, not of someone else."""
    return clause.cues.other.search(clause.text) is None


def _reacts(clause: Clause) -> bool:
    """ "eggs make me break out in hives", "el ibuprofeno me da ronchas": a reaction
    to a named allergen or drug, said without the word allergy."""
    if not any(m.section in ("allergens", "drugs") for m in clause.mentions):
        return False
    said = clause.cues.reaction.search(clause.text)
    return said is not None and _REACTION_WORDS.search(_first(said)) is not None


def _as_said(clause: Clause, folded: str) -> str:
    """``folded`` (words of the clause's text) in the patient's spelling, when found."""
    want = folded.split()
    plain, said = words_of(clause.raw), said_words(clause.raw)
    for at in range(len(plain) - len(want) + 1):
        if plain[at : at + len(want)] == want:
            return " ".join(said[at : at + len(want)])
    return folded


def clause_changes(
    clause: Clause,
    current: Mapping[str, CurrentFact],
    ordered: Sequence[CurrentFact],
    now: datetime | None,
) -> Iterator[FactChange]:
    """The changes one clause makes, kind by kind."""
    if not _for_self(clause):
        # "my grandkids call me nani now": what others call the patient is the patient's
        named = clause.cues.name.search(clause.text)
        if clause.role == "user" and named and _CALLED_ME.search(named.group(0)):
            yield from preferred_name_changes(clause, current, False)
        yield from _disowned(clause, current)
        return
    cues = clause.cues
    corrected = bool(cues.correction.search(clause.text))
    allergic = bool(cues.allergy.search(clause.text)) or _reacts(clause)
    said_name = False
    if clause.role == "user":
        for change in preferred_name_changes(clause, current, corrected):
            said_name = True
            yield change
    found_language = False
    if not said_name:
        for change in preferred_language_changes(clause, current):
            found_language = True
            yield change
    stated = False
    if allergic:
        for change in _allergies(clause, current, corrected):
            stated = True
            yield change
    elif not clause.asked:
        for change in medications(clause, current, ordered, corrected):
            stated = True
            yield change
    if clause.asked:
        return
    for change in _conditions(clause, current):
        stated = True
        yield change
    timed = list(_appointments(clause, current, now))
    yield from timed
    if not timed:
        for change in _procedures(clause, current, now):
            stated = True
            yield change
    stated = stated or bool(timed)
    if not allergic:
        for change in _symptoms(clause, current, now):
            stated = True
            yield change
    if clause.role == "user" and not said_name and not found_language and not stated:
        yield from _instructions(clause, current)


def _allergies(
    clause: Clause, current: Mapping[str, CurrentFact], corrected: bool
) -> Iterator[FactChange]:
    cues, text = clause.cues, clause.text
    names = [k for _, k in _mentions(clause, "allergens") + _mentions(clause, "drugs")]
    if not names or (clause.asked and clause.role == "user"):
        return
    plain = cues.unable.sub(" ", text)  # "I can't take X": not a denied allergy
    if cues.negation.search(plain) or cues.retract.search(plain):
        if cues.hedge.search(text):
            return
        for name in names:
            old = current.get(f"allergy:{name}")
            if old is not None:
                yield close(old, corrected=corrected)
        return
    reaction = ""
    for said in cues.reaction.finditer(text):
        pieces = [p.strip() for p in _CUT.split(_first(said)) if p.strip()]
        # "makes me sick, my throat closes up": the piece that names a reaction
        pieces = [p for p in pieces if _REACTION_WORDS.search(p)] or pieces[:1]
        candidate = pieces[0] if pieces else ""
        candidate = re.sub(r"^(?:a|an|some|un|una|une|1|des|de la|du)\s+", "", candidate)
        named = any(n.replace("-", " ") in candidate for n in names)
        if candidate and not named and not cues.allergy.search(candidate):
            reaction = candidate
            break
    if not reaction:
        word = _REACTION_WORDS.search(text)
        reaction = word.group(0) if word else ""
    for name in names:
        attrs = {"name": name.replace("-", " ")}
        if reaction:
            attrs["reaction"] = _as_said(clause, " ".join(reaction.split()[:6]))
        value = attrs.get("reaction", attrs["name"])
        change = add_or_supersede("allergy", f"allergy:{name}", value, attrs, current)
        if change is not None:
            yield change


def _disowned(clause: Clause, current: Mapping[str, CurrentFact]) -> Iterator[FactChange]:
    """ "that clindamycin thing was my late wife not me", "the naproxen allergy on my
    chart was my sister's, not mine": a current allergy or condition of the patient
    said to be someone else's is closed."""
    if clause.role != "user" or clause.asked or not clause.cues.disown.search(clause.text):
        return
    for mention in clause.mentions:
        kind = {"allergens": "allergy", "drugs": "allergy", "conditions": "condition"}.get(
            mention.section
        )
        old = current.get(f"{kind}:{mention.key}") if kind else None
        if old is not None:
            yield close(old, corrected=True)


def _conditions(clause: Clause, current: Mapping[str, CurrentFact]) -> Iterator[FactChange]:
    cues, text = clause.cues, clause.text
    conditions = _mentions(clause, "conditions")
    if not conditions or not cues.condition.search(text) or cues.hedge.search(text):
        return
    negated = bool(cues.negation.search(text))
    for _, name in conditions:
        key = f"condition:{name}"
        if negated:
            continue
        attrs = {"name": name.replace("-", " ")}
        change = add_or_supersede("condition", key, attrs["name"], attrs, current)
        if change is not None:
            yield change


def _dated(clause: Clause, now: datetime | None, past: bool) -> dict[str, str]:
    attrs: dict[str, str] = {}
    found = find_date(clause.text, now, past=past) or find_slash_date(
        clause.raw, now, day_first=clause.language not in (None, "en"), past=past
    )
    if found is not None:
        attrs["when"] = _as_said(clause, found[0])
        if found[1]:
            attrs["date"] = found[1]
    time = find_time(clause.text)
    if time:
        attrs["time"] = time
    return attrs


def _appointments(
    clause: Clause, current: Mapping[str, CurrentFact], now: datetime | None
) -> Iterator[FactChange]:
    cues, text = clause.cues, clause.text
    specialties = _mentions(clause, "specialties")
    moved = bool(cues.move.search(text))
    if not specialties and moved and not clause.mentions:
        # "they moved it to the 17th, same time": the only current appointment
        held = [f.key for f in current.values() if f.kind == "appointment" and f.key]
        specialties = [(0, held[0].partition(":")[2])] if len(held) == 1 else []
    if not specialties or not (cues.appointment.search(text) or moved):
        return
    attrs = _dated(clause, now, past=False)
    name = specialties[0][1]
    old = current.get(f"appointment:{name}")
    if moved and "date" not in attrs and old is not None:
        attrs.update(_moved_to_day(clause, old))
    if not attrs:
        return
    attrs["name"] = name.replace("-", " ")
    if "time" not in attrs and old is not None and "time" in old.attributes and "date" in attrs:
        attrs["time"] = old.attributes["time"]
    value = " ".join(v for v in (attrs.get("date") or attrs.get("when"), attrs.get("time")) if v)
    change = add_or_supersede("appointment", f"appointment:{name}", value, attrs, current)
    if change is not None:
        yield change


def _moved_to_day(clause: Clause, old: CurrentFact) -> dict[str, str]:
    """ "they moved me to the seventeenth, same time": a day with no month is in
    the month of the date it moves from."""
    day = day_of_month(clause.words)
    before = old.attributes.get("date", "")
    if day is None or len(before) != 10:
        return {}
    try:
        moved = date.fromisoformat(before).replace(day=day)
    except ValueError:
        return {}
    return {"date": moved.isoformat(), "when": _as_said(clause, str(day))}


def _procedures(
    clause: Clause, current: Mapping[str, CurrentFact], now: datetime | None
) -> Iterator[FactChange]:
    procedures = _mentions(clause, "procedures")
    if not procedures or clause.cues.negation.search(clause.text):
        return
    attrs = _dated(clause, now, past=bool(clause.cues.past.search(clause.text)))
    if not attrs:
        return
    name = procedures[0][1]
    attrs["name"] = name.replace("-", " ")
    value = " ".join(v for v in (attrs.get("date") or attrs.get("when"), attrs.get("time")) if v)
    change = add_or_supersede("procedure", f"procedure:{name}", value, attrs, current)
    if change is not None:
        yield change


def _symptoms(
    clause: Clause, current: Mapping[str, CurrentFact], now: datetime | None
) -> Iterator[FactChange]:
    cues, text = clause.cues, clause.text
    symptoms = _mentions(clause, "symptoms")
    if not symptoms or not cues.self.search(text) or cues.negation.search(text):
        return
    onset = find_onset(text, now)
    for _, name in symptoms[:1] if onset else symptoms:
        attrs = {"name": name.replace("-", " ")}
        if onset is not None:
            attrs["onset"] = _as_said(clause, onset[0])
            if onset[1]:
                attrs["onset_date"] = onset[1]
        value = " ".join(v for v in (attrs["name"], attrs.get("onset")) if v)
        change = add_or_supersede("symptom", f"symptom:{name}", value, attrs, current)
        if change is not None:
            yield change


def _instructions(clause: Clause, current: Mapping[str, CurrentFact]) -> Iterator[FactChange]:
    cues = clause.cues
    for kind, cue in (("care_instruction", cues.care), ("preference", cues.preference)):
        match = cue.search(clause.text)
        if match is None:
            continue
        rest = (
            clause.text[match.end() :].strip()
            if kind == "preference"
            else clause.text[match.start() :]
        )
        words = [w for w in rest.split() if len(w) > 2][:4]
        if len(rest.split()) < 2 or not words:
            continue
        key = f"{kind}:{slug(' '.join(words))}"
        value = clause.said_tail(len(rest.split())) or rest
        change = add_or_supersede(kind, key, value, {}, current)
        if change is not None:
            yield change
        return
