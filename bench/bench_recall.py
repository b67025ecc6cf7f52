"""Long-term recall: search and context cost by history size, index size, append cost.

Usage: python bench/bench_recall.py [--sizes 1000,10000,100000] [--stores memory,sqlite,postgres]
       [--ops 100] [--dense] [--cache-mb 0,256]

For each store and size N, one user gets N entries (patient-style sentences
from the recall evaluation set, spread over N/20 sessions), written with
``append_entry`` for each session's first and in bulk for the rest (the
keyword index is kept by the store's triggers in the same statements).
Then, side by side in one run:

- ``search_memory`` p50/p99 (ms) over questions of the evaluation set;
- ``build_llm_context`` with recall in a new session, 2,000 tokens, p50/p99 (ms);
- ``append`` p50 (µs) of one more entry at that size, with the index on, and
  for SQLite the same append with the index's triggers dropped (the cost of
  indexing on the write path);
- bytes per entry of the keyword index (SQLite: the index tables' pages;
  PostgreSQL: ``pg_total_relation_size('entry_search')``).

With ``--dense`` the service runs with the built-in embedder (keyword and
dense fused) and every entry has its vector (the vector of its sentence,
embedded once per distinct sentence, stored through the store's own
``put_vectors``). Searches and contexts then ask questions no earlier call
asked (search the even ones, contexts the odd ones), so each embeds its
question; ``context_cached`` asks the context questions again (their
embeddings are cached). The background indexer is stopped meanwhile (the
appends' vectors are not waited for). ``--cache-mb`` runs each size once per
bound of the in-memory vector matrices (``MemoryConfig.vector_cache_bytes``;
0: every search scans the store).

PostgreSQL runs in a scratch schema of ``UNIMEM_TEST_DATABASE_URL`` (default
the loopback test database), dropped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from unimem import MemoryConfig, MemoryEntry, UnifiedMemoryService
from unimem.embeddings import LocalEmbedder
from unimem.ids import new_id
from unimem.recall.vectors import to_bytes
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.base import DurableStore
from unimem.stores.postgres import PostgresStore
from unimem.stores.sqlite.search import register
from unimem.stores.vectors import vector_store_of

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "recall" / "recall_eval.json"
PER_SESSION = 20
#: The vector of each distinct sentence, made once per run (``--dense``).
MADE: dict[str, bytes] = {}
PG_URL = os.environ.get("UNIMEM_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def corpus() -> tuple[list[tuple[str, str]], list[str]]:
    data = json.loads(DATA.read_text())
    turns = [
        (t["content"], t["language"])
        for u in data["users"]
        for s in u["sessions"]
        for t in s["turns"]
        if t["role"] == "user"
    ]
    questions = [q["question"] for u in data["users"] for q in u["questions"]]
    return turns, questions


def _entries(n: int, turns: list[tuple[str, str]]) -> list[MemoryEntry]:
    rng = random.Random(7)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        text, language = rng.choice(turns)
        out.append(
            MemoryEntry(
                id=new_id(),
                session_id=f"s{i // PER_SESSION:06d}",
                user_id="bench",
                role="user",
                content=f"{text} ({i})",
                language=language,
                seq=i % PER_SESSION + 1,
                timestamp=start + timedelta(minutes=7 * i),
            )
        )
    return out


async def fill(
    store: DurableStore, n: int, turns: list[tuple[str, str]], schema: str | None
) -> None:
    """Each session's first entry through ``append_entry`` (which makes the
    session), the rest in bulk into the entries table (SQLite ``executemany``,
    PostgreSQL ``COPY``): the index's triggers fire for every row either way."""
    entries = _entries(n, turns)
    rest = []
    for entry in entries:
        if entry.seq == 1 or isinstance(store, InMemoryStore):
            await store.append_entry(entry.model_copy(update={"seq": None}))
        else:
            rest.append(entry)
    if isinstance(store, SQLiteStore):
        db = sqlite3.connect(store.path)
        register(db)
        with db:
            db.executemany(
                "INSERT INTO entries (session_id, seq, id, user_id, ts_us, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (e.session_id, e.seq, e.id, e.user_id, int(e.timestamp.timestamp() * 1e6),
                     e.model_dump_json())
                    for e in rest
                    if e.timestamp is not None
                ],
            )  # fmt: skip
        db.close()
    elif isinstance(store, PostgresStore):
        # the triggers name the schema's tables unqualified
        conn = await asyncpg.connect(PG_URL, server_settings={"search_path": str(schema)})
        try:
            await conn.copy_records_to_table(
                "entries",
                schema_name=schema,
                columns=["session_id", "seq", "id", "user_id", "ts", "data"],
                records=[
                    (e.session_id, e.seq, e.id, e.user_id, e.timestamp, e.model_dump_json())
                    for e in rest
                ],
            )
        finally:
            await conn.close()


async def fill_vectors(
    store: DurableStore, embedder: LocalEmbedder, made: dict[str, bytes]
) -> None:
    """Every queued entry's vector: its sentence's (the ``(i)`` suffix aside),
    each distinct sentence embedded once in the run (``made``)."""
    vectors = vector_store_of(store)
    assert vectors is not None
    while pending := await vectors.pending_vectors(5000):
        bases = [p.text.rsplit(" (", 1)[0] for p in pending]
        new = sorted({b for b in bases if b not in made})
        for start in range(0, len(new), 32):
            rows = await embedder.embed(new[start : start + 32], kind="passage")
            made.update(
                (t, to_bytes(r)) for t, r in zip(new[start : start + 32], rows, strict=True)
            )
        await vectors.put_vectors(
            embedder.model, [(p, made[b]) for p, b in zip(pending, bases, strict=True)]
        )


