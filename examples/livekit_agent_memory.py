"""A LiveKit agent whose conversation lives in unimem and survives a new session.

Run against any OpenAI-compatible endpoint (text only here; in a room the same
agent takes voice, and turning ``session.input.set_audio_enabled`` off and on
is recorded as switches between voice and text):

    pip install 'unimem[livekit]' livekit-plugins-openai
    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=unused \
        UNIMEM_EXAMPLE_MODEL=llama3.1 python examples/livekit_agent_memory.py

The first ``AgentSession`` stores each turn; the second, a new session for
the same user (a reconnect, another device), starts with that conversation.
Every reply gets unimem's context (pinned facts, summary, language, mode).
"""

from __future__ import annotations

import asyncio
import os

from livekit.agents import AgentSession
from livekit.plugins import openai

from unimem import UnifiedMemoryService
from unimem.integrations import prewarm
from unimem.integrations.livekit import AgentMemory, UnimemAgent

SESSION = "livekit-example"


async def talk(memory: AgentMemory, question: str) -> None:
    """One AgentSession: restore the conversation, answer one question, store it."""
    async with (
        openai.LLM(
            model=os.environ.get("UNIMEM_EXAMPLE_MODEL", "gpt-4o-mini"),
            base_url=os.environ.get("OPENAI_BASE_URL"),
        ) as llm,
        AgentSession(llm=llm) as session,
    ):
        memory.attach(session)
        agent = UnimemAgent(
            memory=memory,
            instructions="You are a nurse. Be brief.",
            chat_ctx=await memory.chat_ctx(),
        )
        await session.start(agent)
        result = await session.run(user_input=question)
        answer = result.expect.next_event().is_message(role="assistant").event().item
        print(f"user: {question}\nassistant: {answer.text_content}")
    await memory.flush()


async def main() -> None:
    prewarm()  # unimem's models, loaded before the first conversation
    url = os.environ.get("UNIMEM_DATABASE_URL", "sqlite:///data/unimem.db")
    async with UnifiedMemoryService.from_url(url) as unimem:
        await unimem.add_fact("allergic to penicillin", user_id="alice")
        for question in ("How should I take metformin?", "What did I just ask you?"):
            await talk(AgentMemory(unimem, SESSION, user_id="alice", mode="text"), question)
        history = await unimem.get_history(SESSION, user_id="alice")
        print(f"unimem holds {len(history)} entries of this conversation")


if __name__ == "__main__":
    asyncio.run(main())
