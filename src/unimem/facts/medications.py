"""The medication rule, applied to one clause of a turn: a medicine taken (dose,
frequency), its dose changed or corrected, stopped, or replaced by another
("they switched me from X to Y": the old one stops, the new one is taken)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from .changes import CurrentFact, FactChange
from .reconcile import add_or_supersede
from .when import dose_in

if TYPE_CHECKING:
    from .extract import Clause

__all__ = ["medications"]


def _first(match: re.Match[str]) -> str:
    return next((g for g in match.groups() if g), "")


def medications(
    clause: Clause,
    current: Mapping[str, CurrentFact],
    ordered: Sequence[CurrentFact],
    corrected: bool,
) -> Iterator[FactChange]:
    cues, text = clause.cues, clause.text
    drugs = [(m.start, m.key) for m in clause.mentions if m.section == "drugs"]
    doses = dose_in(text)
    stopped = bool(cues.stop.search(text))
    if not drugs:
        if doses and (corrected or _dose_changed(clause)):
            yield from _dose_correction(clause, doses, ordered, corrected=corrected)
        elif not doses:
            yield from _bare_correction(clause, ordered)
        return
    negated = bool(cues.negation.search(cues.stale.sub("", text))) and not stopped
    if negated or cues.hedge.search(text):
        return
    replaced = _replaced(clause, drugs, current)
    taking = bool(cues.take.search(text)) or bool(cues.confirm.search(text))
    changed = bool(cues.change.search(text))
    frequency = cues.frequency.search(text)
    for number, (start, name) in enumerate(drugs):
        key = f"medication:{name}"
        old = current.get(key)
        end = drugs[number + 1][0] if number + 1 < len(drugs) else len(clause.words)
        lo, hi = clause.offset(start), clause.offset(end)
        mine = [d for at, d in doses if lo <= at < hi] or (
            [d for _, d in doses] if len(drugs) == 1 else []
        )
        # a stop cue belongs to the medicine it is said with ("stopped X but still take Y")
        since = clause.offset(drugs[number - 1][0] + 1) if number else 0
        stopped = bool(cues.stop.search(text[since:hi]))
        if not mine and old is not None and old.attributes.get("dose"):
            mine = _unitless(text[since:hi], old.attributes["dose"], cues.stale)
        if not mine and old is not None and old.attributes.get("dose"):
            scale = _SCALED.search(text[since:hi])
            if scale:
                mine = [_times(old.attributes["dose"], 0.5 if _HALF.match(scale.group(0)) else 2)]
        if number == replaced:  # the medicine another one replaces stops
            if old is not None:
                stop = add_or_supersede(
                    "medication", key, old.value or name, {"status": "stopped"}, current
                )
                if stop is not None:
                    yield stop
            continue
        if replaced is not None:
            taking, stopped = True, False
        if not (taking or mine or stopped or (old is not None and (changed or corrected))):
            continue
        attrs: dict[str, str] = {"name": name}
        if mine:
            attrs["dose"] = mine[0]
        if frequency and len(drugs) == 1:
            attrs["frequency"] = frequency.group(0)
        if stopped:
            attrs["status"] = "stopped"
        else:
            attrs["status"] = "taking"
        merged = {**(old.attributes if old is not None else {}), **attrs}
        value = " ".join(v for v in (merged.get("dose"), merged.get("frequency")) if v) or name
        change = add_or_supersede("medication", key, value, attrs, current, corrected=corrected)
        if change is not None:
            yield change


_SCALED = re.compile(
    r"\b(?:in half|by half|half the dose|halved|doubled|double the dose|a la mitad|la mitad|"
    r"de moitie|la moitie|double)\b|النصف|الضعف"
)
_HALF = re.compile(r".*(?:half|mitad|moitie|النصف)")
_BARE = re.compile(r"(?<![\d.:])(\d+(?:\.\d+)?)(?![\d.:])")


def _unitless(text: str, dose: str, stale: re.Pattern[str]) -> list[str]:
    """ "la rosuvastatina es de 5 no de 10": the medicine's dose was 10, so the one
    number said before the rejected one is its dose, in the old dose's unit."""
    rejected = stale.search(text)
    amount, _, unit = dose.partition(" ")
    if rejected is None or _first(rejected) != amount:
        return []
    said = [m.group(1) for m in _BARE.finditer(text[: rejected.start()])]
    return [f"{said[0]} {unit}".strip()] if len(said) == 1 and said[0] != amount else []


