"""Live fan-out across worker processes through Redis pub/sub.

With ``UNIMEM_REDIS_URL`` set, each worker replaces its service's in-process
:class:`~unimem.live.LiveBus` with a :class:`RedisLiveBus`: a stored entry or
event is delivered to this worker's listeners at once and published on the
channel ``<prefix><session_id>``. A worker subscribes to a session's channel
while it has listeners of that session (and leaves it with the last one), so
it receives only messages somebody on it is waiting for: nothing for the
sessions it merely writes, and work per message grows with the listeners,
not with the number of workers. Messages carry the sender's id, so a worker
with listeners of its own never delivers its own messages twice.

A listener counts as subscribed (the socket's ``ready``) once Redis confirmed
the subscription, so nothing published after ``ready`` is missed. Channels are
not keys (pub/sub has its own namespace), so they are named here rather than
in :mod:`unimem.stores.redis.keys`. Pub/sub is at-most-once: a client that
reconnects reads what it missed from ``/history``.

Publishing is on the write path of every turn, so on a plain Redis (TCP or a
Unix socket, RESP2) it goes through a :class:`~unimem.stores.redis.wire.RedisWire`
of the relay's own: ``publish`` writes the ``PUBLISH`` on it at once, with no
task switch and none of redis-py's per-command machinery, and a callback
notes the reply. The connection is not the session cache's: a relay backlog
(an outage can leave thousands of messages unanswered) never queues ahead of
the cache's calls, and the cache dropping a connection it found stuck never
fails messages here. Messages of a session reach Redis in the order they
were published: while the wire is (re)connecting they wait in the outbox,
and later ones queue behind them until it is drained. Anything else (TLS)
publishes through redis-py from the outbox, as before.

An outage must cost neither the requests nor the worker: every send carries
a deadline (:data:`RELAY_TIMEOUT`), so a stuck Redis (stopped, or a half-open
connection) is dropped within seconds rather than when the kernel gives up;
after a failed attempt the outbox waits :data:`RETRY_AFTER` before the next
one (messages wait meanwhile) instead of connecting once per message; what is
held for Redis is bounded in messages and in bytes (:data:`MAX_PENDING_BYTES`);
and lost messages are counted into one warning per :data:`WARN_EVERY` seconds
rather than one per message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, Literal

import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.exceptions import RedisError

from ..errors import UnimemError
from ..live import LiveBus, LiveMessage
from ..models import MemoryEntry, MemoryEvent
from ..stores.redis.wire import RedisWire, pack_commands
from ..stores.rows import entry_from_json, event_from_json

__all__ = ["DEFAULT_CHANNEL_PREFIX", "RedisLiveBus"]

log = logging.getLogger("unimem.server")

DEFAULT_CHANNEL_PREFIX = "unimem:live:"
#: Seconds a new listener waits for Redis to confirm its channel subscription.
JOIN_TIMEOUT = 2.0
#: Messages queued or awaiting Redis's answer before more are dropped (with a warning).
OUTBOX_SIZE = 10_000
#: Bytes of messages queued or awaiting Redis's answer before more are dropped
#: (a message may be up to a MiB: the count alone would allow GiBs).
MAX_PENDING_BYTES = 64 << 20
#: Seconds Redis has to answer a publish (or the start-up); past them the
#: connection is taken for stuck and dropped, and the outbox reconnects.
RELAY_TIMEOUT = 5.0
#: Seconds the outbox waits after a failed send or connect before the next try.
RETRY_AFTER = 0.5
#: Seconds between two warnings about lost messages (the second counts them all).
WARN_EVERY = 5.0

#: An outbox message: its channel and body (for redis-py), its packed
#: ``PUBLISH`` (for the wire; ``b""`` without one) and the bytes it holds
#: waiting (counted in ``MAX_PENDING_BYTES``).
_Message = tuple[str, bytes, bytes, int]


class RedisLiveBus(LiveBus):
    """A :class:`LiveBus` whose messages also reach the other workers' listeners."""

    def __init__(self, url: str, *, prefix: str = DEFAULT_CHANNEL_PREFIX) -> None:
        super().__init__()
        self._url = url
        self._prefix = prefix
        self._origin = uuid.uuid4().hex[:12].encode()
        self._outbox: asyncio.Queue[_Message] = asyncio.Queue(OUTBOX_SIZE)
        self._tasks: list[asyncio.Task[None]] = []
        self._redis: Any = None
        self._pubsub: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: the publishing connection (``None``: through redis-py), and how many
        #: messages sent on it Redis has not answered yet
        self._wire: RedisWire | None = None
        self._unanswered = 0
        #: bytes of the messages in the outbox or unanswered on the wire
        self._pending_bytes = 0
        #: the outbox's task is sending a message (later ones must wait for it)
        self._sending = False
        #: event-loop time before which the outbox makes no new attempt
        self._retry_at = 0.0
        #: messages lost since the last warning, by why; when the next may be
        #: logged, and the call that logs what is counted by then
        self._lost: dict[str, int] = {}
        self._warn_at = 0.0
        self._warn_later: asyncio.TimerHandle | None = None
        #: channels Redis confirmed, and subscriptions sent but not yet confirmed
        self._joined: set[bytes] = set()
        self._joining: dict[bytes, asyncio.Future[None]] = {}

    async def start(self) -> None:
        """Connect, subscribe and start relaying.

        Raises:
            RedisError, OSError: Redis cannot be reached; ``redis.exceptions.TimeoutError``
                when it accepts the connection but does not answer within
                :data:`RELAY_TIMEOUT` seconds (stuck: the server starts without the relay).
        """
        self._loop = asyncio.get_running_loop()
        self._redis = aioredis.Redis.from_url(self._url)
        try:
            async with asyncio.timeout(RELAY_TIMEOUT):
                pubsub = self._redis.pubsub()
                # a channel of this worker's own keeps the connection subscribed
                # (and readable) while no session has listeners here
                await pubsub.subscribe(self._prefix + "~worker:" + self._origin.decode())
                self._pubsub = pubsub
                self._wire = RedisWire.for_client(self._redis)
                if self._wire is not None:  # (connected: the first message goes at once)
                    await self._wire.call("PING")
        except TimeoutError as exc:
            raise rexc.TimeoutError(
                f"Redis did not answer the live relay within {RELAY_TIMEOUT:g} s (stuck?)"
            ) from exc
        self._tasks = [
            asyncio.create_task(self._send(), name="unimem-live-publish"),
            asyncio.create_task(self._receive(pubsub), name="unimem-live-subscribe"),
        ]

    async def aclose(self) -> None:
        """Stop relaying and disconnect (logging how many queued messages that drops)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        self._tasks = []
        if not self._outbox.empty():
            self._note_lost("unsent at shutdown", self._outbox.qsize())
            while not self._outbox.empty():
                self._outbox.get_nowait()
        if self._warn_later is not None:
            self._warn_later.cancel()
        self._warn_at = 0.0
        self._warn_lost()
        for waiting in self._joining.values():
            if not waiting.done():
                waiting.set_result(None)
        self._joining.clear()
        self._joined.clear()
        self._pubsub = None
        wire, self._wire = self._wire, None
        if wire is not None:  # (messages it still awaits answers for are not reported)
            await wire.aclose()
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    def publish(
        self, session_id: str, kind: Literal["entry", "event"], item: MemoryEntry | MemoryEvent
    ) -> None:
        """Deliver to this worker's listeners now and send to the other workers
        (never raises: the entry is stored, and a request failing now would be
        retried into a duplicate; a message Redis cannot take reaches this
        worker only)."""
        super().publish(session_id, kind, item)
        try:
            self._relay(session_id, kind, item)
        except Exception as exc:  # (an encoding error, a driver's RuntimeError)
            self._note_lost(f"not sent ({type(exc).__name__})")

    def _relay(
        self, session_id: str, kind: Literal["entry", "event"], item: MemoryEntry | MemoryEvent
    ) -> None:
        body = b"%s %s %s" % (self._origin, kind.encode(), item.model_dump_json().encode())
        channel = self._prefix + session_id
        wire = self._wire
        payload = b"" if wire is None else pack_commands((("PUBLISH", channel, body),))
        size = len(payload) or len(body)
        if self._pending_bytes + size > MAX_PENDING_BYTES:
            self._note_lost("dropped (too many bytes waiting for Redis)")
            return
        # straight onto the wire only when no earlier message waits to be sent
        if wire is not None and not self._sending and self._outbox.empty():
            if self._unanswered >= OUTBOX_SIZE:
                self._note_lost("dropped (too many messages waiting for Redis)")
                return
            try:
                sent = wire.send_nowait(payload, 1, deadline=self._deadline())
            except RedisError:  # found closed, nothing sent: the outbox's task reconnects
                sent = None
            if sent is not None:
                self._unanswered += 1
                self._pending_bytes += size
                sent.add_done_callback(partial(self._answered, size))
                return
        try:
            self._outbox.put_nowait((channel, body, payload, size))
        except asyncio.QueueFull:
            self._note_lost("dropped (outbox full)")
            return
        self._pending_bytes += size

    def _deadline(self) -> float:
        assert self._loop is not None
        return self._loop.time() + RELAY_TIMEOUT

    def _answered(self, size: int, reply: asyncio.Future[list[Any]]) -> None:
        self._unanswered -= 1
        self._pending_bytes -= size
        if reply.cancelled():
            return
        error = reply.exception()
        if error is None and isinstance(reply.result()[0], RedisError):
            error = reply.result()[0]
        if error is not None and self._wire is not None:
            self._note_lost(f"failed ({type(error).__name__})")

    def _note_lost(self, why: str, count: int = 1) -> None:
        """Count ``count`` messages lost for ``why``; log the counts now, or when
        :data:`WARN_EVERY` seconds have passed since the last warning."""
        self._lost[why] = self._lost.get(why, 0) + count
        loop = self._loop
        if loop is None:
            self._warn_lost()
            return
        now = loop.time()
        if now >= self._warn_at:
            self._warn_lost()
        elif self._warn_later is None:
            self._warn_later = loop.call_at(self._warn_at, self._warn_lost)

    def _warn_lost(self) -> None:
        self._warn_later = None
        if not self._lost:
            return
        if self._loop is not None:
            self._warn_at = self._loop.time() + WARN_EVERY
        counts = ", ".join(f"{count} {why}" for why, count in self._lost.items())
        self._lost.clear()
        log.warning("live relay publish failed: %s; they reached this worker only", counts)

    @asynccontextmanager
    async def subscribe(self, session_id: str) -> AsyncIterator[asyncio.Queue[LiveMessage | None]]:
        """A queue of the session's messages from every worker; returns once Redis
        confirmed this worker's subscription to the session's channel."""
        channel = (self._prefix + session_id).encode()
        async with super().subscribe(session_id) as queue:
            try:
                await self._join(channel)
                yield queue
            finally:
                if self.subscribers(session_id) <= 1:  # the last one leaves
                    await self._leave(channel)

    async def _join(self, channel: bytes) -> None:
        if self._pubsub is None or channel in self._joined:
            return
        waiting = self._joining.get(channel)
        if waiting is None:
            waiting = self._joining[channel] = asyncio.get_running_loop().create_future()
            try:
                await self._pubsub.subscribe(channel)
            except (RedisError, OSError) as exc:
                log.warning("live relay could not subscribe: %s", type(exc).__name__)
                self._joining.pop(channel, None)
                waiting.set_result(None)
                return
        try:
            await asyncio.wait_for(asyncio.shield(waiting), JOIN_TIMEOUT)
        except TimeoutError:
            log.warning("live relay subscription not confirmed in %.0f s", JOIN_TIMEOUT)

    async def _leave(self, channel: bytes) -> None:
        self._joined.discard(channel)
        waiting = self._joining.pop(channel, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)
        if self._pubsub is None:
            return
        try:
            await self._pubsub.unsubscribe(channel)
        except (RedisError, OSError) as exc:
            log.warning("live relay could not unsubscribe: %s", type(exc).__name__)

    async def _send(self) -> None:
        """Publish what waits in the outbox: on redis-py one message at a time;
        on the wire (what came while it had no connection: this reconnects it)
        all that waits, in one pipeline. After a failed attempt the next waits
        :data:`RETRY_AFTER` (a Redis that is down is not dialled per message)."""
        loop = asyncio.get_running_loop()
        while True:
            pause = self._retry_at - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            batch = [await self._outbox.get()]
            self._sending = True
            try:
                if self._wire is None:
                    async with asyncio.timeout(RELAY_TIMEOUT):
                        await self._redis.publish(batch[0][0], batch[0][1])
                    continue
                while not self._outbox.empty():
                    batch.append(self._outbox.get_nowait())
                replies = await self._wire.pipeline_packed(
                    b"".join([payload for _, _, payload, _ in batch]), len(batch), self._deadline()
                )
                for reply in replies:
                    if isinstance(reply, RedisError):
                        self._note_lost(f"failed ({type(reply).__name__})")
            except Exception as exc:  # (the task must outlive any one batch)
                self._note_lost(f"failed ({type(exc).__name__})", len(batch))
                self._retry_at = loop.time() + RETRY_AFTER
            finally:
                self._sending = False
                self._pending_bytes -= sum([size for *_, size in batch])

    async def _receive(self, pubsub: Any) -> None:
        while True:
            try:
                message = await pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                log.warning("live relay subscription failed: %s; retrying", type(exc).__name__)
                await asyncio.sleep(1.0)
                continue
            if message is not None:
                self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        kind_of = message.get("type")
        if kind_of == "subscribe":
            channel = message.get("channel", b"")
            self._joined.add(channel)
            waiting = self._joining.pop(channel, None)
            if waiting is not None and not waiting.done():
                waiting.set_result(None)
            return
        if kind_of != "message":
            return
        channel = message.get("channel", b"")
        session_id = (channel.decode() if isinstance(channel, bytes) else str(channel))[
            len(self._prefix) :
        ]
        if not self.subscribers(session_id):
            return
        data = message.get("data")
        if not isinstance(data, bytes):
            return
        try:
            origin, kind, raw = data.split(b" ", 2)
            if origin == self._origin:
                return
            item: MemoryEntry | MemoryEvent = (
                entry_from_json(raw) if kind == b"entry" else event_from_json(raw)
            )
        except (ValueError, UnimemError):
            log.warning("live relay dropped an undecodable message")
            return
        LiveBus.publish(self, session_id, "entry" if kind == b"entry" else "event", item)
