"""PostgreSQL outages, on a test-owned PostgreSQL (initdb/pg_ctl on another
port): writes fail with StoreUnavailableError and leave nothing half-written,
the cached hot window stays readable, and writes work again when it returns."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator

import pytest

from backends import REDIS_URL, ScratchLayeredStore, fresh_name, pick_ports, redis_client
from conftest import unreachable
from unimem import MemoryEntry, StoreUnavailableError, UnifiedMemoryService
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow]


class OwnPostgres:
    """A PostgreSQL cluster in a temporary directory, run as the ``postgres`` user."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            unreachable("PostgreSQL server binaries (initdb) are not installed")
        self.bin = os.path.dirname(found[-1])
        [self.port] = pick_ports(1)
        self.root = tempfile.mkdtemp(prefix="unimem-pg-")
        self.data = os.path.join(self.root, "data")
        self._as_postgres = os.geteuid() == 0  # initdb refuses to run as root
        if self._as_postgres:
            shutil.chown(self.root, "postgres")
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8")

    def _run(self, tool: str, *args: str) -> None:
        cmd = [os.path.join(self.bin, tool), *args]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c fsync=off"
        log = os.path.join(self.root, "log")
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", log, "-w", "start")

    def stop(self) -> None:
        # pg_ctl signals the postmaster recorded in this data directory: the one we started
        self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[OwnPostgres]:
    server = OwnPostgres()
    server.start()
    try:
        yield server
    finally:
        server.remove()


async def test_postgres_down_fails_writes_cleanly_and_keeps_hot_reads(
    request: pytest.FixtureRequest, own_postgres: OwnPostgres
):
    schema = fresh_name(request.node.nodeid, "t")
    cache = SessionCache(await redis_client(REDIS_URL), prefix=fresh_name(request.node.nodeid, "t"))
    store = ScratchLayeredStore(PostgresStore(own_postgres.url, schema=schema, timeout=3), cache)
    async with UnifiedMemoryService(store) as memory:
        for i in range(3):
            await memory.add_entry("s1", MemoryEntry(role="user", content=f"m{i}"), user_id="u1")
        before = await memory.get_context("s1")

        own_postgres.stop()
        try:
            with pytest.raises(StoreUnavailableError, match="PostgreSQL"):
                await memory.add_entry("s1", MemoryEntry(role="user", content="lost"), user_id="u1")
            # the hot window still answers, unchanged: nothing was half-written
            ctx = await memory.get_context("s1")
            assert ctx.messages == before.messages
            assert ctx.session is not None and ctx.session.message_count == 3
            assert [e.content for e in await memory.get_history("s1", max_messages=3)] == [
                "m0",
                "m1",
                "m2",
            ]
        finally:
            own_postgres.start()

        # back: the pool reconnects by itself
        for _ in range(3):
            try:
                nxt = await memory.add_entry(
                    "s1", MemoryEntry(role="user", content="m3"), user_id="u1"
                )
                break
            except StoreUnavailableError:
                continue  # connections of the pool that died with the old server
        assert nxt.seq == 4
        assert [m.content for m in (await memory.get_context("s1")).messages] == [
            "m0",
            "m1",
            "m2",
            "m3",
        ]
        assert [e.seq for e in await store.durable.get_entries("s1", limit=10)] == [1, 2, 3, 4]
