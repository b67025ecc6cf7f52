"""Assistant replies (``POST /v1/sessions/{id}/reply``) and ``GET /v1/config``,
against a real uvicorn server and a real OpenAI-compatible streaming endpoint,
both on loopback."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_llm import FakeChat, fake_chat_server
from server_support import auth, create_app, running_server, settings
from unimem.context.llm_client import LLMEndpoint

SID = "visit-reply"


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as state:
        yield state


def _app(tmp_path: Path, chat: FakeChat, timeout: float = 3.0) -> Any:
    endpoint = LLMEndpoint(chat.url, model="tiny", api_key="k-1", timeout=timeout)
    return create_app(settings(tmp_path, llm=endpoint, sweep_interval=0))


@pytest.fixture
async def server(tmp_path: Path, chat: FakeChat) -> AsyncIterator[httpx.AsyncClient]:
    async with (
        running_server(_app(tmp_path, chat)) as url,
        httpx.AsyncClient(base_url=url, timeout=10) as client,
    ):
        yield client


async def _say(
    client: httpx.AsyncClient, text: str, mode: str = "text", user: str = "alice"
) -> None:
    r = await client.post(
        f"/v1/sessions/{SID}/entries",
        json={"role": "user", "content": text, "mode": mode},
        headers=auth(user),
    )
    assert r.status_code == 201, r.text


def _events(raw: str) -> list[tuple[str, Any]]:
    events = []
    for block in raw.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def _history(client: httpx.AsyncClient, user: str = "alice") -> list[dict[str, Any]]:
    r = await client.get(f"/v1/sessions/{SID}/history", headers=auth(user))
    assert r.status_code == 200
    rows: list[dict[str, Any]] = r.json()
    return rows


async def test_reply_streams_and_is_stored(server: httpx.AsyncClient, chat: FakeChat) -> None:
    await _say(server, "When do I take my pills?", mode="voice")
    r = await server.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    events = _events(r.text)
    assert [e for e, _ in events] == ["delta", "delta", "delta", "done"]
    assert (
        "".join(d["text"] for e, d in events if e == "delta")
        == "Take one with water after breakfast."
    )
    done = events[-1][1]
    assert done["role"] == "assistant" and done["content"] == "Take one with water after breakfast."
    assert done["mode"] == "voice"  # the session's current mode
    assert done["metadata"]["model"] == "tiny"

    [request] = chat.chats
    assert request["stream"] is True and request["model"] == "tiny"
    assert request["messages"][-1] == {"role": "user", "content": "When do I take my pills?"}
    history = await _history(server)
    assert [(h["role"], h["content"]) for h in history] == [
        ("user", "When do I take my pills?"),
        ("assistant", "Take one with water after breakfast."),
    ]
    assert not history[1]["metadata"].get("interrupted")


async def test_text_sent_to_the_llm_is_redacted(server: httpx.AsyncClient, chat: FakeChat) -> None:
    # anonymize_phi is on by default: the LLM never sees the number.
    await _say(server, "Call me back at 555-201-0199 please, my SSN is 123-45-6789.")
    r = await server.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
    assert r.status_code == 200
    sent = json.dumps(chat.chats[0]["messages"])
    assert "123-45-6789" not in sent and "555-201-0199" not in sent


async def test_barge_in_stores_what_was_streamed_as_interrupted(
    server: httpx.AsyncClient, chat: FakeChat
) -> None:
    chat.pieces = ["First part.", " Second part.", *[f" more {i}." for i in range(40)]]
    chat.gap = 0.2
    await _say(server, "Tell me everything.")
    heard = []
    async with server.stream(
        "POST", f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice")
    ) as r:
        assert r.status_code == 200
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                heard.append(json.loads(line[6:])["text"])
            if len(heard) == 2:
                break  # the user speaks: the client hangs up
    spoken = "".join(heard)
    assert spoken == "First part. Second part."
    for _ in range(100):
        history = await _history(server)
        if len(history) == 2:
            break
        await asyncio.sleep(0.05)
    assistant = history[-1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == spoken
    assert assistant["metadata"]["interrupted"] is True
    events = await server.get(
        f"/v1/sessions/{SID}/events", params={"event_type": "interruption"}, headers=auth("alice")
    )
    assert len(events.json()) == 1
    # The LLM stream was closed too, not read to the end.
    assert await asyncio.to_thread(chat.cut_off.wait, 5)


@pytest.mark.parametrize("failure", ["http_500", "refused", "timeout", "mid_stream"])
async def test_llm_failure_is_a_clear_error_and_nothing_is_stored(
    tmp_path: Path, chat: FakeChat, failure: str
) -> None:
    if failure == "http_500":
        chat.status = 500
    elif failure == "timeout":
        chat.first_delay = 1.5
    elif failure == "mid_stream":
        chat.fail_after = 1
    if failure == "refused":
        chat.url = "http://127.0.0.1:9/v1"  # discard port: connection refused
    app = _app(tmp_path, chat, timeout=0.5)
    async with running_server(app) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        await _say(client, "My allergy is penicillin.")
        r = await client.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
        if failure == "mid_stream":
            assert r.status_code == 200
            events = _events(r.text)
            assert [e for e, _ in events] == ["delta", "error"]
            assert events[-1][1]["code"] == "llm_error"
        else:
            assert r.status_code == (504 if failure == "timeout" else 502)
            body = r.json()
            assert body["code"] == "llm_error"
            assert "penicillin" not in r.text  # errors never carry content
            if failure == "http_500":
                assert "HTTP 500" in body["message"]
        history = await _history(client)
        assert [h["role"] for h in history] == ["user"]


async def test_another_user_gets_404_and_the_llm_is_not_called(
    server: httpx.AsyncClient, chat: FakeChat
) -> None:
    await _say(server, "Private question.")
    r = await server.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("bob"))
    assert r.status_code == 404
    r = await server.post("/v1/sessions/no-such/reply", json={}, headers=auth("bob"))
    assert r.status_code == 404
    assert chat.chats == []
    assert [h["role"] for h in await _history(server)] == ["user"]


async def test_reply_needs_a_user_turn_and_rejects_unknown_fields(
    server: httpx.AsyncClient, chat: FakeChat
) -> None:
    r = await server.post(
        f"/v1/sessions/{SID}/entries",
        json={"role": "assistant", "content": "Welcome."},
        headers=auth("alice"),
    )
    assert r.status_code == 201
    r = await server.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
    assert r.status_code == 422 and r.json()["field"] == "current_query"
    r = await server.post(f"/v1/sessions/{SID}/reply", json={"bogus": 1}, headers=auth("alice"))
    assert r.status_code == 422
    r = await server.post(
        f"/v1/sessions/{SID}/reply", json={"current_query": "And now?"}, headers=auth("alice")
    )
    assert r.status_code == 200
    assert chat.chats[0]["messages"][-1]["content"] == "And now?"


async def test_config_tells_whether_an_assistant_answers(
    tmp_path: Path, server: httpx.AsyncClient
) -> None:
    r = await server.get("/v1/config")
    assert r.json()["llm_configured"] is True and r.json()["auth"] is True
    assert r.json()["llm_model"] == "tiny"
    bare = create_app(settings(tmp_path / "bare", sweep_interval=0))
    (tmp_path / "bare").mkdir()
    async with running_server(bare) as url, httpx.AsyncClient(base_url=url) as client:
        assert (await client.get("/v1/config")).json()["llm_configured"] is False
        await _say(client, "hello")
        r = await client.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
        assert r.status_code == 501 and r.json()["code"] == "llm_not_configured"


async def test_extend_ttl(server: httpx.AsyncClient) -> None:
    await _say(server, "hello")
    r = await server.post(f"/v1/sessions/{SID}/extend-ttl", headers=auth("alice"))
    assert r.status_code == 200 and r.json() == {"session_id": SID, "extended": True}
    r = await server.post(f"/v1/sessions/{SID}/extend-ttl", headers=auth("bob"))
    assert r.status_code == 404