def _times(dose: str, factor: float) -> str:
    """``dose`` ("10 mg") scaled: "5 mg" for half, "20 mg" for double."""
    amount, _, unit = dose.partition(" ")
    try:
        value = float(amount) * factor
    except ValueError:
        return dose
    said = f"{value:g}"
    return f"{said} {unit}".strip()


def _bare_correction(clause: Clause, ordered: Sequence[CurrentFact]) -> Iterator[FactChange]:
    """ "it was 25 not 50", "sorry, it's twenty, not ten": numbers without a unit,
    the rejected one a current medicine's dose; that medicine takes the other."""
    stale = clause.cues.stale.search(clause.text)
    if stale is None:
        return
    wrong = _first(stale)
    target = next(
        (
            f
            for f in reversed(ordered)
            if f.kind == "medication"
            and f.key
            and (f.attributes.get("dose") or "").split(" ")[0] == wrong
        ),
        None,
    )
    if target is None or not target.key:
        return
    said = [m.group(1) for m in _BARE.finditer(clause.text[: stale.start()])]
    if len(said) != 1 or said[0] == wrong:
        return
    unit = target.attributes["dose"].partition(" ")[2]
    dose = f"{said[0]} {unit}".strip()
    attrs = {**target.attributes, "dose": dose}
    value = " ".join(v for v in (dose, attrs.get("frequency")) if v)
    change = add_or_supersede(
        "medication", target.key, value, attrs, {target.key: target}, corrected=True
    )
    if change is not None:
        yield change


_DOSE_WORD = re.compile(r"\b(?:dose|dosage|dosis)\b|جرعة|الجرعة")


def _dose_changed(clause: Clause) -> bool:
    """ "they bumped it up to 20 mg", "me subieron la dosis a 20 mg": a new dose
    with no drug named, said as a change (not denied, not hedged)."""
    cues, text = clause.cues, clause.text
    if cues.negation.search(cues.stale.sub("", text)) or cues.hedge.search(text):
        return False
    return bool(cues.change.search(text)) or bool(_DOSE_WORD.search(text))


def _replaced(
    clause: Clause, drugs: list[tuple[int, str]], current: Mapping[str, CurrentFact]
) -> int | None:
    """Which of the clause's medicines another one replaces ("they switched me from X
    to Y", "Y instead of X", "on m'a fait passer du X au Y", "Y بدل X"), or None.

    The one said after "instead of" (or its like); else, of two or more, the only
    one that is current; else the one said after "from"; else the first. Whichever
    it is stops, so no replaced medicine stays current."""
    cues, text = clause.cues, clause.text
    starts = [clause.offset(start) for start, _ in drugs]
    strong = {m.end() for m in cues.replaced.finditer(text)}
    after = [i for i, at in enumerate(starts) if at in strong]
    if after:
        return after[0]
    if len(drugs) < 2 or not cues.switch.search(text):
        return None
    held = [i for i, (_, name) in enumerate(drugs) if f"medication:{name}" in current]
    if len(held) == 1:
        return held[0]
    weak = {m.end() for m in cues.source.finditer(text)}
    source = [i for i, at in enumerate(starts) if at in weak]
    return source[0] if len(source) == 1 else 0


def _dose_correction(
    clause: Clause,
    doses: list[tuple[int, str]],
    ordered: Sequence[CurrentFact],
    *,
    corrected: bool = True,
) -> Iterator[FactChange]:
    """ "actually it's 20 mg, not 10": the medication whose dose was 10 (none when no
    medication's was); a new dose said with no drug and no rejected one ("they
    bumped it up to 20 mg") changes the latest one with a dose."""
    stale = clause.cues.stale.search(clause.text)
    wrong = _first(stale) if stale else ""
    medications = [f for f in ordered if f.kind == "medication" and f.attributes.get("dose")]
    target = next(
        (f for f in reversed(medications) if f.attributes["dose"].split()[0] == wrong), None
    )
    if target is None and not wrong:  # a rejected dose no medicine has names none of them
        target = medications[-1] if medications else None
    if target is None or not target.key:
        return
    dose = doses[0][1]
    attrs = {**target.attributes, "dose": dose}
    value = " ".join(v for v in (dose, attrs.get("frequency")) if v)
    change = add_or_supersede(
        "medication", target.key, value, attrs, {target.key: target}, corrected=corrected
    )
    if change is not None:
        yield change
