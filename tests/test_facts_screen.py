"""The rules' screen (``read_turn(...).may_state_facts``) lets through every turn
the rules find a change in, on every labelled clinical dialogue, so a turn it
stops never needs its owner's facts read; and the service then reads none."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.facts import extract_facts, read_turn
from unimem.facts.changes import FactChange
from unimem.models import Fact
from unimem.stores import InMemoryStore

DATA = Path(__file__).parent / "data" / "clinical"
SPLITS = ("tune", "tune2", "heldout", "heldout2")


def _held(user: str, changes: list[FactChange], held: list[Fact], now: datetime) -> None:
    """``changes`` applied as a store applies them (a close or supersede ends the
    fact it replaces, an add or supersede adds one)."""
    by_id = {f.id: f for f in held if f.current}
    for change in changes:
        if change.op != "add":
            old = by_id.pop(change.replaces or "", None)
            if old is None:
                continue
            held[held.index(old)] = old.model_copy(update={"valid_to": now})
            if change.op == "close":
                continue
        fact = Fact(
            id=f"f{len(held)}",
            user_id=user,
            kind=change.kind,
            key=change.key,
            value=change.value,
            attributes=dict(change.attributes),
            text=change.text,
        )
        held.append(fact)
        by_id[fact.id] = fact


def _replay(dialogue: dict[str, Any]) -> tuple[int, int, int, list[int]]:
    """Turns, turns with a change, turns the screen stops, and the indexes of
    turns with a change that the screen stopped (which must be none)."""
    now = datetime.fromisoformat(dialogue["now"])
    held: list[Fact] = []
    changed = stopped = 0
    lost: list[int] = []
    for number, turn in enumerate(dialogue["turns"]):
        language = dialogue["language"]
        reading = read_turn(turn["text"], role=turn["role"], language=language)
        changes = extract_facts(
            turn["text"],
            role=turn["role"],
            language=language,
            current=[f for f in held if f.current],
            now=now,
        )
        changed += bool(changes)
        stopped += not reading.may_state_facts
        if changes and not reading.may_state_facts:
            lost.append(number)
        _held("u", changes, held, now)
    return len(dialogue["turns"]), changed, stopped, lost


@pytest.mark.parametrize("split", SPLITS)
def test_every_turn_the_rules_change_a_fact_in_passes_the_screen(split: str) -> None:
    """Replayed as the evaluation replays them (each turn sees the facts current so
    far); the held-out set is used for this property only (its texts are not
    shown: a failure names the dialogue and the turn's index)."""
    dialogues = json.loads((DATA / f"{split}.json").read_text(encoding="utf-8"))
    turns = changed = stopped = 0
    for dialogue in dialogues:
        count, with_change, screened, lost = _replay(dialogue)
        assert lost == [], f"{split} {dialogue['id']}: turns {lost} lose their facts"
        turns, changed, stopped = turns + count, changed + with_change, stopped + screened
    assert changed > 100
    # most turns of a visit are chatter, questions and the assistant's replies
    assert stopped / turns > 0.6, (stopped, turns)
    assert stopped + changed <= turns


def _every_fact(dialogue: dict[str, Any]) -> list[Fact]:
    """Every fact the dialogue ever holds, all of them current at once: the
    largest set of current facts a screened-out turn could meet."""
    now = datetime.fromisoformat(dialogue["now"])
    held: list[Fact] = []
    for turn in dialogue["turns"]:
        changes = extract_facts(
            turn["text"],
            role=turn["role"],
            language=dialogue["language"],
            current=[f for f in held if f.current],
            now=now,
        )
        _held("u", changes, held, now)
    return [f.model_copy(update={"valid_to": None}) for f in held]


@pytest.mark.parametrize("split", ["tune", "tune2"])
def test_a_screened_out_turn_finds_nothing_whatever_facts_are_current(split: str) -> None:
    for dialogue in json.loads((DATA / f"{split}.json").read_text(encoding="utf-8")):
        everything = _every_fact(dialogue)
        for turn in dialogue["turns"]:
            reading = read_turn(turn["text"], role=turn["role"], language=dialogue["language"])
            if reading.may_state_facts:
                continue
            found = extract_facts(
                turn["text"],
                role=turn["role"],
                language=dialogue["language"],
                current=everything,
                now=datetime.fromisoformat(dialogue["now"]),
            )
            assert found == [], turn["text"]


@pytest.mark.parametrize(
    ("text", "role", "language", "passes"),
    [
        ("the parking garage was full again", "user", "en", False),
        ("how are you today?", "assistant", "en", False),
        ("I take lisinopril 10 mg", "user", "en", True),
        ("they bumped it up to twenty milligrams", "user", "en", True),  # a dose, no drug
        ("sorry, it's 25, not 50", "user", "en", True),  # a rejected number
        ("please call me Bea", "user", "en", True),
        ("I have to fast before the test", "user", "en", True),
        ("my mom is allergic to penicillin", "user", "en", False),  # someone else's
        ("penicillin is a common antibiotic", "assistant", "en", False),  # no confirmation
        ("I've noted a latex allergy", "assistant", "en", True),
        ("call me Bea", "assistant", "en", False),  # a name only the user gives
        ("soy alérgica a la penicilina", "user", "es", True),
        ("", "user", "en", False),
        ("I take lisinopril 10 mg", "system", "en", False),
    ],
)
def test_the_screen_of_one_turn(text: str, role: str, language: str, passes: bool) -> None:
    reading = read_turn(text, role=role, language=language)
    assert reading.may_state_facts is passes
    if not passes:
        assert extract_facts(text, role=role, language=language, current=[]) == []


def test_a_reading_given_to_extract_facts_gives_what_reading_again_gives() -> None:
    text = "I'm allergic to penicillin, it gives me hives. Please call me Bea."
    reading = read_turn(text, role="user", language="en")
    alone = extract_facts(text, role="user", language="en", current=[])
    assert extract_facts(text, role="user", language="en", current=[], reading=reading) == alone
    # a reading of another text is not used
    other = read_turn("the weather is nice", role="user", language="en")
    assert extract_facts(text, role="user", language="en", current=[], reading=other) == alone


class CountingStore(InMemoryStore):
    """The in-process store, counting reads of a user's facts."""

    def __init__(self) -> None:
        super().__init__()
        self.fact_reads = 0

    async def list_facts(self, user_id: str) -> list[Fact]:
        self.fact_reads += 1
        return await super().list_facts(user_id)


async def test_the_service_reads_no_facts_for_a_turn_of_chatter() -> None:
    store = CountingStore()
    async with UnifiedMemoryService(store) as memory:
        await memory.update_settings({"anonymize_phi": False}, user_id="u")
        when = datetime.now(UTC)
        for text in ("the parking garage was full again", "traffic was terrible today"):
            entry = MemoryEntry(role="user", content=text, language="en", timestamp=when)
            await memory.add_entry("s", entry, user_id="u")
        reply = MemoryEntry(role="assistant", content="Sorry to hear that!", language="en")
        await memory.add_entry("s", reply, user_id="u")
        assert store.fact_reads == 0
        assert memory._fact_updates.screened_out == 3
        said = MemoryEntry(role="user", content="I take lisinopril 10 mg daily", language="en")
        await memory.add_entry("s", said, user_id="u")
        assert store.fact_reads == 1
        [fact] = await memory.list_facts(user_id="u")
        assert fact.key == "medication:lisinopril" and fact.attributes["dose"] == "10 mg"
