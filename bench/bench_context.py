"""LLM context building: latency, and fact retention by budget and by depth.

Usage: python bench/bench_context.py [--ops 300] [--budgets 400,600,800,1200,1600]

1. Latency of ``build_llm_context`` on a 50-message session with 5 retrieved
   passages and 2 pinned facts, no LLM call (the offline summarizer), on the
   in-process and SQLite stores: p50/p99 in microseconds. "warm" is the steady
   state of a live session (the same history re-counted every turn hits the
   token cache); "new turn" adds one user entry before each build.
2. Fact retention on the labelled dialogues of ``tests/data/facts``: the share
   of facts kept by ``build_llm_context(max_tokens=B)`` against keeping only the
   newest messages that fit, per budget and per depth (where in the dialogue
   the fact was planted).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context import warm_up
from unimem.stores import InMemoryStore, SQLiteStore

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location(
    "fact_retention", ROOT / "tests" / "data" / "facts" / "retention.py"
)
assert _SPEC is not None and _SPEC.loader is not None
retention = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(retention)

PASSAGES = [
    {"content": f"Passage {i}: metformin is first-line for type 2 diabetes.", "source": f"g-{i}"}
    for i in range(5)
]
SENTENCE = "I have been feeling a bit dizzy after taking my blood pressure pills in the morning. "


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def latency(memory: UnifiedMemoryService, ops: int) -> dict[str, float]:
    await memory.update_settings({"anonymize_phi": False}, user_id=None)
    for i in range(50):
        role = "user" if i % 2 == 0 else "assistant"
        await memory.add_entry("bench", MemoryEntry(role=role, content=f"{i}: {SENTENCE * 2}"))
    await memory.add_fact("Allergic to penicillin", user_id=None, kind="allergy")
    await memory.add_fact("Takes lisinopril 20 mg every morning", user_id=None, kind="medication")
    first = time.perf_counter()
    await memory.build_llm_context("bench", "What should I do?", rag_results=PASSAGES)
    cold = (time.perf_counter() - first) * 1e6
    warm: list[float] = []
    for _ in range(ops):
        t0 = time.perf_counter()
        await memory.build_llm_context("bench", "What should I do?", rag_results=PASSAGES)
        warm.append((time.perf_counter() - t0) * 1e6)
    turn: list[float] = []
    for i in range(ops // 3):
        await memory.add_entry("bench", MemoryEntry(role="user", content=f"new {i}: {SENTENCE}"))
        t0 = time.perf_counter()
        await memory.build_llm_context("bench", "And now?", rag_results=PASSAGES, budget_ms=650)
        turn.append((time.perf_counter() - t0) * 1e6)
    return {
        "first": cold,
        "warm_p50": statistics.median(warm),
        "warm_p99": pct(warm, 0.99),
        "new_turn_p50": statistics.median(turn),
        "new_turn_p99": pct(turn, 0.99),
    }


async def retention_table(budgets: list[int], path: Path) -> None:
    dialogues = retention.load_dialogues(path)
    facts = sum(len(d["facts"]) for d in dialogues)
    print(f"\nfact retention, {path.name}: {len(dialogues)} dialogues, {facts} facts "
          "(unimem vs newest only)")  # fmt: skip
    print(f"{'budget':>7} {'unimem':>8} {'newest':>8}   by depth (unimem / newest)")
    for budget in budgets:
        ours: dict[str, list[bool]] = defaultdict(list)
        base: dict[str, list[bool]] = defaultdict(list)
        over = 0
        for dialogue in dialogues:
            async with UnifiedMemoryService() as memory:
                messages, tokens = await retention.replay(
                    memory, dialogue, "visit", max_tokens=budget, every=3
                )
            over += tokens > budget
            flags = retention.kept_flags(dialogue, messages)
            newest = retention.kept_flags(dialogue, retention.newest_only(dialogue, budget))
            for fact, kept, kept_base in zip(dialogue["facts"], flags, newest, strict=True):
                for key in ("all", fact["depth"]):
                    ours[key].append(kept)
                    base[key].append(kept_base)

        def share(values: list[bool]) -> str:
            return f"{100 * sum(values) / len(values):5.1f}%"

        depths = "  ".join(
            f"{d} {share(ours[d])} / {share(base[d])}" for d in ("early", "middle", "late")
        )
        print(f"{budget:>7} {share(ours['all']):>8} {share(base['all']):>8}   {depths}"
              + (f"   OVER BUDGET x{over}" if over else ""))  # fmt: skip


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=300)
    parser.add_argument("--budgets", default="400,600,800,1200,1600")
    args = parser.parse_args()
    warm_up()
    print("build_llm_context, 50-message session, 5 passages, 2 facts, no LLM (µs)")
    print(
        f"{'store':<8} {'first':>9} {'warm p50':>9} {'warm p99':>9} {'turn p50':>9} {'turn p99':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, store in (
            ("memory", InMemoryStore()),
            ("sqlite", SQLiteStore(Path(tmp) / "bench.db")),
        ):
            async with UnifiedMemoryService(store) as memory:
                r = await latency(memory, args.ops)
            print(f"{name:<8} {r['first']:>9.0f} {r['warm_p50']:>9.0f} {r['warm_p99']:>9.0f} "
                  f"{r['new_turn_p50']:>9.0f} {r['new_turn_p99']:>9.0f}")  # fmt: skip
    budgets = [int(b) for b in args.budgets.split(",")]
    await retention_table(budgets, retention.DIALOGUES)
    await retention_table(budgets, retention.HELDOUT)


if __name__ == "__main__":
    asyncio.run(main())
