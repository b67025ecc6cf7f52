"""The facts rules on the labelled tune dialogues (tests/data/clinical/tune.json
and tune2.json) hold their figures; the held-out set is only scored by
bench/eval_facts.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unimem.facts.evaluate import score_dialogues

DATA = Path(__file__).parent / "data" / "clinical"


@pytest.mark.parametrize(("split", "closed"), [("tune", 46), ("tune2", 53)])
def test_the_tune_dialogues_keep_their_facts_and_never_state_a_stale_one(
    split: str, closed: int
) -> None:
    report = score_dialogues(json.loads((DATA / f"{split}.json").read_text(encoding="utf-8")))
    assert report.dialogues == 8 and report.turns > 1000
    assert report.recall >= 0.97, report.misses
    assert report.precision >= 0.97, report.extras
    assert report.superseded_as_current == 0, report.misses
    assert report.superseded_closed >= closed
    assert report.false_positives["relative"] == 0, report.extras
    assert sum(report.false_positives.values()) == 0, report.extras
