"""A LangChain chain whose chat history lives in unimem.

    python examples/langchain_history.py

The chat model here is LangChain's ``FakeListChatModel`` so the example runs
offline; put any LangChain chat model in its place. Each call's history is
read from unimem, and each new exchange is stored there.
"""

from __future__ import annotations

import asyncio
import os

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage

from unimem import UnifiedMemoryService
from unimem.integrations.langchain import UnimemChatMessageHistory


async def main() -> None:
    model = FakeListChatModel(responses=["Take it with meals.", "You asked about metformin."])
    url = os.environ.get("UNIMEM_DATABASE_URL", "sqlite:///data/unimem.db")
    async with UnifiedMemoryService.from_url(url) as memory:
        history = UnimemChatMessageHistory(memory, "langchain-example", user_id="alice")
        for question in ("How should I take metformin?", "What did I just ask you?"):
            asked = HumanMessage(content=question)
            answer = await model.ainvoke([*await history.aget_messages(), asked])
            await history.aadd_messages([asked, answer])
            print(f"user: {question}\nassistant: {answer.content}")
        print(f"unimem holds {len(await history.aget_messages())} messages of this conversation")


if __name__ == "__main__":
    asyncio.run(main())
