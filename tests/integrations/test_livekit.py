"""AgentMemory and UnimemAgent in a real LiveKit AgentSession (text only, no room),
with LiveKit's OpenAI plugin talking to an OpenAI-compatible fake on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from livekit.agents import AgentSession, llm
from livekit.plugins import openai

from fake_llm import FakeChat, fake_chat_server
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.integrations.livekit import CONTEXT_MARK, AgentMemory, UnimemAgent


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as state:
        yield state


@asynccontextmanager
async def _session(chat: FakeChat, memory: AgentMemory) -> AsyncIterator[AgentSession]:
    async with (
        openai.LLM(model="tiny", base_url=chat.url, api_key="unused") as model,
        AgentSession(llm=model) as session,
    ):
        memory.attach(session)
        yield session
    await memory.flush()


async def test_turns_are_stored_and_memory_reaches_the_llm(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    await adapter_memory.add_fact("allergic to penicillin", user_id="alice")
    memory = AgentMemory(adapter_memory, "visit-lk", user_id="alice")
    chat.pieces = ["Take it", " with meals."]
    async with _session(chat, memory) as session:
        await session.start(UnimemAgent(memory=memory, instructions="You are a nurse."))
        result = await session.run(user_input="how do I take metformin?")
        result.expect.next_event().is_message(role="assistant")
        await memory.set_audio_enabled(session, False)  # the user switches to typing
        await session.run(user_input="thanks")

    history = await adapter_memory.get_history("visit-lk", user_id="alice")
    assert [(e.role.value, e.mode.value, e.content) for e in history] == [
        ("user", "voice", "how do I take metformin?"),
        ("assistant", "voice", "Take it with meals."),
        ("user", "text", "thanks"),
        ("assistant", "text", "Take it with meals."),
    ]
    switches = await adapter_memory.get_events("visit-lk", "mode_switch", user_id="alice")
    assert [(e.data["from_mode"], e.data["to_mode"]) for e in switches] == [("voice", "text")]

    # each request: the agent's instructions first, unimem's one block just before the turn
    for request in chat.requests:
        messages = request["messages"]
        assert messages[0] == {"role": "system", "content": "You are a nurse."}
        assert messages[-2]["role"] == "system"
        assert "allergic to penicillin" in messages[-2]["content"]
        assert sum("Pinned facts" in str(m["content"]) for m in messages) == 1
    first, second = (r["messages"] for r in chat.requests)
    assert first[-1] == {"role": "user", "content": "how do I take metformin?"}
    assert second[-1] == {"role": "user", "content": "thanks"}


async def test_on_user_turn_completed_injects_into_the_turn(
    adapter_memory: UnifiedMemoryService,
) -> None:
    await adapter_memory.add_fact("takes warfarin", user_id="alice")
    memory = AgentMemory(adapter_memory, "visit-hook", user_id="alice")
    agent = UnimemAgent(memory=memory, instructions="You are a nurse.")
    turn_ctx = llm.ChatContext()
    turn_ctx.add_message(role="system", content="You are a nurse.")
    new_message = llm.ChatMessage(role="user", content=["can I take aspirin?"])
    await agent.on_user_turn_completed(turn_ctx, new_message)
    await agent.on_user_turn_completed(turn_ctx, new_message)  # a second call adds nothing
    blocks = [i for i in turn_ctx.items if isinstance(i, llm.ChatMessage) and i.extra]
    assert len(blocks) == 1 and blocks[0].extra == {CONTEXT_MARK: True}
    assert "takes warfarin" in (blocks[0].text_content or "")


async def test_an_interrupted_answer_is_stored_as_heard(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    memory = AgentMemory(adapter_memory, "visit-cut", user_id="alice", mode="text")
    chat.pieces = ["Metformin", " is taken", " with", " meals", " twice", " a day."]
    chat.gap = 0.5
    async with _session(chat, memory) as session:
        await session.start(UnimemAgent(memory=memory, instructions="Be brief."))
        handle = session.generate_reply(user_input="how do I take metformin?")
        for _ in range(400):  # until the answer's first words are out
            if session.agent_state == "speaking":
                break
            await asyncio.sleep(0.025)
        assert session.agent_state == "speaking"
        await asyncio.sleep(0.3)  # the first pieces are out; the rest come 0.5 s apart
        await session.interrupt()
        await handle

    history = await adapter_memory.get_history("visit-cut", user_id="alice")
    assert [e.role.value for e in history] == ["user", "assistant"]
    answer = history[1]
    assert answer.metadata.get("interrupted") is True
    assert answer.content.startswith("Metformin")
    assert "twice a day" not in answer.content
    events = await adapter_memory.get_events("visit-cut", "interruption", user_id="alice")
    assert len(events) == 1


async def test_a_new_session_starts_with_the_conversation_it_left(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    for role, text in [("user", "I have a cough"), ("assistant", "Since when?")]:
        entry = MemoryEntry(role=role, content=text, mode="voice")
        await adapter_memory.add_entry("visit-back", entry, user_id="alice")
    memory = AgentMemory(adapter_memory, "visit-back", user_id="alice", mode="text")
    chat.pieces = ["Rest and fluids."]
    async with _session(chat, memory) as session:
        agent = UnimemAgent(
            memory=memory, instructions="You are a nurse.", chat_ctx=await memory.chat_ctx()
        )
        await session.start(agent)
        await session.run(user_input="since yesterday")

    sent = [(m["role"], m["content"]) for m in chat.requests[0]["messages"]]
    assert ("user", "I have a cough") in sent
    assert ("assistant", "Since when?") in sent
    assert sent[-1] == ("user", "since yesterday")
    history = await adapter_memory.get_history("visit-back", user_id="alice")
    assert [e.content for e in history][-2:] == ["since yesterday", "Rest and fluids."]
    assert len(history) == 4  # the restored turns are not stored twice


async def test_a_failed_write_does_not_stop_the_session(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    await adapter_memory.add_entry(
        "visit-closed", {"role": "user", "content": "hi"}, user_id="alice"
    )
    await adapter_memory.close_session("visit-closed", user_id="alice")
    memory = AgentMemory(adapter_memory, "visit-closed", user_id="alice", mode="text")
    chat.pieces = ["Hello again."]
    async with _session(chat, memory) as session:
        await session.start(UnimemAgent(memory=memory, instructions="Be brief."))
        result = await session.run(user_input="hello")
        result.expect.next_event().is_message(role="assistant")
    history = await adapter_memory.get_history("visit-closed", user_id="alice")
    assert [e.content for e in history] == ["hi"]
