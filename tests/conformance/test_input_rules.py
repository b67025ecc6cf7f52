"""The input rules of unimem.validation, through the library on every backend:
ids matched whole, free-form JSON within its depth and size, finite numbers,
non-blank content and no far-future timestamps. Each refusal names the field
and stores nothing."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from unimem import InvalidInputError, MemoryEntry, UnifiedMemoryService
from unimem.config import MemoryConfig
from unimem.validation import MAX_JSON_BYTES, MAX_JSON_DEPTH


def nested(levels: int) -> dict[str, Any]:
    """An object ``levels`` deep (``{"a": 1}`` is one level)."""
    value: dict[str, Any] = {"a": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


async def nothing_stored(service: UnifiedMemoryService, session_id: str = "s1") -> None:
    assert await service.get_history(session_id) == []
    assert await service.get_events(session_id) == []


@pytest.mark.parametrize("bad", ["alice\n", "alice\r\n", " alice", "ali ce", "\nalice"])
async def test_ids_are_matched_whole(service: UnifiedMemoryService, bad: str) -> None:
    entry = {"role": "user", "content": "hi"}
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry(bad, entry)
    assert info.value.field == "session_id"
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry("s1", entry, user_id=bad)
    assert info.value.field == "user_id"
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry("s1", {**entry, "id": bad})
    assert info.value.field == "entry.id"
    for read in (service.get_context, service.get_history, service.get_events):
        with pytest.raises(InvalidInputError):
            await read(bad)
    with pytest.raises(InvalidInputError):
        await service.add_event(bad, "topic_change")
    with pytest.raises(InvalidInputError):
        await service.add_event("s1", "topic_change\n")
    await nothing_stored(service)


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 252, 300, 999, 5000])
@pytest.mark.parametrize("field", ["metadata", "sources"])
async def test_entry_json_deeper_than_the_limit_is_refused(
    service: UnifiedMemoryService, levels: int, field: str
) -> None:
    value = nested(levels) if field == "metadata" else [nested(levels - 1)]
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry("s1", {"role": "user", "content": "hi", field: value})
    assert info.value.field == field and str(MAX_JSON_DEPTH) in str(info.value)
    await nothing_stored(service)


async def test_event_data_deeper_than_the_limit_is_refused(service: UnifiedMemoryService) -> None:
    for levels in (MAX_JSON_DEPTH + 1, 999, 5000):
        with pytest.raises(InvalidInputError) as info:
            await service.add_event("s1", "topic_change", nested(levels))
        assert info.value.field == "data"
    await nothing_stored(service)


async def test_json_at_the_depth_limit_is_stored_and_read_back(
    service: UnifiedMemoryService,
) -> None:
    deep = nested(MAX_JSON_DEPTH)
    stored = await service.add_entry(
        "s1", {"role": "user", "content": "hi", "metadata": deep, "sources": [nested(31)]}
    )
    await service.add_event("s1", "topic_change", deep)
    assert stored.metadata == deep
    assert (await service.get_context("s1")).messages[0].metadata == deep
    assert (await service.get_events("s1", "topic_change"))[0].data == deep
    export = await service.export_user_memory(user_id=stored.user_id)
    assert export["entries"][0]["metadata"] == deep


async def test_json_over_the_size_limit_is_refused(service: UnifiedMemoryService) -> None:
    big = {"k": "x" * MAX_JSON_BYTES}
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry("s1", {"role": "user", "content": "hi", "metadata": big})
    assert info.value.field == "metadata" and str(MAX_JSON_BYTES) in str(info.value)
    with pytest.raises(InvalidInputError) as info:
        await service.add_event("s1", "topic_change", big)
    assert info.value.field == "data"
    await nothing_stored(service)


async def test_rag_results_deeper_than_the_limit_are_refused(
    service: UnifiedMemoryService,
) -> None:
    with pytest.raises(InvalidInputError) as info:
        await service.build_llm_context("s1", "hi", [{"content": "p", "meta": nested(999)}])
    assert info.value.field == "rag_results"


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan, float("1e400")])
async def test_non_finite_numbers_are_refused(service: UnifiedMemoryService, number: float):
    cases: list[tuple[dict[str, Any], str]] = [
        ({"latency_ms": number}, "latency_ms"),
        ({"metadata": {"score": number}}, "metadata"),
        ({"sources": [{"score": [number]}]}, "sources"),
    ]
    for extra, field in cases:
        with pytest.raises(InvalidInputError) as info:
            await service.add_entry("s1", {"role": "user", "content": "hi", **extra})
        assert info.value.field == field
    with pytest.raises(InvalidInputError) as info:
        await service.add_event("s1", "topic_change", {"x": number})
    assert info.value.field == "data"
    with pytest.raises(InvalidInputError) as info:
        await service.build_llm_context("s1", "hi", budget_ms=number)
    assert info.value.field == "budget_ms"
    await nothing_stored(service)


@pytest.mark.parametrize(
    "content", ["", " ", "\n\t ", "\u3000", "\u200b", "\ufeff", "\u2060 \u200b\u200d"]
)
@pytest.mark.parametrize("role", ["user", "assistant", "system"])
async def test_blank_content_is_refused(service: UnifiedMemoryService, content: str, role: str):
    with pytest.raises(InvalidInputError) as info:
        await service.add_entry("s1", {"role": role, "content": content})
    assert info.value.field == "content"
    with pytest.raises(InvalidInputError):
        await service.add_entry("s1", MemoryEntry(role=role, content=content))
    await nothing_stored(service)


async def test_an_interruption_with_nothing_heard_is_recorded(
    service: UnifiedMemoryService,
) -> None:
    """The one empty content: an answer cut off before its first word."""
    answer = await service.add_entry("s1", {"role": "assistant", "content": "Take two daily."})
    cut = await service.mark_interrupted("s1", answer.id, "  ")
    assert cut.content == ""
    assert cut.metadata["generated_text"] == "Take two daily." and cut.metadata["interrupted"]
    built = await service.build_llm_context("s1", "what?")
    assert any("heard nothing" in m["content"] for m in built if m["role"] == "assistant")


async def test_far_future_timestamps_are_refused(service: UnifiedMemoryService) -> None:
    for when in ("2999-01-01T00:00:00Z", datetime.now(UTC) + timedelta(minutes=6)):
        with pytest.raises(InvalidInputError) as info:
            await service.add_entry("s1", {"role": "user", "content": "hi", "timestamp": when})
        assert info.value.field == "timestamp" and "future" in str(info.value)
    await nothing_stored(service)
    soon = datetime.now(UTC) + timedelta(minutes=4)  # within the skew allowed
    stored = await service.add_entry("s1", {"role": "user", "content": "hi", "timestamp": soon})
    assert stored.timestamp == soon


async def test_the_clock_skew_allowed_is_configurable(service: UnifiedMemoryService) -> None:
    strict = UnifiedMemoryService(service.store, config=MemoryConfig(max_clock_skew_seconds=0))
    ahead = datetime.now(UTC) + timedelta(seconds=5)
    with pytest.raises(InvalidInputError) as info:
        await strict.add_entry("s1", {"role": "user", "content": "hi", "timestamp": ahead})
    assert info.value.limit == 0
