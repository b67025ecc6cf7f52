"""Build the labelled clinical dialogues: ``python tests/data/clinical/generate.py``.

Each dialogue is a long doctor-patient conversation (100+ turns) drawn, with a
fixed seed, from one bank of phrasings (``bank_tune.py`` or
``bank_heldout.py``). Every turn carries the fact changes it makes
(``expect``) and a ``tag`` (``fact``, ``correction``, ``change``, ``late``,
``confirm``, ``relative``, ``chatter``, ``question``, ``negation``); every
dialogue carries the facts current at its end (``final``) and the values that
were superseded and must never read as current (``superseded``).

An expected fact is ``{"kind", "key", "attrs"}``: ``attrs`` lists only the
details that are checked; a value starting with ``~`` must be contained in
the found one (lowercase), any other must equal it (lowercase, spaces
squeezed). ``value`` checks the fact's value the same way.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent

Fact = dict[str, Any]

_EN_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_EN_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ES_SMALL = [
    "cero",
    "uno",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "seis",
    "siete",
    "ocho",
    "nueve",
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
    "quince",
    "dieciséis",
    "diecisiete",
    "dieciocho",
    "diecinueve",
    "veinte",
    "veintiuno",
    "veintidós",
    "veintitrés",
    "veinticuatro",
    "veinticinco",
    "veintiséis",
    "veintisiete",
    "veintiocho",
    "veintinueve",
]
_ES_TENS = [
    "_",
    "_",
    "veinte",
    "treinta",
    "cuarenta",
    "cincuenta",
    "sesenta",
    "setenta",
    "ochenta",
    "noventa",
]
_ES_HUNDREDS = [
    "_",
    "ciento",
    "doscientos",
    "trescientos",
    "cuatrocientos",
    "quinientos",
    "seiscientos",
    "setecientos",
    "ochocientos",
    "novecientos",
]
_FR_SMALL = [
    "zéro",
    "un",
    "deux",
    "trois",
    "quatre",
    "cinq",
    "six",
    "sept",
    "huit",
    "neuf",
    "dix",
    "onze",
    "douze",
    "treize",
    "quatorze",
    "quinze",
    "seize",
    "dix-sept",
    "dix-huit",
    "dix-neuf",
]
_FR_TENS = [
    "_",
    "_",
    "vingt",
    "trente",
    "quarante",
    "cinquante",
    "soixante",
    "soixante",
    "quatre-vingt",
    "quatre-vingt",
]


def _en(n: int) -> str:
    if n < 20:
        return _EN_SMALL[n]
    if n < 100:
        return _EN_TENS[n // 10] + ("" if n % 10 == 0 else " " + _EN_SMALL[n % 10])
    rest = n % 100
    return _EN_SMALL[n // 100] + " hundred" + ("" if rest == 0 else " " + _en(rest))


def _es(n: int) -> str:
    if n < 30:
        return _ES_SMALL[n]
    if n < 100:
        return _ES_TENS[n // 10] + ("" if n % 10 == 0 else " y " + _ES_SMALL[n % 10])
    if n == 100:
        return "cien"
    rest = n % 100
    return _ES_HUNDREDS[n // 100] + ("" if rest == 0 else " " + _es(rest))


def _fr(n: int) -> str:
    if n < 20:
        return _FR_SMALL[n]
    if n < 100:
        tens, unit = n // 10, n % 10
        if tens in (7, 9):
            return _FR_TENS[tens] + "-" + _FR_SMALL[10 + unit]
        base = _FR_TENS[tens]
        if unit == 0:
            return base + ("s" if tens == 8 else "")
        return base + ("-et-" if unit == 1 and tens != 8 else "-") + _FR_SMALL[unit]
    rest = n % 100
    head = "cent" if n // 100 == 1 else _FR_SMALL[n // 100] + " cent"
    return head + ("" if rest == 0 else " " + _fr(rest))


SPOKEN: dict[str, Callable[[int], str]] = {"en": _en, "es": _es, "fr": _fr}
UNIT_WORDS = {"en": "milligrams", "es": "miligramos", "fr": "milligrammes", "ar": "ملغ"}
FILLERS = {
    "en": ["um", "uh", "you know", "like", "so", "well"],
    "es": ["eh", "este", "pues", "o sea", "bueno"],
    "fr": ["euh", "ben", "bah", "voilà", "en fait bon"],
    "ar": ["يعني", "اممم", "طيب", "والله"],
}


def dose_text(amount: str, language: str, voice: bool) -> str:
    """``10 mg`` typed, ``ten milligrams`` spoken (``12.5`` as ``twelve point five``)."""
    if not voice or language not in SPOKEN:
        return f"{amount} mg" if language != "ar" else f"{amount} ملغ"
    whole, _, part = amount.partition(".")
    words = SPOKEN[language](int(whole))
    if part:
        point = {"en": "point", "es": "punto", "fr": "virgule"}[language]
        words += f" {point} {SPOKEN[language](int(part))}"
    return f"{words} {UNIT_WORDS[language]}"


def voiced(text: str, language: str, rng: random.Random) -> str:
    """A speech recognizer's transcript of ``text``: lowercase, no punctuation, fillers."""
    out = text.lower()
    for mark in '.,!?;¿¡«»"':
        out = out.replace(mark, " " if mark in ",;" else "")
    words = out.split()
    if words and rng.random() < 0.6:
        words.insert(0, rng.choice(FILLERS[language]))
    if len(words) > 4 and rng.random() < 0.4:
        words.insert(rng.randrange(1, len(words) - 1), rng.choice(FILLERS[language]))
    return " ".join(words)


