"""The session cache's own Redis connection (RedisWire), on real servers:
encoding, replies in order under concurrency, transactions, errors as
redis-py's classes, reconnection, timeouts, credentials and databases."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as aioredis
import redis.exceptions as rexc

from backends import REDIS_URL, SERVERS, pick_ports
from unimem.stores.redis.cache import (
    RedisSessionCache,
    SessionCacheUnavailableError,
    redis_client_from_url,
)
from unimem.stores.redis.wire import (
    DEFAULT_CONNECT_TIMEOUT,
    Arg,
    RedisWire,
    _agreeing_hiredis_packer,
    _pack_slowly,
    pack_commands,
)

pytestmark = [pytest.mark.redis]


def key() -> str:
    return f"wiretest:{uuid.uuid4().hex}"


@pytest.fixture
async def client() -> AsyncIterator[aioredis.Redis]:
    c = aioredis.Redis.from_url(REDIS_URL)
    yield c
    await c.aclose()


@pytest.fixture
async def wire(client: aioredis.Redis) -> AsyncIterator[RedisWire]:
    w = RedisWire.for_client(client)
    assert w is not None
    yield w
    await w.aclose()


def test_pack_commands_is_resp() -> None:
    assert pack_commands([("SET", "k", "é"), ("INCRBY", b"k2", 7), ("X", 1.5)]) == (
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\n\xc3\xa9\r\n"
        b"*3\r\n$6\r\nINCRBY\r\n$2\r\nk2\r\n$1\r\n7\r\n"
        b"*2\r\n$1\r\nX\r\n$3\r\n1.5\r\n"
    )
    with pytest.raises(rexc.DataError, match="NoneType"):
        pack_commands([("SET", "k", None)])  # type: ignore[list-item]


def test_pack_commands_without_hiredis_packing(monkeypatch: pytest.MonkeyPatch) -> None:
    """An older hiredis (no pack_command): the Python packer writes the same bytes."""
    from unimem.stores.redis import wire as redis_wire

    commands = [("SET", "k", "é"), ("INCRBY", b"k2", 7), ("X", 1.5)]
    packed = pack_commands(commands)
    monkeypatch.setattr(redis_wire, "_pack_command", None)
    assert pack_commands(commands) == packed


def test_pack_commands_packs_what_hiredis_refuses_as_before() -> None:
    """hiredis packs the usual arguments; the Python packer writes the same
    bytes for them, and alone packs a bool or an IntEnum (as redis-py does)."""
    import enum

    class Level(enum.IntEnum):
        HIGH = 7

    values: list[Arg] = [
        "", "é 日本語", "a\r\n$3\r\n", b"", b"\x00\r\n\xff", 0, -1, 2**63, -(2**70),
        1.5, 0.1, -0.0, 1e-7, 1e100, float("inf"), float("nan"), 123456789.123,
    ]  # fmt: skip
    commands = [("SET", value, "x") for value in values] + [tuple(values)]
    assert pack_commands(commands) == _pack_slowly(commands)
    for command in commands:
        assert pack_commands([command]) == _pack_slowly([command])
    assert pack_commands([("SET", "k", True), ("SET", "k", Level.HIGH)]) == (
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\n7\r\n"
    )


def test_a_memoryview_packs_alike_with_or_without_hiredis(monkeypatch: pytest.MonkeyPatch) -> None:
    """hiredis packs a memoryview as its bytes (as redis-py does); so does the
    Python packer, rather than refusing what hiredis took."""
    from unimem.stores.redis import wire as redis_wire

    command = ("SET", "k", memoryview(b"\x00ab"))
    expected = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\x00ab\r\n"
    assert pack_commands([command]) == expected  # type: ignore[list-item]
    monkeypatch.setattr(redis_wire, "_pack_command", None)
    assert pack_commands([command]) == expected  # type: ignore[list-item]


def test_hiredis_packs_only_if_it_agrees_with_the_python_packer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hiredis's pack_command is used only when it writes the Python packer's
    bytes, packs or refuses a bool or IntEnum alike, and refuses what the
    Python packer refuses; else (or without it) the Python packer packs all."""
    import hiredis

    real = hiredis.pack_command
    assert _agreeing_hiredis_packer() is real  # the installed hiredis agrees

    def floats_as_f(command: tuple[Arg, ...]) -> bytes:  # (the %f of another release)
        return real(tuple(b"%f" % v if type(v) is float else v for v in command))

    def bools_as_words(command: tuple[Arg, ...]) -> bytes:
        return real(tuple(str(v) if isinstance(v, bool) else v for v in command))

    def takes_none(command: tuple[Arg, ...]) -> bytes:
        return real(tuple(b"" if v is None else v for v in command))

    def fails_on_big_ints(command: tuple[Arg, ...]) -> bytes:
        if any(type(v) is int and v >= 2**64 for v in command):
            raise OverflowError("int too big to convert")
        return real(command)

    for other in (floats_as_f, bools_as_words, takes_none, fails_on_big_ints):
        monkeypatch.setattr(hiredis, "pack_command", other)
        assert _agreeing_hiredis_packer() is None, other.__name__
    monkeypatch.delattr(hiredis, "pack_command")
    assert _agreeing_hiredis_packer() is None


