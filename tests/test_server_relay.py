"""Live updates across worker processes: two apps on one store and one Redis
behave like two `unimem serve` workers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
from fastapi import FastAPI
from websockets.asyncio.client import connect

from conftest import unreachable
from server_support import auth, create_app, running_server, settings, token
from unimem import UnifiedMemoryService
from unimem.server.relay import RedisLiveBus

pytestmark = pytest.mark.redis

REDIS = "redis://127.0.0.1:6379/0"


def _require_redis() -> None:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError as exc:
        unreachable(f"Redis on 127.0.0.1:6379 is unreachable: {exc}")


async def test_an_entry_written_through_one_worker_reaches_sockets_on_the_other(
    tmp_path: Path,
) -> None:
    _require_redis()
    prefix = f"unimem-test:{uuid.uuid4().hex[:8]}:live:"
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    relayed = settings(tmp_path, redis_url=REDIS, live_channel_prefix=prefix)
    # Two services on one SQLite file stand for two workers on one store; the
    # relay needs only Redis pub/sub. An embedder passes each its relayed bus.
    bus_a, bus_b = RedisLiveBus(REDIS, prefix=prefix), RedisLiveBus(REDIS, prefix=prefix)
    await bus_a.start()
    await bus_b.start()
    try:
        async with (
            UnifiedMemoryService.from_url(db, live=bus_a) as service_a,
            UnifiedMemoryService.from_url(db, live=bus_b) as service_b,
        ):
            worker_a = create_app(relayed, service=service_a)
            worker_b = create_app(relayed, service=service_b)
            await _exchange(worker_a, worker_b)
    finally:
        await bus_a.aclose()
        await bus_b.aclose()


async def _exchange(worker_a: FastAPI, worker_b: FastAPI) -> None:
    async with running_server(worker_a) as base_a, running_server(worker_b) as base_b:
        url = base_a.replace("http://", "ws://") + f"/v1/sessions/s/live?token={token('alice')}"
        async with connect(url, open_timeout=5) as ws:
            assert json.loads(await ws.recv())["type"] == "ready"
            async with httpx.AsyncClient(headers=auth("alice")) as http:
                r = await http.post(
                    f"{base_b}/v1/sessions/s/entries", json={"role": "user", "content": "from b"}
                )
                assert r.status_code == 201
                pushed = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert pushed["type"] == "entry" and pushed["item"]["content"] == "from b"
                await http.post(
                    f"{base_a}/v1/sessions/s/entries", json={"role": "user", "content": "from a"}
                )
                local = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert local["item"]["content"] == "from a"
                with pytest.raises(TimeoutError):  # delivered once, not echoed back by Redis
                    await asyncio.wait_for(ws.recv(), 0.5)


async def test_a_worker_subscribes_to_a_session_only_while_it_has_listeners() -> None:
    """Per-session channels: a worker reads only messages someone on it waits for."""
    _require_redis()
    from datetime import UTC, datetime

    from unimem import MemoryEntry
    from unimem.server.relay import RedisLiveBus

    prefix = f"unimem-test:{uuid.uuid4().hex[:8]}:live:"
    a, b = RedisLiveBus(REDIS, prefix=prefix), RedisLiveBus(REDIS, prefix=prefix)
    await a.start()
    await b.start()

    def entry(text: str) -> MemoryEntry:
        return MemoryEntry(
            role="user", content=text, id=uuid.uuid4().hex, session_id="s", user_id="u",
            timestamp=datetime.now(UTC), seq=1,
        )  # fmt: skip

    def sessions_subscribed(bus: RedisLiveBus) -> set[bytes]:
        return {c for c in bus._pubsub.channels if not c.startswith(f"{prefix}~".encode())}

    try:
        b.publish("s", "entry", entry("nobody listens"))
        for _ in range(200):  # published before anyone listens on a
            if b._outbox.empty():
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        assert sessions_subscribed(a) == set()
        async with a.subscribe("s") as first:
            assert sessions_subscribed(a) == {f"{prefix}s".encode()}
            async with a.subscribe("s") as second:
                b.publish("s", "entry", entry("both hear it"))
                for queue in (first, second):
                    message = await asyncio.wait_for(queue.get(), 5)
                    assert message is not None and message.item.content == "both hear it"
            assert sessions_subscribed(a) == {f"{prefix}s".encode()}  # first still listens
            b.publish("s", "entry", entry("first only"))
            message = await asyncio.wait_for(first.get(), 5)
            assert message is not None and message.item.content == "first only"
        for _ in range(200):  # Redis confirms the unsubscribe asynchronously
            if not sessions_subscribed(a):
                break
            await asyncio.sleep(0.01)
        assert sessions_subscribed(a) == set()
    finally:
        await a.aclose()
        await b.aclose()


def _entry(text: str) -> Any:
    from datetime import UTC, datetime

    from unimem import MemoryEntry

    return MemoryEntry(
        role="user", content=text, id=uuid.uuid4().hex, session_id="s", user_id="u",
        timestamp=datetime.now(UTC), seq=1,
    )  # fmt: skip


async def _contents(queue: asyncio.Queue[Any], count: int) -> list[str]:
    got = []
    for _ in range(count):
        message = await asyncio.wait_for(queue.get(), 5)
        assert message is not None
        got.append(message.item.content)
    return got


async def test_messages_published_while_the_publisher_reconnects_arrive_in_order() -> None:
    """The publisher's connection killed under it (a restart, an idle timeout on
    the way): nothing is lost, and messages published meanwhile (from other
    tasks, between its steps) arrive in the order they were published."""
    from backends import SERVERS, pick_ports
    from unimem.server.relay import RedisLiveBus

    [port] = pick_ports(1)
    SERVERS.start(port)
    url = f"redis://127.0.0.1:{port}/0"
    a, b = RedisLiveBus(url), RedisLiveBus(url)
    admin = aioredis.Redis.from_url(url)
    try:
        await a.start()
        await b.start()
        async with a.subscribe("s") as queue:
            for round_ in range(3):
                # every plain connection (the publishers'), not the subscriptions
                await admin.client_kill_filter(_type="normal", skipme=True)

                async def writer(name: str) -> None:
                    for i in range(40):
                        b.publish("s", "entry", _entry(f"{name}{i}"))
                        await asyncio.sleep(0)

                await asyncio.gather(writer(f"{round_}x"), writer(f"{round_}y"))
                got = await _contents(queue, 80)
                for name in (f"{round_}x", f"{round_}y"):
                    assert [c for c in got if c.startswith(name)] == [
                        f"{name}{i}" for i in range(40)
                    ]
    finally:
        await admin.aclose()
        await a.aclose()
        await b.aclose()
        SERVERS.stop(port)


async def test_a_publish_never_fails_when_redis_is_gone_and_recovers_after(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Redis stopping under a publisher: publish still delivers to this worker's
    listeners and never raises; once Redis is back, messages flow again."""
    from backends import SERVERS, pick_ports
    from unimem.server.relay import RedisLiveBus

    [port] = pick_ports(1)
    SERVERS.start(port)
    url = f"redis://127.0.0.1:{port}/0"
    a, b = RedisLiveBus(url), RedisLiveBus(url)
    try:
        await a.start()
        await b.start()
        async with b.subscribe("s") as local, a.subscribe("s") as remote:
            b.publish("s", "entry", _entry("before"))
            assert await _contents(remote, 1) == ["before"]
            assert await _contents(local, 1) == ["before"]
            SERVERS.stop(port)
            for i in range(5):
                b.publish("s", "entry", _entry(f"down{i}"))  # does not raise
                await asyncio.sleep(0.05)
            assert await _contents(local, 5) == [f"down{i}" for i in range(5)]
            assert "live relay publish failed" in caplog.text
            SERVERS.start(port)
            for _ in range(100):  # until both have reconnected (a resubscribes)
                b.publish("s", "entry", _entry("after"))
                await _contents(local, 1)
                try:
                    message = await asyncio.wait_for(remote.get(), 0.2)
                except TimeoutError:
                    continue
                assert message is not None and message.item.content in ("after", "down4")
                break
            else:
                pytest.fail("messages did not flow again after Redis came back")
    finally:
        await a.aclose()
        await b.aclose()
        SERVERS.stop(port)


