"""unimem on its embedded SQLite store against the OpenAI Agents SDK
``SQLiteSession`` and a raw sqlite3 floor: append one message, read the last 10.

Usage: python bench/anchors_sqlite.py [--ops 500] [--history 100] [--json out.json]

One run, one operation at a time, 200-character messages, each system on its
own database file in a temporary directory, the same history length first.
The floor is ``INSERT`` + commit / ``SELECT ... ORDER BY seq DESC LIMIT 10`` on
one table through the stdlib sqlite3 module (no thread hop). The Agents SDK
session stores items as JSON and runs its sqlite3 calls in a thread, like
unimem's store; it does no validation, detection, ordering or idempotency.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.stores import SQLiteStore

MESSAGE = (
    "I have been taking metformin twice a day with meals and I would like to know "
    "whether I should change the dose now that my blood sugar readings in the morning "
    "are lower than they were before."
)[:200]

Op = Callable[[], Awaitable[Any]]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(op: Op, n: int) -> list[float]:
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        await op()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, dict[str, float]]:
    subjects: dict[str, tuple[Op, Op]] = {}
    closers: list[Op] = []

    memory = UnifiedMemoryService(SQLiteStore(tmp / "unimem.db"))
    await memory.setup()
    closers.append(memory.aclose)
    # as the Redis + PostgreSQL table's "unimem service" row: a voice turn that
    # carries the language speech-to-text identified; the read is the last 10
    # with the owner check (get_history)
    entry = {"role": "user", "content": MESSAGE, "language": "en", "detected_language": "en"}
    subjects["unimem service (SQLite)"] = (
        lambda: memory.add_entry("s", MemoryEntry(**entry), user_id="bench"),
        lambda: memory.get_history("s", max_messages=10, user_id="bench"),
    )

    floor = sqlite3.connect(tmp / "floor.db", isolation_level=None)
    floor.execute("PRAGMA journal_mode=WAL")
    floor.execute("PRAGMA synchronous=FULL")  # durable per commit, like unimem
    floor.execute("CREATE TABLE m (seq INTEGER PRIMARY KEY, data TEXT)")
    payload = json.dumps({"role": "user", "content": MESSAGE})

    async def floor_append() -> None:
        floor.execute("INSERT INTO m (data) VALUES (?)", (payload,))

    async def floor_read() -> list[Any]:
        rows = floor.execute("SELECT data FROM m ORDER BY seq DESC LIMIT 10").fetchall()
        return [json.loads(r[0]) for r in rows]

    subjects["sqlite3 floor"] = (floor_append, floor_read)

    try:
        from agents import SQLiteSession
    except ImportError as exc:
        print(f"(skipping OpenAI Agents SDK SQLiteSession: {exc})")
    else:
        session = SQLiteSession("anchor", tmp / "agents.db")
        item = {"role": "user", "content": MESSAGE}
        subjects["OpenAI Agents SQLiteSession"] = (
            lambda: session.add_items([item]),  # type: ignore[list-item]
            lambda: session.get_items(limit=10),
        )

    results: dict[str, dict[str, float]] = {}
    try:
        for _name, (append, _read) in subjects.items():
            for _ in range(args.history):
                await append()
        for name, (append, read) in subjects.items():
            await timed(append, 30)
            await timed(read, 30)
            appends = await timed(append, args.ops)
            reads = await timed(read, args.ops)
            results[name] = {
                "append_p50": statistics.median(appends),
                "append_p99": pct(appends, 0.99),
                "read_p50": statistics.median(reads),
                "read_p99": pct(reads, 0.99),
            }
    finally:
        for close in closers:
            await close()
        floor.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=500)
    parser.add_argument("--history", type=int, default=100)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(run(args, Path(tmp)))
    print(f"\n{'system':38} {'append p50':>10} {'p99':>7} {'read10 p50':>10} {'p99':>7}  (ms)")
    for name, r in results.items():
        print(
            f"{name:38} {r['append_p50']:>10.3f} {r['append_p99']:>7.3f} "
            f"{r['read_p50']:>10.3f} {r['read_p99']:>7.3f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
