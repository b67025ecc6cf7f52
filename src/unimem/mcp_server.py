"""An MCP server over stdio exposing unimem's memory as tools (``unimem mcp``).

Tools: ``add_entry``, ``get_context``, ``get_history``, ``list_sessions``,
``delete_memory``, ``add_fact``, ``list_facts``, ``confirm_fact``,
``correct_fact``, ``delete_fact`` and ``pin_entry``, and the namespaced items
(``put_item``, ``get_item``, ``delete_item``, ``search_items``,
``list_item_namespaces``), all acting for one user (the one the server was
started for), so an MCP-capable LLM client can remember conversations across
turns and modes. Built on the low-level
``mcp.server.Server`` of mcp 2.x.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal

import mcp_types as types
import orjson
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import __version__
from .errors import UnimemError
from .mcp_server_items import ITEM_TOOLS
from .models import Mode, Role, translate_validation_error
from .service import UnifiedMemoryService
from .validation import ID_PATTERN, check_id

__all__ = ["TOOLS", "build_mcp_server", "serve_stdio"]

_ID = ID_PATTERN


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddEntryArgs(_Args):
    """Store one message of a conversation."""

    session_id: str = Field(pattern=_ID, description="conversation id")
    role: Role = Field(description="user, assistant or system")
    content: str = Field(description="the message text")
    mode: Mode = Field(default=Mode.TEXT, description="voice or text")
    language: str | None = Field(default=None, description="ISO 639 code, e.g. en")


class ContextArgs(_Args):
    """Read the recent context of a conversation."""

    session_id: str = Field(pattern=_ID)
    max_messages: int = Field(default=10, ge=1, le=200)


class HistoryArgs(_Args):
    """Read the messages of a conversation, oldest first."""

    session_id: str = Field(pattern=_ID)
    max_messages: int = Field(default=50, ge=1, le=1000)
    reveal: bool = Field(
        default=False,
        description="the user's own words: PHI tokens such as [PERSON_1] replaced by their "
        "values (audited; only when the memory keeps them encrypted)",
    )


class ListArgs(_Args):
    """List the user's conversations, most recent first."""

    limit: int = Field(default=20, ge=1, le=200)


class DeleteArgs(_Args):
    """Delete memory: one session, today's messages, or everything."""

    scope: Literal["session", "day", "all"]
    session_id: str | None = Field(default=None, pattern=_ID)


class AddFactArgs(_Args):
    """Pin a fact about the user that appears in every context until deleted."""

    text: str = Field(description="the fact, e.g. 'Allergic to penicillin'")
    kind: str = Field(
        default="note",
        min_length=1,
        max_length=64,
        description="allergy, medication, diagnosis, preference, note, ...",
    )
    session_id: str | None = Field(
        default=None, pattern=_ID, description="the conversation it came from"
    )


class ListFactsArgs(_Args):
    """List the user's facts, oldest first."""

    reveal: bool = Field(
        default=False,
        description="the user's own words: PHI tokens replaced by their values (audited)",
    )
    include_history: bool = Field(
        default=False, description="also the facts a change or a correction closed"
    )
    kinds: list[str] | None = Field(
        default=None, max_length=32, description="only these kinds (allergy, medication, ...)"
    )


class DeleteFactArgs(_Args):
    """Delete one fact."""

    fact_id: str = Field(pattern=_ID, description="the fact's id (from list_facts)")


class ConfirmFactArgs(_Args):
    """Confirm one current fact."""

    fact_id: str = Field(pattern=_ID, description="the fact's id (from list_facts)")


class CorrectFactArgs(_Args):
    """Correct one current fact; the old value is kept as history."""

    fact_id: str = Field(pattern=_ID, description="the fact's id (from list_facts)")
    value: str = Field(min_length=1, max_length=1000, description="the right value")
    attributes: dict[str, str] | None = Field(
        default=None, description="its attributes (dose, reaction, ...); the old ones if omitted"
    )


