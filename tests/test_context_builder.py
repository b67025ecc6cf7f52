"""build_llm_context on every backend: layout, limits, summaries, the voice budget."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest

from unimem import InvalidInputError, MemoryEntry, UnifiedMemoryService
from unimem.context import LLMContext, count_tokens
from unimem.context.budget import passage_limit
from unimem.stores import InMemoryStore

PASSAGES = [
    {"content": f"Passage {i}: metformin lowers hepatic glucose output.", "source": f"doc-{i}"}
    for i in range(1, 7)
]


async def _talk(memory: UnifiedMemoryService, session_id: str, turns: int, **kw: object) -> None:
    for i in range(turns):
        await memory.add_entry(
            session_id,
            MemoryEntry(
                role="user" if i % 2 == 0 else "assistant",
                content=f"Turn {i}: we chatted about the garden and the neighbours today.",
                **kw,  # type: ignore[arg-type]
            ),
        )


async def test_layout_system_facts_history_query(service):
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="Hello, I have a cough.", language="en")
    )
    await service.add_entry("s1", MemoryEntry(role="assistant", content="Sorry to hear that."))
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="¿Puedo tomar jarabe?", language="es", mode="voice")
    )
    await service.add_fact("Allergic to penicillin", user_id=None, kind="allergy")
    context = await service.build_llm_context("s1", "¿Y la dosis?", rag_results=PASSAGES[:2])
    assert isinstance(context, LLMContext) and isinstance(context, list)
    system = context[0]["content"]
    assert context[0]["role"] == "system"
    assert "Spanish (es)" in system
    assert "English (en) → Spanish (es)" in system  # the recent language switch
    assert "read aloud" in system  # the answer to a voice turn must be speakable
    assert "[1] Passage 1: metformin" in system and "(source: doc-1)" in system
    assert "[2] Passage 2" in system
    assert context[1] == {
        "role": "system",
        "content": "Pinned facts about the user (true until removed):\n"
        "- [allergy] Allergic to penicillin\n"
        "- Symptom: cough",  # found in the first turn; allergies come first
    }
    assert [m["role"] for m in context[2:]] == ["user", "assistant", "user", "user"]
    assert context[-2]["content"] == "[now speaking] ¿Puedo tomar jarabe?"
    assert context[-1] == {"role": "user", "content": "¿Y la dosis?"}
    assert context.token_count == count_tokens(list(context), "gpt-4o")
    assert context.degradations == [] and context.summary_used is False


async def test_the_stored_current_turn_is_not_repeated(service):
    await service.add_entry("s1", MemoryEntry(role="user", content="What is metformin for?"))
    context = await service.build_llm_context("s1", "What is metformin for?")
    assert [m["content"] for m in context if m["role"] == "user"] == ["What is metformin for?"]


async def test_unknown_session_gives_system_and_query(service):
    context = await service.build_llm_context("nobody-here", "hi")
    assert [m["role"] for m in context] == ["system", "user"]


@pytest.mark.parametrize("max_tokens", [60, 150, 400, 900])
async def test_never_exceeds_max_tokens(service, max_tokens):
    await _talk(service, "s1", 50)
    await service.add_fact("Takes metformin 500 mg twice a day", user_id=None, kind="medication")
    for model in ("gpt-4o", "gpt-4", "claude-3-5-sonnet"):
        context = await service.build_llm_context(
            "s1", "What now?", rag_results=PASSAGES, max_tokens=max_tokens, model=model
        )
        assert count_tokens(list(context), model) == context.token_count <= max_tokens
        assert context[-1] == {"role": "user", "content": "What now?"}


async def test_older_turns_are_summarized_incrementally_and_cached(service):
    await service.update_settings({"anonymize_phi": False}, user_id=None)
    await service.add_entry("s1", MemoryEntry(role="user", content="I'm allergic to latex."))
    await _talk(service, "s1", 40)
    first = await service.build_llm_context("s1", "hi", max_tokens=300)
    assert first.summary_used and "latex" in first[1]["content"]
    cached = await service.store.get_summary("s1")
    assert cached is not None and cached.from_seq == 1
    await service.add_entry("s1", MemoryEntry(role="user", content="My MRI is on June 4."))
    await _talk(service, "s1", 40)
    await service.build_llm_context("s1", "hi", max_tokens=300)
    extended = await service.store.get_summary("s1")
    assert extended is not None
    assert extended.from_seq == 1 and extended.to_seq > cached.to_seq
    assert "latex" in extended.text and "MRI is on June 4" in extended.text


async def test_deleting_entries_invalidates_the_summary(service):
    await service.update_settings({"anonymize_phi": False}, user_id=None)
    await service.add_entry("s1", MemoryEntry(role="user", content="I'm allergic to latex."))
    await _talk(service, "s1", 40)
    await service.build_llm_context("s1", "hi", max_tokens=300)
    assert await service.store.get_summary("s1") is not None
    await service.delete_user_memory("day", user_id=None)
    assert await service.store.get_summary("s1") is None
    await service.add_entry("s1b", MemoryEntry(role="user", content="Hello again."))
    context = await service.build_llm_context("s1", "hi", max_tokens=300)
    assert "latex" not in str(list(context))


@pytest.mark.parametrize(("budget_ms", "kept"), [(650, 5), (500, 3), (300, 1)])
async def test_budget_cuts_passages_and_records_it(service, budget_ms, kept):
    await _talk(service, "s1", 6, mode="voice")
    context = await service.build_llm_context(
        "s1", "What about metformin?", rag_results=PASSAGES, budget_ms=budget_ms
    )
    system = context[0]["content"]
    assert f"[{kept}] Passage {kept}" in system and f"[{kept + 1}]" not in system
    assert context.degradations == [f"rag_passages_cut_to_{kept}"]
    history = await service.get_history("s1")
    last_user = [e for e in history if e.role == "user"][-1]
    assert last_user.degradations == [f"rag_passages_cut_to_{kept}"]
    assert all(e.degradations == [] for e in history if e.id != last_user.id)


def test_passage_limit_thresholds():
    assert [passage_limit(ms) for ms in (700, 601, 600, 401, 400, 0)] == [5, 5, 3, 3, 1, 1]


class SlowStore(InMemoryStore):
    """An in-process store whose context read takes 2 s (a struggling database)."""

    async def load_context(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        await asyncio.sleep(2)
        return await super().load_context(*args, **kwargs)


async def test_budget_is_never_blocked_past():
    async with UnifiedMemoryService(SlowStore()) as memory:
        await _talk(memory, "s1", 4)
        started = time.perf_counter()
        context = await memory.build_llm_context("s1", "quick?", budget_ms=100)
        assert time.perf_counter() - started < 1.0
        assert "memory_timeout" in context.degradations
        assert context[-1] == {"role": "user", "content": "quick?"}


async def test_turns_are_ordered_by_turn_start_across_a_barge_in(service):
    """The assistant answer began before the user's barge-in but was stored after it."""
    t0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="Tell me about statins.", mode="voice", timestamp=t0)
    )
    await service.add_entry(
        "s1",
        MemoryEntry(
            role="user", content="Wait, what about side effects?", mode="voice",
            timestamp=t0 + timedelta(seconds=9),
        ),
    )  # fmt: skip
    answer = await service.add_entry(
        "s1",
        MemoryEntry(
            role="assistant", content="Statins lower cholesterol. They work by blocking HMG-CoA.",
            mode="voice", timestamp=t0 + timedelta(seconds=3),
        ),
    )  # fmt: skip
    await service.mark_interrupted("s1", answer.id, "Statins lower cholesterol.")
    context = await service.build_llm_context("s1", "So?", max_tokens=2000)
    history = [m["content"] for m in context[1:-1]]
    assert history == [
        "Tell me about statins.",
        "Statins lower cholesterol. [interrupted: the user heard only this much]",
        "Wait, what about side effects?",
    ]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_tokens": "many"}, "max_tokens"),
        ({"budget_ms": -1}, "budget_ms"),
        ({"model": ""}, "model"),
        ({"rag_results": "a passage"}, "rag_results"),
    ],
)
async def test_bad_arguments_are_refused(service, kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        await service.build_llm_context("s1", "hi", **kwargs)
    assert info.value.field == field


async def test_another_users_session_builds_as_one_never_used(service):
    await service.add_entry("s1", MemoryEntry(role="user", content="mine"), user_id="alice")
    theirs = await service.build_llm_context("s1", "hi", user_id="mallory")
    never = await service.build_llm_context("s1-unused", "hi", user_id="mallory")
    assert list(theirs) == list(never) and "mine" not in str(list(theirs))
