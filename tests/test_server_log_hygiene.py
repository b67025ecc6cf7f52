"""No credential and no session id reaches a log line: uvicorn's WebSocket and
access lines are masked (server/log_redaction.py), and a browser can send its
token as a WebSocket subprotocol instead of in the URL."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server_support import SECRET, create_app, free_port, running_server, settings, token
from unimem.server.live import SUBPROTOCOL
from unimem.server.log_redaction import MASK, RedactingFilter, redact, uvicorn_log_config

SESSION = "visit-a1-7f3e9c"


def test_redact_masks_tokens_and_session_ids() -> None:
    line = f"/v1/sessions/{SESSION}/live?token=eyJhbGciOi.abc.def&x=1"
    assert redact(line) == f"/v1/sessions/{MASK}/live?token={MASK}&x=1"
    assert redact(f"/v1/sessions/{SESSION}/entries/e-1/interrupted") == (
        f"/v1/sessions/{MASK}/entries/{MASK}/interrupted"
    )
    listed = "/v1/sessions?limit=5&access_token=t"
    assert redact(listed) == f"/v1/sessions?limit=5&access_token={MASK}"
    deletion = f"/v1/me/memory?scope=session&session_id={SESSION}&tz=UTC"
    assert redact(deletion) == f"/v1/me/memory?scope=session&session_id={MASK}&tz=UTC"
    search = f"/v1/me/search?q=Harriet%20Vance&k=5&session_id={SESSION}"
    assert redact(search) == f"/v1/me/search?q={MASK}&k=5&session_id={MASK}"


def test_the_filter_keeps_the_access_formatters_arguments_in_place() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", f"/v1/sessions/{SESSION}/context?token=t0k", "1.1", 200),
        None,
    )
    assert RedactingFilter().filter(record)
    assert record.getMessage() == (
        f'127.0.0.1:5000 - "GET /v1/sessions/{MASK}/context?token={MASK} HTTP/1.1" 200'
    )
    config = uvicorn_log_config()
    assert all("redact" in h["filters"] for h in config["handlers"].values())


async def test_a_browser_sends_its_token_as_a_subprotocol(tmp_path: Path) -> None:
    async with running_server(create_app(settings(tmp_path))) as base:
        url = base.replace("http://", "ws://") + f"/v1/sessions/{SESSION}/live"
        offered = [SUBPROTOCOL, f"bearer.{token('alice')}"]
        async with connect(url, subprotocols=offered, open_timeout=5) as ws:  # type: ignore[arg-type]
            assert ws.subprotocol == SUBPROTOCOL  # the token is never echoed
            assert json.loads(await ws.recv())["type"] == "ready"
            entry = {"role": "user", "content": "hi"}
            await ws.send(json.dumps({"type": "entry", "entry": entry}))
            # the stored entry is also pushed to every socket of its owner, this
            # one included, before or after the ack: the protocol orders neither
            frames = [json.loads(await ws.recv()) for _ in range(2)]
            assert sorted(frame["type"] for frame in frames) == ["ack", "entry"]
            (ack,) = [frame for frame in frames if frame["type"] == "ack"]
            assert ack["entry"]["user_id"] == "alice"
        bad = [SUBPROTOCOL, "bearer.not-a-token"]
        async with connect(url, subprotocols=bad, open_timeout=5) as ws:  # type: ignore[arg-type]
            with pytest.raises(Exception) as closed:
                await ws.recv()
            assert closed.value.rcvd.code == 4401


@pytest.mark.slow
def test_unimem_serve_logs_no_token_and_no_session_id(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "UNIMEM_JWT_SECRET": SECRET, "UNIMEM_DATA_DIR": str(tmp_path / "data")}
    env.pop("UNIMEM_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "unimem.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    secret_token = token("alice")
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "unimem serve did not start"
            time.sleep(0.2)

        async def sockets() -> None:
            ws_base = base.replace("http://", "ws://") + f"/v1/sessions/{SESSION}/live"
            for url, kwargs in (
                (f"{ws_base}?token={secret_token}", {}),  # the old way, still accepted
                (ws_base, {"subprotocols": [SUBPROTOCOL, f"bearer.{secret_token}"]}),
                (ws_base, {"additional_headers": {"Authorization": f"Bearer {secret_token}"}}),
            ):
                async with connect(url, open_timeout=5, **kwargs) as ws:  # type: ignore[arg-type]
                    assert json.loads(await ws.recv())["type"] == "ready"
            async with connect(f"{ws_base}?token=garbage{secret_token[-8:]}", open_timeout=5) as ws:
                with pytest.raises(ConnectionClosed):
                    await ws.recv()

        asyncio.run(sockets())
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    logged = out + err
    assert "WebSocket" in logged  # uvicorn did log the handshakes, masked
    assert SESSION not in logged
    assert secret_token not in logged and secret_token[-8:] not in logged
    assert "token=" + MASK in logged


def test_the_access_log_masks_ids_and_words_in_query_strings(tmp_path: Path) -> None:
    """With ``--access-log``, a deletion's ``session_id=`` and a search's ``q=``
    (a patient's words) are masked like the ids in paths."""
    port = free_port()
    env = {**os.environ, "UNIMEM_DATA_DIR": str(tmp_path / "data")}
    env.pop("UNIMEM_DATABASE_URL", None)
    env.pop("UNIMEM_JWT_SECRET", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "unimem.cli", "serve", "--port", str(port), "--access-log"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    words = "Harriet Vance"
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "unimem serve did not start"
            time.sleep(0.2)
        entry = {"role": "user", "content": "my knee hurts"}
        stored = httpx.post(f"{base}/v1/sessions/{SESSION}/entries", json=entry)
        assert stored.status_code == 201, stored.text
        found = httpx.get(f"{base}/v1/me/search", params={"q": words, "session_id": SESSION})
        assert found.status_code == 200, found.text
        params = {"scope": "session", "session_id": SESSION}
        assert httpx.delete(f"{base}/v1/me/memory", params=params).status_code == 200
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    logged = out + err
    assert "/v1/me/search?q=" + MASK in logged  # the requests were logged, masked
    assert "session_id=" + MASK in logged
    assert SESSION not in logged
    assert "Harriet" not in logged
