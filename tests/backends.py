"""Server-backed service factories for the conformance suite, and their helpers.

``tests/conftest.py`` imports :data:`SERVER_BACKENDS`. Every factory isolates
its test: a fresh PostgreSQL schema (dropped when the service closes) and a
fresh Redis key prefix (its keys deleted when the service closes). An
unreachable server fails under ``CI=true`` and skips otherwise.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import redis.exceptions

from unimem import UnifiedMemoryService
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache, redis_client_from_url
from unimem.stores.redis.driver import RedisClient

PG_URL = os.environ.get("UNIMEM_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("UNIMEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _unreachable(reason: str) -> None:
    from conftest import unreachable

    unreachable(reason)


def fresh_name(test_id: str, prefix: str) -> str:
    """A short unique name derived from the test id (safe as schema or key prefix)."""
    slug = re.sub(r"[^a-z0-9]+", "_", test_id.lower())[-24:].strip("_")
    return f"{prefix}_{slug}_{uuid.uuid4().hex[:10]}"


async def drop_schema(dsn: str, schema: str) -> None:
    """Drop a test schema and everything in it."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


class ScratchPostgresStore(PostgresStore):
    """A PostgresStore in its own schema, dropped on close (tests only)."""

    async def aclose(self) -> None:
        await super().aclose()
        if self.schema:
            # the server may have gone away mid-test; the schema name is unique anyway
            with contextlib.suppress(OSError, asyncpg.PostgresError):
                await drop_schema(self.dsn, self.schema)


async def pg_store(test_id: str, *, dsn: str = PG_URL, **kwargs: object) -> ScratchPostgresStore:
    """A scratch PostgresStore for ``test_id``; fails/skips if PostgreSQL is unreachable."""
    try:
        conn = await asyncpg.connect(dsn, timeout=3)
        await conn.close()
    except (OSError, asyncpg.PostgresError) as exc:
        _unreachable(f"PostgreSQL at {dsn} is unreachable: {exc}")
    return ScratchPostgresStore(
        dsn, schema=fresh_name(test_id, "t"), min_size=1, max_size=4, **kwargs
    )


async def _postgres(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(await pg_store(test_id))


# ---------------------------------------------------------------- test-owned Redis servers


def _free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def pick_ports(count: int) -> list[int]:
    """``count`` consecutive free loopback ports whose cluster bus ports (+10000) are free too.

    Each test process picks its own, so concurrent runs never share a cluster.
    """
    fixed = os.environ.get("UNIMEM_TEST_CLUSTER_PORTS")
    if fixed:
        return [int(p) for p in fixed.split(",")]
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(17000, 27000 - count)
        ports = list(range(base, base + count))
        if all(_free(p) and _free(p + 10000) for p in ports):
            return ports
    raise RuntimeError("no free loopback ports for a test Redis Cluster")


class RedisServers:
    """Redis servers this test process started (recorded by PID, stopped by PID only)."""

    def __init__(self) -> None:
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.dirs: list[str] = []
        atexit.register(self.stop_all)

    def start(self, port: int, *extra: str) -> subprocess.Popen[bytes]:
        """Start ``redis-server`` on 127.0.0.1:``port`` and wait until it answers."""
        workdir = tempfile.mkdtemp(prefix=f"unimem-redis-{port}-")
        self.dirs.append(workdir)
        proc = subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                workdir,
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.procs[port] = proc
        for _ in range(100):
            if _ping(port):
                return proc
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop(port)
        raise RuntimeError(f"redis-server on port {port} did not start")

    def stop(self, port: int) -> None:
        """Stop the server this object started on ``port`` (SIGTERM, then SIGKILL)."""
        proc = self.procs.pop(port, None)
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def stop_all(self) -> None:
        for port in list(self.procs):
            self.stop(port)
        for workdir in self.dirs:
            shutil.rmtree(workdir, ignore_errors=True)
        self.dirs.clear()


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith((b"+PONG", b"-NOAUTH"))  # (up, with a password)
    except OSError:
        return False


SERVERS = RedisServers()
_cluster_url: str | None = None


def ensure_cluster() -> str:
    """Start (once per test process) a 3-master Redis Cluster on free loopback ports.

    Returns its ``redis+cluster://`` URL. Fails/skips when redis-server is missing.
    """
    global _cluster_url
    if _cluster_url is not None:
        return _cluster_url
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        _unreachable("redis-server / redis-cli are not installed")
    ports = pick_ports(3)
    for port in ports:
        SERVERS.start(
            port,
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            f"nodes-{port}.conf",
            "--cluster-node-timeout",
            "2000",
        )
    subprocess.run(
        [
            "redis-cli",
            "--cluster",
            "create",
            *(f"127.0.0.1:{p}" for p in ports),
            "--cluster-replicas",
            "0",
            "--cluster-yes",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=30,
    )
    for _ in range(200):
        out = subprocess.run(
            ["redis-cli", "-p", str(ports[0]), "cluster", "info"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout
        if "cluster_state:ok" in out:
            break
        time.sleep(0.05)
    _cluster_url = f"redis+cluster://127.0.0.1:{ports[0]}"
    return _cluster_url


class ScratchLayeredStore(LayeredStore):
    """A LayeredStore whose Redis keys (one prefix) are deleted on close (tests only)."""

    async def aclose(self) -> None:
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            keys = [
                key async for key in self.cache.client.scan_iter(match=f"{self.cache.prefix}:*")
            ]
            for key in keys:  # one key per DEL: no cross-slot command, even on a cluster
                await self.cache.client.delete(key)
        await super().aclose()


async def redis_client(url: str) -> RedisClient:
    """A connected client for ``url``; fails/skips when the server is unreachable."""
    client = redis_client_from_url(url, timeout=2.0)
    try:
        await client.ping()
    except (redis.exceptions.RedisError, OSError) as exc:
        await client.aclose()
        _unreachable(f"Redis at {url} is unreachable: {exc}")
    return client


async def layered_store(
    test_id: str, redis_url: str, *, retry_after: float = 1.0, **cache_kwargs: Any
) -> ScratchLayeredStore:
    """PostgreSQL (scratch schema) behind a Redis cache (scratch prefix)."""
    durable = await pg_store(test_id)
    cache = SessionCache(
        await redis_client(redis_url), prefix=fresh_name(test_id, "t"), **cache_kwargs
    )
    return ScratchLayeredStore(durable, cache, retry_after=retry_after)


async def _redis_postgres(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(await layered_store(test_id, REDIS_URL))


async def _cluster_postgres(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(await layered_store(test_id, ensure_cluster()))


SERVER_BACKENDS: dict[str, Callable[[Path, str], Awaitable[UnifiedMemoryService]]] = {
    "postgres": _postgres,
    "redis+postgres": _redis_postgres,
    "cluster+postgres": _cluster_postgres,
}
