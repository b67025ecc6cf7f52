"""HTTP latency and throughput of `unimem serve`: append one entry, get context
(10 messages), at concurrency 1 (p50/p99) and 32 (throughput, p99).

The ``http floor`` row is a bare uvicorn app answering ``{}`` to the same
requests: what one loopback HTTP round trip costs on this machine right now.
On a shared, loaded machine it dominates; compare rows of one run. ``CPU/req``
is the server process's user and system CPU time over the concurrency-1 part,
per request: unlike latency, it hardly depends on what else the machine runs.

Usage: python bench/bench_http.py [--ops 1000] [--backends sqlite,redis+postgres]

Appends are voice turns that carry the language speech-to-text identified
(``language`` and ``detected_language``, as in the spec's example); a typed
turn without them, which unimem must detect, is timed alongside (``typed
append``).

Each backend runs as a real `unimem serve` subprocess (one worker, token auth,
rate limit off) on a free loopback port; the load comes from this process, on
uvloop when installed, through a minimal HTTP/1.1 keep-alive client (one
connection per simulated client, requests written as bytes, responses read by
Content-Length; see ``Http1``). A general-purpose client such as httpx spends
about 0.7 ms of CPU per request of its own (this one: about 0.05 ms), which
would be most of every row and hide the server's cost; every row, the floor
included, uses the same client.
Redis+PostgreSQL runs when both answer on 127.0.0.1 (a throwaway PostgreSQL
schema, dropped afterwards; unique session ids in Redis with a short TTL).
Messages are 200 characters, like the field notes' comparison table.
Redis agent-memory-server's REST API runs in the same run when
``bench/anchors_ams.py --setup`` has made its virtualenv (backend
``agent-memory-server``, on by default; see that module for what its append
and read are); the ratios are to its figures from this run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from typing import cast

from unimem.server.auth import issue_token

SECRET = "bench-" + "k" * 48
PG = "postgresql://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379/0"
MESSAGE = ("Metformin is usually taken with meals to reduce stomach upset; " * 4)[:200]


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
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})

uvicorn.run(app, host="127.0.0.1", port=%d, log_level="error")
"""


class Http1(asyncio.Protocol):
    """A minimal HTTP/1.1 client on one keep-alive connection: one request at
    a time, responses framed by Content-Length (what uvicorn sends for these
    responses). Just enough for this benchmark, so that the client's own cost
    stays small next to the server's."""

    def __init__(self, host: str, port: int) -> None:
        self.host = f"{host}:{port}"
        self._buffer = bytearray()
        self._waiter: asyncio.Future[tuple[int, bytes]] | None = None
        self._transport: asyncio.Transport | None = None

    @classmethod
    async def connect(cls, host: str, port: int) -> Http1:
        loop = asyncio.get_running_loop()
        _, protocol = await loop.create_connection(lambda: cls(host, port), host, port)
        return protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses; same interface.
        self._transport = cast(asyncio.Transport, transport)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(exc or ConnectionError("connection closed"))

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0 or self._waiter is None:
            return
        head = bytes(self._buffer[:end]).split(b"\r\n")
        length = None
        for line in head[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            self._waiter.set_exception(RuntimeError("response without Content-Length"))
            return
        if len(self._buffer) < end + 4 + length:
            return
        body = bytes(self._buffer[end + 4 : end + 4 + length])
        del self._buffer[: end + 4 + length]
        self._waiter.set_result((int(head[0].split(b" ", 2)[1]), body))

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: str = ""
    ) -> tuple[int, bytes]:
        """Send one request and wait for its response: ``(status, body)``."""
        assert self._transport is not None
        self._waiter = asyncio.get_running_loop().create_future()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{headers}"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self._transport.write(head.encode("latin-1") + b"\r\n" + body)
        return await self._waiter

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