@contextlib.asynccontextmanager
async def _buses() -> AsyncIterator[tuple[Any, Any]]:
    """Two started relays on a fresh prefix."""
    _require_redis()
    from unimem.server import relay

    prefix = f"unimem-test:{uuid.uuid4().hex[:8]}:live:"
    a, b = relay.RedisLiveBus(REDIS, prefix=prefix), relay.RedisLiveBus(REDIS, prefix=prefix)
    await a.start()
    await b.start()
    try:
        yield a, b
    finally:
        await a.aclose()
        await b.aclose()


def test_under_uvloop() -> None:
    """`unimem serve` runs on uvloop: messages published at once, and with the
    loop running between them, arrive in order."""
    _require_redis()
    uvloop = pytest.importorskip("uvloop")
    from unimem.server.relay import RedisLiveBus

    async def scenario() -> None:
        prefix = f"unimem-test:{uuid.uuid4().hex[:8]}:live:"
        a, b = RedisLiveBus(REDIS, prefix=prefix), RedisLiveBus(REDIS, prefix=prefix)
        await a.start()
        await b.start()
        try:
            async with a.subscribe("s") as queue:
                for i in range(10):
                    b.publish("s", "entry", _entry(f"m{i}"))
                assert await _contents(queue, 10) == [f"m{i}" for i in range(10)]
                for i in range(10, 20):
                    b.publish("s", "entry", _entry(f"m{i}"))
                    await asyncio.sleep(0)
                assert await _contents(queue, 10) == [f"m{i}" for i in range(10, 20)]
        finally:
            await a.aclose()
            await b.aclose()

    uvloop.run(scenario())


