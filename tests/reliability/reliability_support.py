"""Helpers for the server-level reliability tests: a real ``unimem serve``
subprocess on a free loopback port, on a fresh SQLite file or on PostgreSQL (a
fresh schema on the shared server, selected with ``?search_path=``) behind a
test-owned Redis, plus HTTP writers that log what was sent and acknowledged.

Every process here is started by the test and stopped by its PID only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import redis.asyncio as aioredis

from backends import PG_URL, SERVERS, pick_ports
from conftest import unreachable
from server_support import SECRET, auth, free_port
from unimem.ids import new_id

#: The backends every server-level test runs on.
KINDS = [
    "sqlite",
    pytest.param("redis+postgres", marks=[pytest.mark.redis, pytest.mark.postgres]),
]

#: How the subprocess imports and runs the CLI (no reliance on a console script on PATH).
_SERVE = "import sys; from unimem.cli import main; sys.argv[0] = 'unimem'; main()"


@dataclass
class Stores:
    """Where a served test keeps its data, and how to inspect it directly."""

    kind: str
    database_url: str
    redis_url: str | None = None
    redis_port: int | None = None
    schema: str | None = None

    def redis(self) -> aioredis.Redis:
        """A client of the test-owned Redis (raises if this backend has none)."""
        assert self.redis_url is not None, "this backend has no Redis"
        return aioredis.Redis.from_url(self.redis_url)

    async def pg(self) -> asyncpg.Connection:
        """A connection whose search_path is the test's schema."""
        assert self.schema is not None, "this backend has no PostgreSQL schema"
        return await asyncpg.connect(PG_URL, server_settings={"search_path": self.schema})


async def _pg_reachable() -> None:
    try:
        conn = await asyncpg.connect(PG_URL, timeout=3)
        await conn.close()
    except (OSError, asyncpg.PostgresError) as exc:
        unreachable(f"PostgreSQL at {PG_URL} is unreachable: {exc}")


@asynccontextmanager
async def stores(kind: str, tmp_path: Path) -> AsyncIterator[Stores]:
    """Fresh stores for one test: ``sqlite`` or ``redis+postgres`` (test-owned Redis,
    fresh PostgreSQL schema); removed afterwards."""
    if kind == "sqlite":
        yield Stores(kind, f"sqlite:///{tmp_path / 'served.db'}")
        return
    assert kind == "redis+postgres", kind
    await _pg_reachable()
    schema = f"rel_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_URL)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    [port] = pick_ports(1)
    try:
        SERVERS.start(port)
    except (OSError, RuntimeError) as exc:
        unreachable(f"cannot start a test-owned redis-server: {exc}")
    try:
        yield Stores(
            kind,
            f"{PG_URL}?search_path={schema}",
            redis_url=f"redis://127.0.0.1:{port}/0",
            redis_port=port,
            schema=schema,
        )
    finally:
        SERVERS.stop(port)
        with contextlib.suppress(OSError, asyncpg.PostgresError):
            await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()


class Served:
    """``unimem serve`` in a subprocess with token auth and no rate limit."""

    def __init__(self, store: Stores, tmp_path: Path, **env: str) -> None:
        self.store = store
        self.tmp_path = tmp_path
        self.extra_env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        """Start the server on a fresh free port and wait until ``/healthz`` answers."""
        assert self.proc is None, "already running"
        self.port = free_port()
        env = {
            **os.environ,
            "UNIMEM_JWT_SECRET": SECRET,
            "UNIMEM_RATE_LIMIT": "off",
            "UNIMEM_WEB_DIR": str(self.tmp_path / "no-web"),
            "UNIMEM_DATABASE_URL": self.store.database_url,
            **self.extra_env,
        }
        env.pop("UNIMEM_REDIS_URL", None)
        if self.store.redis_url:
            env["UNIMEM_REDIS_URL"] = self.store.redis_url
        self.starts += 1
        log = open(self.tmp_path / f"serve-{self.starts}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                _SERVE,
                "serve",
                "--port",
                str(self.port),
                "--log-level=warning",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"unimem serve exited with {self.proc.returncode}: {self.log()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("unimem serve did not answer /healthz in time")

    def log(self) -> str:
        """The output of the latest start (for failure messages; ids and counts only)."""
        return (self.tmp_path / f"serve-{self.starts}.log").read_text(errors="replace")[-2000:]

    def kill(self) -> None:
        """SIGKILL the server: no shutdown, no flush, no close."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        """SIGTERM (graceful), SIGKILL if it does not exit."""
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def client(self, user: str = "u1", timeout: float = 10.0) -> httpx.AsyncClient:
        """An HTTP client for ``user`` against this server."""
        return httpx.AsyncClient(base_url=self.url, headers=auth(user), timeout=timeout)


@asynccontextmanager
async def served(store: Stores, tmp_path: Path, **env: str) -> AsyncIterator[Served]:
    """A started server, stopped on exit."""
    server = Served(store, tmp_path, **env)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class WriteLog:
    """What a writer sent and what the server acknowledged (by entry id)."""

    sent: dict[str, str] = field(default_factory=dict)  # entry id -> session id
    acked: dict[str, int] = field(default_factory=dict)  # entry id -> seq
    ack_order: list[str] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    degraded: int = 0

    def in_flight(self) -> dict[str, str]:
        """Sent and never acknowledged: the client does not know whether they landed."""
        return {eid: sid for eid, sid in self.sent.items() if eid not in self.acked}


def entry_body(entry_id: str, content: str = "x" * 200, **fields: Any) -> dict[str, Any]:
    """A user entry with a client-chosen id (so retries are recognizable)."""
    return {"id": entry_id, "role": "user", "content": content, "language": "en", **fields}


async def post_entry(
    client: httpx.AsyncClient,
    session_id: str,
    log: WriteLog,
    entry_id: str | None = None,
    **fields: Any,
) -> httpx.Response:
    """POST one entry, logging it as sent before and acknowledged after a 201."""
    entry_id = entry_id or new_id()
    log.sent.setdefault(entry_id, session_id)
    resp = await client.post(
        f"/v1/sessions/{session_id}/entries", json=entry_body(entry_id, **fields)
    )
    log.statuses.append(resp.status_code)
    if resp.status_code == 201:
        body = resp.json()
        assert body["id"] == entry_id
        if entry_id not in log.acked:
            log.ack_order.append(entry_id)
        log.acked[entry_id] = body["seq"]
        log.degraded += bool(body.get("degradations"))
    return resp


async def write_until_error(
    client: httpx.AsyncClient, session_id: str, log: WriteLog, stop: asyncio.Event
) -> None:
    """Write entries one after another until ``stop`` is set or the server goes away."""
    while not stop.is_set():
        try:
            resp = await post_entry(client, session_id, log)
        except httpx.TransportError:
            return
        assert resp.status_code == 201, (resp.status_code, resp.text[:300])


async def history(client: httpx.AsyncClient, session_id: str) -> list[dict[str, Any]]:
    """The whole history of a session (up to 10,000 entries)."""
    resp = await client.get(f"/v1/sessions/{session_id}/history", params={"max_messages": 10_000})
    assert resp.status_code == 200, (resp.status_code, resp.text[:300])
    entries: list[dict[str, Any]] = resp.json()
    return entries


def assert_timeline(entries: list[dict[str, Any]]) -> None:
    """seq is 1..n without gaps and every id appears once."""
    seqs = [e["seq"] for e in entries]
    assert seqs == list(range(1, len(entries) + 1)), f"seq not 1..n: {seqs[:8]}..{seqs[-3:]}"
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids)), "an entry is stored twice"
