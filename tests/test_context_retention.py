"""Fact retention: on long labelled dialogues, an 800-token context built with the
offline summarizer keeps at least 90% of the facts and never exceeds the budget."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from unimem import UnifiedMemoryService
from unimem.context import count_tokens
from unimem.stores import SQLiteStore

_SPEC = importlib.util.spec_from_file_location(
    "fact_retention", Path(__file__).parent / "data" / "facts" / "retention.py"
)
assert _SPEC is not None and _SPEC.loader is not None
retention = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(retention)

BUDGET = 800
#: The held-out histories are shorter (1,400-1,900 tokens): 700 keeps the
#: budget under half of each, as 800 is for the main set.
HELDOUT_BUDGET = 700


@pytest.mark.parametrize("path", [retention.DIALOGUES, retention.HELDOUT], ids=["main", "heldout"])
def test_the_dialogues_are_long_and_labelled(path):
    dialogues = retention.load_dialogues(path)
    assert len(dialogues) >= 6
    for dialogue in dialogues:
        assert 80 <= len(dialogue["turns"]) <= 120
        assert {t["mode"] for t in dialogue["turns"]} == {"voice", "text"}
        history = [{"role": t["role"], "content": t["content"]} for t in dialogue["turns"]]
        budget = BUDGET if path == retention.DIALOGUES else HELDOUT_BUDGET
        assert count_tokens(history) > 2 * budget  # the budget is under half the history
        assert {f["depth"] for f in dialogue["facts"]} == {"early", "middle", "late"}
        if path == retention.DIALOGUES:
            assert any(f["kind"] == "medication_correction" for f in dialogue["facts"])


async def _retention(
    every: int, path: Path = retention.DIALOGUES, budget: int = BUDGET
) -> tuple[float, float]:
    kept = baseline = total = 0
    for dialogue in retention.load_dialogues(path):
        async with UnifiedMemoryService() as memory:
            messages, tokens = await retention.replay(
                memory, dialogue, "visit", max_tokens=budget, every=every
            )
        assert count_tokens(messages) == tokens <= budget
        flags = retention.kept_flags(dialogue, messages)
        kept += sum(flags)
        baseline += sum(retention.kept_flags(dialogue, retention.newest_only(dialogue, budget)))
        total += len(flags)
    return kept / total, baseline / total


async def test_retention_at_800_tokens_built_once():
    ours, newest_only = await _retention(every=0)
    assert ours >= 0.90
    assert newest_only < 0.5  # keeping only the newest messages loses most facts


async def test_retention_at_800_tokens_built_every_few_turns():
    """As a live assistant builds it: the running summary grows in steps."""
    ours, _ = await _retention(every=3)
    assert ours >= 0.90


async def test_retention_on_the_heldout_dialogues():
    """Phrasings, drugs and conditions the summarizer was not written against."""
    ours, newest_only = await _retention(every=3, path=retention.HELDOUT, budget=HELDOUT_BUDGET)
    assert ours >= 0.90
    assert newest_only < 0.5


async def test_retention_on_sqlite(tmp_path):
    dialogue = retention.load_dialogues()[0]
    async with UnifiedMemoryService(SQLiteStore(tmp_path / "m.db")) as memory:
        messages, tokens = await retention.replay(
            memory, dialogue, "visit", max_tokens=BUDGET, every=5
        )
    assert tokens <= BUDGET
    flags = retention.kept_flags(dialogue, messages)
    assert sum(flags) / len(flags) >= 0.9
