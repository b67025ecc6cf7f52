"""PHI re-identification over HTTP: the owner gets their own words back
(history, export, the reply they are shown), another user never does; the
LLM sees values only where ``UNIMEM_LLM_PHI=allowed``; no value reaches a log
line or a metric."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_llm import FakeChat, fake_chat_server
from server_support import asgi_client, auth, create_app, running_server, settings
from unimem.context.llm_client import LLMEndpoint
from unimem.privacy.crypto import generate_key

SID = "visit-vault"
NAME = "Johanna Quist"
SAID = f"my name is {NAME}, call me on 555-201-0199"
KEYS = generate_key("k1")


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as state:
        yield state


def _settings(tmp_path: Path, chat: FakeChat | None = None, **changes: Any) -> Any:
    llm = LLMEndpoint(chat.url, model="tiny", timeout=10.0) if chat is not None else None
    return settings(tmp_path, encryption_keys=KEYS, llm=llm, sweep_interval=0, **changes)


async def _say(client: httpx.AsyncClient, text: str, user: str = "alice") -> None:
    r = await client.post(
        f"/v1/sessions/{SID}/entries", json={"role": "user", "content": text}, headers=auth(user)
    )
    assert r.status_code == 201, r.text


async def test_the_owner_reads_their_words_and_nobody_else_does(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with asgi_client(create_app(_settings(tmp_path))) as client:
        await _say(client, SAID)
        url = f"/v1/sessions/{SID}/history"
        plain = (await client.get(url, headers=auth("alice"))).json()
        assert NAME not in plain[0]["content"] and "[PERSON_1]" in plain[0]["content"]
        shown = await client.get(url, params={"reveal": "true"}, headers=auth("alice"))
        assert shown.status_code == 200 and shown.json()[0]["content"] == SAID
        other = await client.get(url, params={"reveal": "true"}, headers=auth("bob"))
        assert other.status_code == 200 and other.json() == []
        mine = await client.get("/v1/me/export", params={"reveal": "true"}, headers=auth("alice"))
        assert [e["content"] for e in mine.json()["entries"]] == [SAID]
        theirs = await client.get("/v1/me/export", params={"reveal": "true"}, headers=auth("bob"))
        assert NAME not in theirs.text
        assert NAME not in (await client.get("/v1/me/export", headers=auth("alice"))).text
        audit = (await client.get("/v1/me/audit", headers=auth("alice"))).json()
        reveals = [r for r in audit if r["action"] == "reveal"]
        assert [r["details"]["view"] for r in reveals] == ["history", "export"]
        facts = await client.get("/v1/me/facts", params={"reveal": "true"}, headers=auth("bob"))
        assert facts.status_code == 200 and NAME not in facts.text
        metrics = await client.get("/metrics")
        assert metrics.status_code == 200 and NAME not in metrics.text
    logged = "\n".join(r.getMessage() + repr(r.args) for r in caplog.records)
    assert NAME not in logged and "555-201-0199" not in logged


async def test_llm_context_reveals_only_where_the_deployment_allows(tmp_path: Path) -> None:
    body = {"current_query": "what is my name?", "reveal_phi": True}
    url = f"/v1/sessions/{SID}/llm-context"
    async with asgi_client(create_app(_settings(tmp_path / "a"))) as client:
        await _say(client, SAID)
        refused = await client.post(url, json=body, headers=auth("alice"))
        assert refused.status_code == 422
        assert refused.json()["field"] == "reveal_phi" and NAME not in refused.text
        tokens = await client.post(url, json={**body, "reveal_phi": False}, headers=auth("alice"))
        assert tokens.status_code == 200 and NAME not in tokens.text
    async with asgi_client(create_app(_settings(tmp_path / "b", llm_phi="allowed"))) as client:
        await _say(client, SAID)
        allowed = await client.post(url, json=body, headers=auth("alice"))
        assert allowed.status_code == 200 and SAID in json.dumps(allowed.json()["messages"])
        other = await client.post(url, json=body, headers=auth("bob"))
        assert other.status_code == 200 and NAME not in other.text


def _reply_request(chat: FakeChat) -> dict[str, Any]:
    """What the reply asked the LLM (the fact extractor asks it too, unstreamed)."""
    return next(r for r in chat.requests if r.get("stream"))


def _events(raw: str) -> list[tuple[str, Any]]:
    events = []
    for block in raw.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


async def test_with_tokens_the_llm_sees_tokens_and_the_owner_their_values(
    tmp_path: Path, chat: FakeChat
) -> None:
    chat.pieces = ["Hello [PERS", "ON_1], I will", " call 555-201-0199 back."]
    async with (
        running_server(create_app(_settings(tmp_path, chat))) as base,
        httpx.AsyncClient(base_url=base, timeout=10) as client,
    ):
        await _say(client, SAID)
        r = await client.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
        assert r.status_code == 200
        events = _events(r.text)
        shown = "".join(d["text"] for e, d in events if e == "delta")
        assert shown == f"Hello {NAME}, I will call 555-201-0199 back."
        assert events[-1][0] == "done" and NAME in events[-1][1]["content"]
        sent = json.dumps(_reply_request(chat)["messages"])
        assert NAME not in sent and "[PERSON_1]" in sent
        history = (await client.get(f"/v1/sessions/{SID}/history", headers=auth("alice"))).json()
        assert history[-1]["role"] == "assistant"
        assert NAME not in history[-1]["content"] and "[PERSON_1]" in history[-1]["content"]


async def test_with_allowed_the_llm_sees_values_and_storage_keeps_tokens(
    tmp_path: Path, chat: FakeChat
) -> None:
    chat.pieces = [f"Hello {NAME}."]
    app = create_app(_settings(tmp_path, chat, llm_phi="allowed"))
    async with (
        running_server(app) as base,
        httpx.AsyncClient(base_url=base, timeout=10) as client,
    ):
        await _say(client, SAID)
        r = await client.post(f"/v1/sessions/{SID}/reply", json={}, headers=auth("alice"))
        assert r.status_code == 200
        assert SAID in json.dumps(_reply_request(chat)["messages"])
        done = _events(r.text)[-1]
        assert done[0] == "done" and done[1]["content"] == f"Hello {NAME}."
        history = (await client.get(f"/v1/sessions/{SID}/history", headers=auth("alice"))).json()
        assert NAME not in json.dumps(history)
