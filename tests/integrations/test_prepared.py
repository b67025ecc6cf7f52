"""ContextPreparer: a turn's context built ahead of its LLM call, one build per session."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from late_memory import LateContext

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.integrations.prepared import DEGRADATION_CONTEXT_NOT_READY, ContextPreparer


def _preparer(memory: Any, wait_ms: float | None = None) -> ContextPreparer:
    def spawn(work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return asyncio.get_running_loop().create_task(work)

    return ContextPreparer(
        memory, max_tokens=500, model="gpt-4o", budget_ms=None, wait_ms=wait_ms, spawn=spawn
    )


async def _seeded(memory: UnifiedMemoryService, session_id: str) -> None:
    await memory.add_fact("allergic to penicillin", user_id="alice")
    entry = MemoryEntry(role="user", content="I have a cough", mode="voice")
    await memory.add_entry(session_id, entry, user_id="alice")


async def test_a_build_for_newer_words_stops_the_older_one(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The transcript grows while a build for its first words runs: that build
    stops, and the turn gets the context built for its whole text."""
    await _seeded(adapter_memory, "visit-grow")
    late = LateContext(adapter_memory, slow={"I take": 30.0})
    preparer = _preparer(late)
    preparer.start("visit-grow", "alice", "I take")
    await asyncio.sleep(0)  # the first build is under way
    preparer.start("visit-grow", "alice", "I take metformin")

    assert await asyncio.wait_for(late.cancelled.get(), timeout=10) == "I take"
    turn = await preparer.take("visit-grow", "alice", "I take metformin")
    assert turn.degradations == []
    assert turn.block is not None and "allergic to penicillin" in turn.block
    assert late.built == [("alice", "I take"), ("alice", "I take metformin")]
    await preparer.aclose()
    assert late.cancelled.empty()  # nothing else was stopped


async def test_a_turn_for_other_words_stops_the_build_it_does_not_use(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The LLM call comes with other words than the build started from: that
    build stops and one for the call's words runs."""
    await _seeded(adapter_memory, "visit-other")
    late = LateContext(adapter_memory, slow={"I take": 30.0})
    preparer = _preparer(late)
    preparer.start("visit-other", "alice", "I take")
    await asyncio.sleep(0)

    turn = await preparer.take("visit-other", "alice", "I take insulin")
    assert await asyncio.wait_for(late.cancelled.get(), timeout=10) == "I take"
    assert turn.block is not None and "allergic to penicillin" in turn.block
    await preparer.aclose()


async def test_builds_of_other_sessions_go_on(adapter_memory: UnifiedMemoryService) -> None:
    """A build for one session leaves another session's build running, and each
    turn gets its own."""
    await _seeded(adapter_memory, "visit-a")
    await _seeded(adapter_memory, "visit-b")
    late = LateContext(adapter_memory, slow={"about a": 0.05})
    preparer = _preparer(late)
    preparer.start("visit-a", "alice", "about a")
    preparer.start("visit-b", "alice", "about b")

    b = await preparer.take("visit-b", "alice", "about b")
    assert b.degradations == [] and b.block is not None
    assert late.cancelled.empty()
    await preparer.aclose()


async def test_a_late_turn_records_it_and_the_next_build_stops_its_refresh(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """A turn past its wait goes on without recall and records it; the refresh
    built for it afterwards stops when the next turn's build starts."""
    await _seeded(adapter_memory, "visit-late")
    late = LateContext(adapter_memory, slow={"since yesterday": 30.0})
    preparer = _preparer(late, wait_ms=0.0)
    preparer.start("visit-late", "alice", "since yesterday")
    await asyncio.sleep(0)

    turn = await preparer.take("visit-late", "alice", "since yesterday")
    assert turn.degradations == [DEGRADATION_CONTEXT_NOT_READY]
    assert await asyncio.wait_for(late.cancelled.get(), timeout=10) == "since yesterday"
    assert late.started.get_nowait() == "since yesterday"
    # the refresh waits REFRESH_AFTER_S, then builds (and is held 30 s) again
    assert await asyncio.wait_for(late.started.get(), timeout=10) == "since yesterday"
    preparer.start("visit-late", "alice", "and a fever")
    assert await asyncio.wait_for(late.cancelled.get(), timeout=10) == "since yesterday"
    nxt = await preparer.take("visit-late", "alice", "and a fever", wait_ms=None)
    assert nxt.degradations == [] and nxt.block is not None
    await preparer.aclose()


async def test_the_transcript_coming_after_the_llm_call_keeps_the_calls_build(
    adapter_memory: UnifiedMemoryService,
) -> None:
    """The final transcript is seen only once the LLM call has started the
    build for the turn (it came as the turn ended): the call's build goes on
    and is used; no second one starts."""
    await _seeded(adapter_memory, "visit-after")
    late = LateContext(adapter_memory, slow={"I take metformin": 0.05})
    preparer = _preparer(late)
    taking = asyncio.create_task(preparer.take("visit-after", "alice", "I take metformin"))
    assert await asyncio.wait_for(late.started.get(), timeout=10) == "I take metformin"
    preparer.start("visit-after", "alice", "I take metformin")

    turn = await taking
    assert turn.degradations == []
    assert turn.block is not None and "allergic to penicillin" in turn.block
    assert late.built == [("alice", "I take metformin")]
    assert late.cancelled.empty()
    await preparer.aclose()