async def timed(fn: Any, ops: int) -> list[float]:
    samples = []
    for i in range(ops):
        t0 = time.perf_counter()
        await fn(i)
        samples.append((time.perf_counter() - t0) * 1e3)
    return samples


async def measure(
    service: UnifiedMemoryService, questions: list[str], ops: int
) -> dict[str, float]:
    await service.search_memory("warm up the tokenizer and the model", user_id="bench")
    asked, other = questions[0::2], questions[1::2]
    search = await timed(
        lambda i: service.search_memory(asked[i % len(asked)], user_id="bench"), ops
    )

    async def context(i: int) -> None:
        await service.build_llm_context(
            f"new-{uuid.uuid4().hex[:8]}",
            other[i % len(other)],
            user_id="bench",
            max_tokens=2000,
        )

    count = min(len(other), max(10, ops // 2))
    ctx = await timed(context, count)
    cached = await timed(context, count)
    store = service.store
    append = await timed(
        lambda i: store.append_entry(
            MemoryEntry(
                id=new_id(),
                session_id="append",
                user_id="bench",
                role="user",
                content="the cardiologist changed my lisinopril dose",
                timestamp=datetime.now(UTC),
            )
        ),
        ops,
    )
    return {
        "search_p50_ms": statistics.median(search),
        "search_p99_ms": pct(search, 0.99),
        "context_p50_ms": statistics.median(ctx),
        "context_p99_ms": pct(ctx, 0.99),
        "context_cached_p50_ms": statistics.median(cached),
        "context_cached_p99_ms": pct(cached, 0.99),
        "append_p50_us": statistics.median(append) * 1e3,
    }


def sqlite_index_bytes(path: Path, n: int) -> float:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT name, SUM(pgsize) FROM dbstat WHERE name LIKE 'entry_search%' "
            "OR name LIKE 'entry_terms%' OR name LIKE 'sqlite_autoindex_entry_search%' "
            "GROUP BY name"
        ).fetchall()
    except sqlite3.OperationalError:  # dbstat not compiled in
        return float("nan")
    finally:
        db.close()
    return sum(size for _, size in rows) / n


async def sqlite_append_without_index(path: Path, ops: int) -> float:
    db = sqlite3.connect(path)
    for trigger in ("entries_search_insert", "entries_search_update", "entries_search_delete"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    await store.setup()
    try:
        samples = await timed(
            lambda i: store.append_entry(
                MemoryEntry(
                    id=new_id(),
                    session_id="append2",
                    user_id="bench",
                    role="user",
                    content="the cardiologist changed my lisinopril dose",
                    timestamp=datetime.now(UTC),
                )
            ),
            ops,
        )
    finally:
        await store.aclose()
    return statistics.median(samples) * 1e3


async def run(
    kind: str, n: int, ops: int, tmp: Path, embedder: LocalEmbedder | None, cache_mb: int = 256
) -> dict[str, float]:
    turns, questions = corpus()
    schema = None
    if kind == "memory":
        store: DurableStore = InMemoryStore()
    elif kind == "sqlite":
        store = SQLiteStore(tmp / f"bench-{n}-{cache_mb}.db")
    else:
        schema = f"bench_recall_{uuid.uuid4().hex[:8]}"
        store = PostgresStore(PG_URL, schema=schema)
    try:
        config = MemoryConfig(vector_cache_bytes=cache_mb * 1024 * 1024)
        async with UnifiedMemoryService(store, config=config, embedder=embedder) as service:
            await service.recall_index.stop()  # the bench stores the vectors itself
            t0 = time.perf_counter()
            await fill(store, n, turns, schema)
            if embedder is not None:
                await fill_vectors(store, embedder, MADE)
            fill_s = time.perf_counter() - t0
            if kind == "postgres":  # what autovacuum does after a bulk load: fresh statistics
                conn = await asyncpg.connect(PG_URL)
                try:
                    await conn.execute(f'ANALYZE "{schema}".entry_search, "{schema}".entries')
                finally:
                    await conn.close()
            row = await measure(service, questions, ops)
            row["fill_s"] = fill_s
            if kind == "postgres":
                assert isinstance(store, PostgresStore)
                conn = await asyncpg.connect(PG_URL)
                try:
                    size = await conn.fetchval(
                        f"SELECT pg_total_relation_size('\"{schema}\".entry_search')"
                    )
                finally:
                    await conn.close()
                row["index_bytes_per_entry"] = size / n
        if kind == "sqlite":
            path = tmp / f"bench-{n}-{cache_mb}.db"
            row["index_bytes_per_entry"] = sqlite_index_bytes(path, n)
            row["append_no_index_p50_us"] = await sqlite_append_without_index(path, ops)
        return row
    finally:
        if schema is not None:
            conn = await asyncpg.connect(PG_URL)
            try:
                await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            finally:
                await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--stores", default="memory,sqlite,postgres")
    parser.add_argument("--ops", type=int, default=100)
    parser.add_argument("--dense", action="store_true", help="with the built-in embedder")
    parser.add_argument("--cache-mb", default="256", help="vector matrices' bounds, in MB")
    args = parser.parse_args()
    embedder = LocalEmbedder() if args.dense else None
    with tempfile.TemporaryDirectory() as folder:
        for kind in args.stores.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                for mb in (int(m) for m in args.cache_mb.split(",")):
                    row = await run(kind, n, args.ops, Path(folder), embedder, mb)
                    cells = "  ".join(f"{k}={v:.2f}" for k, v in row.items())
                    print(f"{kind:8s} n={n:<7d} cache={mb}MB {cells}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
