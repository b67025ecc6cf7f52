"""The MCP server: memory tools for MCP-capable LLM clients, in-process and over stdio."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from unimem import UnifiedMemoryService
from unimem.mcp_server import TOOLS, build_mcp_server


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[UnifiedMemoryService]:
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'mcp.db'}") as svc:
        yield svc


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_tools_are_listed_with_schemas(service: UnifiedMemoryService) -> None:
    async with Client(build_mcp_server(service, "alice")) as client:
        listed = await client.list_tools()
    names = {tool.name for tool in listed.tools}
    assert names == set(TOOLS)
    add = next(t for t in listed.tools if t.name == "add_entry")
    assert {"session_id", "role", "content"} <= set(add.input_schema["required"])


async def test_add_then_read_context_and_history(service: UnifiedMemoryService) -> None:
    async with Client(build_mcp_server(service, "alice")) as client:
        added = await client.call_tool(
            "add_entry",
            {"session_id": "chat", "role": "user", "content": "hello", "mode": "voice"},
        )
        assert not added.is_error
        assert _payload(added)["seq"] == 1
        await client.call_tool(
            "add_entry", {"session_id": "chat", "role": "assistant", "content": "hi there"}
        )
        ctx = _payload(await client.call_tool("get_context", {"session_id": "chat"}))
        assert [m["content"] for m in ctx["messages"]] == ["hello", "hi there"]
        assert ctx["current_mode"] == "voice"
        history = _payload(await client.call_tool("get_history", {"session_id": "chat"}))
        assert len(history["messages"]) == 2
        sessions = _payload(await client.call_tool("list_sessions", {}))
        assert [s["session_id"] for s in sessions["sessions"]] == ["chat"]
    stored = await service.get_history("chat", user_id="alice")
    assert [e.user_id for e in stored] == ["alice", "alice"]


async def test_delete_memory_tool(service: UnifiedMemoryService) -> None:
    async with Client(build_mcp_server(service, "alice")) as client:
        await client.call_tool("add_entry", {"session_id": "c", "role": "user", "content": "x"})
        receipt = _payload(await client.call_tool("delete_memory", {"scope": "all"}))
        assert receipt["counts"]["entries"] == 1
    assert await service.list_sessions(user_id="alice") == []


async def test_errors_come_back_as_tool_errors(service: UnifiedMemoryService) -> None:
    await service.add_entry("bobs", {"role": "user", "content": "private"}, user_id="bob")
    async with Client(build_mcp_server(service, "alice")) as client:
        bad = await client.call_tool(
            "add_entry", {"session_id": "c", "role": "robot", "content": "x"}
        )
        assert bad.is_error and _payload(bad)["field"] == "role"
        extra = await client.call_tool("get_context", {"session_id": "c", "surprise": 1})
        assert extra.is_error and _payload(extra)["field"] == "surprise"
        # another user's session reads as one never used
        other = await client.call_tool("get_history", {"session_id": "bobs"})
        never = await client.call_tool("get_history", {"session_id": "never-used"})
        assert not other.is_error and _payload(other) == _payload(never) == {"messages": []}
        assert "private" not in other.content[0].text
        scoped = await client.call_tool("delete_memory", {"scope": "session"})
        assert scoped.is_error and _payload(scoped)["field"] == "session_id"
        unknown = await client.call_tool("rm_rf", {})
        assert unknown.is_error


@pytest.mark.slow
async def test_unimem_mcp_over_stdio(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'stdio.db'}"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "unimem.cli", "mcp", "--user", "carol", "--database-url", url],
    )
    async with Client(params, read_timeout_seconds=60) as client:
        await client.call_tool("add_entry", {"session_id": "s", "role": "user", "content": "hey"})
        ctx = _payload(await client.call_tool("get_context", {"session_id": "s"}))
        assert [m["content"] for m in ctx["messages"]] == ["hey"]
    async with UnifiedMemoryService.from_url(url) as service:
        assert (await service.get_session("s")).user_id == "carol"


@pytest.mark.slow
async def test_unimem_mcp_opens_the_store_as_the_server_does(tmp_path: Path) -> None:
    """UNIMEM_ENCRYPTION_KEYS applies to what the MCP tools write and read."""
    db = tmp_path / "sealed.db"
    key = base64.b64encode(os.urandom(32)).decode()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "unimem.cli", "mcp", "--user", "dana", "--database-url", f"sqlite:///{db}"],
        env={**os.environ, "UNIMEM_ENCRYPTION_KEYS": f"k1:{key}"},
    )
    secret = "my allergy list is penicillin and latex"
    async with Client(params, read_timeout_seconds=60) as client:
        await client.call_tool("add_entry", {"session_id": "s", "role": "user", "content": secret})
        ctx = _payload(await client.call_tool("get_context", {"session_id": "s"}))
        assert [m["content"] for m in ctx["messages"]] == [secret]
    with sqlite3.connect(db) as raw:
        stored = " ".join(r[0] for r in raw.execute("SELECT data FROM entries"))
    assert "penicillin" not in stored
