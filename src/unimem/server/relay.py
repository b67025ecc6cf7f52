"""Live fan-out across worker processes through Redis pub/sub.

With ``UNIMEM_REDIS_URL`` set, each worker replaces its service's in-process
:class:`~unimem.live_bus.LiveBus` with a :class:`RedisLiveBus`: a stored entry or
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

Publishing never waits on Redis: :meth:`RedisLiveBus.publish` puts the
message in an outbox, and one task sends what waits there with redis-py, all
of it in one pipeline, so messages reach Redis in the order they were
published, and a burst costs one round trip.

An outage must cost neither the requests nor the worker: redis-py's own
timeouts (:data:`RELAY_TIMEOUT`) bound every send and connect, so a stuck
Redis (stopped, or a half-open connection) is given up on within seconds
rather than when the kernel gives up; after a failed attempt the outbox waits
:data:`RETRY_AFTER` before the next one (messages wait meanwhile) instead of
connecting once per message; what waits is bounded in messages
(:data:`OUTBOX_SIZE`) and in bytes (:data:`MAX_PENDING_BYTES`); and lost
messages are counted into one warning per :data:`WARN_EVERY` seconds rather
than one per message.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from ..errors import UnimemError
from ..live_bus import LiveBus, LiveMessage
from ..models import MemoryEntry, MemoryEvent
from ..stores.rows import entry_from_json, event_from_json

__all__ = ["DEFAULT_CHANNEL_PREFIX", "RedisLiveBus"]

log = logging.getLogger("unimem.server")

DEFAULT_CHANNEL_PREFIX = "unimem:live:"
#: Seconds a new listener waits for Redis to confirm its channel subscription.
JOIN_TIMEOUT = 2.0
#: Messages waiting in the outbox before more are dropped (with a warning).
OUTBOX_SIZE = 10_000
#: Bytes of messages waiting in the outbox or being sent before more are dropped
#: (a message may be up to a MiB: the count alone would allow GiBs).
MAX_PENDING_BYTES = 64 << 20
#: Seconds Redis has to answer a send, a connect or the start-up (redis-py's
#: ``socket_timeout`` and ``socket_connect_timeout``); past them the connection
#: is taken for stuck and dropped.
RELAY_TIMEOUT = 5.0
#: Seconds the outbox waits after a failed send before the next try.
RETRY_AFTER = 0.5
#: Seconds between two warnings about lost messages (the second counts them all).
WARN_EVERY = 5.0

#: An outbox message: its channel and body, encoded.
_Message = tuple[bytes, bytes]


class RedisLiveBus(LiveBus):
    """A :class:`LiveBus` whose messages also reach the other workers' listeners."""

    def __init__(self, url: str, *, prefix: str = DEFAULT_CHANNEL_PREFIX) -> None:
        super().__init__()
        self._url = url
        self._prefix = prefix
        self._origin = uuid.uuid4().hex[:12].encode()
        self._outbox: asyncio.Queue[_Message] = asyncio.Queue(OUTBOX_SIZE)
        self._tasks: list[asyncio.Task[None]] = []
        self._redis: aioredis.Redis | None = None
        self._pubsub: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: bytes of the messages in the outbox or being sent
        self._pending_bytes = 0
        #: the outbox's task is sending a batch
        self._sending = False
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
        self._redis = aioredis.Redis.from_url(
            self._url,
            socket_timeout=RELAY_TIMEOUT,
            socket_connect_timeout=RELAY_TIMEOUT,
            # a connection that died idle is replaced at once; anything else
            # waits for the outbox's next attempt
            retry=Retry(NoBackoff(), 1, supported_errors=(rexc.ConnectionError,)),
        )
        try:
            async with asyncio.timeout(RELAY_TIMEOUT):
                pubsub = self._redis.pubsub()
                # a channel of this worker's own keeps the connection subscribed
                # (and readable) while no session has listeners here
                await pubsub.subscribe(self._prefix + "~worker:" + self._origin.decode())
                self._pubsub = pubsub
                await self._redis.ping()  # (connected: the first message goes at once)
        except (TimeoutError, rexc.TimeoutError) as exc:
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
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            await pubsub.aclose()
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    def publish(
        self, session_id: str, kind: Literal["entry", "event"], item: MemoryEntry | MemoryEvent
    ) -> None:
        """Deliver to this worker's listeners now and queue for the other workers
        (never raises: the entry is stored, and a request failing now would be
        retried into a duplicate; a message Redis cannot take reaches this
        worker only)."""
        super().publish(session_id, kind, item)
        try:
            channel = (self._prefix + session_id).encode()
            body = b"%s %s %s" % (self._origin, kind.encode(), item.model_dump_json().encode())
        except Exception as exc:  # (an encoding error)
            self._note_lost(f"not sent ({type(exc).__name__})")
            return
        size = len(channel) + len(body)
        if self._pending_bytes + size > MAX_PENDING_BYTES:
            self._note_lost("dropped (too many bytes waiting for Redis)")
            return
        try:
            self._outbox.put_nowait((channel, body))
        except asyncio.QueueFull:
            self._note_lost("dropped (outbox full)")
            return
        self._pending_bytes += size

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
        """Publish what waits in the outbox, all of it in one pipeline. After a
        failed attempt the next waits :data:`RETRY_AFTER` (a Redis that is down
        is not dialled per message)."""
        assert self._redis is not None
        loop = asyncio.get_running_loop()
        retry_at = 0.0
        while True:
            pause = retry_at - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            batch = [await self._outbox.get()]
            while not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            self._sending = True
            try:
                pipe = self._redis.pipeline(transaction=False)
                for channel, body in batch:
                    pipe.publish(channel, body)
                for reply in await pipe.execute(raise_on_error=False):
                    if isinstance(reply, Exception):
                        self._note_lost(f"failed ({type(reply).__name__})")
            except Exception as exc:  # (the task must outlive any one batch)
                self._note_lost(f"failed ({type(exc).__name__})", len(batch))
                retry_at = loop.time() + RETRY_AFTER
            finally:
                self._sending = False
                self._pending_bytes -= sum([len(channel) + len(body) for channel, body in batch])

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
