"""A running summary far behind the history window catches up in bounded steps.

Per build at most ``CATCH_UP_PER_CALL`` older entries are read and summarized,
so the cost of one ``build_llm_context`` call does not grow with the history;
the summary stays contiguous and keeps the facts of the oldest turns.
"""

from __future__ import annotations

from typing import Any

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context import session_context as pipeline
from unimem.context.budget import DEGRADATION_SUMMARY_BEHIND

STEP = 20


async def _long_session(memory: UnifiedMemoryService, session_id: str, turns: int) -> None:
    await memory.update_settings({"anonymize_phi": False}, user_id=None)
    await memory.add_entry(session_id, MemoryEntry(role="user", content="I'm allergic to latex."))
    for i in range(turns):
        await memory.add_entry(
            session_id,
            MemoryEntry(
                role="user" if i % 2 else "assistant",
                content=f"Turn {i}: we chatted about the garden and the neighbours today.",
            ),
        )


def _spy_reads(memory: UnifiedMemoryService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``limit`` of every ``get_entries`` call the context pipeline makes."""
    limits: list[int] = []
    real = memory.store.get_entries

    async def get_entries(session_id: str, **kw: Any) -> list[MemoryEntry]:
        limits.append(kw["limit"])
        return await real(session_id, **kw)

    monkeypatch.setattr(memory.store, "get_entries", get_entries)
    return limits


async def test_lagging_summary_advances_at_most_one_step_per_call(
    service: UnifiedMemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "CATCH_UP_PER_CALL", STEP)
    await _long_session(service, "s1", 300)
    limits = _spy_reads(service, monkeypatch)

    first = await service.build_llm_context("s1", "hi", max_tokens=300)
    assert DEGRADATION_SUMMARY_BEHIND in first.degradations
    summary = await service.store.get_summary("s1")
    assert summary is not None and summary.from_seq == 1 and summary.to_seq == STEP
    assert "latex" in summary.text and "latex" in str(list(first))
    assert limits and max(limits) <= STEP

    previous = summary.to_seq
    for _ in range(40):
        context = await service.build_llm_context("s1", "hi", max_tokens=300)
        summary = await service.store.get_summary("s1")
        assert summary is not None and summary.from_seq == 1
        assert previous <= summary.to_seq <= previous + STEP
        previous = summary.to_seq
        if DEGRADATION_SUMMARY_BEHIND not in context.degradations:
            break
    else:
        pytest.fail("the summary never caught up with the history window")
    assert max(limits) <= STEP
    assert "latex" in summary.text and "latex" in str(list(context))
    assert "Turn 299:" in str(list(context))  # the newest turns stay verbatim


async def test_caught_up_summary_reads_nothing_extra(
    service: UnifiedMemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "CATCH_UP_PER_CALL", STEP)
    await _long_session(service, "s1", 300)
    for _ in range(40):
        context = await service.build_llm_context("s1", "hi", max_tokens=300)
        if DEGRADATION_SUMMARY_BEHIND not in context.degradations:
            break
    limits = _spy_reads(service, monkeypatch)
    await service.add_entry("s1", MemoryEntry(role="user", content="My MRI is on June 4."))
    context = await service.build_llm_context("s1", "hi", max_tokens=300)
    assert DEGRADATION_SUMMARY_BEHIND not in context.degradations
    assert limits == []  # the window alone holds everything the summary lacks