@asynccontextmanager
async def serve(
    env_extra: dict[str, str], *, floor: bool = False
) -> AsyncIterator[tuple[int, int]]:
    """`unimem serve` (or, with ``floor``, a bare uvicorn app answering ``{}``)
    in a subprocess on 127.0.0.1; yields its port and process id."""
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
    try:
        for _ in range(600):
            if proc.returncode is not None:
                err = await proc.stderr.read() if proc.stderr else b""
                raise RuntimeError(err.decode() or "unimem serve exited")
            try:
                probe = await Http1.connect("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            try:
                status, _ = await probe.request("GET", "/healthz")
            finally:
                probe.close()
            if status == 200:
                break
            await asyncio.sleep(0.1)
        yield port, proc.pid
    finally:
        proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            print("  the server did not stop within 15 s of SIGTERM; killed", file=sys.stderr)
            proc.kill()
            await proc.wait()


async def timed(samples: list[float], call: Callable[[], Awaitable[tuple[int, bytes]]]) -> None:
    t0 = time.perf_counter()
    status, body = await call()
    samples.append((time.perf_counter() - t0) * 1000)
    if status >= 300:
        raise RuntimeError(f"HTTP {status}: {body[:200]!r}")


# A voice turn as a voice pipeline sends it: speech-to-text already identified
# the language (the spec's example passes language and detected_language), so
# unimem does not detect it again. A typed turn carries neither: unimem detects.
VOICE_TURN = {
    "role": "user",
    "content": MESSAGE,
    "mode": "voice",
    "language": "en",
    "detected_language": "en",
}
TYPED_TURN = {"role": "user", "content": MESSAGE, "mode": "text"}


async def run_client(
    port: int,
    session: str,
    ops: int,
    append: list[float],
    context: list[float],
    typed: list[float] | None = None,
) -> None:
    """``ops`` times: append a voice turn, read the context (and, with ``typed``,
    append a typed turn to a second session of the same user)."""
    headers = f"Authorization: Bearer {issue_token(SECRET, 'bench', 3600)}\r\n"
    http = await Http1.connect("127.0.0.1", port)
    try:
        body = json.dumps(VOICE_TURN).encode()
        typed_body = json.dumps(TYPED_TURN).encode()
        url = f"/v1/sessions/{session}/entries"
        typed_url = f"/v1/sessions/{session}-typed/entries"
        context_url = f"/v1/sessions/{session}/context?max_messages=10"
        for _ in range(10):  # warm up the connection and fill the context window
            await http.request("POST", url, body, headers)
            if typed is not None:
                await http.request("POST", typed_url, typed_body, headers)
        for _ in range(ops):
            await timed(append, lambda: http.request("POST", url, body, headers))
            await timed(context, lambda: http.request("GET", context_url, b"", headers))
            if typed is not None:
                await timed(typed, lambda: http.request("POST", typed_url, typed_body, headers))
    finally:
        http.close()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(port: int, pid: int, ops: int) -> dict[str, float]:
    tag = uuid.uuid4().hex[:8]
    a1: list[float] = []
    c1: list[float] = []
    t1: list[float] = []
    cpu0 = cpu_seconds(pid)
    await run_client(port, f"bench-{tag}-solo", ops, a1, c1, t1)
    # the server's CPU per request at concurrency 1 (warm-up requests included)
    cpu_ms = (cpu_seconds(pid) - cpu0) * 1000 / (len(a1) + len(c1) + len(t1) + 20)
    print(f"  concurrency 1 done: append p50 {statistics.median(a1):.2f} ms", file=sys.stderr)
    a32: list[float] = []
    c32: list[float] = []
    per_client = max(10, ops // 32)
    t0 = time.perf_counter()
    await asyncio.gather(
        *(run_client(port, f"bench-{tag}-{i}", per_client, a32, c32) for i in range(32))
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
        "typed_p50": statistics.median(t1),
        "typed_p99": pct(t1, 0.99),
        "cpu_ms": cpu_ms,
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
    parser.add_argument("--backends", default="floor,sqlite,redis+postgres,agent-memory-server")
    args = parser.parse_args()
    rows: list[tuple[str, dict[str, float]]] = []
    ams: dict[str, float] | None = None
    for backend in args.backends.split(","):
        print(f"{backend}: running", file=sys.stderr)
        if backend == "floor":
            async with serve({}, floor=True) as (port, pid):
                rows.append(("http floor", await measure(port, pid, args.ops)))
        elif backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                env = {"UNIMEM_DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.db'}"}
                async with serve(env) as (port, pid):
                    rows.append((backend, await measure(port, pid, args.ops)))
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
                async with serve(env) as (port, pid):
                    rows.append((backend, await measure(port, pid, args.ops)))
            finally:
                await drop()
        elif backend == "agent-memory-server":
            import anchors_ams

            if not anchors_ams.available():
                print("agent-memory-server: skipped, run bench/anchors_ams.py --setup first")
                continue
            async with anchors_ams.ams_server() as (port, _):
                ams = await anchors_ams.measure_ams(port, args.ops)
        else:
            raise SystemExit(f"unknown backend {backend!r}")

    print(f"\nunimem over HTTP, loopback, 200-char messages, {args.ops} ops at concurrency 1")
    print(
        f"{'backend':<16}{'append p50':>11}{'p99':>8}{'context p50':>13}{'p99':>8}"
        f"{'c32 req/s':>11}{'c32 app p99':>13}{'c32 ctx p99':>13}{'CPU/req':>9}   (ms)"
    )
    for name, r in rows:
        print(
            f"{name:<16}{r['append_p50']:>11.2f}{r['append_p99']:>8.2f}{r['context_p50']:>13.2f}"
            f"{r['context_p99']:>8.2f}{r['c32_rps']:>11.0f}{r['c32_append_p99']:>13.1f}"
            f"{r['c32_context_p99']:>13.1f}{r['cpu_ms']:>9.2f}"
        )
    print("\ntyped turns (no language given: unimem detects it), concurrency 1, ms p50, p99:")
    for name, r in rows:
        print(f"{name + ' typed append':<28}{r['typed_p50']:>8.2f}{r['typed_p99']:>8.2f}")
    if ams is None:
        print("agent-memory-server: not measured in this run")
    else:
        print(
            f"{'agent-memory-server REST (this run)':<36} append p50 {ams['append_p50']:.2f} ms "
            f"(p99 {ams['append_p99']:.2f}), read p50 {ams['context_p50']:.2f} ms "
            f"(p99 {ams['context_p99']:.2f})"
        )
    floor = dict(rows).get("http floor")
    for name, r in rows:
        if name == "http floor":
            continue
        line = f"{name}:"
        if ams is not None:
            line += (
                f" append {ams['append_p50'] / r['append_p50']:.1f}x, "
                f"context {ams['context_p50'] / r['context_p50']:.1f}x faster than "
                "agent-memory-server;"
            )
        if floor is not None:
            line += (
                f" above the floor: append +{r['append_p50'] - floor['append_p50']:.2f} ms, "
                f"context +{r['context_p50'] - floor['context_p50']:.2f} ms"
            )
        print(line)


if __name__ == "__main__":
    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
