"""Score the rules on labelled dialogues (``tests/data/clinical/``): pure, no I/O.

Each dialogue is replayed turn by turn: :func:`extract_facts` sees the facts
current so far, and its changes are applied the way a store applies them
(``supersede`` closes and adds, ``close`` ends). At the end the current facts
are compared with the dialogue's ``final`` set, and its ``superseded`` values
must be closed and never read as current. Changes made on distractor turns
(relatives, chatter, questions, negations) are counted as false positives.
``bench/eval_facts.py`` reads the files and prints the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .changes import FactChange
from .extract import extract_facts

__all__ = ["DISTRACTOR_TAGS", "EvalReport", "score_dialogues"]

#: Turn tags that state no fact of the patient's.
DISTRACTOR_TAGS = ("relative", "chatter", "question", "negation")


@dataclass(slots=True)
class _Held:
    id: str
    kind: str
    key: str | None
    value: str | None
    attributes: dict[str, str]
    current: bool = True


@dataclass(slots=True)
class EvalReport:
    """What the rules got right and wrong on a set of dialogues."""

    dialogues: int = 0
    turns: int = 0
    expected: int = 0  # facts current at the end, as labelled
    found: int = 0  # facts current at the end, as the rules left them
    matched: int = 0  # of ``expected``, found with every checked detail right
    keys_matched: int = 0  # of ``expected``, found under the right key (details aside)
    superseded: int = 0
    superseded_closed: int = 0
    superseded_as_current: int = 0
    false_positives: Counter[str] = field(default_factory=Counter)
    distractor_turns: Counter[str] = field(default_factory=Counter)
    expected_by_language: Counter[str] = field(default_factory=Counter)
    matched_by_language: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        """Found current facts that are labelled current, with their details right."""
        return self.matched / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        """Labelled current facts found, with their details right."""
        return self.matched / self.expected if self.expected else 1.0

    def as_dict(self) -> dict[str, Any]:
        """The figures (no misses) as plain data."""
        return {
            "dialogues": self.dialogues,
            "turns": self.turns,
            "current_precision": round(self.precision, 3),
            "current_recall": round(self.recall, 3),
            "key_recall": round(self.keys_matched / self.expected, 3) if self.expected else 1.0,
            "expected": self.expected,
            "found": self.found,
            "superseded": self.superseded,
            "superseded_closed": self.superseded_closed,
            "superseded_as_current": self.superseded_as_current,
            "recall_by_language": {
                lang: round(self.matched_by_language[lang] / count, 3)
                for lang, count in sorted(self.expected_by_language.items())
            },
            "false_positives": dict(sorted(self.false_positives.items())),
            "distractor_turns": dict(sorted(self.distractor_turns.items())),
        }


def _same(expected: str, found: str | None) -> bool:
    have = " ".join((found or "").lower().split())
    if expected.startswith("~"):
        return expected[1:].lower() in have
    return " ".join(expected.lower().split()) == have


def _key_fits(label: Mapping[str, Any], fact: _Held) -> bool:
    key = str(label["key"])
    if key.endswith(":*"):
        return fact.kind == str(label["kind"])
    return fact.key == key


def _fits(label: Mapping[str, Any], fact: _Held) -> bool:
    if not _key_fits(label, fact):
        return False
    if "value" in label and not _same(str(label["value"]), fact.value):
        return False
    attrs: Mapping[str, str] = label.get("attrs", {})
    return all(_same(want, fact.attributes.get(name)) for name, want in attrs.items())


def _apply(held: list[_Held], changes: Sequence[FactChange]) -> None:
    by_id = {fact.id: fact for fact in held if fact.current}
    for change in changes:
        if change.op != "add":
            old = by_id.get(change.replaces or "")
            if old is None:
                continue  # a store refuses a change of a fact that is not current
            old.current = False
            del by_id[old.id]
            if change.op == "close":
                continue
        fact = _Held(
            f"f{len(held)}", change.kind, change.key, change.value, dict(change.attributes)
        )
        held.append(fact)
        by_id[fact.id] = fact


def _describe(label: Mapping[str, Any]) -> str:
    return f"{label['key']} {label.get('value', '')} {label.get('attrs', {})}".strip()


def score_dialogues(dialogues: Sequence[Mapping[str, Any]]) -> EvalReport:
    """Replay ``dialogues`` (the JSON of ``tests/data/clinical/*.json``) through the rules."""
    report = EvalReport()
    for dialogue in dialogues:
        report.dialogues += 1
        now = datetime.fromisoformat(dialogue["now"])
        held: list[_Held] = []
        for turn in dialogue["turns"]:
            report.turns += 1
            changes = extract_facts(
                turn["text"],
                role=turn["role"],
                language=dialogue["language"],
                current=[fact for fact in held if fact.current],
                now=now,
            )
            if turn["tag"] in DISTRACTOR_TAGS:
                report.distractor_turns[turn["tag"]] += 1
                report.false_positives[turn["tag"]] += len(changes)
                for change in changes:
                    report.extras.append(
                        f"{dialogue['id']} [{turn['tag']}] {turn['text']!r} -> {change.text}"
                    )
            _apply(held, changes)
        current = [fact for fact in held if fact.current]
        report.expected += len(dialogue["final"])
        report.expected_by_language[dialogue["language"]] += len(dialogue["final"])
        report.found += len(current)
        unused = list(current)
        for label in dialogue["final"]:
            hit = next((fact for fact in unused if _fits(label, fact)), None)
            if hit is not None:
                unused.remove(hit)
                report.matched += 1
                report.matched_by_language[dialogue["language"]] += 1
            else:
                report.misses.append(f"{dialogue['id']} missing {_describe(label)}")
            if any(_key_fits(label, fact) for fact in current):
                report.keys_matched += 1
        for fact in unused:
            report.extras.append(
                f"{dialogue['id']} extra {fact.key} {fact.value} {fact.attributes}"
            )
        for old in dialogue["superseded"]:
            report.superseded += 1
            if any(_fits(old, fact) for fact in current):
                report.superseded_as_current += 1
                report.misses.append(f"{dialogue['id']} stale as current {_describe(old)}")
            elif any(_fits(old, fact) for fact in held if not fact.current):
                report.superseded_closed += 1
    return report
