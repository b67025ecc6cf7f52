"""An OpenAI Agents SDK agent whose conversation lives in unimem.

Run against any OpenAI-compatible endpoint:

    OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_API_KEY=unused \
        UNIMEM_EXAMPLE_MODEL=llama3.1 python examples/openai_agents_session.py

The two runs share one unimem session: the second sees the first turn, and
the whole conversation stays in ``data/unimem.db`` (with language, mode and
PHI handling) for every other surface: the web UI, the HTTP API, a voice agent.
"""

from __future__ import annotations

import asyncio
import os

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from unimem import UnifiedMemoryService
from unimem.integrations.openai_agents import UnimemSession


async def main() -> None:
    set_tracing_disabled(True)
    model = OpenAIChatCompletionsModel(
        model=os.environ.get("UNIMEM_EXAMPLE_MODEL", "gpt-4o-mini"), openai_client=AsyncOpenAI()
    )
    agent = Agent(name="nurse", instructions="Answer in one sentence.", model=model)
    url = os.environ.get("UNIMEM_DATABASE_URL", "sqlite:///data/unimem.db")
    async with UnifiedMemoryService.from_url(url) as memory:
        session = UnimemSession(memory, "agents-example", user_id="alice")
        for question in ("How should I take metformin?", "What did I just ask you?"):
            result = Runner.run_streamed(agent, question, session=session)
            async for _ in result.stream_events():
                pass
            print(f"user: {question}\nassistant: {result.final_output}")
        history = await memory.get_history("agents-example", user_id="alice")
        print(f"unimem holds {len(history)} entries of this conversation")


if __name__ == "__main__":
    asyncio.run(main())