class Dialogue:
    """A dialogue under construction: turns, and the facts as they stand."""

    def __init__(self, ident: str, language: str, now: datetime, rng: random.Random) -> None:
        self.ident, self.language, self.now, self.rng = ident, language, now, rng
        self.turns: list[dict[str, Any]] = []
        self.current: dict[str, Fact] = {}
        self.superseded: list[Fact] = []

    def say(
        self, role: str, text: str, tag: str, expect: list[dict[str, Any]], voice: bool
    ) -> None:
        if voice:
            text = voiced(text, self.language, self.rng)
        self.turns.append(
            {
                "role": role,
                "style": "voice" if voice else "typed",
                "tag": tag,
                "text": text,
                "expect": expect,
            }
        )
        for change in expect:
            key = change["key"]
            old = self.current.get(key)
            if change["op"] in ("supersede", "close") and old is not None:
                self.superseded.append(self.current.pop(key))
            if change["op"] != "close":
                kept = old["attrs"] if old is not None and change["op"] == "supersede" else {}
                fact = {"kind": change["kind"], "key": key, "attrs": {**kept, **change["attrs"]}}
                if "value" in change:
                    fact["value"] = change["value"]
                self.current[key] = fact

    def as_json(self, split: str) -> dict[str, Any]:
        return {
            "id": self.ident,
            "split": split,
            "language": self.language,
            "now": self.now.isoformat(),
            "turns": self.turns,
            "final": sorted(self.current.values(), key=lambda f: f["key"]),
            "superseded": [old for old in self.superseded if not self._still_said(old)],
        }

    def _still_said(self, old: Fact) -> bool:
        # a value said wrong and corrected back: the first statement is current again
        now = self.current.get(old["key"])
        return (
            now is not None
            and all(now["attrs"].get(k) == v for k, v in old["attrs"].items())
            and (now.get("value") == old.get("value"))
        )


