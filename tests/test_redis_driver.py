"""The session cache's redis-py client: every failure of it is translated to
``SessionCacheUnavailableError`` (so the service degrades instead of failing a
request after the durable commit), and its own timeouts and retry bound what
a stuck or restarted Redis costs."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import uuid
from collections.abc import AsyncIterator, Callable

import hiredis
import pytest
import redis.asyncio as aioredis
import redis.exceptions as rexc

from backends import REDIS_URL, redis_client
from unimem.stores.redis import SessionCache, SessionCacheUnavailableError, redis_client_from_url
from unimem.stores.redis.driver import REDIS_ERRORS, unavailable

pytestmark = pytest.mark.redis


def test_every_redis_py_exception_is_translated() -> None:
    """The table covers every exception class redis-py's commands raise (as httpx
    checks its map of httpcore's exceptions); the others it defines are raised
    by its sync client after a fork and by its configuration."""
    classes = [
        cls
        for _, cls in inspect.getmembers(rexc, inspect.isclass)
        if issubclass(cls, rexc.RedisError | rexc.RedisClusterException)
    ]
    assert len(classes) > 20
    for cls in classes:
        exc = cls.__new__(cls)
        Exception.__init__(exc, "boom")
        translated = unavailable(exc)
        assert isinstance(translated, SessionCacheUnavailableError), cls
        assert cls.__name__ in str(translated) and "boom" not in str(translated)
    assert any(cls is OSError for cls, _, _ in REDIS_ERRORS)  # the built-in TimeoutError too
    with pytest.raises(TypeError):
        unavailable(ValueError("not Redis"))


@contextlib.asynccontextmanager
async def _fake_redis(
    answer: Callable[[list[bytes]], bytes], delay: Callable[[list[bytes]], float] = lambda c: 0
) -> AsyncIterator[tuple[int, list[asyncio.StreamWriter]]]:
    """A server on loopback answering each command with ``answer(command)`` after
    ``delay(command)`` seconds; its port, and its connections so far."""
    writers: list[asyncio.StreamWriter] = []
    stopping = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        parser = hiredis.Reader()
        while data := await reader.read(65536):
            parser.feed(data)
            while (command := parser.gets()) is not False:
                if wait := delay(command):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stopping.wait(), wait)
                    if stopping.is_set():
                        return
                writer.write(answer(command))
            await writer.drain()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], writers
    finally:
        stopping.set()
        server.close()
        for writer in writers:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        await server.wait_closed()


def _calls(cache: SessionCache) -> list[Callable[[], object]]:
    return [
        lambda: cache.read("s1", 10, 5),
        lambda: cache.read_context("s1", "u1", 10, 5, since_ms=0, limit=10),
        lambda: cache.get_state("s1"),
        lambda: cache.touch("s1"),
        lambda: cache.drop(["s1"], ["u1"]),
    ]


async def test_a_loading_redis_degrades_reads_and_writes() -> None:
    """A Redis loading its data after a restart refuses every command: each cache
    call reports the cache unavailable, none fails the request."""
    loading = b"-LOADING Redis is loading the dataset in memory\r\n"
    async with _fake_redis(lambda command: loading) as (port, _):
        client = redis_client_from_url(f"redis://127.0.0.1:{port}/0")
        cache = SessionCache(client)
        try:
            for call in _calls(cache):
                with pytest.raises(SessionCacheUnavailableError, match="BusyLoadingError"):
                    await call()  # type: ignore[misc]
        finally:
            await client.aclose()


async def test_any_error_reply_degrades_instead_of_failing_the_request() -> None:
    """An error reply the cache does not expect makes the call report the cache
    unavailable, never a 500 after the durable commit."""

    def refuse(command: list[bytes]) -> bytes:
        return b"-ERR unknown command\r\n"

    async with _fake_redis(refuse) as (port, _):
        client = redis_client_from_url(f"redis://127.0.0.1:{port}/0")
        cache = SessionCache(client)
        try:
            for call in _calls(cache):
                with pytest.raises(SessionCacheUnavailableError, match="ResponseError"):
                    await call()  # type: ignore[misc]
        finally:
            await client.aclose()


async def test_a_redis_slower_than_the_timeout_degrades_and_is_reconnected() -> None:
    """The client's socket_timeout bounds each call: a late reply reports the
    cache unavailable (TimeoutError), the stuck connection is dropped, and the
    next call runs on a new one."""
    replies = {
        b"HELLO": b"%1\r\n$5\r\nproto\r\n:3\r\n",  # (the connect's handshake, RESP3)
        b"CLIENT": b"+OK\r\n",
        b"PING": b"+PONG\r\n",
        b"EVALSHA": b"_\r\n",
        b"HGET": b"_\r\n",
    }

    def script_never_answered(command: list[bytes]) -> float:
        return 3600 if command[0].upper() == b"EVALSHA" else 0

    async with _fake_redis(lambda c: replies[c[0].upper()], script_never_answered) as (
        port,
        connections,
    ):
        client = redis_client_from_url(f"redis://127.0.0.1:{port}/0", timeout=0.2)
        cache = SessionCache(client)
        try:
            assert await cache.get_state("s1") is None
            assert len(connections) == 1
            loop = asyncio.get_running_loop()
            began = loop.time()
            with pytest.raises(SessionCacheUnavailableError, match="TimeoutError"):
                await cache.read("s1", 10, 5)
            assert loop.time() - began < 1.0  # one timeout: a timeout is not retried
            assert await cache.get_state("s1") is None
            assert len(connections) == 2
        finally:
            await client.aclose()


async def test_a_connection_that_died_idle_is_replaced_without_failing_the_call() -> None:
    """A pooled connection closed while idle (a restart, an idle timeout on the
    way) is noticed when used: the call is sent again at once on a new one."""
    client = await redis_client(REDIS_URL)
    admin = aioredis.Redis.from_url(REDIS_URL)
    cache = SessionCache(client, prefix=f"t_{uuid.uuid4().hex[:10]}")
    try:
        assert await cache.get_state("nobody") is None  # connected
        idle = await client.client_id()
        await admin.client_kill_filter(_id=idle)
        assert await cache.get_state("nobody") is None  # retried on a new connection
        assert await client.client_id() != idle
    finally:
        await admin.aclose()
        await client.aclose()
