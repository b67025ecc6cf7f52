"""A LangGraph graph whose long-term memory lives in unimem.

    python examples/langgraph_store.py

The graph is compiled with ``store=UnimemStore(memory, user_in_namespace=True)``:
each node reaches the store with ``get_store()``, the first label of every
namespace is the user, so one graph serves many users and none sees another's
items. The first thread keeps what the user said; a later thread (another
conversation) finds it by its words, and so do the user's pinned facts.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import TypedDict

from langgraph.config import get_config, get_store
from langgraph.graph import END, START, StateGraph

from unimem import UnifiedMemoryService
from unimem.integrations.langgraph import UnimemStore


class State(TypedDict):
    said: str
    known: list[str]


async def recall(state: State) -> dict[str, list[str]]:
    user = get_config()["configurable"]["user_id"]
    found = await get_store().asearch((user,), query=state["said"], limit=3)
    return {"known": [item.value["text"] for item in found if item.score]}


async def remember(state: State) -> dict[str, list[str]]:
    user = get_config()["configurable"]["user_id"]
    await get_store().aput((user, "memories"), uuid.uuid4().hex, {"text": state["said"]})
    return {}


async def main() -> None:
    url = os.environ.get("UNIMEM_DATABASE_URL", "sqlite:///data/unimem.db")
    async with UnifiedMemoryService.from_url(url) as memory:
        await memory.add_fact("allergic to penicillin", "allergy", user_id="alice")
        graph = (
            StateGraph(State)
            .add_node("recall", recall)
            .add_node("remember", remember)
            .add_edge(START, "recall")
            .add_edge("recall", "remember")
            .add_edge("remember", END)
            .compile(store=UnimemStore(memory, user_in_namespace=True))
        )
        alice = {"configurable": {"user_id": "alice"}}
        await graph.ainvoke({"said": "I take metformin with breakfast", "known": []}, alice)
        later = await graph.ainvoke({"said": "When do I take metformin?", "known": []}, alice)
        print(f"alice, later: {later['known']}")
        allergy = await graph.ainvoke({"said": "Is penicillin safe for me?", "known": []}, alice)
        print(f"alice, allergy: {allergy['known']}")
        bob = await graph.ainvoke(
            {"said": "When do I take metformin?", "known": []}, {"configurable": {"user_id": "bob"}}
        )
        print(f"bob: {bob['known']}")


if __name__ == "__main__":
    asyncio.run(main())
