"""A real OpenAI-compatible streaming chat server on loopback (``http.server`` in a
thread), for the assistant-reply tests: SSE ``data: {chunk}`` lines, then
``data: [DONE]`` (a request without ``stream: true`` gets one chat completion
of the pieces joined). Its behaviour is set per test through :class:`FakeChat`."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeChat:
    """What the fake endpoint answers, and what it was asked."""

    pieces: list[str] = field(
        default_factory=lambda: ["Take one", " with water", " after breakfast."]
    )
    status: int = 200
    #: Seconds before the response starts (timeouts).
    first_delay: float = 0.0
    #: Seconds between pieces after the first two (barge-in).
    gap: float = 0.0
    #: Send an error chunk after this many pieces.
    fail_after: int | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: Set once the client went away while pieces were still being sent.
    cut_off: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    @property
    def chats(self) -> list[dict[str, Any]]:
        """The streamed chat requests (replies), without plain completions (facts)."""
        return [r for r in self.requests if r.get("stream")]


def _chunk(delta: dict[str, Any]) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "tiny",
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


@contextmanager
def fake_chat_server() -> Iterator[FakeChat]:
    """Serve :class:`FakeChat` on a free loopback port until the block ends."""
    state = FakeChat()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(request)
            time.sleep(state.first_delay)
            if self.path != "/v1/chat/completions" or state.status != 200:
                self.send_response(404 if state.status == 200 else state.status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "failed"}}')
                return
            # this request's own body: another one (the facts extractor's) may
            # have been appended meanwhile by another thread
            if not request.get("stream"):  # a plain chat completion
                reply = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "model": "tiny",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "".join(state.pieces)},
                            "finish_reason": "stop",
                        }
                    ],
                }
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps(reply).encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                self.wfile.write(_chunk({"role": "assistant"}))
                for i, piece in enumerate(state.pieces):
                    if state.fail_after is not None and i == state.fail_after:
                        self.wfile.write(b'data: {"error": {"message": "overloaded"}}\n\n')
                        self.wfile.flush()
                        return
                    if i >= 2:
                        time.sleep(state.gap)
                    self.wfile.write(_chunk({"content": piece}))
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:
                state.cut_off.set()

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that gave up (timeout, barge-in) is expected

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