def change(op: str, kind: str, key: str, value: str | None = None, **attrs: str) -> dict[str, Any]:
    """One expected change (``attrs`` are the checked details)."""
    out: dict[str, Any] = {"op": op, "kind": kind, "key": key, "attrs": attrs}
    if value is not None:
        out["value"] = value
    return out


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build(bank: ModuleType, split: str) -> list[dict[str, Any]]:
    """Every dialogue of one bank, each from its own seeded generator."""
    out = []
    for number, (language, now_text, seed) in enumerate(bank.DIALOGUES):
        rng = random.Random(seed)
        dialogue = Dialogue(
            f"{split}-{number:02d}-{language}", language, datetime.fromisoformat(now_text), rng
        )
        run_script(dialogue, rng, bank)
        assert len(dialogue.turns) >= 100, (dialogue.ident, len(dialogue.turns))
        out.append(dialogue.as_json(split))
    return out


def main() -> None:
    for split in ("tune", "tune2", "heldout"):
        bank = _load(f"bank_{split}")
        data = build(bank, split)
        path = HERE / f"{split}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        turns = sum(len(d["turns"]) for d in data)
        print(f"{path.name}: {len(data)} dialogues, {turns} turns")
    for split in ("heldout2", "heldout3", "heldout4"):
        data = _load(f"script_{split}").build()
        path = HERE / f"{split}.json"
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{path.name}: {len(data)} dialogues, {sum(len(d['turns']) for d in data)} turns")


def days(now: datetime, n: int) -> str:
    """The ISO date ``n`` days from ``now``."""
    return (now + timedelta(days=n)).date().isoformat()


def weekday_after(now: datetime, weekday: int) -> str:
    """The first ``weekday`` (Monday 0) strictly after ``now``: "next thursday"."""
    ahead = (weekday - now.weekday() - 1) % 7 + 1
    return days(now, ahead)


MONTHS = {
    "en": "january february march april may june july august september october november december",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
    "diciembre",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "ar": "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر",
}
WEEKDAYS = {
    "en": "monday tuesday wednesday thursday friday saturday sunday",
    "es": "lunes martes miércoles jueves viernes sábado domingo",
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche",
    "ar": "الاثنين الثلاثاء الأربعاء الخميس الجمعة السبت الأحد",
}


def thanksgiving(year: int) -> datetime:
    """The fourth Thursday of November."""
    first = datetime(year, 11, 1)
    return first + timedelta(days=(3 - first.weekday()) % 7 + 21)