class PinEntryArgs(_Args):
    """Pin a stored message as a fact."""

    session_id: str = Field(pattern=_ID)
    entry_id: str = Field(pattern=_ID, description="the message's id (from get_history)")


class SearchArgs(_Args):
    """Search the user's memory across all conversations."""

    query: str = Field(min_length=1, max_length=4096, description="what to find, any language")
    k: int = Field(default=10, ge=1, le=100, description="how many hits")
    session_id: str | None = Field(default=None, pattern=_ID, description="only this session")
    since: datetime | None = Field(default=None, description="only turns from this time")
    until: datetime | None = Field(default=None, description="only turns before this time")
    modes: list[Mode] | None = Field(default=None, description="only these modes")
    languages: list[str] | None = Field(default=None, description="ISO 639 codes")
    kinds: list[Literal["entry", "fact", "summary"]] | None = None


Handler = Callable[[UnifiedMemoryService, str, Any], Awaitable[Any]]


async def _add(service: UnifiedMemoryService, user: str, a: AddEntryArgs) -> Any:
    entry = {"role": a.role, "content": a.content, "mode": a.mode, "language": a.language}
    return (await service.add_entry(a.session_id, entry, user_id=user)).model_dump(mode="json")


async def _context(service: UnifiedMemoryService, user: str, a: ContextArgs) -> Any:
    ctx = await service.get_context(a.session_id, a.max_messages, user_id=user)
    return {
        "session_id": ctx.session_id,
        "current_mode": ctx.current_mode,
        "current_language": ctx.current_language,
        "messages": [
            {"role": m.role, "content": m.content, "mode": m.mode, "language": m.language}
            for m in ctx.messages
        ],
        "rag_passages": ctx.rag_context.passages,
    }


async def _history(service: UnifiedMemoryService, user: str, a: HistoryArgs) -> Any:
    entries = await service.get_history(a.session_id, a.max_messages, user_id=user, reveal=a.reveal)
    return {"messages": [e.model_dump(mode="json") for e in entries]}


async def _list(service: UnifiedMemoryService, user: str, a: ListArgs) -> Any:
    sessions = await service.list_sessions(user_id=user, limit=a.limit)
    return {"sessions": [s.model_dump(mode="json") for s in sessions]}


async def _delete(service: UnifiedMemoryService, user: str, a: DeleteArgs) -> Any:
    receipt = await service.delete_user_memory(a.scope, user_id=user, session_id=a.session_id)
    return receipt.model_dump(mode="json")


async def _add_fact(service: UnifiedMemoryService, user: str, a: AddFactArgs) -> Any:
    fact = await service.add_fact(a.text, a.kind, user_id=user, session_id=a.session_id)
    return fact.model_dump(mode="json")


async def _list_facts(service: UnifiedMemoryService, user: str, a: ListFactsArgs) -> Any:
    facts = await service.list_facts(
        user_id=user, include_history=a.include_history, kinds=a.kinds, reveal=a.reveal
    )
    return {"facts": [f.model_dump(mode="json") for f in facts]}


async def _confirm_fact(service: UnifiedMemoryService, user: str, a: ConfirmFactArgs) -> Any:
    return (await service.confirm_fact(a.fact_id, user_id=user)).model_dump(mode="json")


async def _correct_fact(service: UnifiedMemoryService, user: str, a: CorrectFactArgs) -> Any:
    fact = await service.correct_fact(a.fact_id, a.value, user_id=user, attributes=a.attributes)
    return fact.model_dump(mode="json")


async def _delete_fact(service: UnifiedMemoryService, user: str, a: DeleteFactArgs) -> Any:
    return {"fact_id": a.fact_id, "deleted": await service.delete_fact(a.fact_id, user_id=user)}


async def _pin_entry(service: UnifiedMemoryService, user: str, a: PinEntryArgs) -> Any:
    fact = await service.pin_entry(a.session_id, a.entry_id, user_id=user)
    return fact.model_dump(mode="json")


