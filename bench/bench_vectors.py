"""Dense recall's costs: embedding, vector bytes, the append with indexing on,
the indexing lag under a steady write load, and the exact scan.

Usage: python bench/bench_vectors.py [--store sqlite|postgres] [--rate 5] [--seconds 20]
       [--scan 1000,10000,100000]

Side by side in one run, on one store:

- ``embed``: ms per entry of the built-in model (batches of 32) and per query;
- ``bytes/entry``: the vector tables' size per indexed entry (SQLite: their
  pages; PostgreSQL: ``pg_total_relation_size`` of ``entry_vectors``);
- ``append``: p50/p99 (µs) of the durable append, with the indexer off and
  then on (embedding runs off the request path, so the two should match);
- ``lag``: entries written at ``--rate`` a second for ``--seconds`` while the
  background indexer runs; the largest backlog and oldest wait seen, sampled
  every 0.1 s, and the wait after the last write until the queue is empty;
- ``scan``: ms of one exact top-60 scan of N random unit vectors (numpy,
  :func:`unimem.recall.vectors.top_k`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.embeddings import LocalEmbedder
from unimem.recall.vectors import to_bytes, top_k
from unimem.stores import SQLiteStore
from unimem.stores.contracts import DurableStore
from unimem.stores.postgres import PostgresStore

PG_URL = os.environ.get("UNIMEM_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
SENTENCES = [
    "the cardiologist changed my lisinopril to 20 milligrams",
    "um i picked up the metformin at the pharmacy, the line was long",
    "mi hija viene a quedarse el fin de semana",
    "le médecin m'a dit que la tension était un peu haute",
    "我昨天去看了心脏科医生，他说血压有点高",
    "i forgot my pill this morning and took it at lunch",
]


def _entry(i: int) -> MemoryEntry:
    return MemoryEntry(role="user", content=f"{SENTENCES[i % len(SENTENCES)]} ({i})")


async def _store(kind: str, tmp: str) -> tuple[DurableStore, str | None]:
    if kind == "sqlite":
        return SQLiteStore(Path(tmp) / "bench.db"), None
    schema = "bench_vec_" + uuid.uuid4().hex[:8]
    return PostgresStore(PG_URL, schema=schema, min_size=1, max_size=4), schema


def _sqlite_vector_bytes(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        row = db.execute(
            "SELECT SUM(pgsize) FROM dbstat WHERE name IN "
            "('entry_vectors', 'entry_vectors_by_user', 'sqlite_autoindex_entry_vectors_1')"
        ).fetchone()
    finally:
        db.close()
    return int(row[0] or 0)


async def _vector_bytes(kind: str, schema: str | None, tmp: str) -> int:
    if kind == "sqlite":
        return _sqlite_vector_bytes(Path(tmp) / "bench.db")
    conn = await asyncpg.connect(PG_URL, server_settings={"search_path": schema or "public"})
    try:
        return int(await conn.fetchval("SELECT pg_total_relation_size('entry_vectors')"))
    finally:
        await conn.close()


async def _appends(svc: UnifiedMemoryService, n: int, offset: int) -> list[float]:
    times = []
    for i in range(n):
        start = time.perf_counter()
        await svc.add_entry(f"append-{(offset + i) // 20}", _entry(offset + i), user_id="bench")
        times.append((time.perf_counter() - start) * 1e6)
    return times


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


async def run(kind: str, rate: float, seconds: float, scan_sizes: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {"store": kind}
    model = LocalEmbedder()
    texts = [SENTENCES[i % len(SENTENCES)] for i in range(64)]
    await model.embed(texts[:2], kind="passage")  # load
    start = time.perf_counter()
    await model.embed(texts, kind="passage")
    out["embed_ms_per_entry"] = round((time.perf_counter() - start) / len(texts) * 1e3, 1)
    start = time.perf_counter()
    for text in texts[:16]:
        await model.embed([text], kind="query")
    out["embed_ms_per_query"] = round((time.perf_counter() - start) / 16 * 1e3, 1)
    with tempfile.TemporaryDirectory() as tmp:
        store, schema = await _store(kind, tmp)
        try:
            async with UnifiedMemoryService(store) as plain:  # keyword only: no indexer
                await _appends(plain, 50, 10_000)  # warm-up (language model, caches)
                off = await _appends(plain, 300, 0)
            svc = UnifiedMemoryService(store, embedder=model)
            async with svc:
                await svc.recall_index.drain()  # the 300 above: the backfill
                on = await _appends(svc, 300, 300)
                out["append_us_indexer_off"] = (round(_p(off, 50)), round(_p(off, 99)))
                out["append_us_indexer_on"] = (round(_p(on, 50)), round(_p(on, 99)))
                await svc.recall_index.drain()
                size = await _vector_bytes(kind, schema, tmp)
                out["vector_bytes_per_entry"] = round(size / 650)
                peak_pending, peak_wait = 0, 0.0
                written, begin = 0, time.perf_counter()
                while time.perf_counter() - begin < seconds:
                    due = int((time.perf_counter() - begin) * rate)
                    while written < due:
                        await svc.add_entry(f"load-{written // 20}", _entry(written), user_id="b")
                        written += 1
                    status = await svc.recall_index.status()
                    peak_pending = max(peak_pending, status.pending)
                    peak_wait = max(peak_wait, status.oldest_pending_seconds or 0.0)
                    await asyncio.sleep(0.1)
                last = time.perf_counter()
                await svc.recall_index.drain()  # what the background task had left
                out["lag"] = {
                    "rate_per_s": rate,
                    "written": written,
                    "max_pending": peak_pending,
                    "max_oldest_wait_s": round(peak_wait, 2),
                    "drained_after_last_write_s": round(time.perf_counter() - last, 2),
                }
        finally:
            if schema is not None:
                conn = await asyncpg.connect(PG_URL)
                await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                await conn.close()
    rng = np.random.default_rng(7)
    for n in scan_sizes:
        rows = rng.standard_normal((n, 384)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        blobs = [to_bytes(r) for r in rows]
        query = rows[0]
        times = []
        for _ in range(10):
            start = time.perf_counter()
            top_k(query, blobs, 60)
            times.append((time.perf_counter() - start) * 1e3)
        out[f"scan_ms_{n}"] = round(statistics.median(times), 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rate", type=float, default=5.0, help="entries written a second")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--scan", default="1000,10000,100000")
    args = parser.parse_args()
    sizes = [int(n) for n in args.scan.split(",") if n]
    result = asyncio.run(run(args.store, args.rate, args.seconds, sizes))
    for key, value in result.items():
        print(f"{key:28s} {value}")


if __name__ == "__main__":
    main()
