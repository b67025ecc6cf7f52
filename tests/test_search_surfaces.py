"""search_memory on every surface: HTTP (GET /v1/me/search), MemoryClient, MCP, CLI."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from mcp.client import Client

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import (
    InvalidInputError,
    MemoryEntry,
    MemoryHit,
    UnifiedMemoryService,
)
from unimem.cli import main
from unimem.client import MemoryClient
from unimem.config import MemoryConfig
from unimem.mcp_server import build_mcp_server

WHEN = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)

#: These tests count the turns found; the facts turns state are found too
#: (tests/conformance/test_facts_auto.py), so they are off here.
NO_FACTS = MemoryConfig(auto_facts=False)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(
        create_app(settings(tmp_path, memory=NO_FACTS)), headers=auth("alice")
    ) as c:
        yield c


async def _seed(client: httpx.AsyncClient) -> None:
    for sid, content, mode in (
        ("visit", "the cardiologist changed my lisinopril to 20 mg", "voice"),
        ("chat", "i picked up the lisinopril at the pharmacy", "text"),
        ("other", "we watched a film", "text"),
    ):
        r = await client.post(
            f"/v1/sessions/{sid}/entries",
            json={"role": "user", "content": content, "mode": mode, "language": "en",
                  "timestamp": WHEN.isoformat()},
        )  # fmt: skip
        assert r.status_code == 201


async def test_http_search_returns_hits_with_the_same_filters(client: httpx.AsyncClient):
    await _seed(client)
    r = await client.get("/v1/me/search", params={"q": "cardiologist lisinopril"})
    assert r.status_code == 200
    hits = [MemoryHit.model_validate(h) for h in r.json()["hits"]]
    assert [h.session_id for h in hits] == ["visit", "chat"]
    assert hits[0].entry is not None and hits[0].entry.mode == "voice"
    r = await client.get("/v1/me/search", params={"q": "lisinopril", "modes": ["text"]})
    assert [h["session_id"] for h in r.json()["hits"]] == ["chat"]
    r = await client.get("/v1/me/search", params={"q": "lisinopril", "session_id": "visit"})
    assert [h["session_id"] for h in r.json()["hits"]] == ["visit"]
    later = (WHEN + timedelta(days=1)).isoformat()
    r = await client.get("/v1/me/search", params={"q": "lisinopril", "since": later})
    assert r.json()["hits"] == []


async def test_http_search_of_another_users_memory_finds_nothing(tmp_path: Path):
    app = create_app(settings(tmp_path, memory=NO_FACTS))
    async with asgi_client(app, headers=auth("alice")) as alice:
        await _seed(alice)
        async with asgi_client(app, headers=auth("bob")) as bob:
            r = await bob.get("/v1/me/search", params={"q": "lisinopril"})
            assert r.status_code == 200 and r.json()["hits"] == []
            theirs = await bob.get("/v1/me/search", params={"q": "x", "session_id": "visit"})
            unknown = await bob.get("/v1/me/search", params={"q": "x", "session_id": "nope"})
            assert theirs.status_code == unknown.status_code == 200
            assert theirs.json() == unknown.json() == {"hits": []}


@pytest.mark.parametrize(
    "params",
    [{}, {"q": ""}, {"q": "x", "k": 0}, {"q": "x", "k": 101}, {"q": "x", "kinds": ["turn"]},
     {"q": "x", "modes": ["video"]}, {"q": "x", "languages": ["??"]},
     {"q": "x", "since": "yesterday"}],
)  # fmt: skip
async def test_http_search_refuses_bad_parameters_with_422(client: httpx.AsyncClient, params):
    r = await client.get("/v1/me/search", params=params)
    assert r.status_code == 422, r.text


async def test_memory_client_search_matches_the_service(tmp_path: Path):
    async with (
        running_server(create_app(settings(tmp_path, memory=NO_FACTS))) as base,
        MemoryClient(base, token=token("alice")) as remote,
    ):
        await remote.add_entry(
            "visit", MemoryEntry(role="user", content="my potassium was 5.2", mode="voice")
        )
        [hit] = await remote.search_memory("potassium", modes=["voice"], kinds=["entry"])
        assert isinstance(hit, MemoryHit) and hit.snippet == "my potassium was 5.2"
        assert await remote.search_memory("potassium", modes=["text"]) == []
        with pytest.raises(InvalidInputError):
            await remote.search_memory("potassium", k=0)
        assert await remote.search_memory("potassium", session_id="nope") == []


async def test_mcp_search_memory_tool(tmp_path: Path):
    async with UnifiedMemoryService.from_url(
        f"sqlite:///{tmp_path / 'm.db'}", config=NO_FACTS
    ) as service:
        await service.add_entry(
            "s1", {"role": "user", "content": "allergic to penicillin"}, user_id="al"
        )
        async with Client(build_mcp_server(service, "al")) as mcp:
            result = await mcp.call_tool("search_memory", {"query": "penicillin allergy"})
            assert not result.is_error
            [hit] = json.loads(result.content[0].text)["hits"]
            assert hit["snippet"] == "allergic to penicillin" and hit["kind"] == "entry"
            bad = await mcp.call_tool("search_memory", {"query": ""})
            assert bad.is_error
        async with Client(build_mcp_server(service, "bob")) as mcp:
            result = await mcp.call_tool("search_memory", {"query": "penicillin"})
            assert json.loads(result.content[0].text)["hits"] == []
            theirs = await mcp.call_tool(
                "search_memory", {"query": "penicillin", "session_id": "s1"}
            )
            assert not theirs.is_error and json.loads(theirs.content[0].text)["hits"] == []


def test_cli_search_prints_dated_hits(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'cli.db'}"

    async def seed() -> None:
        async with UnifiedMemoryService.from_url(url, config=NO_FACTS) as service:
            entry = MemoryEntry(role="user", content="metformin 500 mg", timestamp=WHEN)
            await service.add_entry("s1", entry, user_id="alice")
            await service.add_entry(
                "s2", {"role": "user", "content": "metformin too"}, user_id="bob"
            )

    asyncio.run(seed())
    args = ["search", "--user", "alice", "--database-url", url]
    printed = CliRunner().invoke(main, [*args, "metformin"])
    assert printed.exit_code == 0, printed.output
    assert printed.output.startswith("[2026-05-08, text] user: metformin 500 mg  (s1, ")
    assert "too" not in printed.output
    as_json = CliRunner().invoke(main, [*args, "--json", "metformin"])
    assert [h["snippet"] for h in json.loads(as_json.output)] == ["metformin 500 mg"]
    theirs = CliRunner().invoke(main, [*args, "--json", "--session-id", "s2", "metformin"])
    assert theirs.exit_code == 0, theirs.output
    assert json.loads(theirs.stdout) == []
