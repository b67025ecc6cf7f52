"""UnimemSession through the OpenAI Agents SDK's own Runner, with a scripted model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, RunContextWrapper, Runner, function_tool
from agents.items import ModelResponse, TResponseInputItem
from agents.memory import Session, SessionSettings
from agents.models.interface import Model
from agents.realtime.events import RealtimeEventInfo, RealtimeHistoryAdded, RealtimeHistoryUpdated
from agents.realtime.items import AssistantAudio, AssistantMessageItem, InputAudio, UserMessageItem
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.integrations.openai_agents import ITEM_KEY, RealtimeHistoryRecorder, UnimemSession


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


class ScriptedModel(Model):
    """Answers from a script and records the input it was given on each call."""

    def __init__(self, *outputs: list[Any]) -> None:
        self.outputs = list(outputs)
        self.inputs: list[list[TResponseInputItem]] = []

    async def get_response(self, system_instructions, input, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        self.inputs.append(list(input) if isinstance(input, list) else [input])
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise AssertionError("not streamed in these tests")


@function_tool
def dose_of(medicine: str) -> str:
    """The usual dose of a medicine."""
    return json.dumps({"medicine": medicine, "dose": "500 mg twice daily"})


INFO = RealtimeEventInfo(context=RunContextWrapper(context=None))


def test_is_an_agents_session() -> None:
    assert isinstance(UnimemSession(UnifiedMemoryService(), "s"), Session)


async def test_runner_keeps_the_conversation_across_runs(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """A second Runner.run sees the first run's turns, tool call and output included."""
    model = ScriptedModel(
        [
            ResponseFunctionToolCall(
                type="function_call",
                name="dose_of",
                arguments='{"medicine": "metformin"}',
                call_id="call_1",
                id="fc_1",
            )
        ],
        [_message("Metformin is usually 500 mg twice daily.")],
        [_message("You asked about metformin.")],
    )
    agent = Agent(name="nurse", instructions="Be brief.", model=model, tools=[dose_of])
    session = UnimemSession(adapter_memory, "visit-agents", user_id="alice")

    first = await Runner.run(agent, "what dose of metformin?", session=session)
    assert first.final_output == "Metformin is usually 500 mg twice daily."
    second = await Runner.run(agent, "what did I ask?", session=session)
    assert second.final_output == "You asked about metformin."

    seen = model.inputs[-1]
    kinds = [item.get("type", "message") for item in seen]
    assert kinds == ["message", "function_call", "function_call_output", "message", "message"]
    assert seen[0]["content"] == "what dose of metformin?"
    assert seen[1]["call_id"] == "call_1" and seen[1]["name"] == "dose_of"
    assert "500 mg" in seen[2]["output"]
    assert seen[-1]["content"] == "what did I ask?"

    # stored as unimem entries with roles kept, readable content, the item in metadata
    history = await adapter_memory.get_history("visit-agents", user_id="alice")
    assert [e.role.value for e in history] == [
        "user",
        "assistant",
        "assistant",
        "assistant",
        "user",
        "assistant",
    ]
    assert history[1].content.startswith("[tool call dose_of(")
    assert history[3].content == "Metformin is usually 500 mg twice daily."


async def test_items_round_trip_exactly(adapter_memory: UnifiedMemoryService) -> None:
    session = UnimemSession(adapter_memory, "visit-items", user_id="alice")
    items: list[Any] = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "function_call",
            "name": "f",
            "arguments": "{}",
            "call_id": "c1",
            "id": "x1",
            "status": "completed",
        },
        {"type": "function_call_output", "call_id": "c1", "output": "42"},
        {"role": "developer", "content": "be kind"},
        {"type": "reasoning", "id": "r1", "summary": []},
    ]
    await session.add_items(items)
    assert await session.get_items() == items
    assert await session.get_items(limit=2) == items[-2:]
    assert await session.get_items(limit=0) == []
    limited = UnimemSession(
        adapter_memory, "visit-items", user_id="alice", session_settings=SessionSettings(limit=1)
    )
    assert await limited.get_items() == items[-1:]