async def test_round_trip_and_binary_safe(wire: RedisWire, client: aioredis.Redis) -> None:
    k = key()
    value = "naïve \r\n$3\r\n 日本語 \x00".encode()
    assert await wire.call("SET", k, value) == b"OK"
    assert await wire.call("GET", k) == value
    assert await client.get(k) == value  # the same server, the same bytes
    assert await wire.call("GET", key()) is None
    await client.delete(k)


async def test_concurrent_callers_get_their_own_replies(wire: RedisWire) -> None:
    k = key()
    await wire.call("RPUSH", k, *[str(i) for i in range(300)])
    got = await asyncio.gather(*(wire.call("LINDEX", k, i) for i in range(300)))
    assert got == [str(i).encode() for i in range(300)]
    await wire.call("DEL", k)


async def test_errors_are_redis_py_classes(wire: RedisWire) -> None:
    k = key()
    await wire.call("SET", k, "text")
    with pytest.raises(rexc.NoScriptError):
        await wire.call("EVALSHA", "0" * 40, 0)
    with pytest.raises(rexc.ResponseError, match="WRONGTYPE"):
        await wire.call("LPUSH", k, "x")
    # the connection is still in step after errors
    assert await wire.call("GET", k) == b"text"
    replies = await wire.pipeline([("GET", k), ("LPUSH", k, "x"), ("STRLEN", k)])
    assert replies[0] == b"text" and isinstance(replies[1], rexc.ResponseError)
    assert replies[2] == 4
    await wire.call("DEL", k)


async def test_transaction_is_atomic_and_reports_errors(wire: RedisWire) -> None:
    k = key()
    assert await wire.transaction([("SET", k, "1"), ("INCR", k), ("GET", k)]) == [
        b"OK",
        2,
        b"2",
    ]
    # a command failing at run time fails alone, reported in its place
    replies = await wire.transaction([("LPUSH", k, "x"), ("GET", k)])
    assert isinstance(replies[0], rexc.ResponseError) and replies[1] == b"2"
    # a command refused when queued aborts the whole transaction
    with pytest.raises(rexc.ResponseError):
        await wire.transaction([("SET", k, "3"), ("GET",)])
    assert await wire.call("GET", k) == b"2"
    await wire.call("DEL", k)


async def test_a_caller_that_timed_out_does_not_shift_replies(wire: RedisWire) -> None:
    k = key()
    await wire.call("SET", k, "v")
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await wire.call("BLPOP", key(), 0.3)  # blocks this connection for 0.3 s
    # the BLPOP's late nil reply goes to nobody; the GET gets its own
    assert await wire.call("GET", k) == b"v"
    await wire.call("DEL", k)


async def test_reconnects_after_the_connection_is_killed(
    wire: RedisWire, client: aioredis.Redis
) -> None:
    name = f"wiretest-{uuid.uuid4().hex[:8]}"
    await wire.call("CLIENT", "SETNAME", name)
    blocked = asyncio.ensure_future(wire.call("BLPOP", key(), 5))
    await asyncio.sleep(0.05)
    assert await client.execute_command("CLIENT", "KILL", "SKIPME", "yes", "TYPE", "normal") >= 1
    with pytest.raises(rexc.ConnectionError):
        await blocked  # in flight when the connection went: failed, not hung
    assert await wire.call("PING") == b"PONG"  # a new connection
    assert await wire.call("CLIENT", "GETNAME") is None


