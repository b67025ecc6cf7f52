"""The session cache: a session's hot window, switch events and state, and the
user's short-term layer (their last 24 h across sessions), in Redis.

Redis is a cache here, never the authority: every write reaches it *after* the
durable commit, and each server-side script checks that the cached session is
exactly one step behind the write it applies (by message and event counts).
Anything else (a write that was lost while Redis was unreachable, concurrent
writers arriving out of order) drops the session's keys, and the next reader
rebuilds them from the durable store. A rebuild installs its snapshot only if
no write touched the session while it was reading (the ``rebuild`` token,
which every write to a cold session deletes).

All keys come from :mod:`unimem.stores.redis.keys`: a session's keys share one
hash tag and a user's another, so every script runs in one Redis Cluster
slot. On a single Redis a write (or a context read) of both is one script
call; on a cluster a write is the session's call, then the user's, and a
context read the two sent together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar, cast

from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from ...models import MemoryEntry, MemoryEvent, SessionInfo
from ..contracts import RECENT_SCAN
from ..rows import entries_from_json_array, session_from_json
from . import keys as k
from . import scripts as lua
from .driver import UNAVAILABLE, RedisClient, SessionCacheUnavailableError, unavailable
from .replies import CachedSession, CachedUser, _ms, _session, _user

__all__ = [
    "EVENT_KEEP",
    "CachedSession",
    "CachedUser",
    "RedisSessionCache",
    "SessionCache",
    "SessionCacheUnavailableError",
]

_T = TypeVar("_T")


#: How many switch events of each kind the cache keeps per session.
EVENT_KEEP = 20


class SessionCache:
    """The session cache and short-term layer on one Redis or Redis Cluster client.

    Every method raises :class:`SessionCacheUnavailableError` when Redis cannot
    be used (the layered store then serves from the durable store).

    Args:
        client: a ``redis.asyncio.Redis`` or ``RedisCluster`` (bytes responses),
            e.g. from :func:`~unimem.stores.redis.driver.redis_client_from_url`.
        prefix: key prefix (one per deployment, or per test).
        hot_window: entries kept per session.
        session_ttl: idle seconds before a session's keys expire.
        short_term_ttl: seconds an entry stays in the user's short-term layer.
        short_term_cap: most entries kept per user in the short-term layer.
    """

    def __init__(
        self,
        client: RedisClient,
        *,
        prefix: str = k.DEFAULT_PREFIX,
        hot_window: int = 50,
        session_ttl: int = 86_400,
        short_term_ttl: int = 86_400,
        short_term_cap: int = RECENT_SCAN,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.hot_window = hot_window
        self.session_ttl = session_ttl
        self.short_term_ttl = short_term_ttl
        self.short_term_cap = short_term_cap
        #: keys of two slots in one call only where there are no slots
        self._one_slot_per_call = isinstance(client, RedisCluster)
        script = client.register_script
        self._write_session = script(lua.WRITE_SESSION)
        self._write_user = script(lua.WRITE_USER)
        self._write_both = script(lua.WRITE_BOTH)
        self._read_session = script(lua.READ_SESSION)
        self._read_user = script(lua.READ_USER)
        self._read_both = script(lua.READ_BOTH)
        self._install = script(lua.INSTALL)
        self._warm_user = script(lua.WARM_USER)

    def session_keys(self, session_id: str) -> k.SessionKeys:
        """The keys of a session."""
        return k.session_keys(session_id, self.prefix)

    def user_keys(self, user_id: str) -> k.UserKeys:
        """The keys of a user."""
        return k.user_keys(user_id, self.prefix)

    # ------------------------------------------------------------------ calls

    @staticmethod
    async def _call(call: Awaitable[_T]) -> _T:
        """Await one redis-py call, translating its failures (see ``client.REDIS_ERRORS``)."""
        try:
            return await call
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc

    def _run(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> Awaitable[Any]:
        return self._call(script(keys, args))

    @staticmethod
    async def _both(first: Awaitable[Any], second: Awaitable[Any]) -> tuple[Any, Any]:
        """Two calls of different slots sent together; the first failure raised."""
        results = await asyncio.gather(first, second, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return results[0], results[1]

    # ------------------------------------------------------------------ writes

    async def record(
        self,
        state: SessionInfo,
        prev: tuple[int, int],
        entry: MemoryEntry | None = None,
        events: Sequence[MemoryEvent] = (),
        *,
        entry_json: str | bytes | None = None,
    ) -> None:
        """Apply one committed write (entry and/or events, new ``state``) to the cache.

        ``prev`` is the session's (message_count, event_count) before the write;
        ``entry_json`` the entry's ``model_dump_json()`` when the caller has it.
        A session that is not one step behind the write is dropped instead,
        and a session not cached is left so; either way the entry stays out of
        the user's short-term layer, which is marked cold (warmed again from
        the durable store by the next read).
        """
        sk = self.session_keys(state.session_id)
        if entry is not None and entry_json is None:
            entry_json = entry.model_dump_json()
        session_args: list[Any] = [
            prev[0],
            prev[1],
            state.message_count,
            state.event_count,
            state.model_dump_json(),
            self.hot_window,
            self.session_ttl,
            EVENT_KEEP,
            (entry.seq or 0) if entry is not None else 0,
            entry_json or b"",
            len(events),
        ]
        for event in events:
            session_args += [event.event_type, event.model_dump_json()]
        if entry is None or entry_json is None:
            await self._run(self._write_session, sk.all(), session_args)
            return
        uk = self.user_keys(state.user_id)
        ms = _ms(entry)
        user_args = [
            k.recent_member(entry.session_id, entry.id),
            ms,
            entry_json,
            ms - self.short_term_ttl * 1000,
            self.short_term_cap,
            self.short_term_ttl,
            entry.session_id,
        ]
        if not self._one_slot_per_call:
            keys = (*sk.all(), *uk.short_term())
            await self._run(self._write_both, keys, [*session_args, *user_args])
            return
        # two slots: the user's part after the session's, as WRITE_BOTH does it
        if await self._run(self._write_session, sk.all(), session_args) == 1:
            await self._run(self._write_user, uk.short_term(), user_args)
        else:
            await self._call(self.client.delete(uk.warm))

    async def save_window(self, session_id: str, entries: Sequence[MemoryEntry]) -> None:
        """Add stored entries (``seq`` set) to the session's hot window by ``seq``,
        trimmed to the window size, in one transaction; idempotent.

        Raises:
            ValueError: an entry has no ``seq`` (it was never stored).
        """
        window = self.session_keys(session_id).window
        pipe = self.client.pipeline(transaction=True)
        for entry in entries:
            if entry.seq is None:
                raise ValueError("save_session takes stored entries (seq set)")
            pipe.zadd(window, {entry.model_dump_json(): entry.seq})
        pipe.zremrangebyrank(window, 0, -self.hot_window - 1)
        pipe.expire(window, self.session_ttl)
        await self._call(pipe.execute())

    async def lock_rebuild(self, session_id: str, token: str) -> bool:
        """Claim the rebuild of a session's window (one reader rebuilds, not a burst)."""
        key = self.session_keys(session_id).rebuild
        return bool(await self._call(self.client.set(key, token, nx=True, px=5000)))

    async def install(
        self,
        token: str,
        state: SessionInfo,
        entries: Sequence[MemoryEntry],
        language_events: Sequence[MemoryEvent],
        mode_events: Sequence[MemoryEvent],
        *,
        complete: bool,
    ) -> bool:
        """Install a rebuilt window if no write touched the session since
        :meth:`lock_rebuild` gave ``token``; whether it was installed."""
        argv: list[Any] = [
            token,
            state.message_count,
            state.event_count,
            state.model_dump_json(),
            "1" if complete else "0",
            self.session_ttl,
            len(entries),
        ]
        for entry in entries:
            argv += [entry.seq, entry.model_dump_json()]
        for events in (language_events, mode_events):
            argv.append(len(events))
            argv += [e.model_dump_json() for e in events]
        keys = self.session_keys(state.session_id).all()
        return bool(await self._run(self._install, keys, argv))

    async def warm_user(self, user_id: str, entries: Sequence[MemoryEntry]) -> None:
        """Replace the user's short-term layer with ``entries`` and mark it complete."""
        argv: list[Any] = [self.short_term_ttl, self.short_term_ttl]
        for entry in entries:
            argv += [
                k.recent_member(entry.session_id, entry.id),
                _ms(entry),
                entry.model_dump_json(),
            ]
        await self._run(self._warm_user, self.user_keys(user_id).short_term(), argv)

    async def put_settings(self, user_id: str, raw: str, *, only_if_absent: bool) -> None:
        """Cache the user's settings JSON (``""``: none stored)."""
        key = self.user_keys(user_id).settings
        await self._call(self.client.set(key, raw, ex=self.short_term_ttl, nx=only_if_absent))

    async def drop(
        self,
        session_ids: Sequence[str] = (),
        user_ids: Sequence[str] = (),
        *,
        settings: bool = False,
    ) -> None:
        """Delete the keys of sessions and the short-term layer (and, with
        ``settings``, the cached settings) of users.

        One ``DEL`` per session or user (each of one slot), pipelined.
        """
        if not session_ids and not user_ids:
            return
        pipe = self.client.pipeline(transaction=False)
        for sid in session_ids:
            pipe.delete(*self.session_keys(sid).all())
        for uid in user_ids:
            uk = self.user_keys(uid)
            pipe.delete(*uk.short_term(), *((uk.settings,) if settings else ()))
        await self._call(pipe.execute())

    async def touch(self, session_id: str) -> bool:
        """Extend a session's idle TTL; whether it was cached."""
        pipe = self.client.pipeline(transaction=True)
        for key in self.session_keys(session_id).session_read():
            pipe.expire(key, self.session_ttl)
        return any(await self._call(pipe.execute()))

    # ------------------------------------------------------------------ reads

    async def read(
        self, session_id: str, max_messages: int, event_limit: int
    ) -> CachedSession | None:
        """The session's cached state, last ``max_messages`` entries and last
        ``event_limit`` switch events of each kind; ``None`` when not cached."""
        keys = self.session_keys(session_id).session_read()
        return _session(await self._run(self._read_session, keys, (max_messages, event_limit)))

    async def read_user(
        self, user_id: str, *, exclude_session: str, since_ms: int, limit: int
    ) -> CachedUser:
        """The user's cached settings and their last ``limit`` turns since
        ``since_ms`` (epoch ms) outside ``exclude_session``."""
        args = (exclude_session, since_ms, limit, 1)
        return _user(await self._run(self._read_user, self.user_keys(user_id).user_read(), args))

    async def read_context(
        self,
        session_id: str,
        user_id: str,
        max_messages: int,
        event_limit: int,
        *,
        since_ms: int,
        limit: int,
    ) -> tuple[CachedSession | None, CachedUser]:
        """:meth:`read` and :meth:`read_user` (this session excluded) together:
        one script call on a single Redis, two sent together on a cluster."""
        if self._one_slot_per_call:
            session, user = await self._both(
                self.read(session_id, max_messages, event_limit),
                self.read_user(user_id, exclude_session=session_id, since_ms=since_ms, limit=limit),
            )
            return session, user
        keys = (*self.session_keys(session_id).session_read(), *self.user_keys(user_id).user_read())
        args = (max_messages, event_limit, session_id, since_ms, limit, 1)
        session_raw, user_raw = await self._run(self._read_both, keys, args)
        return _session(session_raw), _user(user_raw)

    async def get_state(self, session_id: str) -> SessionInfo | None:
        """The cached session state, or ``None`` when not cached."""
        meta = self.session_keys(session_id).meta
        raw = await self._call(cast(Awaitable[bytes | None], self.client.hget(meta, "state")))
        return session_from_json(raw) if raw else None

    async def get_settings(self, user_id: str) -> bytes | None:
        """The cached settings JSON (``b""``: none stored), or ``None`` when not cached."""
        key = self.user_keys(user_id).settings
        return await self._call(cast(Awaitable[bytes | None], self.client.get(key)))

    async def user_sessions(self, user_id: str) -> list[str]:
        """The session ids the short-term layer saw for this user."""
        key = self.user_keys(user_id).sessions
        raw = await self._call(cast(Awaitable[list[bytes]], self.client.zrange(key, 0, -1)))
        return [member.decode() for member in raw]

    async def load_window(self, session_id: str) -> list[MemoryEntry]:
        """Every entry of the session's hot window, oldest first."""
        window = self.session_keys(session_id).window
        raw = await self._call(cast(Awaitable[list[bytes]], self.client.zrange(window, 0, -1)))
        return entries_from_json_array(b"[" + b",".join(raw) + b"]")


#: The earlier name of :class:`SessionCache`.
RedisSessionCache = SessionCache
