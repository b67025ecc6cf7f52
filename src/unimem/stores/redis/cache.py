"""Redis layers: the session cache (hot window, switch events, session state)
and the short-term layer (the user's last 24 h across sessions).

Redis is a cache here, never the authority: every write reaches it *after* the
durable commit, and each server-side script checks that the cached session is
exactly one step behind the write it applies (by message and event counts).
Anything else (a write that was lost while Redis was unreachable, concurrent
writers arriving out of order) drops the session's keys, and the next reader
rebuilds them from the durable store. A rebuild installs its snapshot only if
no write touched the session while it was reading (the ``rebuild`` token,
which every write to a cold session deletes).

All keys come from :mod:`unimem.stores.redis.keys`; every script touches the keys of
one session or of one user, so one slot in Redis Cluster.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from ...errors import ConfigurationError, StoreUnavailableError
from ...models import MemoryEntry, MemoryEvent, SessionInfo
from ..contracts import RECENT_SCAN
from ..rows import entries_from_json_array, session_from_json
from . import keys as k
from . import scripts as lua
from .wire import RedisWire, pack_transaction

__all__ = [
    "RedisSessionCache",
    "SessionCacheUnavailableError",
    "redis_client_from_url",
]

RedisClient = aioredis.Redis | RedisCluster
_T = TypeVar("_T")

log = logging.getLogger("unimem.stores.redis")

#: What a Redis failure looks like (translated to ``SessionCacheUnavailableError``).
UNAVAILABLE: tuple[type[BaseException], ...] = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.BusyLoadingError,
    rexc.ClusterDownError,
    rexc.ClusterError,
    rexc.RedisClusterException,
    rexc.MasterDownError,
    rexc.TryAgainError,
    rexc.ReadOnlyError,
    OSError,
    TimeoutError,
)

#: How many switch events of each kind the cache keeps per session.
EVENT_KEEP = 20
#: How many sessions' packed read transactions a cache keeps.
_PACKED_KEEP = 4096


def redis_client_from_url(url: str, *, timeout: float = 0.5) -> RedisClient:
    """A client for ``redis://``, ``rediss://``, ``unix://`` or ``redis+cluster://host:port``.

    ``timeout`` bounds connecting; :class:`RedisSessionCache` bounds each
    command (``command_timeout``), so an unreachable or hung Redis costs a
    voice turn at most that much before the service degrades.
    """
    scheme = url.split("://", 1)[0].lower()
    opts: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        # one immediate retry (a pooled connection that died with a restarted
        # server); redis-py's default backs off for seconds, which would stall
        # every turn of an outage instead of degrading to PostgreSQL at once
        "retry": Retry(NoBackoff(), 1),
    }
    if scheme in ("redis+cluster", "rediss+cluster"):
        inner = url.replace("+cluster", "", 1)
        return RedisCluster.from_url(inner, **opts)
    if scheme in ("redis", "rediss", "unix"):
        # On a single Redis, RedisSessionCache bounds each round trip itself
        # (``command_timeout``: a deadline on the wire, an ``asyncio.timeout``
        # around the calls made through redis-py): redis-py's socket_timeout
        # would wrap every send in ``asyncio.wait_for``, a Task and an extra
        # event-loop iteration per command. A cluster client keeps it: its
        # commands may hide several round trips (topology discovery, redirects).
        return aioredis.Redis.from_url(url, **{**opts, "socket_timeout": None})
    raise ConfigurationError(
        f"unsupported session cache URL scheme {scheme!r}: use redis://host:port/db "
        "or redis+cluster://host:port"
    )


class SessionCacheUnavailableError(StoreUnavailableError):
    """Redis (the session cache) cannot be reached."""


def unavailable(exc: BaseException) -> SessionCacheUnavailableError:
    """The error for a Redis failure (no content in the message)."""
    return SessionCacheUnavailableError(f"Redis is unreachable ({type(exc).__name__}); retry later")


def _raise_errors(results: list[Any]) -> list[Any]:
    """``results`` of a pipeline or transaction, raising the first error among them
    (a Redis failure as ``SessionCacheUnavailableError``)."""
    for result in results:
        if isinstance(result, UNAVAILABLE):
            raise unavailable(result) from result
        if isinstance(result, Exception):
            raise result
    return results


def _ms(entry: MemoryEntry) -> int:
    assert entry.timestamp is not None
    return int(entry.timestamp.timestamp() * 1000)


class _Pipe:
    """A pipeline that sends scripts by SHA (``EVALSHA``) and remembers them, so
    that :meth:`RedisSessionCache._run` can load and resend any Redis lost."""

    __slots__ = ("by_sha", "pipe", "scripts")

    def __init__(self, pipe: Any, *, by_sha: bool) -> None:
        self.pipe = pipe
        self.by_sha = by_sha  # redis-py refuses EVALSHA in cluster pipelines
        self.scripts: dict[int, tuple[Any, ...]] = {}

    def eval(self, src: str, numkeys: int, *args: Any) -> None:
        if not self.by_sha:
            self.pipe.eval(src, numkeys, *args)
            return
        self.scripts[len(self.pipe)] = (src, numkeys, *args)
        self.pipe.evalsha(lua.sha(src), numkeys, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pipe, name)


@dataclass(slots=True)
class CachedSession:
    """What the cache holds for a session's context."""

    state: SessionInfo
    complete: bool
    entries: list[MemoryEntry]
    language_events: list[bytes]
    mode_events: list[bytes]

    @property
    def count(self) -> int:
        """How many entries the window read gave."""
        return len(self.entries)