async def test_reset_drops_a_stuck_connection(wire: RedisWire) -> None:
    blocked = asyncio.ensure_future(wire.call("BLPOP", key(), 5))
    await asyncio.sleep(0.05)
    wire.reset()
    with pytest.raises(rexc.TimeoutError):
        await blocked
    assert await wire.call("PING") == b"PONG"


async def test_unreachable_server_raises_connection_error() -> None:
    [port] = pick_ports(1)
    wire = RedisWire.for_client(aioredis.Redis(host="127.0.0.1", port=port))
    assert wire is not None
    with pytest.raises(rexc.ConnectionError, match="cannot connect"):
        await wire.call("PING")


async def test_database_from_the_client_url(client: aioredis.Redis) -> None:
    base = REDIS_URL.rsplit("/", 1)[0]
    other = aioredis.Redis.from_url(f"{base}/5")
    wire = RedisWire.for_client(other)
    assert wire is not None
    k = key()
    try:
        await wire.call("SET", k, "in five")
        assert await other.get(k) == b"in five"
        assert await client.get(k) is None  # not database 0
    finally:
        await other.delete(k)
        await wire.aclose()
        await other.aclose()


async def test_credentials_from_the_client_url() -> None:
    [port] = pick_ports(1)
    SERVERS.start(port, "--requirepass", "s3cret")
    try:
        good = RedisWire.for_client(aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{port}/0"))
        bad = RedisWire.for_client(aioredis.Redis.from_url(f"redis://:nope@127.0.0.1:{port}/0"))
        none = RedisWire.for_client(aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0"))
        assert good is not None and bad is not None and none is not None
        assert await good.call("PING") == b"PONG"
        with pytest.raises(rexc.AuthenticationError):
            await bad.call("PING")
        with pytest.raises(rexc.AuthenticationError):
            await none.call("PING")  # NOAUTH: an error of the connection
        await good.aclose()
    finally:
        SERVERS.stop(port)


def test_used_with_a_new_event_loop(client: aioredis.Redis) -> None:
    wire = RedisWire.for_client(aioredis.Redis.from_url(REDIS_URL))
    assert wire is not None

    async def ping_then_close() -> bytes:
        try:
            return await wire.call("PING")  # type: ignore[no-any-return]
        finally:
            await wire.aclose()

    for _ in range(2):  # a closed connection of the first loop is not reused by the second
        assert asyncio.run(ping_then_close()) == b"PONG"


def test_only_for_what_it_speaks() -> None:
    assert RedisWire.for_client(aioredis.Redis.from_url("rediss://127.0.0.1:6390/0")) is None
    decoded = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
    assert RedisWire.for_client(decoded) is None
    assert RedisWire.for_client(aioredis.Redis.from_url(REDIS_URL, protocol=3)) is None
    cluster = redis_client_from_url("redis+cluster://127.0.0.1:7000")
    assert RedisWire.for_client(cluster) is None
    assert RedisSessionCache(cluster).wire is None
    unix = RedisWire.for_client(aioredis.Redis.from_url("unix:///tmp/unimem-none.sock"))
    assert unix is not None  # (a Unix socket: spoken, even if nothing listens there)


def test_under_uvloop() -> None:
    """`unimem serve` runs on uvloop (uvicorn[standard]), whose transports are
    not asyncio's classes."""
    uvloop = pytest.importorskip("uvloop")

    async def scenario() -> None:
        wire = RedisWire.for_client(aioredis.Redis.from_url(REDIS_URL))
        assert wire is not None
        k = key()
        try:
            assert await wire.call("SET", k, "v") == b"OK"
            assert await wire.transaction([("GET", k), ("STRLEN", k)]) == [b"v", 1]
            got = await asyncio.gather(*(wire.call("ECHO", str(i)) for i in range(50)))
            assert got == [str(i).encode() for i in range(50)]
            wire.reset()
            assert await wire.call("GET", k) == b"v"  # reconnected
            # deadlines on uvloop's timers: one met, then a later one missed
            loop = asyncio.get_running_loop()
            assert await wire.call("GET", k, deadline=loop.time() + 5) == b"v"
            with pytest.raises(rexc.TimeoutError):
                await wire.call("BLPOP", key(), 0, deadline=loop.time() + 0.1)
            assert await wire.call("GET", k, deadline=loop.time() + 5) == b"v"
            await wire.call("DEL", k)
        finally:
            await wire.aclose()

    uvloop.run(scenario())


@contextlib.asynccontextmanager
async def _fake_redis(
    answer: Callable[[list[bytes]], bytes], delay: Callable[[list[bytes]], float] = lambda c: 0
) -> AsyncIterator[int]:
    """A server on loopback answering each command with ``answer(command)`` after
    ``delay(command)`` seconds (a delay still running when the server stops
    ends its connection's handler unanswered); its port."""
    import hiredis

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
        yield server.sockets[0].getsockname()[1]
    finally:
        stopping.set()
        server.close()
        for writer in writers:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
        await server.wait_closed()


async def test_a_loading_redis_degrades_reads_and_writes() -> None:
    """A Redis loading its data after a restart accepts MULTI and EXEC but refuses
    each queued command (and EXEC then aborts): every cache call reports the
    cache unavailable (the layered store serves from the durable store), none
    fails the request."""

    def loading(command: list[bytes]) -> bytes:
        name = command[0].upper()
        if name == b"MULTI":
            return b"+OK\r\n"
        if name == b"EXEC":
            return b"-EXECABORT Transaction discarded because of previous errors.\r\n"
        return b"-LOADING Redis is loading the dataset in memory\r\n"

    async with _fake_redis(loading) as port:
        cache = RedisSessionCache(aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0"))
        try:
            for call in (
                lambda: cache.read_raw("s1", 10, 5),
                lambda: cache.read_both("s1", "u1", 10, 5, since_ms=0, limit=10),
                lambda: cache.get_state("s1"),
                lambda: cache._call("return 1", 0),
            ):
                with pytest.raises(SessionCacheUnavailableError, match="BusyLoadingError"):
                    await call()
        finally:
            await cache.aclose()


async def test_any_error_reply_degrades_instead_of_failing_the_request() -> None:
    """An error reply the cache does not expect (here a full server: "max number
    of clients") makes the call report the cache unavailable, never a 500 after
    the durable commit."""
    full = b"-ERR max number of clients reached\r\n"
    async with _fake_redis(lambda command: full) as port:
        cache = RedisSessionCache(aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0"))
        try:
            with pytest.raises(SessionCacheUnavailableError):
                await cache._call("return 1", 0)
            with pytest.raises(SessionCacheUnavailableError):
                await cache.read_raw("s1", 10, 0)
        finally:
            await cache.aclose()


async def test_a_connection_that_died_idle_is_replaced_without_failing_the_call(
    client: aioredis.Redis,
) -> None:
    """A connection closed while idle (a restart, an idle timeout on the way) is
    noticed when used: the call is sent again at once on a new connection."""
    cache = RedisSessionCache(aioredis.Redis.from_url(REDIS_URL), prefix=key())
    assert cache.wire is not None
    try:
        assert await cache.get_state("nobody") is None  # connected
        proto = cache.wire._proto
        assert proto is not None
        proto.transport.close()  # gone, and not noticed yet when the next call writes
        assert await cache.get_state("nobody") is None  # retried on a new connection
        assert cache.wire._proto is not proto
    finally:
        await cache.aclose()


def _auth_then_pong(command: list[bytes]) -> bytes:
    """A fake Redis's answers: OK to AUTH, PONG to anything else."""
    return b"+OK\r\n" if command[0].upper() == b"AUTH" else b"+PONG\r\n"


def _slow_auth(command: list[bytes]) -> float:
    """A fake Redis's delays: 0.2 s before answering AUTH."""
    return 0.2 if command[0].upper() == b"AUTH" else 0


async def test_a_caller_giving_up_while_connecting_does_not_fail_the_others() -> None:
    """The connection opens in a task of its own: one caller's timeout during a
    slow handshake leaves the connect running for everyone else waiting."""

    async with _fake_redis(_auth_then_pong, _slow_auth) as port:
        wire = RedisWire.for_client(aioredis.Redis.from_url(f"redis://:pw@127.0.0.1:{port}/0"))
        assert wire is not None
        try:
            impatient = asyncio.ensure_future(asyncio.wait_for(wire.call("PING"), 0.05))
            await asyncio.sleep(0.01)  # the impatient caller opened the connection
            patient = asyncio.ensure_future(wire.call("PING"))
            with pytest.raises(TimeoutError):
                await impatient
            assert await patient == b"PONG"
            assert await wire.call("PING") == b"PONG"  # the same connection, kept
        finally:
            await wire.aclose()


async def test_a_call_past_its_deadline_fails_and_drops_the_connection(wire: RedisWire) -> None:
    assert await wire.call("PING") == b"PONG"
    stuck = wire._proto
    deadline = asyncio.get_running_loop().time() + 0.05
    with pytest.raises(rexc.TimeoutError):
        await wire.call("BLPOP", key(), 0, deadline=deadline)  # would block for ever
    assert stuck is not None and stuck.closed
    assert await wire.call("PING") == b"PONG"  # on a new connection
    assert wire._proto is not stuck


async def test_a_deadline_behind_a_call_without_one_still_expires(wire: RedisWire) -> None:
    """The timer looks at every waiting call, not only the oldest: a call queued
    behind one that blocks (and has no deadline) fails at its own deadline, and
    so does the blocked one with it (the connection is dropped)."""
    blocked = asyncio.ensure_future(wire.call("BLPOP", key(), 0))
    await asyncio.sleep(0.01)
    deadline = asyncio.get_running_loop().time() + 0.05
    with pytest.raises(rexc.TimeoutError):
        await wire.call("PING", deadline=deadline)
    with pytest.raises(rexc.TimeoutError):
        await blocked
    assert await wire.call("PING") == b"PONG"


async def test_the_timer_moves_on_to_the_next_deadline(wire: RedisWire) -> None:
    """The timer is armed for the first call's deadline; that call is answered in
    time, and the timer, when it fires, rearms for the later call still waiting."""
    loop = asyncio.get_running_loop()
    first = loop.time() + 1  # (ample for a PING on loopback, even on a loaded machine)
    assert await wire.call("PING", deadline=first) == b"PONG"
    proto = wire._proto
    assert proto is not None and proto.timer is not None and proto.timer_at == first
    with pytest.raises(rexc.TimeoutError):
        await wire.call("BLPOP", key(), 0, deadline=first + 0.2)
    # a deadline far off: the call is answered, and nothing is left armed after it
    assert await wire.call("PING", deadline=loop.time() + 60) == b"PONG"
    assert wire._proto is not proto  # (the stuck one was dropped)
    proto = wire._proto
    assert proto is not None and not proto.waiting
    await wire.aclose()
    assert proto.timer is None


async def test_a_deadline_also_bounds_the_connect() -> None:
    """A caller whose deadline passes during a slow handshake fails with
    TimeoutError; the connect goes on and serves the next call."""

    async with _fake_redis(_auth_then_pong, _slow_auth) as port:
        wire = RedisWire.for_client(aioredis.Redis.from_url(f"redis://:pw@127.0.0.1:{port}/0"))
        assert wire is not None
        try:
            with pytest.raises(rexc.TimeoutError):
                await wire.call("PING", deadline=asyncio.get_running_loop().time() + 0.05)
            assert await wire.call("PING") == b"PONG"
        finally:
            await wire.aclose()


async def test_a_redis_slower_than_the_command_timeout_degrades_and_is_reconnected() -> None:
    """The cache's command_timeout is the deadline of each of its calls: a late
    reply reports the cache unavailable (TimeoutError), the stuck connection is
    dropped, and the next call runs on a new one."""
    replies = {b"EVALSHA": b":1\r\n", b"HGET": b"$-1\r\n"}

    def script_never_answered(command: list[bytes]) -> float:
        return 3600 if command[0].upper() == b"EVALSHA" else 0

    async with _fake_redis(lambda c: replies[c[0].upper()], script_never_answered) as port:
        client = aioredis.Redis.from_url(f"redis://127.0.0.1:{port}/0")
        cache = RedisSessionCache(client, command_timeout=5)  # (met by the answered calls)
        assert cache.wire is not None
        try:
            assert await cache.get_state("s1") is None
            stuck = cache.wire._proto
            cache.command_timeout = 0.05
            with pytest.raises(SessionCacheUnavailableError, match="TimeoutError"):
                await cache._call("return 1", 0)
            cache.command_timeout = 5
            assert await cache.get_state("s1") is None
            assert cache.wire._proto is not stuck
        finally:
            await cache.aclose()


async def test_send_nowait_replies_are_bounded_by_a_deadline(wire: RedisWire) -> None:
    """send_nowait's deadline is watched by the connection's timer: a reply in
    time resolves the future; a late one fails it and drops the connection."""
    loop = asyncio.get_running_loop()
    assert await wire.call("PING") == b"PONG"  # (connected: send_nowait needs one)
    sent = wire.send_nowait(pack_commands([("PING",)]), 1, deadline=loop.time() + 5)
    assert sent is not None and await sent == [b"PONG"]
    stuck = wire._proto
    late = wire.send_nowait(pack_commands([("BLPOP", key(), 0)]), 1, deadline=loop.time() + 0.1)
    assert late is not None
    with pytest.raises(rexc.TimeoutError):
        await late
    assert stuck is not None and stuck.closed
    assert await wire.call("PING") == b"PONG"  # on a new connection


async def test_a_deadline_already_past_is_refused_without_sending(wire: RedisWire) -> None:
    """A call whose deadline has passed before it is sent raises TimeoutError and
    leaves the connection, and the calls already waiting on it, alone."""
    loop = asyncio.get_running_loop()
    assert await wire.call("PING") == b"PONG"
    proto = wire._proto
    k = key()
    waiting = asyncio.ensure_future(wire.call("BLPOP", k, 0.2))  # answered in 0.2 s
    await asyncio.sleep(0.01)
    with pytest.raises(rexc.TimeoutError):
        await wire.call("RPUSH", k, "x", deadline=loop.time() - 1)
    with pytest.raises(rexc.TimeoutError):
        wire.send_nowait(pack_commands([("RPUSH", k, "x")]), 1, deadline=loop.time())
    assert await waiting is None  # not failed, and nothing was pushed
    assert wire._proto is proto and proto is not None and not proto.closed
    assert await wire.call("EXISTS", k) == 0


def test_the_connect_timeout_is_the_clients() -> None:
    """The wire bounds a connect and its handshake by the client's
    socket_connect_timeout (the cache's clients set one), else by a default."""
    timed = RedisWire.for_client(aioredis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.2))
    untimed = RedisWire.for_client(aioredis.Redis.from_url(REDIS_URL))
    cached = RedisWire.for_client(redis_client_from_url(REDIS_URL))
    assert timed is not None and untimed is not None and cached is not None
    assert timed.connect_timeout == 0.2
    assert untimed.connect_timeout == DEFAULT_CONNECT_TIMEOUT
    assert cached.connect_timeout == 0.5


async def test_a_handshake_that_never_finishes_is_given_up_and_the_next_call_reconnects() -> None:
    """A connection whose AUTH is never answered fails the calls waiting for it
    at the connect timeout (TimeoutError), instead of holding every later call
    for ever: the next call opens a new connection, and it is served."""
    auths = 0

    def first_auth_never_answered(command: list[bytes]) -> float:
        nonlocal auths
        if command[0].upper() != b"AUTH":
            return 0
        auths += 1
        return 3600 if auths == 1 else 0

    async with _fake_redis(_auth_then_pong, first_auth_never_answered) as port:
        client = aioredis.Redis.from_url(
            f"redis://:pw@127.0.0.1:{port}/0", socket_connect_timeout=0.2
        )
        wire = RedisWire.for_client(client)
        assert wire is not None
        try:
            async with asyncio.timeout(30):  # (a wedged wire fails here, not at pytest's timeout)
                with pytest.raises(rexc.TimeoutError, match="accept the connection"):
                    await wire.call("PING")  # no deadline of its own
                assert await wire.call("PING") == b"PONG"
            assert auths == 2  # on a second connection
        finally:
            await wire.aclose()


async def test_aclose_closes_a_connection_whose_connect_just_finished(
    client: aioredis.Redis,
) -> None:
    """aclose() between a connect finishing and its result being taken: the
    new connection is closed, not installed on the closed wire (where it would
    stay open: an unclosed transport)."""
    wire = RedisWire.for_client(client)
    assert wire is not None
    calling = asyncio.ensure_future(wire.call("PING"))
    await asyncio.sleep(0)  # (the call starts the connect)
    connecting = wire._connecting
    assert connecting is not None
    # one loop iteration at a time: resumed in the iteration the connect
    # finishes in, before its done callback (scheduled for the next) has run
    while not connecting.done():  # noqa: ASYNC110
        await asyncio.sleep(0)
    assert wire._connecting is connecting  # connected, and its result not taken yet
    await wire.aclose()
    with pytest.raises(rexc.ConnectionError):
        await calling  # (the wire was closed under it)
    proto = connecting.result()
    assert wire._proto is None
    assert proto.closed and proto.transport.is_closing()
    assert await wire.call("PING") == b"PONG"  # a later call connects anew
    await wire.aclose()
