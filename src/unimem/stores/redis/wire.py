"""A lean connection for the session cache's hot calls on a single Redis.

Every voice turn makes one script call to Redis and every context read one
more. Through redis-py each call walks its command machinery (connection pool,
retry wrapper, observability hooks, packing through an encoder): ~110 µs of
CPU for a round trip whose bytes take ~50 µs, more than the command itself.
:class:`RedisWire` sends those calls over one connection of its own: it packs
the command, writes it, and awaits a future that the protocol resolves with
the parsed reply (hiredis). Replies arrive in the order the commands were sent,
so one connection serves every coroutine of the process (concurrent callers
are pipelined on it for free).

A call may carry a deadline (event-loop time). The connection keeps one timer
for all of them rather than an ``asyncio.timeout`` per call (a ``Timeout``
object, the current task, a timer armed and cancelled: more CPU than the
call's own Python work): the timer is armed for the nearest deadline and
rearmed when it fires, so a steady stream of calls costs a comparison each.
When a deadline passes before its reply, the connection is taken for stuck:
it is dropped and every call waiting on it fails with redis-py's
``TimeoutError`` (the next call connects again).

It speaks RESP2 over TCP or a Unix socket, with ``AUTH``, ``SELECT`` and
``CLIENT SETNAME`` taken from the redis-py client it is made for. Anything
else (TLS, RESP3, decoded responses, credential providers, Redis Cluster)
makes :meth:`RedisWire.for_client` answer ``None`` and the caller keeps using
redis-py. Errors are redis-py's exception classes, so callers handle both
paths alike.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import hiredis
import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.connection import Connection, UnixDomainSocketConnection

__all__ = ["RedisWire", "pack_commands", "pack_transaction"]

Arg = bytes | str | int | float

#: Error reply prefixes redis-py raises a class of its own for.
_ERRORS: dict[str, type[rexc.ResponseError] | type[rexc.RedisError]] = {
    "NOSCRIPT": rexc.NoScriptError,
    "LOADING": rexc.BusyLoadingError,
    "READONLY": rexc.ReadOnlyError,
    "MASTERDOWN": rexc.MasterDownError,
    "NOAUTH": rexc.AuthenticationError,
    "WRONGPASS": rexc.AuthenticationError,
    "NOPERM": rexc.NoPermissionError,
    "EXECABORT": rexc.ExecAbortError,
}


def as_error(reply: rexc.ResponseError) -> rexc.RedisError:
    """The redis-py exception for an error reply (``NOSCRIPT ...`` -> ``NoScriptError``)."""
    text = str(reply)
    cls = _ERRORS.get(text.split(" ", 1)[0])
    if cls is None and text.startswith("ERR max number of clients reached"):
        cls = rexc.ConnectionError  # (as redis-py reads it)
    return cls(text) if cls is not None else reply


def _arg(value: Arg) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, memoryview):  # (as redis-py and hiredis take it)
        return value.tobytes()
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, float):
        return repr(value).encode()
    raise rexc.DataError(f"invalid Redis argument of type {type(value).__name__}")


def pack_commands(commands: Sequence[Sequence[Arg]]) -> bytes:
    """The RESP encoding of ``commands`` (each a sequence of arguments).

    hiredis packs them in C (a script call's ~30 arguments in about half the
    time) when it writes what the Python packer writes (checked at import);
    what it refuses (``bool``, ``IntEnum``, anything not ``str``, ``int``,
    ``float``, ``bytes`` or ``memoryview``) is packed, or refused with
    ``DataError``, by the Python packer.

    Raises:
        rexc.DataError: an argument of a type Redis commands do not take.
    """
    pack = _pack_command
    if pack is None:
        return _pack_slowly(commands)
    try:
        if len(commands) == 1:
            return pack(tuple(commands[0]))
        return b"".join([pack(tuple(command)) for command in commands])
    except TypeError:
        return _pack_slowly(commands)


def _pack_slowly(commands: Sequence[Sequence[Arg]]) -> bytes:
    out: list[bytes] = []
    append = out.append
    for command in commands:
        append(b"*%d\r\n" % len(command))
        for value in command:
            data = _arg(value)
            append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(out)


def _agreeing_hiredis_packer() -> Callable[[tuple[Arg, ...]], bytes] | None:
    """hiredis's ``pack_command`` when it writes what :func:`_pack_slowly`
    writes, else ``None``.

    It appeared in hiredis-py 2.2.1 (redis[hiredis] 5.0 accepts older
    releases), and releases have differed in the types they take and in how
    they write floats and big integers. So it is tried once on a probe: every
    value the Python packer packs must come out the same; a ``bool`` or an
    ``IntEnum`` must be refused with ``TypeError`` (then the Python packer
    packs it) or come out the same; what the Python packer refuses must be
    refused."""
    import enum

    pack = cast(Callable[[tuple[Arg, ...]], bytes] | None, getattr(hiredis, "pack_command", None))
    if pack is None:
        return None

    class _Probe(enum.IntEnum):
        SEVEN = 7

    packed: tuple[Any, ...] = (
        "X", "é", "", b"\x00\r\n", b"", memoryview(b"\x00\xff"), 0, -1, 2**64, -(2**70),
        1.5, -0.0, 0.1, 1e-7, 1e100, 123456789.123, float("inf"), float("nan"),
    )  # fmt: skip
    others: tuple[Any, ...] = (True, False, _Probe.SEVEN)
    refused: tuple[Any, ...] = (None, bytearray(b"x"), object())
    try:
        if pack(("SET", *packed)) != _pack_slowly([("SET", *packed)]):
            return None
        for value in others:
            with contextlib.suppress(TypeError):
                if pack(("SET", value)) != _pack_slowly([("SET", value)]):
                    return None
        for value in refused:
            with contextlib.suppress(TypeError):
                pack(("SET", value))
                return None
    except Exception:  # (an error but TypeError would reach the callers)
        return None
    return pack


_pack_command = _agreeing_hiredis_packer()


def pack_transaction(commands: Sequence[Sequence[Arg]]) -> tuple[bytes, int]:
    """``commands`` packed inside ``MULTI``/``EXEC``, and how many they are (what
    :meth:`RedisWire.transaction_packed` takes: a caller may keep it for reuse)."""
    return pack_commands([("MULTI",), *commands, ("EXEC",)]), len(commands)


class _Batch:
    """The replies a batch of commands waits for: one future for all of them,
    and the event-loop time they are due by (``None``: no deadline)."""

    __slots__ = ("deadline", "future", "left", "replies")

    def __init__(
        self, future: asyncio.Future[list[Any]], count: int, deadline: float | None
    ) -> None:
        self.future = future
        self.left = count
        self.deadline = deadline
        self.replies: list[Any] = []


class _Protocol(asyncio.Protocol):
    """One connection: replies fill the oldest waiting batch, in order."""

    def __init__(self) -> None:
        self.reader = hiredis.Reader(
            protocolError=rexc.InvalidResponse, replyError=rexc.ResponseError
        )
        self.waiting: deque[_Batch] = deque()
        self.transport: Any = None  # asyncio's or uvloop's (not an asyncio.Transport)
        self.closed = False
        #: the deadlines' one timer, and the time it is armed for
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        waiting = self.waiting
        try:
            while (reply := reader.gets()) is not False:
                batch = waiting[0]
                batch.replies.append(reply)
                batch.left -= 1
                if batch.left == 0:
                    waiting.popleft()
                    if not batch.future.done():  # (a caller that timed out is gone)
                        batch.future.set_result(batch.replies)
        except (rexc.InvalidResponse, IndexError) as exc:
            self.abort(rexc.ConnectionError(f"Redis protocol error: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.fail(rexc.ConnectionError("Connection closed by server."))

    def abort(self, error: rexc.RedisError) -> None:
        """Close at once and fail every waiting call with ``error``."""
        self.closed = True
        if self.transport is not None:
            self.transport.abort()
        self.fail(error)

    def fail(self, error: rexc.RedisError) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        while self.waiting:
            future = self.waiting.popleft().future
            if not future.done():  # (an instance each: tracebacks are not shared)
                future.set_exception(type(error)(*error.args))

    def send(
        self, payload: bytes, replies: int, deadline: float | None = None
    ) -> asyncio.Future[list[Any]]:
        """Write ``payload`` (``replies`` commands); the future of their replies,
        failed with ``TimeoutError`` if they are not all in by ``deadline``.

        Raises:
            rexc.ConnectionError: the connection can no longer be written to
                (it is closed, and nothing was sent).
            rexc.TimeoutError: ``deadline`` has already passed (nothing was
                sent: armed for it, the timer would fire at once and drop a
                healthy connection with every call waiting on it).
        """
        if self.closed:
            raise rexc.ConnectionError("Connection closed by server.")
        loop = asyncio.get_running_loop()
        if deadline is not None and deadline <= loop.time():
            raise rexc.TimeoutError("Redis call past its deadline before it was sent")
        try:
            self.transport.write(payload)
        except (RuntimeError, OSError) as exc:  # (uvloop refuses a closed handle)
            self.abort(rexc.ConnectionError(f"Error writing to Redis: {exc}"))
            raise rexc.ConnectionError(f"Error writing to Redis: {exc}") from exc
        future: asyncio.Future[list[Any]] = loop.create_future()
        self.waiting.append(_Batch(future, replies, deadline))
        if deadline is not None and (self.timer is None or deadline < self.timer_at):
            self._arm(deadline)
        return future

    def _arm(self, when: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer_at = when
        self.timer = asyncio.get_running_loop().call_at(when, self._expire)

    def _expire(self) -> None:
        """The timer fired: a call past its deadline means a stuck connection;
        otherwise the timer is rearmed for the nearest deadline still waiting.

        A deadline counts as passed when it is not after the time the timer was
        armed for (a loop may fire a timer a little early, as it would fire an
        ``asyncio.timeout``), so the timer never spins on one deadline."""
        self.timer = None
        due = self.timer_at
        nearest: float | None = None
        for batch in self.waiting:
            deadline = batch.deadline
            if deadline is None:
                continue
            if deadline <= due:
                self.abort(rexc.TimeoutError("Redis did not answer in time"))
                return
            if nearest is None or deadline < nearest:
                nearest = deadline
        if nearest is not None:
            self._arm(nearest)


Connector = Callable[[], Awaitable[tuple[asyncio.BaseTransport, asyncio.BaseProtocol]]]

#: seconds a connect and its handshake may take, for a client without a
#: ``socket_connect_timeout`` of its own
DEFAULT_CONNECT_TIMEOUT = 1.0


class RedisWire:
    """One multiplexed RESP2 connection to a single Redis (see the module doc).

    It connects on first use and again after the connection is lost; a call
    made while Redis is unreachable raises redis-py's ``ConnectionError``, and
    one made while a connect (with its handshake) takes longer than
    ``connect_timeout`` seconds raises its ``TimeoutError`` (the next call
    connects anew).
    Callers bound each call with a ``deadline`` (or with their own timeout,
    calling :meth:`reset` when one expires: the connection may be stuck).
    """

    def __init__(
        self,
        connector: Connector,
        handshake: Sequence[Sequence[Arg]] = (),
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    ) -> None:
        self._connector = connector
        self._handshake = [tuple(c) for c in handshake]
        #: seconds the connect and the handshake may take together
        self.connect_timeout = connect_timeout
        self._proto: _Protocol | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connecting: asyncio.Task[_Protocol] | None = None

    @classmethod
    def for_client(cls, client: Any) -> RedisWire | None:
        """A wire to the server ``client`` (a ``redis.asyncio.Redis``) talks to,
        with its credentials, database and ``socket_connect_timeout`` (which
        bounds the connect and handshake together; ``None``:
        :data:`DEFAULT_CONNECT_TIMEOUT`); ``None`` when the client uses
        anything this wire does not speak (see the module doc)."""
        if not isinstance(client, aioredis.Redis):
            return None
        pool = client.connection_pool
        kw = pool.connection_kwargs
        if (
            kw.get("decode_responses")
            or str(kw.get("protocol") or 2) != "2"
            or kw.get("credential_provider") is not None
        ):
            return None
        handshake: list[tuple[Arg, ...]] = []
        if kw.get("password") is not None:
            user = kw.get("username")
            handshake.append(("AUTH", user, kw["password"]) if user else ("AUTH", kw["password"]))
        if kw.get("db"):
            handshake.append(("SELECT", int(kw["db"])))
        if kw.get("client_name"):
            handshake.append(("CLIENT", "SETNAME", kw["client_name"]))
        connector: Connector
        if pool.connection_class is Connection:
            host, port = kw.get("host", "localhost"), int(kw.get("port", 6379))

            def connector() -> Awaitable[tuple[asyncio.BaseTransport, asyncio.BaseProtocol]]:
                return asyncio.get_running_loop().create_connection(_Protocol, host, port)

        elif pool.connection_class is UnixDomainSocketConnection:
            path = kw["path"]

            def connector() -> Awaitable[tuple[asyncio.BaseTransport, asyncio.BaseProtocol]]:
                return asyncio.get_running_loop().create_unix_connection(_Protocol, path)

        else:  # TLS or a custom connection class
            return None
        timeout = kw.get("socket_connect_timeout")
        return cls(
            connector,
            handshake,
            connect_timeout=DEFAULT_CONNECT_TIMEOUT if timeout is None else float(timeout),
        )

    # ------------------------------------------------------------------ calls

    async def call(self, *args: Arg, deadline: float | None = None) -> Any:
        """Send one command and return its reply (an error reply is raised).

        ``deadline`` (event-loop time, as every method here takes it) bounds the
        wait for the connection and the reply: past it the call raises redis-py's
        ``TimeoutError`` and, when the reply was late, the connection is dropped.
        """
        proto = await self._connected(deadline)
        [reply] = await proto.send(pack_commands((args,)), 1, deadline)
        if isinstance(reply, rexc.ResponseError):
            raise as_error(reply)
        return reply

    async def pipeline(
        self, commands: Sequence[Sequence[Arg]], *, deadline: float | None = None
    ) -> list[Any]:
        """Send ``commands`` in one write and return their replies, in order.

        Error replies are returned as exceptions, not raised (as redis-py's
        ``execute(raise_on_error=False)``), converted to redis-py's classes.
        """
        return await self.pipeline_packed(pack_commands(commands), len(commands), deadline)

    async def pipeline_packed(
        self, payload: bytes, count: int, deadline: float | None = None
    ) -> list[Any]:
        """:meth:`pipeline` of ``count`` commands already packed (:func:`pack_commands`)."""
        proto = await self._connected(deadline)
        replies = await proto.send(payload, count, deadline)
        return [as_error(r) if isinstance(r, rexc.ResponseError) else r for r in replies]

    async def transaction(
        self, commands: Sequence[Sequence[Arg]], *, deadline: float | None = None
    ) -> list[Any]:
        """Run ``commands`` in ``MULTI``/``EXEC`` (atomically) in one round trip;
        the replies of the commands, errors as exceptions (not raised)."""
        return await self.transaction_packed(*pack_transaction(commands), deadline)

    async def transaction_packed(
        self, payload: bytes, count: int, deadline: float | None = None
    ) -> list[Any]:
        """:meth:`transaction` of ``count`` commands packed by :func:`pack_transaction`."""
        replies = await self.pipeline_packed(payload, count + 2, deadline)
        for queued in replies[:-1]:  # a command refused when queued (LOADING, ...)
            if isinstance(queued, Exception):
                raise queued  # (rather than the EXECABORT it caused)
        result = replies[-1]
        if isinstance(result, Exception):
            raise result
        return [as_error(r) if isinstance(r, rexc.ResponseError) else r for r in result]

    def send_nowait(
        self, payload: bytes, count: int, *, deadline: float | None = None
    ) -> asyncio.Future[list[Any]] | None:
        """Write ``count`` packed commands now, without waiting; the future of
        their replies (raw: error replies as ``ResponseError`` values), or
        ``None`` when there is no open connection to write them to (then
        nothing was sent: a caller that cares about order waits for one with
        :meth:`call` before sending more this way).

        ``deadline`` (event-loop time; ``None``: none) is watched as
        :meth:`call`'s is: replies not all in by then fail the future with
        redis-py's ``TimeoutError`` and drop the connection (it may be stuck),
        failing every call waiting on it.

        Raises:
            rexc.ConnectionError: the connection turned out closed (nothing sent).
            rexc.TimeoutError: ``deadline`` has already passed (nothing sent).
        """
        proto = self._usable(asyncio.get_running_loop())
        if proto is None:
            return None
        return proto.send(payload, count, deadline)

    # ------------------------------------------------------------------ connection

    def _usable(self, loop: asyncio.AbstractEventLoop) -> _Protocol | None:
        """The open connection, if there is one on ``loop`` (a transport closing,
        its loss not yet reported, is as good as lost)."""
        proto = self._proto
        if proto is None or proto.closed or self._loop is not loop or proto.transport.is_closing():
            return None
        return proto

    async def _connected(self, deadline: float | None = None) -> _Protocol:
        loop = asyncio.get_running_loop()
        usable = self._usable(loop)
        if usable is not None:
            return usable
        proto = self._proto
        task = self._connecting
        if task is None or self._loop is not loop:
            if self._loop is loop and proto is not None:
                proto.abort(rexc.ConnectionError("reconnecting"))
            self._proto = None  # (on a new event loop the old connection is not ours)
            self._loop = loop
            # a task of its own: a caller that gives up (timeout, cancellation)
            # does not fail the others waiting for the same connection
            task = self._connecting = loop.create_task(self._open())
            task.add_done_callback(self._opened)
        if deadline is None:
            return await asyncio.shield(task)
        try:
            async with asyncio.timeout_at(deadline):
                return await asyncio.shield(task)
        except TimeoutError as exc:  # (the connect goes on for the others waiting)
            raise rexc.TimeoutError("Redis did not accept the connection in time") from exc

    def _opened(self, task: asyncio.Task[_Protocol]) -> None:
        # (runs before the waiting callers resume: it was added first)
        if task.cancelled() or task.exception() is not None:
            if self._connecting is task:
                self._connecting = None
            return
        if self._connecting is not task:
            # given up while its result was on the way (aclose(), a new event
            # loop): the connection is nobody's, so it is closed, not installed
            task.result().abort(rexc.ConnectionError("connection closed"))
            return
        self._connecting = None
        self._proto = task.result()

    async def _open(self) -> _Protocol:
        """Connect and send the handshake, within ``connect_timeout`` (a connect
        or a handshake that never finishes would otherwise be the one every
        later call waits for: callers' deadlines end only their own wait)."""
        timeout = self.connect_timeout
        try:
            async with asyncio.timeout(timeout):
                return await self._open_unbounded()
        except TimeoutError as exc:
            raise rexc.TimeoutError(
                f"Redis did not accept the connection in {timeout:g} s"
            ) from exc

    async def _open_unbounded(self) -> _Protocol:
        try:
            _, proto = await self._connector()
        except OSError as exc:
            raise rexc.ConnectionError(f"cannot connect to Redis: {exc}") from exc
        assert isinstance(proto, _Protocol)
        try:
            if self._handshake:
                replies = await proto.send(pack_commands(self._handshake), len(self._handshake))
                for reply in replies:
                    if isinstance(reply, rexc.ResponseError):
                        error = as_error(reply)
                        if not isinstance(error, rexc.ConnectionError):
                            error = rexc.ConnectionError(f"Redis refused the connection: {reply}")
                        raise error
        except BaseException:
            proto.abort(rexc.ConnectionError("handshake failed"))
            raise
        return proto

    def reset(self) -> None:
        """Drop the connection (after a timeout: it may be stuck); the next call reconnects."""
        proto, self._proto = self._proto, None
        if proto is not None and not proto.closed:
            proto.abort(rexc.TimeoutError("Redis did not answer in time"))

    async def aclose(self) -> None:
        """Close the connection (a later call opens a new one)."""
        if self._connecting is not None:  # (its connection is closed as it is cancelled)
            self._connecting.cancel()
            self._connecting = None
        proto, self._proto = self._proto, None
        if proto is None or proto.closed or self._loop is not asyncio.get_running_loop():
            return
        proto.closed = True
        if proto.transport is not None:
            proto.transport.close()
        proto.fail(rexc.ConnectionError("connection closed"))
