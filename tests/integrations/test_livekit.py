"""AgentMemory and UnimemAgent in a real LiveKit AgentSession (text only, no room),
with LiveKit's OpenAI plugin talking to an OpenAI-compatible fake on loopback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from late_memory import LateContext
from livekit import rtc
from livekit.agents import (
    DEFAULT_API_CONNECT_OPTIONS,
    AgentSession,
    APIConnectOptions,
    ConversationItemAddedEvent,
    UserInputTranscribedEvent,
    llm,
    stt,
)
from livekit.agents.types import NOT_GIVEN, NotGivenOr
from livekit.agents.utils import AudioBuffer
from livekit.agents.voice.io import AudioInput
from livekit.plugins import openai

from fake_llm import FakeChat, fake_chat_server
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.integrations.livekit import CONTEXT_MARK, AgentMemory, UnimemAgent
from unimem.integrations.prepared import DEGRADATION_CONTEXT_NOT_READY

#: Seconds from a final transcript to the end of the turn: LiveKit's default
#: endpointing waits at least 0.5 s after the user stops.
ENDPOINTING_S = 0.4


def _final(text: str) -> UserInputTranscribedEvent:
    return UserInputTranscribedEvent(transcript=text, is_final=True, language="en")


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as state:
        yield state


@asynccontextmanager
async def _session(
    chat: FakeChat, memory: AgentMemory, heard: _ScriptedSTT | None = None
) -> AsyncIterator[AgentSession]:
    """An ``AgentSession`` on the fake LLM with ``memory`` attached; with ``heard``,
    speech comes through that STT and the end of a turn is the STT's (no
    preemptive replies). Pending writes are finished on the way out."""
    speech: dict[str, Any] = {}
    if heard is not None:
        speech = {
            "stt": heard,
            "turn_handling": {"turn_detection": "stt", "preemptive_generation": {"enabled": False}},
        }
    async with (
        openai.LLM(model="tiny", base_url=chat.url, api_key="unused") as model,
        AgentSession(llm=model, **speech) as session,
    ):
        memory.attach(session)
        yield session
    await memory.flush()


def _roles_added(session: AgentSession) -> list[str]:
    """The role (or item type) of each item the session adds to its history, as added."""
    added: list[str] = []
    session.on(
        "conversation_item_added", lambda e: added.append(getattr(e.item, "role", e.item.type))
    )
    return added


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
        await memory.flush()
        # recorded when audio goes off, before a typed turn could reveal it
        switched = await adapter_memory.get_events("visit-lk", "mode_switch", user_id="alice")
        assert [(e.data["to_mode"], e.data["trigger"]) for e in switched] == [
            ("text", "user_request")
        ]
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
    noted = LateContext(adapter_memory)  # no delay: notes each build
    # waiting as long as the build takes: what the context holds, whatever the load
    memory = AgentMemory(noted, "visit-hook", user_id="alice", wait_ms=None)  # type: ignore[arg-type]
    agent = UnimemAgent(memory=memory, instructions="You are a nurse.")
    turn_ctx = llm.ChatContext()
    turn_ctx.add_message(role="system", content="You are a nurse.")
    # the final transcript, then LiveKit's endpointing delay, then the hook
    memory.on_user_input_transcribed(_final("can I take aspirin?"))
    await asyncio.sleep(ENDPOINTING_S)
    new_message = llm.ChatMessage(role="user", content=["can I take aspirin?"])
    await agent.on_user_turn_completed(turn_ctx, new_message)
    await agent.on_user_turn_completed(turn_ctx, new_message)  # a second call adds nothing
    blocks = [i for i in turn_ctx.items if isinstance(i, llm.ChatMessage) and i.extra]
    assert len(blocks) == 1 and blocks[0].extra == {CONTEXT_MARK: True}
    assert "takes warfarin" in (blocks[0].text_content or "")
    assert noted.built == [("alice", "can I take aspirin?")]  # the transcript's, used
    memory.on_conversation_item_added(ConversationItemAddedEvent(item=new_message))
    await memory.flush()
    history = await adapter_memory.get_history("visit-hook", user_id="alice")
    assert [(e.content, e.degradations) for e in history] == [("can I take aspirin?", [])]


async def test_a_late_context_does_not_hold_the_reply(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The transcript came as the turn ended and the store is slow: the hook
    returns within ``wait_ms`` with what is ready (the last turn's block
    without its recall), and the user's entry records the degradation."""
    await adapter_memory.add_fact("takes warfarin", user_id="alice")
    late = LateContext(adapter_memory, slow={"and ibuprofen?": 2.0})
    memory = AgentMemory(late, "visit-late", user_id="alice")  # type: ignore[arg-type]
    agent = UnimemAgent(memory=memory, instructions="You are a nurse.")
    blocks = []
    for text, endpointing in (("can I take aspirin?", ENDPOINTING_S), ("and ibuprofen?", 0.0)):
        memory.on_user_input_transcribed(_final(text))
        await asyncio.sleep(endpointing)
        turn_ctx = llm.ChatContext()
        message = llm.ChatMessage(role="user", content=[text])
        started = time.monotonic()
        await agent.on_user_turn_completed(turn_ctx, message)
        took = time.monotonic() - started
        memory.on_conversation_item_added(ConversationItemAddedEvent(item=message))
        blocks.append([i.text_content for i in turn_ctx.items if i.extra.get(CONTEXT_MARK)])
    assert took < 0.5  # not the 2 s the store took
    assert "takes warfarin" in blocks[0][0]
    assert blocks[1] == blocks[0]
    await memory.aclose()
    history = await adapter_memory.get_history("visit-late", user_id="alice")
    assert [(e.content, e.degradations) for e in history] == [
        ("can I take aspirin?", []),
        ("and ibuprofen?", [DEGRADATION_CONTEXT_NOT_READY]),
    ]