async def test_a_plain_message_is_its_entry(adapter_memory: UnifiedMemoryService) -> None:
    """A ``{"role", "content": text}`` message is stored as the entry alone (no copy
    in the metadata) and comes back equal."""
    session = UnimemSession(adapter_memory, "visit-plain", user_id="alice")
    items: list[Any] = [
        {"role": "user", "content": "How do I take metformin?"},
        {"role": "assistant", "content": "With meals."},
        {"role": "user", "content": "ok", "type": "message"},
    ]
    await session.add_items(items)
    assert await session.get_items() == items
    entries = await adapter_memory.get_history("visit-plain", user_id="alice")
    assert [e.metadata for e in entries[:2]] == [{}, {}]
    assert entries[2].metadata == {ITEM_KEY: items[2]}


async def test_pop_item_removes_the_last_item(adapter_memory: UnifiedMemoryService) -> None:
    session = UnimemSession(adapter_memory, "visit-pop", user_id="alice")
    assert await session.pop_item() is None
    await session.add_items(
        [{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}]
    )
    assert await session.pop_item() == {"role": "assistant", "content": "two"}
    assert await session.get_items() == [{"role": "user", "content": "one"}]
    history = await adapter_memory.get_history("visit-pop", user_id="alice")
    assert [e.content for e in history] == ["one"]


async def test_clear_session_deletes_it(adapter_memory: UnifiedMemoryService) -> None:
    session = UnimemSession(adapter_memory, "visit-clear", user_id="alice")
    await session.add_items([{"role": "user", "content": "forget me"}])
    await session.clear_session()
    assert await session.get_items() == []
    assert await adapter_memory.list_sessions(user_id="alice") == []


async def test_entries_from_other_surfaces_and_interruptions(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """Another surface's voice turn is a plain message; a cut-off answer is what was heard."""
    await adapter_memory.add_entry(
        "visit-mixed",
        MemoryEntry(role="user", content="my knee hurts", mode="voice"),
        user_id="alice",
    )
    session = UnimemSession(adapter_memory, "visit-mixed", user_id="alice")
    await session.add_items(
        [{"role": "assistant", "content": "Rest it, ice it and raise it above your heart."}]
    )
    answer = (await adapter_memory.get_history("visit-mixed", user_id="alice"))[-1]
    await adapter_memory.mark_interrupted(
        "visit-mixed", answer.id, "Rest it, ice it", user_id="alice"
    )
    assert await session.get_items() == [
        {"role": "user", "content": "my knee hurts"},
        {"role": "assistant", "content": "Rest it, ice it"},
    ]


async def test_other_users_do_not_see_the_session(adapter_memory: UnifiedMemoryService) -> None:
    await UnimemSession(adapter_memory, "visit-private", user_id="alice").add_items(
        [{"role": "user", "content": "secret"}]
    )
    assert await UnimemSession(adapter_memory, "visit-private", user_id="bob").get_items() == []


async def test_realtime_recorder_stores_each_finished_turn_once(
    adapter_memory: UnifiedMemoryService,
) -> None:
    recorder = RealtimeHistoryRecorder(adapter_memory, "visit-realtime", user_id="alice")
    user = UserMessageItem(item_id="item_u1", content=[InputAudio(transcript=None)])
    await recorder.on_event(RealtimeHistoryAdded(item=user, info=INFO))
    assert await adapter_memory.list_sessions(user_id="alice") == []  # no transcript yet
    user = UserMessageItem(item_id="item_u1", content=[InputAudio(transcript="what is my dose")])
    said = AssistantMessageItem(
        item_id="item_a1", status="in_progress", content=[AssistantAudio(transcript="Your dose is")]
    )
    await recorder.on_event(RealtimeHistoryUpdated(history=[user, said], info=INFO))
    cut = AssistantMessageItem(
        item_id="item_a1",
        status="incomplete",
        content=[AssistantAudio(transcript="Your dose is five")],
    )
    for _ in range(2):
        await recorder.on_event(RealtimeHistoryUpdated(history=[user, cut], info=INFO))
    history = await adapter_memory.get_history("visit-realtime", user_id="alice")
    assert [(e.role.value, e.mode.value, e.content) for e in history] == [
        ("user", "voice", "what is my dose"),
        ("assistant", "voice", "Your dose is five"),
    ]
    assert history[1].metadata["interrupted"] is True
