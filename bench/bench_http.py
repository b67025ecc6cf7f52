"""HTTP latency and throughput of `unimem serve`: append one entry, get context
(10 messages), at concurrency 1 (p50/p99) and 32 (throughput, p99).

The ``http floor`` row is a bare uvicorn app answering ``{}`` to the same
requests: what one loopback HTTP round trip costs on this machine right now.
On a shared, loaded machine it dominates; compare rows of one run.

Usage: python bench/bench_http.py [--ops 1000] [--backends sqlite,redis+postgres]

Each backend runs as a real `unimem serve` subprocess (one worker, token auth,
rate limit off) on a free loopback port; the load comes from httpx clients with
keep-alive in this process. Redis+PostgreSQL runs when both answer on
127.0.0.1 (a throwaway PostgreSQL schema, dropped afterwards; unique session
ids in Redis with a short TTL). Messages are 200 characters, like the field
notes' comparison table. Redis agent-memory-server is not installed here, so
its row quotes the field notes (same machine class, not this run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from unimem.server.auth import issue_token

SECRET = "bench-" + "k" * 48
PG = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
MESSAGE = ("Metformin is usually taken with meals to reduce stomach upset; " * 4)[:200]
FIELD_NOTES = {"append_p50": 8.1, "context_p50": 3.0}  # agent-memory-server REST, ms


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def reachable(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


FLOOR_APP = """
import uvicorn

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b"{}"})

uvicorn.run(app, host="127.0.0.1", port=%d, log_level="error")
"""


@asynccontextmanager
async def serve(env_extra: dict[str, str], *, floor: bool = False) -> AsyncIterator[str]:
    """`unimem serve` (or, with ``floor``, a bare uvicorn app answering ``{}``)
    in a subprocess; yields its base URL."""
    port = free_port()
    env = {**os.environ, "UNIMEM_JWT_SECRET": SECRET, "UNIMEM_RATE_LIMIT": "off", **env_extra}
    if floor:
        command = [sys.executable, "-c", FLOOR_APP % port]
    else:
        command = [sys.executable, "-m", "unimem.cli", "serve", "--port", str(port)]
        command += ["--log-level", "error"]
    proc = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as probe:
            for _ in range(600):
                if proc.returncode is not None:
                    err = await proc.stderr.read() if proc.stderr else b""
                    raise RuntimeError(err.decode() or "unimem serve exited")
                try:
                    if (await probe.get(f"{base}/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        await proc.wait()


async def timed(samples: list[float], call: Callable[[], Awaitable[httpx.Response]]) -> None:
    t0 = time.perf_counter()
    response = await call()
    samples.append((time.perf_counter() - t0) * 1000)
    if response.status_code >= 300:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")


async def run_client(
    base: str, session: str, ops: int, append: list[float], context: list[float]
) -> None:
    headers = {"Authorization": f"Bearer {issue_token(SECRET, 'bench', 3600)}"}
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as http:
        body = {"role": "user", "content": MESSAGE, "mode": "voice", "language": "en"}
        url = f"/v1/sessions/{session}/entries"
        for _ in range(10):  # warm up the connection and fill the context window
            await http.post(url, json=body)
        for _ in range(ops):
            await timed(append, lambda: http.post(url, json=body))
            await timed(
                context,
                lambda: http.get(f"/v1/sessions/{session}/context", params={"max_messages": 10}),
            )


async def measure(base: str, ops: int) -> dict[str, float]:
    tag = uuid.uuid4().hex[:8]
    a1: list[float] = []
    c1: list[float] = []
    await run_client(base, f"bench-{tag}-solo", ops, a1, c1)
    print(f"  concurrency 1 done: append p50 {statistics.median(a1):.2f} ms", file=sys.stderr)
    a32: list[float] = []
    c32: list[float] = []
    per_client = max(10, ops // 32)
    t0 = time.perf_counter()
    await asyncio.gather(
        *(run_client(base, f"bench-{tag}-{i}", per_client, a32, c32) for i in range(32))
    )
    wall = time.perf_counter() - t0
    return {
        "append_p50": statistics.median(a1),
        "append_p99": pct(a1, 0.99),
        "context_p50": statistics.median(c1),
        "context_p99": pct(c1, 0.99),
        "c32_rps": (len(a32) + len(c32)) / wall,
        "c32_append_p99": pct(a32, 0.99),
        "c32_context_p99": pct(c32, 0.99),
    }


async def with_pg_schema() -> tuple[str, Callable[[], Awaitable[None]]]:
    import asyncpg

    schema = f"bench_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(PG)
    await conn.execute(f'CREATE SCHEMA "{schema}"')
    await conn.close()

    async def drop() -> None:
        conn = await asyncpg.connect(PG)
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await conn.close()

    # asyncpg passes unknown DSN parameters to the server as settings.
    return f"{PG}?search_path={schema}", drop


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000, help="operations at concurrency 1")
    parser.add_argument("--backends", default="floor,sqlite,redis+postgres")
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, float]]] = []
    for backend in args.backends.split(","):
        print(f"{backend}: running", file=sys.stderr)
        if backend == "floor":
            async with serve({}, floor=True) as base:
                rows.append(("http floor", await measure(base, args.ops)))
        elif backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                env = {"UNIMEM_DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.db'}"}
                async with serve(env) as base:
                    rows.append((backend, await measure(base, args.ops)))
        elif backend == "redis+postgres":
            if not (reachable(5432) and reachable(6379)):
                print("redis+postgres: skipped, PostgreSQL or Redis not on loopback")
                continue
            dsn, drop = await with_pg_schema()
            env = {
                "UNIMEM_DATABASE_URL": dsn,
                "UNIMEM_REDIS_URL": REDIS,
                "UNIMEM_SESSION_TTL": "600",
            }
            try:
                async with serve(env) as base:
                    rows.append((backend, await measure(base, args.ops)))
            finally:
                await drop()
        else:
            raise SystemExit(f"unknown backend {backend!r}")

    print(f"\nunimem over HTTP, loopback, 200-char messages, {args.ops} ops at concurrency 1")
    print(
        f"{'backend':<16}{'append p50':>11}{'p99':>8}{'context p50':>13}{'p99':>8}"
        f"{'c32 req/s':>11}{'c32 app p99':>13}{'c32 ctx p99':>13}   (ms)"
    )
    for name, r in rows:
        print(
            f"{name:<16}{r['append_p50']:>11.2f}{r['append_p99']:>8.2f}{r['context_p50']:>13.2f}"
            f"{r['context_p99']:>8.2f}{r['c32_rps']:>11.0f}{r['c32_append_p99']:>13.1f}"
            f"{r['c32_context_p99']:>13.1f}"
        )
    print(
        f"{'agent-memory-server (field notes, not this run)':<48} append p50 "
        f"{FIELD_NOTES['append_p50']} ms, read p50 {FIELD_NOTES['context_p50']} ms"
    )
    floor = dict(rows).get("http floor")
    for name, r in rows:
        if name == "http floor":
            continue
        line = (
            f"{name}: append {FIELD_NOTES['append_p50'] / r['append_p50']:.1f}x, "
            f"context {FIELD_NOTES['context_p50'] / r['context_p50']:.1f}x vs those figures"
        )
        if floor is not None:
            line += (
                f"; above the floor: append +{r['append_p50'] - floor['append_p50']:.2f} ms, "
                f"context +{r['context_p50'] - floor['context_p50']:.2f} ms"
            )
        print(line)


if __name__ == "__main__":
    asyncio.run(main())
