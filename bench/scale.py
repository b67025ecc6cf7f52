"""Scale and cost growth of unimem: per-operation cost as history and session
counts grow, bytes per session and per entry, and ``unimem serve`` under load.

Usage: python bench/scale.py [--out scale.json] [--quick]
       [--redis redis://127.0.0.1:6379/0] [--pg postgresql://postgres@127.0.0.1:5432/test]

Method (what the numbers mean):

* **History growth** (10 -> 100,000 entries in one session) and **session
  growth** (1 -> 100,000 sessions, one user each): the first entry of a
  session is written through ``UnifiedMemoryService.add_entry``; the rest of
  the history / the other sessions are bulk-copied from it in SQL (one
  ``INSERT ... SELECT`` over ``generate_series``, ids and seq rewritten, the
  session row's ``message_count`` set to match; history entries are one
  minute apart ending now, so the last 24 h hold at most 1,440 of them, which
  matters to the cross-session recall of ``get_context``), because writing 100,000
  entries one call at a time would take most of the run. A fresh service is
  then opened and the Redis keys dropped, so the first read rebuilds the hot
  window from the durable store exactly as after a Redis restart. Then
  ``add_entry``, ``get_context(max_messages=10)`` and
  ``build_llm_context(max_tokens=2000)`` are timed one at a time (p50/p99 ms)
  on that session (history) or on a new session (session growth).
* **Redis bytes per active session**: ``MEMORY USAGE`` summed over every key
  of a fresh prefix after 50 sessions x 60 entries (a full 50-entry hot
  window), divided by 50. **PostgreSQL bytes per entry**:
  ``pg_total_relation_size('entries') / count(*)`` (table, indexes, TOAST)
  after the history fill. Messages are 200 characters.
* **Server**: ``unimem serve`` (Redis + PostgreSQL, local mode, no rate limit)
  in a subprocess; RSS from ``/proc/<pid>/status`` idle and at peak under
  load; closed-loop clients (httpx, one process, on the same 2 cores as the
  server) each alternating ``POST entries`` and ``GET context`` for a fixed
  time at 1, 8, 32 and 128 concurrent clients; throughput in operations/s.

Everything lives in a scratch PostgreSQL schema and Redis key prefix (the
server uses Redis database 9 with a run-unique session/user tag), removed at
the end. Results are written as JSON for ``bench/report.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis.asyncio as aioredis

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.stores import SQLiteStore
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache, redis_client_from_url

MESSAGE = (
    "I have been taking metformin twice a day with meals and I would like to know "
    "whether I should change the dose now that my blood sugar readings in the morning "
    "are lower than they were before."
)[:200]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(op: Callable[[], Awaitable[Any]], n: int) -> dict[str, float]:
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        await op()
        out.append((time.perf_counter() - t0) * 1000)
    return {"p50": statistics.median(out), "p99": pct(out, 0.99)}


def entry() -> MemoryEntry:
    return MemoryEntry(role="user", content=MESSAGE, mode="text", language="en")


class Backend:
    """A scratch store of one kind: opens services, bulk-fills, inspects."""

    def __init__(self, kind: str, args: argparse.Namespace, tmp: Path) -> None:
        self.kind, self.args = kind, args
        tag = uuid.uuid4().hex[:8]
        self.schema, self.prefix = f"scale_{tag}", f"scale{tag}"
        self.path = tmp / f"{kind.replace('+', '_')}.db"

    async def start(self) -> None:
        if self.kind != "sqlite":
            conn = await asyncpg.connect(self.args.pg)
            await conn.execute(f'CREATE SCHEMA "{self.schema}"')
            await conn.close()

    def service(self) -> UnifiedMemoryService:
        if self.kind == "sqlite":
            return UnifiedMemoryService(SQLiteStore(self.path))
        cache = SessionCache(redis_client_from_url(self.args.redis), prefix=self.prefix)
        return UnifiedMemoryService(
            LayeredStore(PostgresStore(self.args.pg, schema=self.schema), cache)
        )

    async def drop_cache(self) -> None:
        """Forget every Redis key of this run: reads rebuild from the durable store."""
        if self.kind == "sqlite":
            return
        client = aioredis.Redis.from_url(self.args.redis)
        async for key in client.scan_iter(match=f"{self.prefix}:*", count=1000):
            await client.delete(key)
        await client.aclose()

    async def sql(self, statement: str, *params: Any) -> Any:
        if self.kind == "sqlite":
            text = statement.replace("$1", "?1").replace("$2", "?2").replace("$3", "?3")
            with sqlite3.connect(self.path) as conn:
                return conn.execute(text, params).fetchall()
        conn = await asyncpg.connect(self.args.pg, server_settings={"search_path": self.schema})
        try:
            return await conn.fetch(statement, *params)
        finally:
            await conn.close()

    async def columns(self, table: str) -> list[str]:
        if self.kind == "sqlite":
            return [r[1] for r in await self.sql(f"PRAGMA table_info({table})")]
        rows = await self.sql(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 "
            "AND table_name = $2 ORDER BY ordinal_position",
            self.schema,
            table,
        )
        return [r[0] for r in rows]

    def _json_set(self, column: str, pairs: dict[str, str]) -> str:
        if self.kind == "sqlite":
            args = ", ".join(f"'$.{k}', {v}" for k, v in pairs.items())
            return f"json_set({column}, {args})"
        expr = f"{column}::jsonb"
        for key, value in pairs.items():
            expr = f"jsonb_set({expr}, '{{{key}}}', to_jsonb({value}))"
        return f"{expr}::json"

    def _series(self) -> str:
        if self.kind == "sqlite":
            return (
                "(WITH RECURSIVE g(g) AS (SELECT $2 UNION ALL SELECT g + 1 FROM g WHERE g < $3) "
                "SELECT g FROM g) AS gs"
            )
        return "generate_series($2::int, $3::int) AS gs(g)"

    def _minutes_back(self, ts: str, minutes: str) -> tuple[str, str, str]:
        """(column, column value, JSON timestamp) of ``ts`` moved ``minutes`` back."""
        if self.kind == "sqlite":
            value = f"{ts}_us - ({minutes}) * 60000000"
            return "ts_us", value, f"strftime('%Y-%m-%dT%H:%M:%fZ', ({value}) / 1e6, 'unixepoch')"
        value = f"{ts} - make_interval(mins => ({minutes})::int)"
        return "ts", value, f"{value}"

    async def copy_history(self, session_id: str, first: int, last: int) -> None:
        """Entries ``first..last`` of ``session_id``, copies of its entry 1, one minute
        apart and ending now (entry 1 is moved back to ``last`` minutes ago)."""
        new_id = "e.id || '-' || gs.g" if self.kind != "sqlite" else "e.id || '-' || g"
        g = "gs.g" if self.kind != "sqlite" else "g"
        last_p = "$3" if self.kind == "sqlite" else "$3::int"
        ts_col, ts_value, ts_json = self._minutes_back("e.ts", f"{last_p} - {g}")
        sel = {
            "seq": g,
            "id": new_id,
            ts_col: ts_value,
            "data": self._json_set("e.data", {"seq": g, "id": new_id, "timestamp": ts_json}),
        }
        cols = await self.columns("entries")
        exprs = ", ".join(sel.get(c, f"e.{c}") for c in cols)
        await self.sql(
            f"INSERT INTO entries ({', '.join(cols)}) SELECT {exprs} FROM entries e, "
            f"{self._series()} WHERE e.session_id = $1 AND e.seq = 1",
            session_id,
            first,
            last,
        )
        minutes = "$2" if self.kind == "sqlite" else "$2::int"
        ts_col, ts_value, ts_json = self._minutes_back("ts", minutes)
        await self.sql(
            f"UPDATE entries SET {ts_col} = {ts_value}, data = "
            + self._json_set("data", {"timestamp": ts_json})
            + " WHERE session_id = $1 AND seq = 1",
            session_id,
            last,
        )
        count = "$2" if self.kind == "sqlite" else "$2::int"
        await self.sql(
            "UPDATE sessions SET data = "
            + self._json_set("data", {"message_count": count})
            + " WHERE session_id = $1",
            session_id,
            last,
        )

    async def copy_sessions(self, template: str, first: int, last: int) -> None:
        """Sessions ``<template>-first..last``, each a copy of ``template`` with its own user."""
        g = "gs.g" if self.kind != "sqlite" else "g"
        sid, uid = f"t.session_id || '-' || {g}", f"'user-' || {g}"
        for table in ("sessions", "entries"):
            sel = {
                "session_id": sid,
                "user_id": uid,
                "data": self._json_set("t.data", {"session_id": sid, "user_id": uid}),
            }
            cols = await self.columns(table)
            exprs = ", ".join(sel.get(c, f"t.{c}") for c in cols)
            await self.sql(
                f"INSERT INTO {table} ({', '.join(cols)}) SELECT {exprs} FROM {table} t, "
                f"{self._series()} WHERE t.session_id = $1",
                template,
                first,
                last,
            )

    async def close(self) -> None:
        await self.drop_cache()
        if self.kind != "sqlite":
            conn = await asyncpg.connect(self.args.pg)
            await conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
            await conn.close()


async def measure(memory: UnifiedMemoryService, sid: str, user: str, ops: int) -> dict[str, Any]:
    await memory.get_context(sid, max_messages=10, user_id=user)  # read-through rebuild
    add = await timed(lambda: memory.add_entry(sid, entry(), user_id=user), ops)
    ctx = await timed(lambda: memory.get_context(sid, max_messages=10, user_id=user), ops)
    llm = await timed(
        lambda: memory.build_llm_context(sid, "and the dose?", max_tokens=2000, user_id=user),
        max(10, ops // 5),
    )
    return {"add": add, "context": ctx, "llm_context": llm}


async def history_growth(backend: Backend, sizes: list[int], ops: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for size in sizes:
        sid, user = f"hist-{size}", "bench"
        async with backend.service() as memory:
            await memory.add_entry(sid, entry(), user_id=user)
        t0 = time.perf_counter()
        if size > 1:
            await backend.copy_history(sid, 2, size)
        fill = time.perf_counter() - t0
        await backend.drop_cache()
        async with backend.service() as memory:
            got = await memory.get_context(sid, max_messages=1, user_id=user)
            assert got.session is not None and got.session.message_count == size, "bad fill"
            rows.append({"size": size, "fill_s": fill, **await measure(memory, sid, user, ops)})
        print(f"  {backend.kind} history {size}: {rows[-1]['add']['p50']:.2f} ms add", flush=True)
    return rows


async def session_growth(backend: Backend, counts: list[int], ops: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    template = "tmpl"
    async with backend.service() as memory:
        await memory.add_entry(template, entry(), user_id="user-0")
    have = 1
    for count in counts:
        if count > have:
            await backend.copy_sessions(template, have, count - 1)
            have = count
        await backend.drop_cache()
        sid, user = f"probe-{count}", f"probe-user-{count}"
        async with backend.service() as memory:
            await memory.add_entry(sid, entry(), user_id=user)
            rows.append({"sessions": count, **await measure(memory, sid, user, ops)})
        print(f"  {backend.kind} sessions {count}: {rows[-1]['add']['p50']:.2f} ms add", flush=True)
    return rows


async def memory_costs(args: argparse.Namespace, pg_backend: Backend) -> dict[str, Any]:
    rows = await pg_backend.sql(
        "SELECT pg_total_relation_size('entries'), (SELECT count(*) FROM entries)"
    )
    total, count = rows[0][0], rows[0][1]
    out: dict[str, Any] = {"pg_entries": count, "pg_bytes_per_entry": total / max(1, count)}
    scratch = Backend("redis+postgres", args, Path(tempfile.gettempdir()))
    await scratch.start()
    try:
        sessions, per = 50, 60
        async with scratch.service() as memory:
            for i in range(sessions):
                for _ in range(per):
                    await memory.add_entry(f"active-{i}", entry(), user_id=f"user-{i % 10}")
        client = aioredis.Redis.from_url(args.redis)
        used = keys = 0
        async for key in client.scan_iter(match=f"{scratch.prefix}:*", count=1000):
            used += await client.memory_usage(key, samples=0) or 0
            keys += 1
        await client.aclose()
        out.update(
            redis_sessions=sessions,
            redis_entries_per_session=per,
            redis_keys=keys,
            redis_bytes_per_session=used / sessions,
        )
    finally:
        await scratch.close()
    return out


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def server_load(
    args: argparse.Namespace, levels: list[int], seconds: float
) -> dict[str, Any]:
    """``unimem serve`` on Redis (db 9) + PostgreSQL (scratch schema): RSS and throughput."""
    tag = uuid.uuid4().hex[:8]
    schema = f"scale_srv_{tag}"
    admin = await asyncpg.connect(args.pg)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    redis_url = args.redis.rsplit("/", 1)[0] + "/9"
    port = _free_port()
    env = {
        **os.environ,
        "UNIMEM_DATABASE_URL": f"{args.pg}?search_path={schema}",
        "UNIMEM_REDIS_URL": redis_url,
        "UNIMEM_RATE_LIMIT": "off",
        "UNIMEM_WEB_DIR": "/nonexistent",
    }
    env.pop("UNIMEM_JWT_SECRET", None)  # local mode: every request is user 'local'
    code = "import sys; from unimem.cli import main; sys.argv[0] = 'unimem'; main()"
    proc = await asyncio.create_subprocess_exec(
        *[sys.executable, "-c", code, "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {"levels": []}
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as probe:
            for _ in range(600):
                try:
                    if (await probe.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
            body = {"role": "user", "content": MESSAGE, "mode": "text", "language": "en"}
            await probe.post(f"/v1/sessions/{tag}-warm/entries", json=body)
            await probe.get(f"/v1/sessions/{tag}-warm/context")
            await asyncio.sleep(1.0)
            out["rss_idle_mb"] = _rss_mb(proc.pid)
        peak = out["rss_idle_mb"]
        for clients in levels:
            result, level_peak = await _load_level(base, tag, clients, seconds, body, proc.pid)
            peak = max(peak, level_peak)
            out["levels"].append(result)
            print(f"  server {clients} clients: {result['ops_per_s']:.0f} ops/s", flush=True)
        out["rss_peak_mb"] = peak
        out["rss_after_mb"] = _rss_mb(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)  # the server this function started
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()
        client = aioredis.Redis.from_url(redis_url)
        for pattern in (f"unimem:{{s:{tag}-*", "unimem:{u:local}:*"):
            async for key in client.scan_iter(match=pattern, count=1000):
                await client.delete(key)
        await client.aclose()
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()
    return out


async def _load_level(
    base: str, tag: str, clients: int, seconds: float, body: dict[str, Any], pid: int
) -> tuple[dict[str, Any], float]:
    appends: list[float] = []
    reads: list[float] = []
    errors = 0
    peak = 0.0
    stop = asyncio.Event()
    measuring = asyncio.Event()
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)

    async def client_loop(http: httpx.AsyncClient, sid: str) -> None:
        nonlocal errors
        while not stop.is_set():
            t0 = time.perf_counter()
            r1 = await http.post(f"/v1/sessions/{sid}/entries", json=body)
            t1 = time.perf_counter()
            r2 = await http.get(f"/v1/sessions/{sid}/context", params={"max_messages": 10})
            t2 = time.perf_counter()
            if measuring.is_set():
                appends.append((t1 - t0) * 1000)
                reads.append((t2 - t1) * 1000)
                errors += (r1.status_code != 201) + (r2.status_code != 200)

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        tasks = [
            asyncio.create_task(client_loop(http, f"{tag}-c{clients}-{i}")) for i in range(clients)
        ]
        await asyncio.sleep(min(1.0, seconds / 4))  # warm-up, not counted
        measuring.set()
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            await asyncio.sleep(0.25)
            peak = max(peak, _rss_mb(pid))
        measuring.clear()
        elapsed = time.perf_counter() - t0
        stop.set()
        await asyncio.gather(*tasks)
    ops = len(appends) + len(reads)
    return {
        "clients": clients,
        "ops_per_s": ops / elapsed,
        "append_p50": statistics.median(appends),
        "append_p99": pct(appends, 0.99),
        "context_p50": statistics.median(reads),
        "context_p99": pct(reads, 0.99),
        "errors": errors,
    }, peak


async def run(args: argparse.Namespace) -> dict[str, Any]:
    quick = args.quick
    sizes = [10, 100, 1_000, 10_000] if quick else [10, 100, 1_000, 10_000, 100_000]
    counts = [1, 100, 1_000, 10_000] if quick else [1, 100, 1_000, 10_000, 100_000]
    ops = 50 if quick else 200
    results: dict[str, Any] = {"method": __doc__, "history": {}, "sessions": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("sqlite", "redis+postgres"):
            backend = Backend(kind, args, Path(tmp))
            await backend.start()
            try:
                results["history"][kind] = await history_growth(backend, sizes, ops)
                if kind != "sqlite":
                    results["memory"] = await memory_costs(args, backend)
                results["sessions"][kind] = await session_growth(backend, counts, ops)
            finally:
                await backend.close()
    levels = [1, 8, 32, 128]
    results["server"] = await server_load(args, levels, 3.0 if quick else 8.0)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="scale.json")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, shorter runs")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    results = asyncio.run(run(args))
    Path(args.out).write_text(json.dumps(results, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
