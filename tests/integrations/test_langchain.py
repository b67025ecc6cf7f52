"""UnimemChatMessageHistory through LangChain's own abstractions, with a fake chat model."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from unimem import ConfigurationError, MemoryEntry, UnifiedMemoryService
from unimem.integrations.langchain import UnimemChatMessageHistory
from unimem.stores import SQLiteStore


def test_is_a_chat_message_history() -> None:
    assert isinstance(UnimemChatMessageHistory(UnifiedMemoryService(), "s"), BaseChatMessageHistory)


# langchain-core 1.x deprecates RunnableWithMessageHistory (for LangGraph persistence) but
# ships it still; it is the framework's own consumer of a chat message history.
@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
async def test_runnable_with_message_history_remembers(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The second invocation's prompt holds the first exchange, read back from unimem."""
    model = FakeListChatModel(responses=["Take it with meals.", "You asked about metformin."])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Be brief."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    seen: list[int] = []

    def histories(session_id: str) -> UnimemChatMessageHistory:
        history = UnimemChatMessageHistory(adapter_memory, session_id, user_id="alice")
        return history

    chain = RunnableWithMessageHistory(
        prompt | (lambda value: seen.append(len(value.to_messages())) or value) | model,
        histories,
        input_messages_key="question",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "visit-lc"}}
    first = await chain.ainvoke({"question": "how do I take metformin?"}, config=config)
    second = await chain.ainvoke({"question": "what did I ask?"}, config=config)
    assert (first.content, second.content) == ("Take it with meals.", "You asked about metformin.")
    assert seen == [2, 4]  # system + question, then system + 2 remembered + question
    stored = await adapter_memory.get_history("visit-lc", user_id="alice")
    assert [(e.role.value, e.content) for e in stored] == [
        ("user", "how do I take metformin?"),
        ("assistant", "Take it with meals."),
        ("user", "what did I ask?"),
        ("assistant", "You asked about metformin."),
    ]


async def test_messages_round_trip_exactly(adapter_memory: UnifiedMemoryService) -> None:
    history = UnimemChatMessageHistory(adapter_memory, "visit-rt", user_id="alice")
    messages = [
        SystemMessage(content="be kind", id="m0"),
        HumanMessage(content=[{"type": "text", "text": "dose?"}], id="m1"),
        AIMessage(
            content="", id="m2", tool_calls=[{"name": "dose_of", "args": {"m": "x"}, "id": "c1"}]
        ),
        ToolMessage(content="500 mg", tool_call_id="c1", id="m3"),
        AIMessage(content="500 mg twice daily", id="m4", additional_kwargs={"k": 1}),
    ]
    await history.aadd_messages(messages)
    assert await history.aget_messages() == messages
    stored = await adapter_memory.get_history("visit-rt", user_id="alice")
    assert [e.role.value for e in stored] == [
        "system",
        "user",
        "assistant",
        "assistant",
        "assistant",
    ]
    await history.aclear()
    assert await history.aget_messages() == []


async def test_voice_turns_and_interruptions(adapter_memory: UnifiedMemoryService) -> None:
    """Another surface's voice turn is a human message; a cut-off answer is what was heard."""
    await adapter_memory.add_entry(
        "visit-v", MemoryEntry(role="user", content="my knee hurts", mode="voice"), user_id="alice"
    )
    history = UnimemChatMessageHistory(adapter_memory, "visit-v", user_id="alice", mode="voice")
    await history.aadd_messages([AIMessage(content="Rest it, ice it and raise it.")])
    answer = (await adapter_memory.get_history("visit-v", user_id="alice"))[-1]
    assert answer.mode.value == "voice"
    await adapter_memory.mark_interrupted("visit-v", answer.id, "Rest it", user_id="alice")
    got = await history.aget_messages()
    assert [(type(m).__name__, m.content) for m in got] == [
        ("HumanMessage", "my knee hurts"),
        ("AIMessage", "Rest it"),
    ]


async def test_other_users_see_nothing(adapter_memory: UnifiedMemoryService) -> None:
    await UnimemChatMessageHistory(adapter_memory, "visit-p", user_id="alice").aadd_messages(
        [HumanMessage(content="secret")]
    )
    assert (
        await UnimemChatMessageHistory(adapter_memory, "visit-p", user_id="bob").aget_messages()
        == []
    )


def test_sync_methods_without_a_loop(tmp_path: Path) -> None:
    """On the embedded store the sync methods run the call to completion here."""
    history = UnimemChatMessageHistory(UnifiedMemoryService(SQLiteStore(tmp_path / "m.db")), "s1")
    history.add_messages([HumanMessage(content="hello"), AIMessage(content="hi")])
    assert [m.content for m in history.messages] == ["hello", "hi"]
    history.clear()
    assert history.messages == []


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
    history = UnimemChatMessageHistory(memory, "s2", loop=loop_thread)
    history.add_messages([HumanMessage(content="hello")])
    assert [m.content for m in history.messages] == ["hello"]
    asyncio.run_coroutine_threadsafe(memory.aclose(), loop_thread).result(10)


async def test_sync_methods_inside_a_running_loop_say_what_to_use() -> None:
    history = UnimemChatMessageHistory(UnifiedMemoryService(), "s3")
    with pytest.raises(ConfigurationError, match="aget_messages"):
        history.messages  # noqa: B018
