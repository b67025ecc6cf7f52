"""uvicorn's HTTP/1.1 protocol (httptools), sending a response's head and body
in one write.

uvicorn writes a response's status line and headers, then its body, as two
``transport.write`` calls, and on an idle connection each is a ``send`` of
its own: two TCP segments, two wake-ups of the client. On loopback the second
send costs the server about 15 µs of CPU and the client a round of its event
loop; it was a third of the whole cost of a bare uvicorn app answering
``{}``. :class:`OneWriteHttpProtocol` holds a response head for as long as the
task writing it runs on (its body normally follows within the same step) and
sends both together (a body over 64 KiB is sent right after it instead of
being copied to join it). A head whose body does not follow at once (a
streamed response) goes out on the next turn of the event loop, so nothing is
delayed by more than that; the head of a response complete without a body
(``HEAD``) goes at once, as does any head held when the client half-closes.
Interim responses (``100 Continue``) and everything else pass straight through.

``unimem serve`` runs uvicorn with this protocol (``http=...``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["OneWriteHttpProtocol"]

_HEAD_END = b"\r\n\r\n"
#: A body longer than this is sent after the head rather than copied to join it.
_JOIN_LIMIT = 64 * 1024


class _OneWriteTransport:
    """A transport that holds a final response head until the next write (or
    the next turn of the event loop) and sends them together."""

    __slots__ = ("_handle", "_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None
        self._handle: asyncio.Handle | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if self._handle is not None:
                self._handle.cancel()
                self._handle = None
            if len(data) > _JOIN_LIMIT:  # not worth copying a large body to join it
                self._transport.write(held)
                self._transport.write(data)
            else:
                self._transport.write(held + bytes(data))
            return
        if (
            type(data) is bytes
            and data.startswith(b"HTTP/1.")
            and data.endswith(_HEAD_END)
            and data[9:10] != b"1"  # not an interim 1xx response
        ):
            self._held = data
            self._handle = self._loop.call_soon(self.flush)
            return
        self._transport.write(data)

    def flush(self) -> None:
        """Send a held head now."""
        held = self._held
        self._handle = None
        if held is not None:
            self._held = None
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class OneWriteHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol on a transport that sends a response's head
    and body in one write (see the module's docstring)."""

    _one_write: _OneWriteTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        wrapped = _OneWriteTransport(transport, self.loop)  # type: ignore[arg-type]
        self._one_write = wrapped
        super().connection_made(wrapped)  # type: ignore[arg-type]

    def _flush(self) -> None:
        if self._one_write is not None:
            self._one_write.flush()

    def on_response_complete(self) -> None:
        # A response without a body write (HEAD) is complete: its head goes now.
        self._flush()
        super().on_response_complete()

    def eof_received(self) -> None:
        # The client half-closed: the transport closes once this returns, so a
        # held head goes first.
        self._flush()
        super().eof_received()
