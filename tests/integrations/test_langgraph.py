"""UnimemStore through LangGraph's own abstractions: the BaseStore API, a plain
graph and a prebuilt ReAct agent (a fake tool-calling chat model) whose tools
reach the store with ``get_store()``; in process and on Redis + PostgreSQL,
and remote through ``MemoryClient``."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.config import get_config, get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item, SearchItem

from server_support import create_app, running_server, settings, token
from unimem import ConfigurationError, InvalidInputError, UnifiedMemoryService
from unimem.client import MemoryClient
from unimem.integrations.langgraph import UnimemStore
from unimem.stores import SQLiteStore


def test_is_a_langgraph_store() -> None:
    assert isinstance(UnimemStore(UnifiedMemoryService()), BaseStore)


async def test_the_store_api_round_trips(adapter_memory: UnifiedMemoryService) -> None:
    store = UnimemStore(adapter_memory, user_id="alice")
    await store.aput(("memories", "food"), "ramen", {"text": "loves spicy ramen", "stars": 5})
    await store.aput(("memories", "food"), "kale", {"text": "dislikes kale", "stars": 1})
    await store.aput(("profile",), "name", {"text": "prefers to be called Ali"})
    item = await store.aget(("memories", "food"), "ramen")
    assert isinstance(item, Item) and item.namespace == ("memories", "food")
    assert item.value == {"text": "loves spicy ramen", "stars": 5}
    assert await store.aget(("memories", "food"), "none") is None
    found = await store.asearch(("memories",), query="ramen")
    assert isinstance(found[0], SearchItem) and found[0].key == "ramen" and found[0].score
    low = await store.asearch(("memories",), filter={"stars": {"$lt": 3}})
    assert [i.key for i in low] == ["kale"]
    assert await store.alist_namespaces() == [("memories", "food"), ("profile",)]
    assert await store.alist_namespaces(prefix=("memories",)) == [("memories", "food")]
    assert await store.alist_namespaces(max_depth=1) == [("memories",), ("profile",)]
    await store.adelete(("memories", "food"), "kale")
    assert await store.aget(("memories", "food"), "kale") is None
    # durable in unimem: the service holds the item, and deleting the user's memory takes it
    assert await adapter_memory.get_item(["profile"], "name", user_id="alice") is not None
    await adapter_memory.delete_user_memory("all", user_id="alice")
    assert await store.asearch(()) == []


async def test_facts_are_found_beside_items(adapter_memory: UnifiedMemoryService) -> None:
    await adapter_memory.add_fact("allergic to penicillin", "allergy", user_id="alice")
    store = UnimemStore(adapter_memory, user_id="alice")
    await store.aput(("memories",), "m1", {"text": "takes metformin with breakfast"})
    found = await store.asearch((), query="penicillin allergy")
    assert found[0].namespace == ("facts",) and found[0].value["text"] == "allergic to penicillin"
    without = UnimemStore(adapter_memory, user_id="alice", facts_namespace=None)
    plain = await without.asearch((), query="penicillin")
    assert [i.key for i in plain] == ["m1"] and plain[0].score is None


async def test_one_users_agent_never_sees_anothers(adapter_memory: UnifiedMemoryService) -> None:
    shared = UnimemStore(adapter_memory, user_in_namespace=True)
    await shared.aput(("alice", "memories"), "k", {"text": "the secret word is plum"})
    await shared.aput(("bob", "memories"), "k", {"text": "a note about tea"})
    got = await shared.aget(("alice", "memories"), "k")
    assert got is not None and got.value == {"text": "the secret word is plum"}
    assert [i.value["text"] for i in await shared.asearch(("bob",), query="secret")] == [
        "a note about tea"
    ]
    assert await shared.alist_namespaces(prefix=("bob",)) == [("bob", "memories")]
    with pytest.raises(InvalidInputError, match="start with the user id"):
        await shared.asearch(())
    with pytest.raises(InvalidInputError, match="start with the user id"):
        await shared.alist_namespaces(prefix=("*", "memories"))
    # bound to one user: another's items are not there, whatever the namespace
    assert await UnimemStore(adapter_memory, user_id="bob").aget(("alice", "memories"), "k") is None
    assert await adapter_memory.get_item(["alice", "memories"], "k", user_id="bob") is None


async def test_langgraphs_own_rules_and_unsupported_options(
    adapter_memory: UnifiedMemoryService,
) -> None:
    store = UnimemStore(adapter_memory, user_id="alice")
    with pytest.raises(InvalidNamespaceError):
        await store.aput(("a.b",), "k", {"x": 1})
    with pytest.raises(NotImplementedError):
        await store.aput(("m",), "k", {"x": 1}, ttl=5)
    with pytest.raises(ConfigurationError):
        UnimemStore(adapter_memory, user_id="a", user_in_namespace=True)


class _State(TypedDict):
    question: str
    answer: str


async def _answer(state: _State) -> dict[str, str]:
    store = get_store()
    user = get_config()["configurable"]["user_id"]
    found = await store.asearch((user, "memories"), query=state["question"], limit=1)
    return {"answer": found[0].value["text"] if found else "nothing"}


async def _note(state: _State) -> dict[str, str]:
    user = get_config()["configurable"]["user_id"]
    await get_store().aput((user, "memories"), uuid.uuid4().hex, {"text": state["question"]})
    return {}


async def test_a_plain_graph_reads_and_writes_through_get_store(
    adapter_memory: UnifiedMemoryService,
) -> None:
    builder = StateGraph(_State)
    builder.add_node("note", _note)
    builder.add_node("answer", _answer)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", "note")
    builder.add_edge("note", END)
    graph = builder.compile(store=UnimemStore(adapter_memory, user_in_namespace=True))
    alice = {"configurable": {"user_id": "alice"}}
    await graph.ainvoke({"question": "my cat is called Miso", "answer": ""}, alice)
    bob = {"configurable": {"user_id": "bob"}}
    out = await graph.ainvoke({"question": "what is my cat called", "answer": ""}, bob)
    assert out["answer"] == "nothing"  # alice's note is not bob's
    out = await graph.ainvoke({"question": "what is my cat called", "answer": ""}, alice)
    assert out["answer"] == "my cat is called Miso"
    stored = await adapter_memory.search_items(["alice"], user_id="alice")
    assert sorted(i.value["text"] for i in stored) == [
        "my cat is called Miso",
        "what is my cat called",
    ]


class _ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, accepting the tools the agent binds."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> _ToolCallingFake:  # type: ignore[override]
        return self


@tool
async def remember(text: str) -> str:
    """Keep something about the user for later conversations."""
    user = get_config()["configurable"]["user_id"]
    await get_store().aput((user, "memories"), uuid.uuid4().hex, {"text": text})
    return "kept"


@tool
async def recall(query: str) -> str:
    """Find what is known about the user."""
    user = get_config()["configurable"]["user_id"]
    found = await get_store().asearch((user, "memories"), query=query, limit=3)
    return "; ".join(i.value["text"] for i in found) or "nothing known"


def _call(name: str, **args: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": name, "args": args, "id": f"call-{uuid.uuid4().hex}"}]
    )


# create_react_agent is deprecated in langgraph 1.x (for langchain's create_agent,
# another package) but shipped and documented still: it is LangGraph's own agent
@pytest.mark.filterwarnings("ignore::langgraph.warnings.LangGraphDeprecatedSinceV10")
async def test_a_react_agent_remembers_across_threads(adapter_memory: UnifiedMemoryService) -> None:
    from langgraph.prebuilt import create_react_agent

    model = _ToolCallingFake(
        messages=iter(
            [
                _call("remember", text="allergic to penicillin"),
                AIMessage(content="Noted."),
                _call("recall", query="penicillin allergy"),
                AIMessage(content="You are allergic to penicillin."),
                _call("recall", query="penicillin allergy"),
                AIMessage(content="I know nothing about that."),
            ]
        )
    )
    agent = create_react_agent(
        model, [remember, recall], store=UnimemStore(adapter_memory, user_in_namespace=True)
    )
    alice = {"configurable": {"user_id": "alice", "thread_id": "t1"}}
    await agent.ainvoke({"messages": [HumanMessage("I'm allergic to penicillin")]}, alice)
    later = {"configurable": {"user_id": "alice", "thread_id": "t2"}}
    out = await agent.ainvoke({"messages": [HumanMessage("Any allergies?")]}, later)
    tool_answers = [m.content for m in out["messages"] if isinstance(m, ToolMessage)]
    assert tool_answers == ["allergic to penicillin"]
    bob = {"configurable": {"user_id": "bob", "thread_id": "t3"}}
    out = await agent.ainvoke({"messages": [HumanMessage("Any allergies?")]}, bob)
    assert [m.content for m in out["messages"] if isinstance(m, ToolMessage)] == ["nothing known"]
    kept = await adapter_memory.search_items(["alice", "memories"], user_id="alice")
    assert [i.value for i in kept] == [{"text": "allergic to penicillin"}]


async def test_remote_by_url(tmp_path: Path) -> None:
    async with (
        running_server(create_app(settings(tmp_path))) as base,
        MemoryClient(base, token=token("alice")) as remote,
    ):
        store = UnimemStore(remote)
        await store.aput(("memories",), "k", {"text": "likes green tea"})
        assert [i.key for i in await store.asearch(("memories",), query="tea")] == ["k"]
        shared = UnimemStore(remote, user_in_namespace=True)
        await shared.aput(("alice", "notes"), "n", {"text": "x"})
        with pytest.raises(InvalidInputError, match="token"):
            await shared.aput(("bob", "notes"), "n", {"text": "y"})
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'server.db'}") as local:
        assert (await local.get_item(["memories"], "k", user_id="alice")) is not None


#: Values a client may hand the store by mistake, and what the refusal says.
BAD_VALUES: list[tuple[Any, str]] = [
    ({"v": float("nan")}, "not finite"),
    ({"v": datetime.now(UTC)}, "datetime is not a JSON type"),
    ({1: "x"}, "string keys"),  # a JSON encoder would turn it into {"1": "x"}
    ({"v": "a\udc80"}, "surrogate"),
    ({"text": "x" * 100_000}, "the limit is"),
    ([1, 2], "must be an object"),
]


async def _refuses_bad_input(store: UnimemStore) -> None:
    await store.aput(("alice", "m"), "k", {"text": "kept"})
    for value, says in BAD_VALUES:
        with pytest.raises(InvalidInputError, match=says):
            await store.aput(("alice", "m"), "k", value)
    with pytest.raises(InvalidInputError, match="surrogate"):
        await store.aput(("alice", "m"), "a\ud800", {"text": "x"})
    with pytest.raises(InvalidInputError, match="surrogate"):
        await store.aput(("alice", "m\ud800"), "k", {"text": "x"})
    with pytest.raises(InvalidInputError, match="not a string"):
        await store.aput("alice", "k", {"text": "x"})  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="surrogate"):
        await store.asearch(("alice",), query="a\ud800")
    with pytest.raises(InvalidInputError, match="filter"):
        await store.asearch(("alice",), filter=[1])  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"not finite|not JSON"):
        await store.asearch(("alice",), filter={"v": float("nan")})
    # nothing was half-written: the item is as it was, no other namespace appeared
    kept = await store.aget(("alice", "m"), "k")
    assert kept is not None and kept.value == {"text": "kept"}
    assert await store.alist_namespaces(prefix=("alice",)) == [("alice", "m")]


async def test_bad_input_is_refused_and_nothing_written(
    adapter_memory: UnifiedMemoryService,
) -> None:
    await _refuses_bad_input(UnimemStore(adapter_memory, user_in_namespace=True))


async def test_bad_input_is_refused_remote(tmp_path: Path) -> None:
    async with (
        running_server(create_app(settings(tmp_path))) as base,
        MemoryClient(base, token=token("alice")) as remote,
    ):
        await _refuses_bad_input(UnimemStore(remote, user_in_namespace=True))


def test_sync_methods_without_a_loop(tmp_path: Path) -> None:
    """On the embedded store the sync methods run the call to completion here."""
    store = UnimemStore(UnifiedMemoryService(SQLiteStore(tmp_path / "m.db")))
    store.put(("memories",), "k", {"text": "hello"})
    item = store.get(("memories",), "k")
    assert item is not None and item.value == {"text": "hello"}
    assert store.list_namespaces() == [("memories",)]


@pytest.fixture
def loop_thread() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def test_sync_methods_on_a_loop_in_another_thread(
    loop_thread: asyncio.AbstractEventLoop,
) -> None:
    memory = UnifiedMemoryService()
    asyncio.run_coroutine_threadsafe(memory.setup(), loop_thread).result(10)
    store = UnimemStore(memory, loop=loop_thread)
    store.put(("memories",), "k", {"text": "hello"})
    assert [i.key for i in store.search(("memories",), query="hello")] == ["k"]
    asyncio.run_coroutine_threadsafe(memory.aclose(), loop_thread).result(10)


async def test_sync_methods_inside_a_running_loop_say_what_to_use() -> None:
    with pytest.raises(ConfigurationError, match="aget"):
        UnimemStore(UnifiedMemoryService()).get(("m",), "k")
