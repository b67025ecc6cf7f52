"""One API on every surface: each public method of the service has an HTTP route
(its operation id is the method's name) and a ``MemoryClient`` method of the same
name, parameters and return type; the facts are MCP tools too."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server_support import create_app, settings
from unimem import UnifiedMemoryService
from unimem.client import MemoryClient
from unimem.mcp_server import TOOLS

#: Public methods with no route and no client method, and why.
NOT_ON_HTTP = {
    # life cycle: the client has its own setup/aclose (connection pool), and a
    # client is built with MemoryClient(base_url, token), not from store URLs
    "setup": "life cycle of this process's store connections",
    "aclose": "life cycle of this process's store connections",
    "from_url": "constructor: names the stores of this process",
    "from_env": "constructor: reads this process's environment",
    # deployment operations: the server's keys, and every user at once
    "use_encryption": "the deployment's keys (UNIMEM_ENCRYPTION_KEYS), not a user's call",
    "rotate_encryption": "re-encrypts every named user: an operator's job on the store",
    "sweep_retention": "every user's retention at once: the server's sweeper and `unimem sweep`",
    # the server writes these itself; a client writing its own would forge the log
    "record_audit": "the HTTP API records its own audit entries",
    # an in-process helper of the reply route, which streams its result
    "reveal_stream": "re-identifies a reply as it streams: POST .../reply does it server-side",
}

#: Parameters the server fills in from the request: the audit's actor is the caller.
SERVER_SIDE = {"actor"}

#: What an agent does with its memory: these are MCP tools.
AGENT_TOOLS = {
    "add_entry",
    "get_context",
    "get_history",
    "list_sessions",
    "delete_memory",
    "add_fact",
    "list_facts",
    "confirm_fact",
    "correct_fact",
    "delete_fact",
    "pin_entry",
    # an agent's namespaced long-term memory (LangGraph's store, over MCP too)
    "put_item",
    "get_item",
    "delete_item",
    "search_items",
    "list_item_namespaces",
}


def _public_methods(cls: type) -> dict[str, Callable[..., Any]]:
    return {
        name: getattr(cls, name)
        for name in dir(cls)
        if not name.startswith("_") and callable(getattr(cls, name))
    }


def _operation_ids(tmp_path: Path) -> set[str]:
    schema = create_app(settings(tmp_path)).openapi()
    return {op["operationId"] for path in schema["paths"].values() for op in path.values()}


def test_every_public_method_has_a_route_and_a_client_method(tmp_path: Path) -> None:
    methods = _public_methods(UnifiedMemoryService)
    assert set(NOT_ON_HTTP) <= set(methods), "an exclusion names no method"
    surfaced = set(methods) - set(NOT_ON_HTTP)
    assert surfaced - _operation_ids(tmp_path) == set(), "methods without an HTTP route"
    client = _public_methods(MemoryClient)
    assert surfaced - set(client) == set(), "methods without a MemoryClient method"


def test_client_methods_take_and_return_what_the_service_does() -> None:
    client = _public_methods(MemoryClient)
    for name, method in _public_methods(UnifiedMemoryService).items():
        if name in NOT_ON_HTTP:
            continue
        ours = inspect.signature(method, eval_str=True)
        theirs = inspect.signature(client[name], eval_str=True)
        assert theirs.return_annotation == ours.return_annotation, name
        expected = [
            (p.name, p.kind, p.default)
            for p in ours.parameters.values()
            if p.name not in SERVER_SIDE
        ]
        got = [(p.name, p.kind, p.default) for p in theirs.parameters.values()]
        assert got == expected, name


def test_agents_have_the_fact_tools() -> None:
    assert set(TOOLS) >= AGENT_TOOLS