def _lost_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "live relay publish failed" in r.getMessage()]


async def _until(condition: Any, what: str, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    pytest.fail(f"never happened: {what}")


async def test_a_stuck_redis_is_dropped_and_publishing_resumes_when_it_answers(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis stopped (SIGSTOP: connections stay open, nothing answers): a send
    on the open connection, and the next one on a new connection, give up at
    their deadline instead of waiting until the kernel does; once Redis
    answers again, messages flow."""
    import os
    import signal

    from backends import SERVERS, pick_ports
    from unimem.server import relay

    monkeypatch.setattr(relay, "RELAY_TIMEOUT", 0.3)
    monkeypatch.setattr(relay, "RETRY_AFTER", 0.1)
    monkeypatch.setattr(relay, "WARN_EVERY", 0.0)  # (each failure logged at once)
    [port] = pick_ports(1)
    pid = SERVERS.start(port).pid
    url = f"redis://127.0.0.1:{port}/0"
    a, b = relay.RedisLiveBus(url), relay.RedisLiveBus(url)
    try:
        await a.start()
        await b.start()
        async with a.subscribe("s") as remote:
            b.publish("s", "entry", _entry("before"))
            assert await _contents(remote, 1) == ["before"]
            os.kill(pid, signal.SIGSTOP)  # only the server this test started
            try:
                for i in range(3):
                    b.publish("s", "entry", _entry(f"stuck{i}"))  # onto the open connection
                await _until(lambda: b._sending, "the send began")
                await _until(lambda: not b._sending, "the stuck send gave up")
                assert "3 failed (TimeoutError)" in caplog.text
                b.publish("s", "entry", _entry("queued"))  # on a new connection
                await _until(lambda: b._outbox.empty(), "the next send began")
                await _until(lambda: not b._sending, "the next send gave up")
                assert "1 failed (TimeoutError)" in caplog.text
                assert b._pending_bytes == 0
            finally:
                os.kill(pid, signal.SIGCONT)
            for _ in range(100):
                b.publish("s", "entry", _entry("after"))
                try:
                    message = await asyncio.wait_for(remote.get(), 0.2)
                except TimeoutError:
                    continue
                assert message is not None
                if message.item.content == "after":
                    break
            else:
                pytest.fail("messages did not flow again after Redis answered")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
        await a.aclose()
        await b.aclose()
        SERVERS.stop(port)


async def test_start_gives_up_on_a_stuck_redis_with_a_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Redis that accepts connections but never answers fails the start-up
    (the server then runs without the relay) instead of hanging it."""
    import os
    import signal

    import redis.exceptions as rexc

    from backends import SERVERS, pick_ports
    from unimem.server import relay

    monkeypatch.setattr(relay, "RELAY_TIMEOUT", 0.3)
    [port] = pick_ports(1)
    pid = SERVERS.start(port).pid
    bus = relay.RedisLiveBus(f"redis://127.0.0.1:{port}/0")
    os.kill(pid, signal.SIGSTOP)  # only the server this test started
    try:
        with pytest.raises(rexc.TimeoutError, match="did not answer"):
            await asyncio.wait_for(bus.start(), 10)
    finally:
        os.kill(pid, signal.SIGCONT)
        await bus.aclose()
        SERVERS.stop(port)


async def test_an_outage_costs_one_connect_per_retry_and_one_warning_per_interval(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis down: messages wait in the outbox between attempts instead of each
    dialling Redis, and the lost ones are counted into a warning per
    interval (every one of them accounted for) instead of one per message."""
    from backends import SERVERS, pick_ports
    from unimem.server import relay

    monkeypatch.setattr(relay, "RETRY_AFTER", 60.0)
    monkeypatch.setattr(relay, "WARN_EVERY", 60.0)
    [port] = pick_ports(1)
    SERVERS.start(port)
    b = relay.RedisLiveBus(f"redis://127.0.0.1:{port}/0")
    try:
        await b.start()
        SERVERS.stop(port)
        for i in range(200):
            b.publish("s", "entry", _entry(f"down{i}"))
            await asyncio.sleep(0)
        await _until(lambda: not b._sending, "the connect attempt over")
        # one attempt for what waited then; the rest wait for the next
        assert b._outbox.qsize() >= 190
    finally:
        await b.aclose()
        SERVERS.stop(port)
    warnings = _lost_warnings(caplog)
    assert 1 <= len(warnings) <= 2
    counted = [int(n) for w in warnings for n in re.findall(r"(\d+) (?:failed|unsent)", w)]
    assert sum(counted) == 200


async def test_messages_beyond_the_byte_bound_are_dropped_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What waits for Redis is bounded in bytes as well as in messages."""
    _require_redis()
    from unimem.server import relay

    monkeypatch.setattr(relay, "MAX_PENDING_BYTES", 55_000)
    async with _buses() as (a, b), a.subscribe("s") as queue:
        big = "x" * 10_000
        for i in range(20):  # (none answered before the last is published)
            b.publish("s", "entry", _entry(f"{i:02d}{big}"))
        got = await _contents(queue, 5)
        assert [c[:2] for c in got] == ["00", "01", "02", "03", "04"]
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(queue.get(), 0.5)
        assert b._pending_bytes == 0
        b.publish("s", "entry", _entry("after"))  # room again
        assert await _contents(queue, 1) == ["after"]
    assert _lost_warnings(caplog) == [  # the first at once, the others counted
        f"live relay publish failed: {n} dropped (too many bytes waiting for Redis); "
        "they reached this worker only"
        for n in (1, 14)
    ]


async def test_a_message_that_cannot_be_encoded_fails_neither_publish_nor_the_relay(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An encoding error is the relay's to log: publish does not raise (the entry
    is stored), and the messages around it still go out, in order."""
    async with _buses() as (a, b), a.subscribe("s") as queue:
        b.publish("s\ud800", "entry", _entry("unencodable"))
        assert "UnicodeEncodeError" in caplog.text
        b.publish("s", "entry", _entry("m0"))
        b.publish("s\ud800", "entry", _entry("unencodable"))
        b.publish("s", "entry", _entry("m1"))
        assert await _contents(queue, 2) == ["m0", "m1"]
        b.publish("s", "entry", _entry("m2"))
        assert await _contents(queue, 1) == ["m2"]


async def test_closing_reports_the_messages_it_drops(caplog: pytest.LogCaptureFixture) -> None:
    _require_redis()
    from unimem.server.relay import RedisLiveBus

    b = RedisLiveBus(REDIS, prefix=f"unimem-test:{uuid.uuid4().hex[:8]}:live:")
    await b.start()
    for i in range(5):  # into the outbox: its task has not run yet
        b.publish("s", "entry", _entry(f"m{i}"))
    await b.aclose()
    assert _lost_warnings(caplog) == [
        "live relay publish failed: 5 unsent at shutdown; they reached this worker only"
    ]
