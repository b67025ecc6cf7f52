"""What automatic facts cost: a turn's write with and without them, and
``build_llm_context`` with a user's facts, in one run on the in-process and
SQLite stores (p50 / p99 in microseconds, and the ratios).

    PYTHONPATH=src python bench/bench_facts_path.py [--turns 300] [--ops 300]

1. ``add_entry`` of the labelled clinical dialogues' turns (tests/data/clinical/
   tune.json: facts, changes, chatter), with ``auto_facts`` off (what the
   store alone costs) and on (the rules find each turn's facts, changes close
   the old ones), anonymization off.
2. ``build_llm_context(max_tokens=800)`` of a 50-turn session whose user has
   0, 25 and 100 current facts (each with a closed earlier value), against
   the same build with the facts pinned by hand (``add_fact``: no history).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from unimem import Fact, MemoryEntry, UnifiedMemoryService
from unimem.config import MemoryConfig
from unimem.context import warm_up
from unimem.ids import new_id
from unimem.stores import InMemoryStore, SQLiteStore

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "clinical" / "tune.json"


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def show(label: str, samples: list[float]) -> float:
    p50 = pct(samples, 0.5)
    print(f"  {label:<44} p50 {p50:8.0f} µs  p99 {pct(samples, 0.99):8.0f} µs")
    return p50


def turns(limit: int) -> list[tuple[str, str]]:
    out = []
    for dialogue in json.loads(DATA.read_text(encoding="utf-8")):
        out += [(t["role"], t["text"]) for t in dialogue["turns"] if dialogue["language"] == "en"]
    return out[:limit]


def store(kind: str, folder: Path):
    return InMemoryStore() if kind == "memory" else SQLiteStore(folder / f"{new_id()}.db")


async def writes(kind: str, folder: Path, auto: bool, count: int) -> list[float]:
    config = MemoryConfig(auto_facts=auto)
    samples: list[float] = []
    async with UnifiedMemoryService(store(kind, folder), config=config) as memory:
        await memory.update_settings({"anonymize_phi": False}, user_id="u")
        for number, (role, text) in enumerate(turns(count)):
            entry = MemoryEntry(role=role, content=text, language="en")
            started = time.perf_counter()
            await memory.add_entry(f"s{number // 150}", entry, user_id="u")
            samples.append((time.perf_counter() - started) * 1e6)
    return samples


def found_fact(number: int, current: bool) -> Fact:
    now = datetime.now(UTC)
    return Fact(
        id=new_id(),
        user_id="u",
        kind=("allergy", "medication", "condition", "symptom")[number % 4],
        key=f"medication:drug-{number}",
        value=f"{10 + number} mg",
        attributes={"name": f"drug-{number}", "status": "taking"},
        text=f"Medication: drug-{number} {10 + number if current else number} mg (taking)",
        session_id="s",
        source_entry_ids=["e"],
        created_at=now,
        valid_from=now,
        valid_to=None if current else now,
    )


async def builds(kind: str, folder: Path, facts: int, pinned: bool, ops: int) -> list[float]:
    samples: list[float] = []
    async with UnifiedMemoryService(
        store(kind, folder), config=MemoryConfig(auto_facts=False)
    ) as memory:
        for number in range(50):
            role = "user" if number % 2 == 0 else "assistant"
            text = f"Turn {number}: my blood pressure was 130 over 85 this morning."
            await memory.add_entry("s", MemoryEntry(role=role, content=text), user_id="u")
        for number in range(facts):
            if pinned:
                await memory.add_fact(found_fact(number, True).text, "medication", user_id="u")
            else:
                await memory.store.apply_fact_changes(
                    "u", add=[found_fact(number, False), found_fact(number, True)]
                )
        for _ in range(20):
            await memory.build_llm_context("s", "What dose?", max_tokens=800, user_id="u")
        for _ in range(ops):
            started = time.perf_counter()
            await memory.build_llm_context("s", "What dose?", max_tokens=800, user_id="u")
            samples.append((time.perf_counter() - started) * 1e6)
    return samples


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--ops", type=int, default=300)
    args = parser.parse_args()
    warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for kind in ("memory", "sqlite"):
            print(f"\nadd_entry, {kind} store, {args.turns} clinical turns")
            off = show("auto_facts off", await writes(kind, folder, False, args.turns))
            on = show("auto_facts on (rules)", await writes(kind, folder, True, args.turns))
            print(f"  facts add {on - off:.0f} µs p50 a turn ({on / off:.2f}x)")
            print(f"\nbuild_llm_context(max_tokens=800), {kind} store, 50 turns")
            base = show("no facts", await builds(kind, folder, 0, False, args.ops))
            for count in (25, 100):
                found = show(
                    f"{count} found facts (+{count} closed)",
                    await builds(kind, folder, count, False, args.ops),
                )
                pinned = show(
                    f"{count} facts pinned by hand",
                    await builds(kind, folder, count, True, args.ops),
                )
                print(
                    f"  {count}: found/none {found / base:.2f}x, found/pinned {found / pinned:.2f}x"
                )
    print("\none run; the ratios are from it")


if __name__ == "__main__":
    asyncio.run(main())
