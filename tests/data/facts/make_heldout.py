"""Generate the held-out dialogues of the fact-retention evaluation.

Usage: python tests/data/facts/make_heldout.py   (rewrites heldout.json)

Written after the extractive summarizer was tuned on ``dialogues.json``, with
different phrasings, drugs, allergens, conditions and chatter, and facts
buried inside longer messages, so the retention figure on this set says how
the summarizer does on text it was not tuned on. Same format and labels as
``make_dialogues.py`` (keywords that must share one line of the context).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from make_dialogues import spoken

OUT = Path(__file__).with_name("heldout.json")

MEDS = [
    ("apixaban", [2.5, 5]),
    ("furosemide", [20, 40]),
    ("tamsulosin", [0.4, 0.8]),
    ("montelukast", [10]),
    ("duloxetine", [30, 60]),
    ("allopurinol", [100, 300]),
    ("losartan", [25, 50, 100]),
    ("insulin glargine", [10, 14, 18]),
]
UNITS = {"insulin glargine": "units"}
ALLERGIES = ["tree nuts", "aspirin", "morphine", "eggs", "bee stings", "adhesive tape"]
CONDITIONS = ["gout", "glaucoma", "psoriasis", "heart failure", "an enlarged prostate", "COPD"]
PROCEDURES = [
    ("dental extraction", "Thursday the 12th"),
    ("echocardiogram", "August 21"),
    ("hernia repair", "January 30"),
    ("eye injection", "December 2"),
    ("sleep study", "February 16"),
]
INSTRUCTIONS = [
    ("skip the water pill on the morning of the scan", ["water pill", "scan"]),
    ("weigh myself every morning and call if I gain three pounds", ["weigh", "three pounds"]),
    ("keep the wound dry for a week", ["wound", "dry"]),
    ("stop the apixaban two days before surgery", ["apixaban", "two days"]),
]
NAMES = ["Bea", "Rafael", "Noor", "Kenji", "Olu"]
LANGUAGES = ["Portuguese", "Urdu", "Korean", "Italian"]

CHATTER = [
    "Honestly the hardest part of my week was finding a parking spot downtown.",
    "We had a birthday party for my niece, she is turning 9, lots of cake.",
    "The TV remote stopped working so I have been listening to podcasts instead.",
    "I tried that new bakery on 5th street, the croissants were great.",
    "My sister keeps sending me recipes, most of them are way too complicated.",
    "Is it going to snow this weekend, do you know?",
    "Our basement flooded last spring and we are still fixing the floor.",
    "My coworker swears by cold showers but I am not convinced.",
    "I finished a crossword in 20 minutes today, new record.",
    "The dog chewed up one of my slippers again.",
    "My son is learning guitar, it is loud but he is improving.",
    "Anyway, where was I.",
    "Right, okay, that is fine.",
    "I read an article saying coffee might be good for you, who knows.",
    "The elevator in my building has been broken for two weeks.",
    "Mm-hmm.",
    "We are repainting the kitchen a pale green color.",
    "I got a flu shot reminder in the mail, I will think about it.",
    "My neighbor's grandfather was diagnosed with something last month, poor man.",
    "I watched the football game until midnight, bad idea.",
]
REPLIES = [
    "That sounds like quite a week.",
    "I can imagine. Let me know how I can help with your health questions.",
    "Ha, that's fun. Anything else on your mind today?",
    "I don't have live weather data, but a local forecast will know.",
    "Got it. Whenever you're ready we can continue.",
    "That must be tiring. Try to rest when you can.",
    "Understood. I'm keeping track of what you tell me.",
    "Interesting. If you have questions about it, ask away.",
]


def _dose(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _fact(kind: str, rng: random.Random, used: dict[str, list[Any]]) -> dict[str, Any]:
    pick = rng.choice
    if kind == "medication":
        drug, doses = pick([m for m in MEDS if m[0] not in used["drug"]])
        used["drug"].append(drug)
        dose = _dose(pick(doses))
        unit = UNITS.get(drug, "mg")
        text = pick(
            [
                f"Oh and before I forget, Dr. Patel started me on {drug} {dose} {unit} last week.",
                f"The pharmacy filled my {drug}, {dose} {unit}, I take one in the evening.",
                f"Since March I've been on {dose} {unit} of {drug}, it seems to help a bit.",
            ]
        )
        return {"text": text, "keywords": [drug, f"{dose} {unit}"], "drug": drug, "dose": dose}
    if kind == "allergy":
        allergen = pick([a for a in ALLERGIES if a not in used["allergy"]])
        used["allergy"].append(allergen)
        text = pick(
            [
                f"One thing, {allergen} make my throat swell up, so please never suggest them.",
                f"My chart should say I react badly to {allergen}.",
                f"Ever since I was a kid {allergen} gave me a reaction.",
            ]
        )
        return {"text": text, "keywords": [allergen]}
    if kind == "condition":
        condition = pick([c for c in CONDITIONS if c not in used["condition"]])
        used["condition"].append(condition)
        text = pick(
            [
                f"The specialist confirmed it is {condition}, which honestly was not a surprise.",
                f"My {condition} flared up again over the holidays.",
                f"They found {condition} at my checkup in the fall.",
            ]
        )
        return {"text": text, "keywords": [condition.split()[-1]]}
    if kind == "procedure":
        procedure, when = pick([p for p in PROCEDURES if p[0] not in used["procedure"]])
        used["procedure"].append(procedure)
        text = pick(
            [
                f"The clinic called, my {procedure} got moved to {when}.",
                f"I'm nervous about the {procedure} on {when}, is that normal?",
            ]
        )
        return {"text": text, "keywords": [procedure, when.split()[-1]]}
    if kind == "instruction":
        instruction, keys = pick([i for i in INSTRUCTIONS if i[0] not in used["instruction"]])
        used["instruction"].append(instruction)
        text = pick(
            [
                f"The discharge papers say to {instruction}.",
                f"At the last visit they asked me to {instruction}.",
            ]
        )
        return {"text": text, "keywords": keys}
    if kind == "name":
        name = pick(NAMES)
        return {"text": f"By the way, everyone calls me {name}, you can too.", "keywords": [name]}
    language = pick(LANGUAGES)
    return {
        "text": f"If it's easier, I'd rather you talk to me in {language}.",
        "keywords": [language],
    }


def make_dialogue(seed: int) -> dict[str, Any]:
    """One held-out dialogue."""
    rng = random.Random(1000 + seed)
    length = rng.randint(80, 120)
    kinds = ["medication", "medication", "allergy", "allergy", "condition", "procedure",
             "procedure", "instruction", "instruction", "name", "language"]  # fmt: skip
    rng.shuffle(kinds)
    used: dict[str, list[Any]] = {k: [] for k in ("drug", "allergy", "condition", "procedure")}
    used["instruction"] = []
    slots = sorted(rng.sample(range(0, length - 8, 2), len(kinds)))
    plan = {slot: _fact(kind, rng, used) for slot, kind in zip(slots, kinds, strict=True)}
    # One correction of a medication some turns later.
    med_slot = next(s for s in slots if "drug" in plan[s])
    med = plan[med_slot]
    options = [s for s in range(med_slot + 4, min(length - 2, med_slot + 40), 2) if s not in plan]
    if options:
        drug = med["drug"]
        doses = [_dose(d) for d in next(d for n, d in MEDS if n == drug) if _dose(d) != med["dose"]]
        if doses:
            new = rng.choice(doses)
            unit = UNITS.get(drug, "mg")
            plan[rng.choice(options)] = {
                "text": rng.choice(
                    [
                        f"Wait, I misspoke earlier, it's {new} {unit} not {med['dose']}.",
                        f"Let me correct that, the {drug} is {new} {unit}, not {med['dose']}.",
                    ]
                ),
                "keywords": [drug, f"{new} {unit}"],
            }
            med["superseded"] = True
    turns: list[dict[str, Any]] = []
    facts: list[dict[str, Any]] = []
    mode = rng.choice(["voice", "text"])
    for index in range(0, length, 2):
        if rng.random() < 0.15:
            mode = "voice" if mode == "text" else "text"
        fact = plan.get(index)
        text = fact["text"] if fact else rng.choice(CHATTER)
        if fact and rng.random() < 0.4:
            text = f"{rng.choice(CHATTER)} {text}"  # the fact buried after small talk
        keywords = [k.lower() for k in fact["keywords"]] if fact else []
        if mode == "voice":
            text = spoken(text)
            keywords = [spoken(k) for k in keywords]
        if fact and not fact.get("superseded"):
            facts.append({"turn": len(turns), "kind": "fact", "keywords": keywords})
        turns.append({"role": "user", "content": text, "mode": mode})
        turns.append({"role": "assistant", "content": rng.choice(REPLIES), "mode": mode})
    turns = turns[:length]
    for fact in facts:
        position = fact["turn"] / len(turns)
        fact["depth"] = "early" if position < 1 / 3 else "middle" if position < 2 / 3 else "late"
    return {"id": f"heldout-{seed}", "turns": turns, "facts": facts}


def main() -> None:
    dialogues = [make_dialogue(seed) for seed in range(1, 7)]
    OUT.write_text(json.dumps(dialogues, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(dialogues)} dialogues, {sum(len(d['facts']) for d in dialogues)} facts -> {OUT}")


if __name__ == "__main__":
    main()