class RedisSessionCache:
    """Session cache and short-term layer on one Redis (or Redis Cluster) client.

    Methods raise :class:`StoreUnavailableError` when Redis cannot be reached.

    Args:
        client: a ``redis.asyncio.Redis`` or ``RedisCluster`` (bytes responses).
        prefix: key prefix (one per deployment, or per test).
        hot_window: entries kept per session.
        session_ttl: idle seconds before a session's keys expire.
        short_term_ttl: seconds an entry stays in the user's short-term layer.
        short_term_cap: most entries kept per user in the short-term layer.
        command_timeout: seconds one round trip to a single Redis may take
            before it counts as unreachable (``StoreUnavailableError``). A
            cluster client is bounded by its own socket timeouts instead.
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
        command_timeout: float = 0.5,
    ) -> None:
        self.client = client
        self.command_timeout = None if isinstance(client, RedisCluster) else command_timeout
        #: the hot calls' own connection on a single Redis (``None``: through redis-py)
        self.wire = RedisWire.for_client(client)
        #: (session, entries, events) -> the session read's transaction, packed
        self._packed_reads: dict[tuple[str, int, int], tuple[bytes, int]] = {}
        self.prefix = prefix
        self.hot_window = hot_window
        self.session_ttl = session_ttl
        self.short_term_ttl = short_term_ttl
        self.short_term_cap = short_term_cap

    def session_keys(self, session_id: str) -> k.SessionKeys:
        """The keys of a session."""
        return k.session_keys(session_id, self.prefix)

    def user_keys(self, user_id: str) -> k.UserKeys:
        """The keys of a user."""
        return k.user_keys(user_id, self.prefix)

    async def _run(self, pipe: Any) -> list[Any]:
        """Execute a pipeline: one round trip (plus one ``SCRIPT LOAD`` and a retry
        of the scripts Redis did not know, after a restart or ``SCRIPT FLUSH``)."""
        try:
            async with asyncio.timeout(self.command_timeout):
                results = list(await pipe.pipe.execute(raise_on_error=False))
                missing = [i for i, r in enumerate(results) if isinstance(r, rexc.NoScriptError)]
                if missing:
                    for src in {pipe.scripts[i][0] for i in missing}:
                        await self.client.script_load(src)  # every primary, on a cluster
                    retry = self._pipe()
                    for i in missing:
                        retry.eval(*pipe.scripts[i])
                    again = await retry.pipe.execute(raise_on_error=False)
                    for i, result in zip(missing, again, strict=True):
                        results[i] = result
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc
        return _raise_errors(results)

    def _pipe(self) -> _Pipe:
        if isinstance(self.client, RedisCluster):
            return _Pipe(self.client.pipeline(), by_sha=False)
        return _Pipe(self.client.pipeline(transaction=False), by_sha=True)

    # ------------------------------------------------------------------ writes

    def _session_write_args(
        self,
        state: SessionInfo,
        prev: tuple[int, int],
        entry_json: str | bytes | None,
        entry_seq: int,
        events: Sequence[MemoryEvent],
    ) -> list[Any]:
        argv: list[Any] = [
            prev[0],
            prev[1],
            state.message_count,
            state.event_count,
            state.model_dump_json(),
            self.hot_window,
            self.session_ttl,
            EVENT_KEEP,
            entry_seq,
            entry_json or b"",
            len(events),
        ]
        for event in events:
            argv += [event.event_type, event.model_dump_json()]
        return argv

    def _user_write_args(self, entry: MemoryEntry, entry_json: str | bytes) -> list[Any]:
        ms = _ms(entry)
        return [
            k.recent_member(entry.session_id, entry.id),
            ms,
            entry_json,
            ms - self.short_term_ttl * 1000,
            self.short_term_cap,
            self.short_term_ttl,
            entry.session_id,
        ]

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
        ``entry_json`` the entry's ``model_dump_json()`` (or its UTF-8 bytes)
        when the caller has it.
        One round trip: on a single Redis one script call updates the session
        and the user's short-term layer; on a cluster (two slots) the session
        script and the user script are pipelined.
        """
        if entry is not None and entry_json is None:
            entry_json = entry.model_dump_json()
        sk = self.session_keys(state.session_id)
        seq = (entry.seq or 0) if entry is not None else 0
        session_args = self._session_write_args(state, prev, entry_json, seq, events)
        if entry is None or entry_json is None:
            await self._call(lua.WRITE_SESSION, 5, *sk.all(), *session_args)
            return
        uk = self.user_keys(state.user_id)
        user_args = self._user_write_args(entry, entry_json)
        if not isinstance(self.client, RedisCluster):
            keys = (*sk.all(), *uk.short_term())
            await self._call(lua.WRITE_BOTH, 9, *keys, *session_args, *user_args)
            return
        pipe = self._pipe()
        pipe.eval(lua.WRITE_SESSION, 5, *sk.all(), *session_args)
        pipe.eval(lua.WRITE_USER, 4, *uk.short_term(), *user_args)
        await self._run(pipe)

    async def _call(self, src: str, numkeys: int, *args: Any) -> Any:
        """One script call in one round trip, without a pipeline object (which
        costs more than the command itself on the read path). By SHA on a single
        Redis, loading the script once if Redis does not know it."""
        if self.wire is not None:

            async def script(wire: RedisWire, deadline: float | None) -> Any:
                try:
                    return await wire.call(
                        "EVALSHA", lua.sha(src), numkeys, *args, deadline=deadline
                    )
                except rexc.NoScriptError:
                    await wire.call("SCRIPT", "LOAD", src, deadline=deadline)
                    return await wire.call(
                        "EVALSHA", lua.sha(src), numkeys, *args, deadline=deadline
                    )

            return await self._on_wire(script)
        try:
            async with asyncio.timeout(self.command_timeout):
                if isinstance(self.client, RedisCluster):
                    return await self.client.eval(src, numkeys, *args)
                try:
                    return await self.client.evalsha(lua.sha(src), numkeys, *args)
                except rexc.NoScriptError:
                    await self.client.script_load(src)
                    return await self.client.evalsha(lua.sha(src), numkeys, *args)
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc

    async def _transaction(self, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
        """``commands`` in ``MULTI``/``EXEC`` on the wire, in one round trip; a
        script Redis does not know (an ``EVALSHA`` among them answered
        ``NOSCRIPT``) is loaded and the whole transaction sent again."""

        async def transaction(wire: RedisWire, deadline: float | None) -> list[Any]:
            replies = await wire.transaction(commands, deadline=deadline)
            missing = [
                c[1]
                for c, r in zip(commands, replies, strict=True)
                if isinstance(r, rexc.NoScriptError)
            ]
            if missing:
                for digest in set(missing):
                    await wire.call("SCRIPT", "LOAD", lua.source(digest), deadline=deadline)
                replies = await wire.transaction(commands, deadline=deadline)
            return _raise_errors(replies)

        return await self._on_wire(transaction)

    async def _on_wire(self, op: Callable[[RedisWire, float | None], Awaitable[_T]]) -> _T:
        """Run ``op(wire, deadline)`` on the wire within ``command_timeout``: each
        of its calls is given the one ``deadline`` (event-loop time), so they
        take that long together at most (the wire's own timer, cheaper than an
        ``asyncio.timeout`` per call). A connection that turns out dead (closed
        while idle) is replaced and ``op`` tried once more at once, as redis-py
        does; a late reply makes the wire drop the connection (it may be
        stuck). Any Redis failure, an error reply included, is
        ``SessionCacheUnavailableError``: the cache is never trusted past one
        (the layered store then serves from the durable store and repairs)."""
        wire = self.wire
        assert wire is not None
        timeout = self.command_timeout
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        try:
            try:
                return await op(wire, deadline)
            except rexc.ConnectionError as exc:
                if isinstance(exc, rexc.AuthenticationError):
                    raise
                return await op(wire, deadline)  # on a new connection
        except (TimeoutError, rexc.TimeoutError) as exc:
            raise unavailable(exc) from exc
        except SessionCacheUnavailableError:
            raise
        except (rexc.RedisError, OSError) as exc:
            log.warning("session cache error: %s", type(exc).__name__)
            raise unavailable(exc) from exc

    async def aclose(self) -> None:
        """Close the cache's own connection (not the client it was given)."""
        if self.wire is not None:
            await self.wire.aclose()

    # ------------------------------------------------------------------ reads

    def queue_read(self, pipe: Any, session_id: str, max_messages: int, event_limit: int) -> None:
        """Queue the session read script on ``pipe`` (see :meth:`parse_read`)."""
        sk = self.session_keys(session_id)
        pipe.eval(lua.READ_SESSION, 4, *sk.session_read(), max_messages, event_limit)

    @staticmethod
    def parse_read(raw: Any) -> CachedSession | None:
        """Decode the session read script's reply (``None``: not cached)."""
        if raw is None:
            return None
        state_raw, complete, entries, lang, mode = raw
        return CachedSession(
            state=session_from_json(state_raw),
            complete=complete == b"1",
            entries=entries_from_json_array(entries),
            language_events=list(lang),
            mode_events=list(mode),
        )

    def queue_user_read(
        self,
        pipe: Any,
        user_id: str,
        *,
        exclude_session: str | None,
        since_ms: int,
        limit: int,
        want_recent: bool,
    ) -> None:
        """Queue the read of the user's cached settings and short-term layer."""
        uk = self.user_keys(user_id)
        pipe.eval(
            lua.READ_USER,
            5,
            *uk.user_read(),
            exclude_session or "",
            since_ms,
            limit,
            1 if want_recent else 0,
        )

    async def read_both(
        self,
        session_id: str,
        user_id: str,
        max_messages: int,
        event_limit: int,
        *,
        since_ms: int,
        limit: int,
    ) -> tuple[Any, Any]:
        """The session read and the user read (excluding this session) in one round
        trip: one transaction on the wire (the session part as plain commands, the
        user part a script), else one script call on a single Redis, a two-command
        pipeline on a cluster. The session part as :meth:`read_raw` gives it."""
        user_args = (session_id, since_ms, limit, 1)
        if self.wire is not None:
            sk, uk = self.session_keys(session_id), self.user_keys(user_id)
            commands = self._session_commands(sk, max_messages, event_limit)
            commands.append(("EVALSHA", lua.sha(lua.READ_USER), 5, *uk.user_read(), *user_args))
            replies = await self._transaction(commands)
            return self._session_reply(replies, max_messages, event_limit), replies[-1]
        if not isinstance(self.client, RedisCluster):
            sk, uk = self.session_keys(session_id), self.user_keys(user_id)
            both = await self._call(
                lua.READ_BOTH,
                9,
                *sk.session_read(),
                *uk.user_read(),
                max_messages,
                event_limit,
                *user_args,
            )
            return both[0], both[1]
        pipe = self._pipe()
        self.queue_read(pipe, session_id, max_messages, event_limit)
        self.queue_user_read(
            pipe,
            user_id,
            exclude_session=session_id,
            since_ms=since_ms,
            limit=limit,
            want_recent=True,
        )
        first, second = await self._run(pipe)
        return first, second

    @staticmethod
    def _session_commands(
        sk: k.SessionKeys, max_messages: int, event_limit: int
    ) -> list[tuple[Any, ...]]:
        """The session read as plain commands (what ``READ_SESSION`` does, without
        the cost of a script: ~30 µs of Redis time per call for the data it copies).
        The window's ``ZRANGE`` answers whether the window exists (a sorted set
        is never empty); ``EXISTS`` only when no entry is asked for."""
        commands: list[tuple[Any, ...]] = [("HMGET", sk.meta, "state", "complete", "mc")]
        if max_messages > 0:
            commands.append(("ZRANGE", sk.window, -max_messages, -1))
        else:
            commands.append(("EXISTS", sk.window))
        if event_limit > 0:
            commands.append(("LRANGE", sk.lang, -event_limit, -1))
            commands.append(("LRANGE", sk.mode, -event_limit, -1))
        return commands

    @staticmethod
    def _session_reply(replies: list[Any], max_messages: int, event_limit: int) -> Any:
        """The replies of :meth:`_session_commands` in ``READ_SESSION``'s shape."""
        (state, complete, count), window = replies[0], replies[1]
        # keys expiring one after the other at the end of the TTL: treat as not cached
        if state is None or (count != b"0" and not window):
            return None
        entries = b"[" + b",".join(window) + b"]" if max_messages > 0 else b"[]"
        lang, mode = (replies[2], replies[3]) if event_limit > 0 else ([], [])
        return [state, complete, entries, lang, mode]

    async def read_raw(self, session_id: str, max_messages: int, event_limit: int) -> Any:
        """The session read (see :meth:`parse_read`) in one round trip."""
        if self.wire is not None:
            key = (session_id, max_messages, event_limit)
            packed = self._packed_reads.get(key)
            if packed is None:  # (the same bytes every time: packed once)
                if len(self._packed_reads) >= _PACKED_KEEP:
                    self._packed_reads.clear()
                commands = self._session_commands(
                    self.session_keys(session_id), max_messages, event_limit
                )
                packed = self._packed_reads[key] = pack_transaction(commands)

            async def read(wire: RedisWire, deadline: float | None) -> list[Any]:
                # (plain commands only: no script to load again)
                return _raise_errors(await wire.transaction_packed(*packed, deadline))

            replies = await self._on_wire(read)
            return self._session_reply(replies, max_messages, event_limit)
        sk = self.session_keys(session_id)
        return await self._call(lua.READ_SESSION, 4, *sk.session_read(), max_messages, event_limit)

    async def read(
        self, session_id: str, max_messages: int, event_limit: int
    ) -> CachedSession | None:
        """The cached context of a session, or ``None`` when it is not cached."""
        return self.parse_read(await self.read_raw(session_id, max_messages, event_limit))

    async def try_lock_rebuild(self, session_id: str, token: str) -> bool:
        """Claim the rebuild of a session's window (one reader rebuilds, not a burst)."""
        try:
            async with asyncio.timeout(self.command_timeout):
                return bool(
                    await self.client.set(
                        self.session_keys(session_id).rebuild, token, nx=True, px=5000
                    )
                )
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc

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
        """Install a rebuilt window if no write touched the session meanwhile."""
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
        pipe = self._pipe()
        pipe.eval(lua.INSTALL, 5, *self.session_keys(state.session_id).all(), *argv)
        [done] = await self._run(pipe)
        return bool(done)

    async def warm_user(self, user_id: str, entries: Sequence[MemoryEntry]) -> None:
        """Replace the user's short-term layer with ``entries`` and mark it complete."""
        argv: list[Any] = [self.short_term_ttl, self.short_term_ttl]
        for entry in entries:
            argv += [
                k.recent_member(entry.session_id, entry.id),
                _ms(entry),
                entry.model_dump_json(),
            ]
        uk = self.user_keys(user_id)
        pipe = self._pipe()
        pipe.eval(lua.WARM_USER, 4, *uk.short_term(), *argv)
        await self._run(pipe)

    async def get_state(self, session_id: str) -> SessionInfo | None:
        """The cached session state, or ``None`` when not cached (on the wire when
        there is one: a typed turn's language policy reads it)."""
        meta = self.session_keys(session_id).meta
        if self.wire is not None:
            raw = await self._on_wire(
                lambda wire, deadline: wire.call("HGET", meta, "state", deadline=deadline)
            )
        else:
            try:
                async with asyncio.timeout(self.command_timeout):
                    raw = await self.client.hget(meta, "state")
            except UNAVAILABLE as exc:
                raise unavailable(exc) from exc
        return session_from_json(raw) if raw else None

    async def get_settings(self, user_id: str) -> bytes | None:
        """The cached settings JSON (``b""``: none stored), or ``None`` when not cached."""
        try:
            async with asyncio.timeout(self.command_timeout):
                raw = await self.client.get(self.user_keys(user_id).settings)
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc
        return raw if raw is None else cast(bytes, raw)

    async def put_settings(self, user_id: str, raw: str, *, only_if_absent: bool) -> None:
        """Cache the user's settings JSON (``""``: none stored)."""
        try:
            async with asyncio.timeout(self.command_timeout):
                await self.client.set(
                    self.user_keys(user_id).settings, raw, ex=self.short_term_ttl, nx=only_if_absent
                )
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc

    # ------------------------------------------------------------------ invalidation

    async def drop(
        self,
        session_ids: Sequence[str] = (),
        user_ids: Sequence[str] = (),
        *,
        settings: bool = False,
    ) -> None:
        """Delete the keys of sessions and the short-term layer (and, with
        ``settings``, the cached settings) of users.

        One ``DEL`` per session or user, pipelined: each stays in one slot.
        """
        if not session_ids and not user_ids:
            return
        pipe = self._pipe()
        for sid in session_ids:
            pipe.delete(*self.session_keys(sid).all())
        for uid in user_ids:
            uk = self.user_keys(uid)
            pipe.delete(*uk.short_term(), *((uk.settings,) if settings else ()))
        await self._run(pipe)

    async def user_sessions(self, user_id: str) -> list[str]:
        """The session ids the short-term layer saw for this user."""
        try:
            async with asyncio.timeout(self.command_timeout):
                raw = await self.client.zrange(self.user_keys(user_id).sessions, 0, -1)
        except UNAVAILABLE as exc:
            raise unavailable(exc) from exc
        return [cast(bytes, m).decode() for m in raw]

    async def touch(self, session_id: str) -> bool:
        """Extend a session's idle TTL; whether it was cached."""
        pipe = self._pipe()
        for key in self.session_keys(session_id).all()[:4]:
            pipe.expire(key, self.session_ttl)
        return any(await self._run(pipe))
