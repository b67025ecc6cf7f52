"""UnimemMemoryProcessor in a real Pipecat pipeline, driven by Pipecat's own run_test."""

from __future__ import annotations

import copy
import time
from typing import Any

from late_memory import LateContext
from pipecat.frames.frames import (
    Frame,
    InterruptionFrame,
    LLMContextAssistantTurnFrame,
    LLMContextFrame,
    LLMContextUserTurnFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.tests.utils import SleepFrame, run_test
from pipecat.transcriptions.language import Language

from unimem import UnifiedMemoryService
from unimem.integrations.pipecat import UnimemMemoryProcessor, restore_messages
from unimem.integrations.prepared import DEGRADATION_CONTEXT_NOT_READY


class FakeLLM(FrameProcessor):
    """Stands for the LLM and the assistant aggregator after it: records each
    context it is called with and sends the turn's text upstream, as the
    assistant aggregator does; on an interruption, only what was spoken."""

    def __init__(self, answers: list[str], spoken_before_cut: str = "") -> None:
        super().__init__()
        self.answers = answers
        self.spoken_before_cut = spoken_before_cut
        self.calls: list[list[Any]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            self.calls.append(copy.deepcopy(frame.context.get_messages()))
            answer = self.answers.pop(0)
            if answer:
                await self._said(answer)
            return
        if isinstance(frame, InterruptionFrame):
            await self._said(self.spoken_before_cut)
        await self.push_frame(frame, direction)

    async def _said(self, text: str) -> None:
        turn = LLMContextAssistantTurnFrame(text=text, timestamp="")
        await self.push_frame(turn, FrameDirection.UPSTREAM)


#: Seconds from the final transcription to the end of the turn: the user
#: aggregator's wait to be sure the user has finished (Pipecat's speech timeout
#: is 0.6 s after the VAD's stop, which comes before the STT's final text).
END_OF_TURN_S = 0.4


def _user_turn(
    context: LLMContext,
    text: str,
    language: Language,
    *,
    heard: str | None = None,
    wait=END_OF_TURN_S,
) -> list[Frame]:
    """The frames the STT and the user aggregator send for one user turn: the
    final transcription (``heard``, by default the turn's text), the end of the
    turn ``wait`` seconds later, and the LLM call."""
    context.add_message({"role": "user", "content": text})
    transcription = TranscriptionFrame(
        text=text if heard is None else heard, user_id="alice", timestamp="", language=language
    )
    return [
        transcription,
        *([SleepFrame(sleep=wait)] if wait else []),
        LLMContextUserTurnFrame(text=text, timestamp=""),
        LLMContextFrame(context=context),
        SleepFrame(sleep=0.2),
    ]


async def test_turns_are_stored_and_memory_reaches_the_llm(
    adapter_memory: UnifiedMemoryService,
) -> None:
    await adapter_memory.add_fact("allergic to penicillin", user_id="alice")
    noted = LateContext(adapter_memory)  # no delay: notes each build
    # waiting as long as the build takes: what the context holds, whatever the load
    memory = UnimemMemoryProcessor(noted, "visit-pipecat", user_id="alice", wait_ms=None)  # type: ignore[arg-type]
    llm = FakeLLM(["Lo siento. ¿Desde cuándo?", "Tome paracetamol."])
    context = LLMContext(messages=[{"role": "system", "content": "You are a nurse."}])
    frames = [
        *_user_turn(context, "tengo tos y fiebre", Language.ES_ES),
        *_user_turn(context, "desde ayer", Language.ES),
    ]
    await run_test(
        Pipeline([memory, llm]), frames_to_send=frames, observers=[memory.transcription_observer]
    )

    history = await adapter_memory.get_history("visit-pipecat", user_id="alice")
    assert [(e.role.value, e.content) for e in history] == [
        ("user", "tengo tos y fiebre"),
        ("assistant", "Lo siento. ¿Desde cuándo?"),
        ("user", "desde ayer"),
        ("assistant", "Tome paracetamol."),
    ]
    assert {e.mode.value for e in history} == {"voice"}
    assert history[0].language == "es"
    # each turn's context was built once, from its transcription
    assert noted.built == [("alice", "tengo tos y fiebre"), ("alice", "desde ayer")]
    assert [e.degradations for e in history if e.role.value == "user"] == [[], []]

    # each LLM call: the pipeline's system prompt, then unimem's one block
    for call in llm.calls:
        assert call[0] == {"role": "system", "content": "You are a nurse."}
        assert call[1]["role"] == "developer"
        assert "allergic to penicillin" in call[1]["content"]
        assert sum("Pinned facts" in str(m["content"]) for m in call) == 1
    assert llm.calls[-1][-1] == {"role": "user", "content": "desde ayer"}


async def test_an_interrupted_answer_is_stored_as_heard(
    adapter_memory: UnifiedMemoryService,
) -> None:
    memory = UnimemMemoryProcessor(adapter_memory, "visit-cut", user_id="alice")
    llm = FakeLLM([""], spoken_before_cut="Metformin is taken")
    context = LLMContext()
    frames = [
        *_user_turn(context, "how do I take metformin", Language.EN_US),
        InterruptionFrame(),
        SleepFrame(sleep=0.2),
    ]
    await run_test(Pipeline([memory, llm]), frames_to_send=frames)

    history = await adapter_memory.get_history("visit-cut", user_id="alice")
    assert [e.role.value for e in history] == ["user", "assistant"]
    answer = history[1]
    assert answer.content == "Metformin is taken"
    assert answer.metadata.get("interrupted") is True
    events = await adapter_memory.get_events("visit-cut", "interruption", user_id="alice")
    assert len(events) == 1

    # a new pipeline starts with what was said and heard
    assert await restore_messages(adapter_memory, "visit-cut", user_id="alice") == [
        {"role": "user", "content": "how do I take metformin"},
        {"role": "assistant", "content": "Metformin is taken"},
    ]


async def test_a_failed_write_does_not_stop_the_pipeline(
    adapter_memory: UnifiedMemoryService,
) -> None:
    await adapter_memory.add_entry(
        "visit-closed", {"role": "user", "content": "hi"}, user_id="alice"
    )
    await adapter_memory.close_session("visit-closed", user_id="alice")
    memory = UnimemMemoryProcessor(adapter_memory, "visit-closed", user_id="alice")
    llm = FakeLLM(["Hello again."])
    context = LLMContext()
    await run_test(
        Pipeline([memory, llm]), frames_to_send=_user_turn(context, "hello", Language.EN)
    )
    assert len(llm.calls) == 1  # the reply went ahead though the session takes no writes
    history = await adapter_memory.get_history("visit-closed", user_id="alice")
    assert [e.content for e in history] == ["hi"]


class TimedLLM(FakeLLM):
    """A FakeLLM that notes when each context arrives."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(answers)
        self.arrived: list[float] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        if isinstance(frame, LLMContextFrame):
            self.arrived.append(time.monotonic())
        await super().process_frame(frame, direction)


class TurnEnds(FrameProcessor):
    """Notes when each user turn's frame passes (the end of the turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: list[float] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextUserTurnFrame) and direction == FrameDirection.DOWNSTREAM:
            self.at.append(time.monotonic())
        await self.push_frame(frame, direction)


async def test_a_late_context_does_not_hold_the_llm_call(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """A turn whose context is not built within ``wait_ms`` (its transcription
    came as the turn ended, and the store is slow) goes to the LLM with what is
    ready, last turn's block without its recall, and its entry records it."""
    await adapter_memory.add_fact("allergic to penicillin", user_id="alice")
    late = LateContext(adapter_memory, slow={"since yesterday": 2.0})
    memory = UnimemMemoryProcessor(late, "visit-late", user_id="alice")  # type: ignore[arg-type]
    ends, llm = TurnEnds(), TimedLLM(["Since when?", "Rest."])
    context = LLMContext(messages=[{"role": "system", "content": "You are a nurse."}])
    frames = [
        *_user_turn(context, "I have a cough", Language.EN),
        *_user_turn(context, "since yesterday", Language.EN, wait=0),
    ]
    await run_test(
        Pipeline([ends, memory, llm]),
        frames_to_send=frames,
        observers=[memory.transcription_observer],
    )

    first, second = llm.calls
    assert "allergic to penicillin" in first[1]["content"]
    assert second[1] == first[1]  # what was ready: the first turn's block
    assert second[-1] == {"role": "user", "content": "since yesterday"}
    assert llm.arrived[1] - ends.at[1] < 0.5  # not the 2 s the store took
    history = await adapter_memory.get_history("visit-late", user_id="alice")
    users = [e for e in history if e.role.value == "user"]
    assert [(e.content, e.degradations) for e in users] == [
        ("I have a cough", []),
        ("since yesterday", [DEGRADATION_CONTEXT_NOT_READY]),
    ]


async def test_a_context_prepared_for_other_words_is_not_used(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The aggregator's turn text differs from the transcription the build
    started from: the context is built again for the turn's text."""
    late = LateContext(adapter_memory)
    memory = UnimemMemoryProcessor(late, "visit-other", user_id="alice", wait_ms=None)  # type: ignore[arg-type]
    llm = FakeLLM(["Which one?"])
    context = LLMContext()
    frames = _user_turn(context, "I take metformin twice a day", Language.EN, heard="I take")
    await run_test(
        Pipeline([memory, llm]), frames_to_send=frames, observers=[memory.transcription_observer]
    )

    assert late.built == [("alice", "I take"), ("alice", "I take metformin twice a day")]
    assert llm.calls[0][0]["role"] == "developer"
    history = await adapter_memory.get_history("visit-other", user_id="alice")
    assert [(e.content, e.degradations) for e in history if e.role.value == "user"] == [
        ("I take metformin twice a day", [])
    ]