def run_script(d: Dialogue, rng: random.Random, t: Any) -> None:
    """One dialogue from a bank's tables ``t`` (see bank_tune.py): the events of a
    patient's visit in a shuffled order, chatter and distractors between them."""
    lang = d.language
    L = t.LANG[lang]
    pick = rng.choice
    drugs = rng.sample(L["drugs"], 6)
    mine, others = drugs[:4], drugs[4:]
    allergens = rng.sample(L["allergens"], 4)
    conditions = rng.sample(L["conditions"], 3)
    names = pick(L["names"])
    doses = ["5", "10", "20", "25", "40", "50", "100", "500"]

    def voice() -> bool:
        return rng.random() < t.VOICE_SHARE

    def fill(template: str, v: bool, **slots: str) -> str:
        return template.format(**slots)

    def user(kind: str, tag: str, expect: list[dict[str, Any]], **slots: str) -> None:
        v = voice()
        if "amount" in slots:
            slots["dose"] = dose_text(slots.pop("amount"), lang, v)
        if "amount2" in slots:
            slots["dose2"] = dose_text(slots.pop("amount2"), lang, v)
        if "old_amount" in slots:
            slots["old"] = (
                SPOKEN[lang](int(slots.pop("old_amount")))
                if v and lang in SPOKEN
                else slots.pop("old_amount")
            )
        d.say("user", fill(pick(L[kind]), v, **slots), tag, expect, v)
        assistant()

    def assistant(
        text: str | None = None, tag: str = "chatter", expect: list[dict[str, Any]] | None = None
    ) -> None:
        d.say("assistant", text or pick(L["ack"]), tag, expect or [], False)

    def chatter(n: int) -> None:
        for _ in range(n):
            d.say("user", pick(L["chatter"]), "chatter", [], voice())
            assistant()

    def distract() -> None:
        kind = pick(["relative", "relative", "question", "negation"])
        drug, allergen, cond = pick(drugs), pick(allergens), pick(conditions)
        if kind == "negation":  # never one of the patient's own: that would be a retraction
            drug = pick(others)
            allergen = pick([a for a in L["allergens"] if a not in allergens])
        slots = {
            "drug": drug[0],
            "allergen": allergen[0],
            "cond": cond[0],
            "relative": pick(L["relatives"]),
            "dose": dose_text(pick(doses), lang, False),
        }
        d.say("user", pick(L[kind]).format(**slots), kind, [], voice())
        assistant()

    events: list[Callable[[], None]] = []

    # medications: d0 changes dose, d1 is corrected, d2 is stopped, d3 stays
    amounts = rng.sample(doses, 4)
    for i, drug in enumerate(mine):

        def med(i: int = i, drug: tuple[str, str] = drug) -> None:
            user(
                "med_add",
                "fact",
                [
                    change(
                        "add",
                        "medication",
                        f"medication:{drug[1]}",
                        dose=f"{amounts[i]} mg",
                        status="taking",
                    )
                ],
                drug=drug[0],
                amount=amounts[i],
                freq=pick(L["freqs"]),
            )

        events.append(med)
    for i, allergen in enumerate(allergens[:2]):

        def allergy(i: int = i, allergen: tuple[str, str] = allergen) -> None:
            if i == 0:
                reaction = pick(L["reactions"])
                user(
                    "allergy_reaction",
                    "fact",
                    [
                        change(
                            "add", "allergy", f"allergy:{allergen[1]}", reaction=f"~{reaction[1]}"
                        )
                    ],
                    allergen=allergen[0],
                    reaction=reaction[0],
                )
                assistant(pick(L["confirm_allergy"]).format(allergen=allergen[0]), "confirm")
            else:
                user(
                    "allergy_add",
                    "fact",
                    [change("add", "allergy", f"allergy:{allergen[1]}")],
                    allergen=allergen[0],
                )

        events.append(allergy)
    for cond in conditions[:2]:

        def condition(cond: tuple[str, str] = cond) -> None:
            user(
                "condition_add",
                "fact",
                [change("add", "condition", f"condition:{cond[1]}")],
                cond=cond[0],
            )

        events.append(condition)
    spec = pick(L["specialties"])
    date1, date2 = t.date_phrase(d, rng), t.date_phrase(d, rng)
    while date2[1] == date1[1]:
        date2 = t.date_phrase(d, rng)
    time1 = pick(L["times"])

    def appointment() -> None:
        v = voice()
        text = pick(L["appointment_add"]).format(
            spec=spec[0], date=date1[0], time=time1[1 if v else 0]
        )
        d.say(
            "user",
            text,
            "fact",
            [change("add", "appointment", f"appointment:{spec[1]}", date=date1[1], time=time1[2])],
            v,
        )
        assistant()

    events.append(appointment)
    proc = pick(L["procedures"])
    pdate = t.date_phrase(d, rng)
    events.append(
        lambda: user(
            "procedure_add",
            "fact",
            [change("add", "procedure", f"procedure:{proc[1]}", date=pdate[1])],
            proc=proc[0],
            date=pdate[0],
        )
    )
    symptom = pick(L["symptoms"])
    onset = t.onset_phrase(d, rng)
    events.append(
        lambda: user(
            "symptom_add",
            "fact",
            [change("add", "symptom", f"symptom:{symptom[1]}", **onset[1])],
            symptom=symptom[0],
            onset=onset[0],
        )
    )
    care = pick(L["care"])
    events.append(
        lambda: user(
            "care_add",
            "fact",
            [change("add", "care_instruction", "care_instruction:*", value=f"~{care[1]}")],
            care=care[0],
        )
    )
    pref = pick(L["preferences"])
    events.append(
        lambda: user(
            "preference_add",
            "fact",
            [change("add", "preference", "preference:*", value=f"~{pref[1]}")],
            pref=pref[0],
        )
    )
    rng.shuffle(events)

    chatter(2)
    user(
        "name_add",
        "fact",
        [change("add", "preferred_name", "preferred_name", value=names[0].lower())],
        name=names[0],
        legal=names[2],
    )
    for event in events:
        event()
        chatter(rng.randint(1, 2))
        if rng.random() < 0.6:
            distract()
    # the changes
    new0 = pick([a for a in doses if a != amounts[0]])
    user(
        "med_change",
        "change",
        [
            change(
                "supersede",
                "medication",
                f"medication:{mine[0][1]}",
                dose=f"{new0} mm".replace("mm", "mg"),
            )
        ],
        drug=mine[0][0],
        amount=new0,
        old_amount=amounts[0],
    )
    chatter(2)
    distract()
    wrong = pick([a for a in doses if a not in (amounts[1],)])
    # a dose said wrong, then corrected at once
    user(
        "med_restate",
        "fact",
        [change("supersede", "medication", f"medication:{mine[1][1]}", dose=f"{wrong} mg")],
        drug=mine[1][0],
        amount=wrong,
    )
    user(
        "med_correct",
        "correction",
        [change("supersede", "medication", f"medication:{mine[1][1]}", dose=f"{amounts[1]} mg")],
        drug=mine[1][0],
        amount=amounts[1],
        old_amount=wrong,
    )
    chatter(2)
    distract()
    user(
        "med_stop",
        "change",
        [change("supersede", "medication", f"medication:{mine[2][1]}", status="stopped")],
        drug=mine[2][0],
    )
    chatter(2)
    if "med_switch" in L:  # one medicine replaced by another: the old one stops
        new_drug = pick([x for x in L["drugs"] if x not in drugs and x[1] != mine[3][1]])
        user(
            "med_switch",
            "change",
            [
                change("supersede", "medication", f"medication:{mine[3][1]}", status="stopped"),
                change("add", "medication", f"medication:{new_drug[1]}", status="taking"),
            ],
            drug=mine[3][0],
            drug2=new_drug[0],
        )
        chatter(1)
    v = voice()
    text = pick(L["appointment_move"]).format(spec=spec[0], date=date2[0])
    d.say(
        "user",
        text,
        "change",
        [change("supersede", "appointment", f"appointment:{spec[1]}", date=date2[1])],
        v,
    )
    assistant()
    distract()
    chatter(3)
    user(
        "allergy_retract",
        "change",
        [change("close", "allergy", f"allergy:{allergens[1][1]}")],
        allergen=allergens[1][0],
    )
    distract()
    # an allergy only the assistant's confirmation names
    user_vague = pick(L["vague"])
    d.say("user", user_vague, "chatter", [], voice())
    late = allergens[2]
    assistant(
        pick(L["confirm_allergy"]).format(allergen=late[0]),
        "confirm",
        [change("add", "allergy", f"allergy:{late[1]}")],
    )
    chatter(3)
    distract()
    if rng.random() < 0.7:
        language = pick(L["languages"])
        user(
            "language_add",
            "fact",
            [change("add", "preferred_language", "preferred_language", code=language[1])],
            language=language[0],
        )
    chatter(2)
    user(
        "name_change",
        "change",
        [change("supersede", "preferred_name", "preferred_name", value=names[1].lower())],
        name=names[1],
        old=names[0],
    )
    distract()
    late_symptom = pick([s for s in L["symptoms"] if s != symptom])
    onset2 = t.onset_phrase(d, rng)
    user(
        "symptom_add",
        "late",
        [change("add", "symptom", f"symptom:{late_symptom[1]}", **onset2[1])],
        symptom=late_symptom[0],
        onset=onset2[0],
    )
    late_allergy = allergens[3]
    user(
        "allergy_add",
        "late",
        [change("add", "allergy", f"allergy:{late_allergy[1]}")],
        allergen=late_allergy[0],
    )
    while len(d.turns) < 104:
        chatter(1)
        distract()
    d.say("user", pick(L["bye"]), "chatter", [], voice())
    assistant()


if __name__ == "__main__":
    main()
