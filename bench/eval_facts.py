"""Accuracy of the facts rules on the labelled clinical dialogues.

    PYTHONPATH=src python bench/eval_facts.py [SPLIT ...] [--misses]

Prints, per split, the current facts found (precision / recall), the
superseded values closed and those still read as current, and the changes
made on distractor turns (relatives, chatter, questions, negations).
``--misses`` lists what was missed or extra: use it on the tune splits only, since
``heldout4`` is never tuned on (tests/data/clinical/README.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from unimem.facts.evaluate import score_dialogues

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "clinical"


def main(argv: list[str]) -> None:
    splits = [a for a in argv if not a.startswith("--")] or [
        "tune",
        "tune2",
        "heldout",
        "heldout2",
        "heldout3",
        "heldout4",
    ]
    for split in splits:
        dialogues = json.loads((DATA / f"{split}.json").read_text(encoding="utf-8"))
        report = score_dialogues(dialogues)
        print(split, json.dumps(report.as_dict(), ensure_ascii=False))
        if "--misses" in argv:
            for line in [*report.misses, *report.extras]:
                print("  ", line)


if __name__ == "__main__":
    main(sys.argv[1:])
