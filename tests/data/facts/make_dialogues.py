"""Generate the labelled long dialogues of the fact-retention evaluation.

Usage: python tests/data/facts/make_dialogues.py   (rewrites dialogues.json)

Each dialogue has 80-120 turns of a patient talking with an assistant, typed
and spoken (spoken turns are lowercase, unpunctuated, numbers as words, as a
speech recognizer writes them). Facts (allergies, medications and doses,
diagnoses, procedure dates, care instructions, preferred name and language)
are planted early, in the middle and late, among chatter that includes hard
negatives: numbers, other people's conditions, prices and distances. Some
doses are corrected later ("actually it's 20 mg, not 10"): the corrected value
is the fact, and the first statement is not counted.

A fact is labelled with ``keywords`` that must all appear in one line of the
built context (a summary line or a message) for the fact to count as kept.
The output is deterministic (fixed seeds); the JSON is committed so the test
does not depend on this script.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("dialogues.json")

_ONES = [
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
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def words(n: int) -> str:
    """A number as a speech recognizer writes it (n < 10000)."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + words(rest))
    rest = n % 1000
    return words(n // 1000) + " thousand" + ("" if rest == 0 else " " + words(rest))


def spoken(text: str) -> str:
    """Typed text as an ASR transcript: numbers as words, lowercase, no punctuation."""
    out = []
    for token in text.replace(",", " ").replace(".", " ").replace("?", " ").split():
        if token.isdigit():
            out.append(words(int(token)))
        elif token == "mg":
            out.append("milligrams")
        else:
            out.append(token.strip("!;:").lower().replace("'", ""))
    return " ".join(t for t in out if t)


DRUGS = [
    ("lisinopril", [10, 20, 40]),
    ("metformin", [500, 850, 1000]),
    ("atorvastatin", [20, 40, 80]),
    ("levothyroxine", [50, 75, 100]),
    ("amlodipine", [5, 10]),
    ("sertraline", [50, 100]),
    ("warfarin", [2, 5]),
    ("omeprazole", [20, 40]),
    ("gabapentin", [300, 600]),
    ("prednisone", [10, 20]),
]
SCHEDULES = ["every morning", "twice a day", "at night", "once a day with food"]
ALLERGENS = ["penicillin", "sulfa drugs", "peanuts", "latex", "ibuprofen", "codeine", "shellfish"]
REACTIONS = ["hives", "swelling", "a bad rash", "trouble breathing"]
DIAGNOSES = [
    "type 2 diabetes", "hypertension", "asthma", "hypothyroidism", "atrial fibrillation",
    "chronic kidney disease", "migraine", "sleep apnea",
]  # fmt: skip
PROCEDURES = ["colonoscopy", "knee surgery", "cataract surgery", "biopsy", "MRI", "stress test"]
MONTHS = ["March", "April", "May", "June", "September", "October", "November"]
CARE = [
    ("avoid grapefruit juice", ["grapefruit"]),
    ("not eat anything after midnight before the procedure", ["midnight"]),
    ("check my blood sugar before breakfast", ["blood sugar", "breakfast"]),
    ("keep my foot elevated", ["foot", "elevated"]),
    ("not lift more than 10 pounds", ["lift", "10"]),
    ("drink at least 2 liters of water a day", ["water", "2"]),
]
NAMES = ["Maria", "Tom", "Aisha", "Jun", "Priya", "Dmitri", "Lucia", "Kwame"]
LANGUAGES = ["Spanish", "French", "Arabic", "Hindi", "German"]

CHATTER_USER = [
    "Hi there, how are you today?",
    "The weather has been awful this week, so much rain.",
    "Traffic on the way here was terrible.",
    "My daughter is 12 now and she plays soccer every Saturday.",
    "Do you know if the clinic parking is still 5 dollars?",
    "I walked about 3 miles yesterday with my dog.",
    "My neighbor had surgery last year and he is fine now.",
    "Can you repeat that please?",
    "Hmm, let me think for a second.",
    "Thanks, that is helpful.",
    "I watched a documentary about whales last night.",
    "My phone battery keeps dying, so sorry if I drop off.",
    "Is it normal to feel tired in the afternoon?",
    "I've been trying to read more before bed.",
    "My brother is visiting from Chicago next month.",
    "Okay.",
    "Sounds good.",
    "I made soup with 4 kinds of vegetables on Sunday.",
    "The pharmacy line was really long today.",
    "Our cat knocked over a plant this morning.",
    "I have been sleeping about 7 hours most nights.",
    "Work has been busy, we have a deadline on Friday.",
    "Is there a cafeteria in the building?",
    "My husband says hello.",
    "I forgot my reading glasses at home.",
    "What time does the clinic close on weekends?",
    "My mother had a hip replacement when she was 70.",
    "We are thinking about a trip to the coast this summer.",
    "I started a puzzle with 1000 pieces.",
    "Sorry, my kid was talking to me.",
    "The new bus route is much faster.",
    "I tried yoga once, it was hard.",
    "Good, good.",
    "My friend recommended a dentist across town.",
    "It's been a long day honestly.",
    "I paid 30 dollars for a taxi last time.",
    "My grandson turned 3 last week.",
    "I like listening to the radio in the kitchen.",
    "Okay, what else should I know?",
    "That makes sense.",
]
CHATTER_ASSISTANT = [
    "I'm doing well, thank you for asking. How can I help today?",
    "That sounds frustrating. I hope it clears up soon.",
    "Of course. Take your time.",
    "That's lovely to hear.",
    "I'm not sure about parking prices; the front desk can confirm.",
    "Staying active like that is great.",
    "Sure, I can repeat anything you need.",
    "You're welcome. Is there anything else on your mind?",
    "Feeling tired in the afternoon is common; sleep and hydration both matter.",
    "That sounds nice.",
    "No problem at all.",
    "The clinic hours are listed on the website and at reception.",
    "Good to know. Let me know if anything changes.",
    "Thanks for sharing that.",
    "I understand. We can go slowly.",
]
ACK = "Thank you, I've noted that."
FOLLOW_UP = [
    "If anything else comes up before your next visit, just tell me and we can go through it.",
    "Let me know whenever you want to go over your questions for the care team.",
    "Many people find it useful to keep a short list of questions on their phone.",
    "We can also review anything from your last appointment if that would help.",
    "Remember that the nurse line is available if something feels urgent.",
    "I'm here whenever you want to talk things through, there's no rush.",
    "It can help to write things down as they come to mind during the day.",
    "Feel free to ask me to explain anything in simpler words.",
]


def _fact_turns(kind: str, rng: random.Random, used: dict[str, Any]) -> list[dict[str, Any]]:
    """One or more fact statements of ``kind``: ``[{"text", "keywords", "kind"}]``."""
    if kind == "allergy":
        allergen = rng.choice([a for a in ALLERGENS if a not in used.setdefault("allergens", [])])
        used["allergens"].append(allergen)
        reaction = rng.choice(REACTIONS)
        text = rng.choice(
            [
                f"I'm allergic to {allergen}, I get {reaction}.",
                f"Just so you know, I have an allergy to {allergen}.",
                f"Last time I had {allergen} I got {reaction}, so I'm allergic.",
            ]
        )
        return [{"text": text, "keywords": [allergen.split()[0]], "kind": kind}]
    if kind == "medication":
        drug, doses = rng.choice([d for d in DRUGS if d[0] not in used.setdefault("drugs", [])])
        used["drugs"].append(drug)
        dose = rng.choice(doses)
        schedule = rng.choice(SCHEDULES)
        text = rng.choice(
            [
                f"I take {drug} {dose} mg {schedule}.",
                f"My doctor has me on {dose} mg of {drug} {schedule}.",
                f"I'm on {drug}, {dose} mg, {schedule}.",
            ]
        )
        used.setdefault("doses", {})[drug] = dose
        return [{"text": text, "keywords": [drug, f"{dose} mg"], "kind": kind, "drug": drug}]
    if kind == "diagnosis":
        diagnosis = rng.choice([d for d in DIAGNOSES if d not in used.setdefault("dx", [])])
        used["dx"].append(diagnosis)
        text = rng.choice(
            [
                f"I was diagnosed with {diagnosis} two years ago.",
                f"The doctor told me I have {diagnosis}.",
                f"I have {diagnosis}, it runs in my family.",
            ]
        )
        return [{"text": text, "keywords": [diagnosis], "kind": kind}]
    if kind == "procedure":
        procedure = rng.choice([p for p in PROCEDURES if p not in used.setdefault("proc", [])])
        used["proc"].append(procedure)
        month = rng.choice(MONTHS)
        day = rng.randint(2, 28)
        text = rng.choice(
            [
                f"My {procedure} is scheduled for {month} {day}.",
                f"I have a {procedure} on {month} {day}.",
                f"They booked my {procedure} for {month} {day} in the morning.",
            ]
        )
        return [{"text": text, "keywords": [procedure, month, str(day)], "kind": kind}]
    if kind == "care":
        instruction, keys = rng.choice([c for c in CARE if c[0] not in used.setdefault("care", [])])
        used["care"].append(instruction)
        text = rng.choice(
            [
                f"The nurse said I must {instruction}.",
                f"I was told to {instruction}.",
                f"My doctor wants me to {instruction}.",
            ]
        )
        return [{"text": text, "keywords": keys, "kind": kind}]
    if kind == "name":
        name = rng.choice(NAMES)
        text = rng.choice([f"Please call me {name}.", f"You can call me {name}, that's my name."])
        return [{"text": text, "keywords": [name], "kind": kind}]
    if kind == "language":
        language = rng.choice(LANGUAGES)
        text = rng.choice(
            [
                f"I prefer to speak {language}, can you answer in {language} when possible?",
                f"My preferred language is {language}.",
            ]
        )
        return [{"text": text, "keywords": [language], "kind": kind}]
    raise ValueError(kind)


def _correction(drug: str, old: int, rng: random.Random) -> tuple[str, int]:
    doses = next(d for name, d in DRUGS if name == drug)
    new = rng.choice([d for d in doses if d != old] or [old * 2])
    text = rng.choice(
        [
            f"Actually it's {new} mg, not {old}.",
            f"Sorry, I got that wrong, the {drug} is {new} mg, not {old}.",
            f"Correction: my {drug} dose is {new} mg, not {old} mg.",
        ]
    )
    return text, new


def make_dialogue(seed: int) -> dict[str, Any]:
    """One labelled dialogue."""
    rng = random.Random(seed)
    length = rng.randint(80, 120)
    kinds = ["allergy", "allergy", "medication", "medication", "medication", "diagnosis",
             "diagnosis", "procedure", "procedure", "care", "care", "name", "language"]  # fmt: skip
    rng.shuffle(kinds)
    slots = sorted(rng.sample(range(2, length - 6, 2), len(kinds) + 2))
    used: dict[str, Any] = {}
    plan: dict[int, dict[str, Any]] = {}
    for slot, kind in zip(slots, kinds, strict=False):
        plan[slot] = _fact_turns(kind, rng, used)[0]
    # Two corrections, each some turns after the medication it corrects.
    meds = [s for s, f in plan.items() if f["kind"] == "medication"]
    free = [s for s in range(2, length - 2, 2) if s not in plan]
    for med_slot in rng.sample(meds, 2):
        later = [s for s in free if med_slot + 4 <= s <= med_slot + 30]
        if not later:
            continue
        slot = rng.choice(later)
        free.remove(slot)
        fact = plan[med_slot]
        text, new = _correction(fact["drug"], used["doses"][fact["drug"]], rng)
        fact["superseded"] = True
        plan[slot] = {
            "text": text,
            "keywords": [fact["drug"], f"{new} mg"],
            "kind": "medication_correction",
        }
    turns: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    mode = "text"
    index = 0
    while len(turns) < length:
        if rng.random() < 0.12:
            mode = "voice" if mode == "text" else "text"
        if index in plan:
            fact = plan[index]
            text = fact["text"]
            keywords = [k.lower() for k in fact["keywords"]]
            if mode == "voice":
                text = spoken(text)
                keywords = [spoken(k) for k in keywords]
            if not fact.get("superseded"):
                facts.append(
                    {
                        "turn": len(turns),
                        "kind": fact["kind"],
                        "keywords": keywords,
                        "depth": "",
                    }
                )
            turns.append({"role": "user", "content": text, "mode": mode})
            reply = ACK if rng.random() < 0.5 else rng.choice(CHATTER_ASSISTANT)
            reply += " " + rng.choice(FOLLOW_UP)
        else:
            text = rng.choice(CHATTER_USER)
            turns.append(
                {"role": "user", "content": spoken(text) if mode == "voice" else text, "mode": mode}
            )
            reply = rng.choice(CHATTER_ASSISTANT)
            if rng.random() < 0.7:
                reply += " " + rng.choice(FOLLOW_UP)
        turns.append({"role": "assistant", "content": reply, "mode": mode})
        index += 2
    turns = turns[:length]
    for fact in facts:
        position = fact["turn"] / len(turns)
        fact["depth"] = "early" if position < 1 / 3 else "middle" if position < 2 / 3 else "late"
    facts = [f for f in facts if f["turn"] < len(turns) - 1]
    return {"id": f"dialogue-{seed}", "turns": turns, "facts": facts}


def main() -> None:
    dialogues = [make_dialogue(seed) for seed in range(1, 11)]
    OUT.write_text(json.dumps(dialogues, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(len(d["facts"]) for d in dialogues)
    print(f"{len(dialogues)} dialogues, {total} facts -> {OUT}")


if __name__ == "__main__":
    main()
