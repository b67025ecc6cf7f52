"""A Pipecat voice pipeline whose conversation lives in unimem.

Run against any OpenAI-compatible endpoint (no audio devices needed: the
speech-to-text side is played by frames queued into the pipeline):

    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=unused \
        UNIMEM_EXAMPLE_MODEL=llama3.1 python examples/pipecat_voice_memory.py

``UnimemMemoryProcessor`` sits between the user context aggregator and the
LLM: each user turn is stored as a voice entry in the language the STT
reported, each answer as what reached the output, and every LLM call gets
unimem's context (pinned facts, summary, language and mode) within a budget.
"""

from __future__ import annotations

import asyncio
import os

from pipecat.frames.frames import (
    EndFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.aggregators.llm_response_universal import (
    AssistantTurnStoppedMessage,
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.transcriptions.language import Language
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies
from pipecat.workers.runner import WorkerRunner

from unimem import UnifiedMemoryService
from unimem.integrations import prewarm
from unimem.integrations.pipecat import UnimemMemoryProcessor, restore_messages

SESSION = "pipecat-example"


async def main() -> None:
    prewarm()  # unimem's models, loaded before the first conversation
    url = os.environ.get("UNIMEM_DATABASE_URL", "sqlite:///data/unimem.db")
    async with UnifiedMemoryService.from_url(url) as memory:
        await memory.add_fact("allergic to penicillin", user_id="alice")
        # a reconnect starts where the conversation left off
        history = await restore_messages(memory, SESSION, user_id="alice")
        context = LLMContext(messages=history)
        aggregators = LLMContextAggregatorPair(
            context,
            user_params=LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies()),
        )
        unimem = UnimemMemoryProcessor(memory, SESSION, user_id="alice", max_tokens=800)
        llm = OpenAILLMService(
            api_key=os.environ.get("OPENAI_API_KEY", ""),
            base_url=os.environ.get("OPENAI_BASE_URL"),
            settings=OpenAILLMService.Settings(
                model=os.environ.get("UNIMEM_EXAMPLE_MODEL", "gpt-4o-mini"),
                system_instruction="You are a nurse. Be brief.",
            ),
        )
        assistant = aggregators.assistant()
        pipeline = Pipeline([aggregators.user(), unimem, llm, assistant])
        task = PipelineWorker(pipeline, observers=[unimem.transcription_observer])
        answered = asyncio.Queue[str]()

        @assistant.event_handler("on_assistant_turn_stopped")
        async def on_answer(_aggregator: object, message: AssistantTurnStoppedMessage) -> None:
            await answered.put(message.content)

        async def speak(text: str, language: Language) -> None:
            await task.queue_frames(
                [
                    UserStartedSpeakingFrame(),
                    TranscriptionFrame(text, "alice", "", language=language),
                    UserStoppedSpeakingFrame(),
                ]
            )
            print(f"user: {text}\nassistant: {await answered.get()}")

        async def conversation() -> None:
            await asyncio.sleep(0.5)
            await speak("How should I take metformin?", Language.EN_US)
            await speak("And what was I allergic to?", Language.EN_US)
            await task.queue_frame(EndFrame())

        runner = WorkerRunner(handle_sigint=False)
        await runner.add_workers(task)
        await asyncio.gather(runner.run(), conversation())
        stored = await memory.get_history(SESSION, user_id="alice")
        print(f"unimem holds {len(stored)} entries of this conversation")
        for entry in stored:
            print(f"  {entry.role.value} ({entry.mode.value}, {entry.language}): {entry.content}")


if __name__ == "__main__":
    asyncio.run(main())
