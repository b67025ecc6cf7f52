"""PostgresStore's connection lease and per-session turn (plain ``async with``
classes on the append path) keep asyncpg's pool semantics: a cancelled block or
a cancelled wait never leaks a connection or releases one twice, an exhausted
pool makes callers wait, a lost connection is StoreUnavailableError and is
replaced, and a closed store refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from backends import PG_URL, ScratchPostgresStore, pg_store
from unimem import StoreUnavailableError
from unimem.stores.postgres.connection import Lease as _Lease

pytestmark = pytest.mark.postgres


@pytest.fixture
async def store(request: pytest.FixtureRequest) -> AsyncIterator[ScratchPostgresStore]:
    probe = await pg_store(request.node.nodeid)  # (PostgreSQL unreachable: fails or skips)
    # one connection: a leaked one shows as a wait that never ends
    s = ScratchPostgresStore(probe.dsn, schema=probe.schema, min_size=1, max_size=1)
    await s.setup()
    try:
        yield s
    finally:
        await s.aclose()


def idle(store: ScratchPostgresStore) -> int:
    assert store._pool is not None
    return store._pool.get_idle_size()


async def one(store: ScratchPostgresStore) -> int:
    """A statement on a connection of the pool (bounded: a leaked connection
    would make it wait for ever); the backend's pid."""
    async with asyncio.timeout(10), store._conn() as conn:
        pid = await conn.fetchval("SELECT pg_backend_pid()")
    assert isinstance(pid, int)
    return pid


async def test_a_block_cancelled_mid_statement_gives_its_connection_back(
    store: ScratchPostgresStore,
) -> None:
    started = asyncio.Event()

    async def slow() -> None:
        async with store._conn() as conn:
            started.set()
            await conn.execute("SELECT pg_sleep(30)")

    task = asyncio.ensure_future(slow())
    await started.wait()
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await one(store)
    assert idle(store) == 1


async def test_a_wait_for_a_connection_cancelled_takes_none(store: ScratchPostgresStore) -> None:
    entered = []

    async def waiter() -> None:
        async with store._conn():
            entered.append(True)

    async with store._conn():
        task = asyncio.ensure_future(waiter())
        await asyncio.sleep(0.1)  # waiting: the pool's one connection is in use
        assert not entered
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert not entered and idle(store) == 1
    await one(store)
    assert idle(store) == 1


async def test_an_exhausted_pool_makes_callers_wait_their_turn(
    store: ScratchPostgresStore,
) -> None:
    inside = 0
    most = 0

    async def use() -> int:
        nonlocal inside, most
        async with store._conn() as conn:
            inside += 1
            most = max(most, inside)
            pid = await conn.fetchval("SELECT pg_backend_pid()")
            await asyncio.sleep(0.01)
            inside -= 1
        assert isinstance(pid, int)
        return pid

    pids = await asyncio.gather(*(use() for _ in range(5)))
    assert most == 1 and len(set(pids)) == 1  # (max_size=1: one connection, one at a time)
    assert idle(store) == 1


async def test_a_connection_lost_in_the_block_is_unavailable_and_replaced(
    store: ScratchPostgresStore,
) -> None:
    other = await asyncpg.connect(PG_URL)
    try:
        with pytest.raises(StoreUnavailableError, match="PostgreSQL is unreachable"):
            async with store._conn() as conn:
                pid = await conn.fetchval("SELECT pg_backend_pid()")
                assert await other.fetchval("SELECT pg_terminate_backend($1)", pid)
                await conn.fetchval("SELECT 1")
    finally:
        await other.close()
    assert await one(store) != pid  # a new connection, in the pool's one place
    assert idle(store) == 1


async def test_other_errors_in_the_block_pass_unchanged(store: ScratchPostgresStore) -> None:
    with pytest.raises(asyncpg.UndefinedTableError):
        async with store._conn() as conn:
            await conn.fetchval("SELECT * FROM no_such_table")
    with pytest.raises(KeyError):
        async with store._conn():
            raise KeyError("mine")
    assert idle(store) == 1


async def test_a_closed_store_refuses(store: ScratchPostgresStore) -> None:
    await store.aclose()
    with pytest.raises(StoreUnavailableError, match="not open"):
        async with store._conn():
            pass


async def test_the_session_turn_is_kept_only_while_held_or_awaited(
    store: ScratchPostgresStore,
) -> None:
    order: list[str] = []

    async def turn(name: str) -> None:
        async with store._serial("s"):
            order.append(name)

    async with store._serial("s"):
        cancelled = asyncio.ensure_future(turn("cancelled"))
        patient = asyncio.ensure_future(turn("patient"))
        await asyncio.sleep(0.01)
        assert store._locks["s"][1] == 3  # one holding, two waiting
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert store._locks["s"][1] == 2
    await patient
    assert order == ["patient"]
    assert store._locks == {}


async def test_a_cancelled_block_stays_cancelled_when_the_release_fails() -> None:
    # asyncpg's release re-raises a failed reset after closing the connection;
    # the caller was cancelled, and must see that, not StoreUnavailableError
    class ReleaseFails:
        released: list[object] = []

        async def acquire(self) -> object:
            return "connection"

        async def release(self, connection: object) -> None:
            self.released.append(connection)
            raise ConnectionResetError("reset failed")

    pool = ReleaseFails()
    entered = asyncio.Event()

    async def block() -> None:
        async with _Lease(pool):  # type: ignore[arg-type]
            entered.set()
            await asyncio.sleep(30)

    task = asyncio.ensure_future(block())
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled() and pool.released == ["connection"]

    async def failing_block() -> (
        None
    ):  # an error of the block's own: release's error wins, as before
        async with _Lease(pool):  # type: ignore[arg-type]
            raise ValueError("in the block")

    with pytest.raises(StoreUnavailableError):
        await failing_block()
