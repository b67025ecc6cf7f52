"""Cost of the privacy controls on add_entry / get_context (embedded SQLite), and of deletion.

Usage: python bench/bench_privacy.py [--ops 300]

Prints p50/p99 in microseconds of add_entry for: anonymize_phi off, on with a
PHI-free message, on with PHI (a new token each turn), and the same with
encryption at rest; get_context with and without encryption; and the time of
``delete_user_memory(all)`` for a user with 1,000 entries.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.privacy.crypto import generate_key
from unimem.stores import SQLiteStore

PLAIN = "I have had a headache since the morning and took 500 mg of paracetamol"
PHI = "my name is john carter and my number is five five five one two one {}"


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_case(folder: Path, name: str, ops: int, *, phi: bool, text: str, enc: bool) -> None:
    async with UnifiedMemoryService(SQLiteStore(folder / f"{name}.db")) as memory:
        if enc:
            memory.use_encryption(generate_key("k1"))
        await memory.update_settings({"anonymize_phi": phi}, user_id="u1")
        writes: list[float] = []
        reads: list[float] = []
        for i in range(ops):
            entry = MemoryEntry(role="user", content=text.format(i % 10), language="en")
            t0 = time.perf_counter()
            await memory.add_entry("s1", entry, user_id="u1")
            writes.append((time.perf_counter() - t0) * 1e6)
            t0 = time.perf_counter()
            await memory.get_context("s1", max_messages=10, user_id="u1")
            reads.append((time.perf_counter() - t0) * 1e6)
        print(
            f"{name:<28} add_entry p50 {pct(writes, 0.5):7.0f} µs  p99 {pct(writes, 0.99):7.0f} µs"
            f"   get_context p50 {pct(reads, 0.5):6.0f} µs"
        )


async def run_delete(folder: Path) -> None:
    async with UnifiedMemoryService(SQLiteStore(folder / "delete.db")) as memory:
        await memory.update_settings({"anonymize_phi": False}, user_id="u1")
        for i in range(1000):
            entry = MemoryEntry(role="user", content=PLAIN)
            await memory.add_entry(f"s{i % 20}", entry, user_id="u1")
        t0 = time.perf_counter()
        receipt = await memory.delete_user_memory("all", user_id="u1")
        elapsed = (time.perf_counter() - t0) * 1e3
        print(f"delete_user_memory(all): {receipt.total} rows in {elapsed:.1f} ms")


async def main(ops: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        await run_case(folder, "anonymize off", ops, phi=False, text=PLAIN, enc=False)
        await run_case(folder, "anonymize on, no PHI", ops, phi=True, text=PLAIN, enc=False)
        await run_case(folder, "anonymize on, PHI", ops, phi=True, text=PHI, enc=False)
        await run_case(folder, "anonymize on, PHI, encrypted", ops, phi=True, text=PHI, enc=True)
        await run_case(folder, "no PHI, encrypted", ops, phi=True, text=PLAIN, enc=True)
        await run_delete(folder)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=300)
    asyncio.run(main(parser.parse_args().ops))