async def test_what_is_ready_for_one_user_is_never_another_users(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """A context prepared, or ready, for alice is not what bob's late turn gets."""
    await adapter_memory.add_fact("takes warfarin", user_id="alice")
    late = LateContext(adapter_memory, slow={"what do I take?": 2.0})
    memory = AgentMemory(late, "visit-shared", user_id="alice")  # type: ignore[arg-type]
    agent = UnimemAgent(memory=memory, instructions="You are a nurse.")
    memory.on_user_input_transcribed(_final("what do I take?"))
    await asyncio.sleep(0.05)
    alice_ctx = llm.ChatContext()
    await agent.on_user_turn_completed(alice_ctx, llm.ChatMessage(role="user", content=["hi"]))
    memory.on_user_input_transcribed(_final("hello"))
    await asyncio.sleep(ENDPOINTING_S)  # alice's "hello" context is ready now
    memory.user_id = "bob"  # the agent now serves another user
    bob_ctx = llm.ChatContext()
    await agent.on_user_turn_completed(bob_ctx, llm.ChatMessage(role="user", content=["hello"]))
    await memory.aclose()
    assert ("bob", "hello") in late.built
    for item in bob_ctx.items:
        assert "warfarin" not in (item.text_content or "")


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


# ---------------------------------------------------------------------- speech input
# livekit-agents ships no fake speech-to-text; these implement its public STT and
# AudioInput classes so that an AgentSession's own audio recognition runs: frames
# from the "microphone" reach the STT stream, whose speech events drive
# user_input_transcribed, the end of the user's turn and conversation_item_added.


class _Microphone(AudioInput):
    """Silence, 10 ms a frame, as long as the session reads it."""

    def __init__(self) -> None:
        super().__init__(label="test-microphone")

    async def __anext__(self) -> rtc.AudioFrame:
        await asyncio.sleep(0.01)
        return rtc.AudioFrame.create(16000, 1, 160)


class _ScriptedStream(stt.RecognizeStream):
    def __init__(self, owner: _ScriptedSTT, conn_options: APIConnectOptions) -> None:
        super().__init__(stt=owner, conn_options=conn_options)
        self._owner = owner

    async def _run(self) -> None:
        async for frame in self._input_ch:
            if not self._owner.pending or not isinstance(frame, rtc.AudioFrame):
                continue
            text, language = self._owner.pending.pop(0)
            heard = [stt.SpeechData(language=language, text=text, confidence=0.98)]
            for event in (
                stt.SpeechEvent(type=stt.SpeechEventType.START_OF_SPEECH),
                stt.SpeechEvent(type=stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives=heard),
                stt.SpeechEvent(type=stt.SpeechEventType.END_OF_SPEECH),
            ):
                self._event_ch.send_nowait(event)


class _ScriptedSTT(stt.STT):
    """A streaming STT that "hears" the utterances queued with :meth:`say`."""

    def __init__(self) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=True, interim_results=False))
        self.pending: list[tuple[str, str]] = []

    def say(self, text: str, language: str) -> None:
        self.pending.append((text, language))

    async def _recognize_impl(
        self,
        buffer: AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions,
    ) -> stt.SpeechEvent:
        raise NotImplementedError("streaming only")

    def stream(
        self,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.RecognizeStream:
        return _ScriptedStream(self, conn_options)


async def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the session did not get there in time")


async def test_spoken_turns_are_stored_with_the_language_the_stt_heard(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    """Speech through the session's STT: each final transcript's language labels
    the voice turn it ends, and a change of language is a switch."""
    noted = LateContext(adapter_memory)  # no delay: notes each build
    memory = AgentMemory(noted, "visit-stt", user_id="alice", wait_ms=None)  # type: ignore[arg-type]
    heard = _ScriptedSTT()
    transcripts: list[tuple[str, str, bool]] = []
    chat.pieces = ["Tómela", " con comida."]
    async with _session(chat, memory, heard) as session:
        added = _roles_added(session)
        session.on(
            "user_input_transcribed",
            lambda e: transcripts.append((e.transcript, str(e.language), e.is_final)),
        )
        await session.start(UnimemAgent(memory=memory, instructions="Be brief."))
        session.input.audio = _Microphone()
        heard.say("¿Cómo tomo la metformina?", "es-ES")
        await _until(lambda: added.count("assistant") == 1)
        chat.pieces = ["Take it", " with meals."]
        heard.say("Sorry, can you say that in English?", "en-US")
        await _until(lambda: added.count("assistant") == 2)

    assert transcripts == [
        ("¿Cómo tomo la metformina?", "es-ES", True),
        ("Sorry, can you say that in English?", "en-US", True),
    ]
    history = await adapter_memory.get_history("visit-stt", user_id="alice")
    assert [(e.role.value, e.mode.value, e.content) for e in history] == [
        ("user", "voice", "¿Cómo tomo la metformina?"),
        ("assistant", "voice", "Tómela con comida."),
        ("user", "voice", "Sorry, can you say that in English?"),
        ("assistant", "voice", "Take it with meals."),
    ]
    assert [e.language for e in history if e.role.value == "user"] == ["es", "en"]
    # each turn's context was built once, from its final transcript
    assert noted.built == [
        ("alice", "¿Cómo tomo la metformina?"),
        ("alice", "Sorry, can you say that in English?"),
    ]
    assert [e.degradations for e in history if e.role.value == "user"] == [[], []]
    switches = await adapter_memory.get_events("visit-stt", "language_switch", user_id="alice")
    assert [(e.data["from_language"], e.data["to_language"]) for e in switches][-1:] == [
        ("es", "en")
    ]
    # each spoken turn's request: the instructions, the turns so far, unimem's one
    # block, then what the user just said
    for request, said in zip(
        chat.requests,
        ["¿Cómo tomo la metformina?", "Sorry, can you say that in English?"],
        strict=True,
    ):
        messages = request["messages"]
        assert messages[0] == {"role": "system", "content": "Be brief."}
        assert messages[-1] == {"role": "user", "content": said}
        assert messages[-2]["role"] == "system" and "medical assistant" in messages[-2]["content"]
        assert sum("medical assistant" in str(m["content"]) for m in messages) == 1


async def test_livekits_own_audio_switch_is_a_mode_switch(
    adapter_memory: UnifiedMemoryService, chat: FakeChat
) -> None:
    """``session.input.set_audio_enabled`` (the application's, or LiveKit's remote
    session's), not unimem's helper: audio off then a typed turn, audio on then a
    spoken one; each switch is recorded before the turn after it."""
    memory = AgentMemory(adapter_memory, "visit-toggle", user_id="alice")
    heard = _ScriptedSTT()
    chat.pieces = ["Take it", " with meals."]
    async with _session(chat, memory, heard) as session:
        added = _roles_added(session)
        await session.start(UnimemAgent(memory=memory, instructions="Be brief."))
        session.input.audio = _Microphone()
        heard.say("How do I take metformin?", "en-US")
        await _until(lambda: added.count("assistant") == 1)

        session.input.set_audio_enabled(False)  # the user types now
        assert not session.input.audio_enabled
        chat.pieces = ["You are welcome."]
        result = await session.run(user_input="thanks, I will type from now on")
        result.expect.next_event().is_message(role="assistant")

        session.input.set_audio_enabled(True)  # and speaks again
        chat.pieces = ["Yes, with food."]
        heard.say("Should I take it with food?", "en-US")
        await _until(lambda: added.count("assistant") == 3)

    history = await adapter_memory.get_history("visit-toggle", user_id="alice")
    assert [(e.role.value, e.mode.value, e.content) for e in history] == [
        ("user", "voice", "How do I take metformin?"),
        ("assistant", "voice", "Take it with meals."),
        ("user", "text", "thanks, I will type from now on"),
        ("assistant", "text", "You are welcome."),
        ("user", "voice", "Should I take it with food?"),
        ("assistant", "voice", "Yes, with food."),
    ]
    switches = await adapter_memory.get_events(
        "visit-toggle", "mode_switch", limit=50, user_id="alice"
    )
    assert [(e.data["from_mode"], e.data["to_mode"], e.data["trigger"]) for e in switches] == [
        ("voice", "text", "user_request"),
        ("text", "voice", "user_request"),
    ]
    # each switch comes between the turns it separates
    typed, spoken = history[2], history[4]
    assert history[1].timestamp < switches[0].timestamp < typed.timestamp
    assert history[3].timestamp < switches[1].timestamp < spoken.timestamp
