"""The HTTP API and the live socket on every storage backend (in-process, SQLite,
PostgreSQL, Redis + PostgreSQL, ...), through the conformance ``service`` fixture."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import UnifiedMemoryService
from unimem.privacy.crypto import Keyring, generate_key


async def test_api_and_live_socket_on_every_backend(
    service: UnifiedMemoryService, tmp_path: Path
) -> None:
    app = create_app(settings(tmp_path), service=service)
    # A generous client timeout: this checks behaviour per backend; latency is
    # measured in bench/bench_http.py.
    async with running_server(app) as base:
        ws_url = base.replace("http://", "ws://") + f"/v1/sessions/s1/live?token={token('alice')}"
        async with (
            connect(ws_url, open_timeout=5) as ws,
            httpx.AsyncClient(base_url=base, headers=auth("alice"), timeout=30) as http,
        ):
            assert json.loads(await ws.recv())["type"] == "ready"
            first = await http.post(
                "/v1/sessions/s1/entries",
                json={"role": "user", "content": "hello", "mode": "voice", "language": "en"},
            )
            assert first.status_code == 201 and first.json()["seq"] == 1
            second = await http.post(
                "/v1/sessions/s1/entries",
                json={"role": "user", "content": "typed now", "mode": "text", "language": "en"},
            )
            assert second.json()["seq"] == 2
            pushed = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(3)]
            assert [p["type"] for p in pushed] == ["entry", "entry", "event"]
            got = await http.get("/v1/sessions/s1/context")
            expected = await service.get_context("s1", user_id="alice")
            assert got.content == expected.model_dump_json().encode()
            ctx = got.json()
            assert [m["content"] for m in ctx["messages"]] == ["hello", "typed now"]
            assert (
                ctx["current_mode"] == "text"
                and ctx["mode_events"][-1]["data"]["to_mode"] == "text"
            )
            # another user's session reads as one never used (docs/design.md)
            other = await http.get("/v1/sessions/s1/history", headers=auth("bob"))
            never = await http.get("/v1/sessions/never-used/history", headers=auth("bob"))
            assert other.status_code == never.status_code == 200
            assert other.json() == never.json() == []
            ready = await http.get("/readyz")
            assert ready.status_code == 200


async def test_context_of_content_encrypted_at_rest_is_opened(
    service: UnifiedMemoryService, tmp_path: Path
) -> None:
    # Redis then holds sealed content: the context served is the opened one
    service.use_encryption(Keyring.parse(generate_key("k1")))
    app = create_app(settings(tmp_path), service=service)
    async with asgi_client(app, headers=auth("alice")) as http:
        for text in ("chest pain since Tuesday", "it gets worse at night"):
            sent = await http.post(
                "/v1/sessions/s1/entries", json={"role": "user", "content": text, "language": "en"}
            )
            assert sent.status_code == 201
        for _ in range(2):  # cold, then cached
            got = await http.get("/v1/sessions/s1/context")
            assert [m["content"] for m in got.json()["messages"]] == [
                "chest pain since Tuesday",
                "it gets worse at night",
            ]
            expected = await service.get_context("s1", user_id="alice")
            assert got.content == expected.model_dump_json().encode()
