"""uvicorn's HTTP/1.1 protocol (httptools), sending a response's head and body
in one write.

uvicorn writes a response's status line and headers, then its body, as two
``transport.write`` calls, and on an idle connection each is a ``send`` of
its own: two TCP segments, two wake-ups of the client. On loopback the second
send costs the server about 15 µs of CPU and the client a round of its event
loop; it was a third of the whole cost of a bare uvicorn app answering
``{}``. :class:`OneWriteHttpProtocol` holds a response head for as long as the
task writing it runs on (its body normally follows within the same step) and
sends both together; a head whose body does not follow at once (a streamed or
``HEAD`` response) goes out on the next turn of the event loop, so nothing is
delayed by more than that. Interim responses (``100 Continue``) and
everything else pass straight through.

``unimem serve`` runs uvicorn with this protocol (``http=...``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["OneWriteHttpProtocol"]

_HEAD_END = b"\r\n\r\n"


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

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        wrapped: Any = _OneWriteTransport(transport, self.loop)  # type: ignore[arg-type]
        super().connection_made(wrapped)
