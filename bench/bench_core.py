"""Cost of add_entry and get_context as a session's history grows (embedded stores).

Usage: python bench/bench_core.py [--sizes 10,1000,10000] [--ops 300]

Prints p50/p99 in microseconds per backend and history length. The goal is a
flat line: a 10,000-entry session costs what a 10-entry one does.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.stores import InMemoryStore, SQLiteStore

MESSAGE = "x" * 200


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def fill(memory: UnifiedMemoryService, session_id: str, n: int) -> None:
    for i in range(n):
        await memory.add_entry(
            session_id=session_id,
            entry=MemoryEntry(role="user" if i % 2 == 0 else "assistant", content=MESSAGE),
        )


async def measure(memory: UnifiedMemoryService, session_id: str, ops: int) -> dict[str, float]:
    append: list[float] = []
    read: list[float] = []
    for _ in range(ops):
        t0 = time.perf_counter()
        await memory.add_entry(
            session_id=session_id, entry=MemoryEntry(role="user", content=MESSAGE)
        )
        t1 = time.perf_counter()
        await memory.get_context(session_id, max_messages=10)
        t2 = time.perf_counter()
        append.append((t1 - t0) * 1e6)
        read.append((t2 - t1) * 1e6)
    return {
        "append_p50": statistics.median(append),
        "append_p99": pct(append, 0.99),
        "context_p50": statistics.median(read),
        "context_p99": pct(read, 0.99),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--ops", type=int, default=300)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    header = f"{'backend':8} {'history':>8} {'append p50':>11} {'p99':>8}"
    print(f"{header} {'context p50':>12} {'p99':>8}  (µs)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("memory", "sqlite"):
            store = InMemoryStore() if name == "memory" else SQLiteStore(Path(tmp) / "bench.db")
            async with UnifiedMemoryService(store) as memory:
                for size in sizes:
                    sid = f"{name}-{size}"
                    await fill(memory, sid, size)
                    r = await measure(memory, sid, args.ops)
                    print(
                        f"{name:8} {size:>8} {r['append_p50']:>11.1f} {r['append_p99']:>8.1f} "
                        f"{r['context_p50']:>12.1f} {r['context_p99']:>8.1f}"
                    )


if __name__ == "__main__":
    asyncio.run(main())
