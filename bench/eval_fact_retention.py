"""Fact retention in an 800-token context, end to end: each labelled clinical
dialogue (tests/data/clinical/) is stored turn by turn through the service (so
the facts each turn states are found and kept as the service keeps them), then
one ``build_llm_context`` of 800 tokens is built and read.

    PYTHONPATH=src python bench/eval_fact_retention.py [tune|heldout ...] [--tokens N] [--misses]

Per split and per setting: anonymization off; on, without re-identification;
on, with ``build_llm_context(reveal_phi=True)`` (the vault's values put back
for an LLM the deployment trusts; the facts are read with ``reveal=True``):

- ``retained``: labelled facts current at the dialogue's end that the context
  states: a current stored fact fits the label (its key and every checked
  detail, as tests/data/clinical/README.md defines) and its line is in the
  context; with anonymization on the values are compared as stored, so an
  identifier (the preferred name) cannot match, and ``retained_non_identifier``
  leaves the preferred name out;
- ``stale_as_current``: superseded values (the dialogue's ``superseded``) that
  the context states as current (a current fact fitting one, its line in the
  context): must be 0;
- ``summary_tokens`` / ``chatter_lines``: what the summary of older turns
  spends, and how many of its lines come from turns labelled chatter.

``--misses`` prints what was not retained: use it on the tune splits only
(``heldout4`` is never tuned on; its first run is the figure to report).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from unimem import Fact, MemoryEntry, UnifiedMemoryService
from unimem.config import MemoryConfig
from unimem.context import count_text_tokens
from unimem.privacy.crypto import generate_key

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "clinical"
QUERY = "What should I keep in mind for this patient today?"
SUMMARY_PREFIX = "[Previous conversation summary:"
#: Facts that identify the patient (compared as stored: a token with anonymization on).
IDENTIFIER_KINDS = {"preferred_name"}


def _same(expected: str, found: str | None) -> bool:
    have = " ".join((found or "").lower().split())
    if expected.startswith("~"):
        return expected[1:].lower() in have
    return " ".join(expected.lower().split()) == have


def fits(label: Mapping[str, Any], fact: Fact) -> bool:
    """Whether ``fact`` is the labelled fact: key (``kind:*`` any of the kind)
    and every checked detail."""
    key = str(label["key"])
    if key.endswith(":*"):
        if fact.kind != label["kind"]:
            return False
    elif fact.key != key:
        return False
    if "value" in label and not _same(str(label["value"]), fact.value):
        return False
    attrs: Mapping[str, str] = label.get("attrs", {})
    return all(_same(want, fact.attributes.get(name)) for name, want in attrs.items())


#: (anonymize_phi, reveal_phi) per reported setting.
SETTINGS = ((False, False), (True, False), (True, True))


async def replay(
    dialogue: Mapping[str, Any], *, anonymize: bool, tokens: int, reveal: bool = False
) -> dict[str, Any]:
    """Store the dialogue, build one context, and score it."""
    start = datetime.fromisoformat(dialogue["now"])
    skew = int((start - datetime.now(start.tzinfo)).total_seconds()) + 3600
    config = MemoryConfig(max_clock_skew_seconds=max(300, skew))
    async with UnifiedMemoryService(config=config) as memory:
        if reveal:  # the vault needs a key
            memory.use_encryption(generate_key("eval"))
        await memory.update_settings({"anonymize_phi": anonymize}, user_id="p")
        turns = dialogue["turns"]
        first = start - timedelta(seconds=len(turns))
        chatter: set[str] = set()
        for number, turn in enumerate(turns):
            entry = MemoryEntry(
                role=turn["role"],
                content=turn["text"],
                mode="voice" if turn["style"] == "voice" else "text",
                language=dialogue["language"],
                timestamp=first + timedelta(seconds=number),
            )
            stored = await memory.add_entry("visit", entry, user_id="p")
            if turn["tag"] == "chatter":
                chatter.add(stored.content)
        context = await memory.build_llm_context(
            "visit", QUERY, max_tokens=tokens, user_id="p", reveal_phi=reveal
        )
        facts = await memory.list_facts(user_id="p", reveal=reveal)
    said = "\n".join(str(m["content"]) for m in context)
    stated = [f for f in facts if f.text in said]
    final = dialogue["final"]
    retained = [label for label in final if any(fits(label, f) for f in stated)]
    summary = next(
        (str(m["content"]) for m in context if str(m["content"]).startswith(SUMMARY_PREFIX)), ""
    )
    lines = [line for line in summary.splitlines() if line.startswith("- ")]
    return {
        "facts": len(final),
        "retained": len(retained),
        "non_identifier": sum(1 for label in final if label["kind"] not in IDENTIFIER_KINDS),
        "retained_non_identifier": sum(
            1 for label in retained if label["kind"] not in IDENTIFIER_KINDS
        ),
        "superseded": len(dialogue["superseded"]),
        "stale_as_current": sum(
            1 for old in dialogue["superseded"] if any(fits(old, f) for f in stated)
        ),
        "tokens": context.token_count,
        "summary_tokens": count_text_tokens(summary) if summary else 0,
        "chatter_lines": sum(
            1 for line in lines if any(line.split(": ", 1)[-1] in text for text in chatter)
        ),
        "misses": [
            f"{dialogue['id']} not stated: {label['key']} {label.get('attrs', {})}"
            for label in final
            if label not in retained
        ],
    }


async def evaluate(
    split: str, *, anonymize: bool, tokens: int, reveal: bool = False
) -> dict[str, Any]:
    dialogues: Sequence[Mapping[str, Any]] = json.loads(
        (DATA / f"{split}.json").read_text(encoding="utf-8")
    )
    runs = [await replay(d, anonymize=anonymize, tokens=tokens, reveal=reveal) for d in dialogues]
    total = {k: sum(r[k] for r in runs) for k in runs[0] if k != "misses"}
    return {
        "split": split,
        "anonymize_phi": anonymize,
        "reveal_phi": reveal,
        "dialogues": len(runs),
        "max_tokens": tokens,
        "retention": round(total["retained"] / total["facts"], 3),
        "retention_non_identifier": round(
            total["retained_non_identifier"] / total["non_identifier"], 3
        ),
        "stale_as_current": total["stale_as_current"],
        "superseded": total["superseded"],
        "max_context_tokens": max(r["tokens"] for r in runs),
        "summary_tokens": total["summary_tokens"],
        "summary_chatter_lines": total["chatter_lines"],
        "misses": [m for r in runs for m in r["misses"]],
    }


async def main(argv: list[str]) -> None:
    tokens = int(argv[argv.index("--tokens") + 1]) if "--tokens" in argv else 800
    skip = {str(tokens)}
    splits = [a for a in argv if not a.startswith("--") and a not in skip] or ["tune"]
    for split in splits:
        for anonymize, reveal in SETTINGS:
            report = await evaluate(split, anonymize=anonymize, tokens=tokens, reveal=reveal)
            misses = report.pop("misses")
            print(json.dumps(report))
            if "--misses" in argv:
                for line in misses:
                    print("  ", line)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