async def _search(service: UnifiedMemoryService, user: str, a: SearchArgs) -> Any:
    hits = await service.search_memory(
        a.query,
        user_id=user,
        k=a.k,
        session_id=a.session_id,
        since=a.since,
        until=a.until,
        modes=[m.value for m in a.modes] if a.modes is not None else None,
        languages=a.languages,
        kinds=a.kinds,
    )
    return {"hits": [h.model_dump(mode="json") for h in hits]}


#: name -> (arguments model, handler, description)
TOOLS: dict[str, tuple[type[BaseModel], Handler, str]] = {
    "add_entry": (AddEntryArgs, _add, "Store one message (voice or text) in a conversation."),
    "get_context": (
        ContextArgs,
        _context,
        "Recent messages of a conversation with its current mode and language.",
    ),
    "get_history": (HistoryArgs, _history, "Messages of a conversation, oldest first."),
    "list_sessions": (ListArgs, _list, "The user's conversations, most recently active first."),
    "search_memory": (
        SearchArgs,
        _search,
        "Find what the user said in any earlier conversation (dated turns, pinned facts, "
        "summaries), best first.",
    ),
    "delete_memory": (
        DeleteArgs,
        _delete,
        "Delete memory: scope=session (with session_id), day or all. Cannot be undone.",
    ),
    "add_fact": (
        AddFactArgs,
        _add_fact,
        "Pin a fact about the user (allergy, medication, preference, ...): it appears "
        "in every context until deleted.",
    ),
    "list_facts": (
        ListFactsArgs,
        _list_facts,
        "The user's facts (allergies, medicines, conditions, ...), oldest first: the "
        "current ones, or with include_history the closed ones too.",
    ),
    "confirm_fact": (ConfirmFactArgs, _confirm_fact, "Mark one current fact as confirmed."),
    "correct_fact": (
        CorrectFactArgs,
        _correct_fact,
        "Correct one current fact: the old value is closed (kept as history), the new "
        "one is current.",
    ),
    "delete_fact": (DeleteFactArgs, _delete_fact, "Delete one fact by its id."),
    "pin_entry": (PinEntryArgs, _pin_entry, "Pin a stored message's content as a fact."),
    **ITEM_TOOLS,  # put_item, get_item, delete_item, search_items, list_item_namespaces
}


def _result(payload: Any, *, error: bool = False) -> types.CallToolResult:
    text = orjson.dumps(payload).decode()
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=payload if isinstance(payload, dict) else None,
        is_error=error,
    )


def build_mcp_server(service: UnifiedMemoryService, user_id: str) -> Server[Any]:
    """An MCP server whose tools act on ``service`` as ``user_id``."""
    tools = [
        types.Tool(
            name=name,
            description=description,
            input_schema=model.model_json_schema(),
        )
        for name, (model, _, description) in TOOLS.items()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        spec = TOOLS.get(params.name)
        if spec is None:
            return _result(
                {"code": "unknown_tool", "message": f"no tool {params.name!r}"}, error=True
            )
        model, handler, _ = spec
        try:
            try:
                args = model.model_validate(params.arguments or {})
            except ValidationError as exc:
                raise translate_validation_error(params.name, exc) from None
            return _result(await handler(service, user_id, args))
        except UnimemError as exc:
            # Errors go back to the model as a tool result so it can correct itself.
            return _result(exc.to_dict(), error=True)

    return Server(
        "unimem",
        version=__version__,
        instructions=(
            "Conversation memory shared across voice and text. Store each turn with "
            "add_entry and read get_context before answering."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(service: UnifiedMemoryService, user_id: str) -> None:
    """Serve the tools over this process's stdin/stdout until the client disconnects.

    ``service`` is opened here and closed at the end; build it as ``unimem serve``
    does (:func:`unimem.build_service`) so that the Redis layers and the
    encryption keys of the deployment apply to what the tools read and delete.

    Raises:
        ConfigurationError: the store URL cannot work.
        InvalidInputError: ``user_id`` is not a valid id.
    """
    check_id(user_id, "user")
    async with service:
        server = build_mcp_server(service, user_id)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
