"""Live fan-out across worker processes through Redis pub/sub.

With ``UNIMEM_REDIS_URL`` set, each worker replaces its service's in-process
:class:`~unimem.live.LiveBus` with a :class:`RedisLiveBus`: a stored entry or
event is delivered to this worker's listeners at once and published on the
channel ``<prefix><session_id>``; every worker pattern-subscribes to
``<prefix>*`` and hands messages from other workers to its own listeners
(messages carry the sender's id, so nothing is delivered twice). A worker
decodes a message only when it has a listener for that session.

Channels are not keys (pub/sub has its own namespace), so they are named here
rather than in :mod:`unimem.stores.keys`. Pub/sub is at-most-once: a client
that reconnects reads what it missed from ``/history``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Any, Literal

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ..errors import UnimemError
from ..live import LiveBus
from ..models import MemoryEntry, MemoryEvent, entry_from_json, event_from_json

__all__ = ["DEFAULT_CHANNEL_PREFIX", "RedisLiveBus"]

log = logging.getLogger("unimem.server")

DEFAULT_CHANNEL_PREFIX = "unimem:live:"


class RedisLiveBus(LiveBus):
    """A :class:`LiveBus` whose messages also reach the other workers' listeners."""

    def __init__(self, url: str, *, prefix: str = DEFAULT_CHANNEL_PREFIX) -> None:
        super().__init__()
        self._url = url
        self._prefix = prefix
        self._origin = uuid.uuid4().hex[:12].encode()
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(10_000)
        self._tasks: list[asyncio.Task[None]] = []
        self._redis: Any = None

    async def start(self) -> None:
        """Connect, subscribe and start relaying.

        Raises:
            RedisError, OSError: Redis cannot be reached.
        """
        self._redis = aioredis.Redis.from_url(self._url)
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        await pubsub.psubscribe(self._prefix + "*")
        self._tasks = [
            asyncio.create_task(self._send(), name="unimem-live-publish"),
            asyncio.create_task(self._receive(pubsub), name="unimem-live-subscribe"),
        ]

    async def aclose(self) -> None:
        """Stop relaying and disconnect."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, RedisError, OSError):
                await task
        self._tasks = []
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None

    def publish(
        self, session_id: str, kind: Literal["entry", "event"], item: MemoryEntry | MemoryEvent
    ) -> None:
        """Deliver to this worker's listeners now and queue for the other workers."""
        super().publish(session_id, kind, item)
        body = b"%s %s %s" % (self._origin, kind.encode(), item.model_dump_json().encode())
        try:
            self._outbox.put_nowait((self._prefix + session_id, body))
        except asyncio.QueueFull:
            log.warning("live relay outbox full; a message reached this worker only")

    async def _send(self) -> None:
        while True:
            channel, body = await self._outbox.get()
            try:
                await self._redis.publish(channel, body)
            except (RedisError, OSError) as exc:
                log.warning("live relay publish failed: %s", type(exc).__name__)

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
