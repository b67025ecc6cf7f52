"""The service is one façade: every public method is reached under its own
name, documented, and awaitable (but ``use_encryption``, which only swaps keys)."""

from __future__ import annotations

import inspect

import pytest

from unimem import UnifiedMemoryService

PUBLIC = sorted(
    name
    for name, member in inspect.getmembers(UnifiedMemoryService, inspect.isfunction)
    if not name.startswith("_")
)


def test_the_facade_has_the_operations_of_the_spec() -> None:
    assert {"add_entry", "get_context", "handle_mode_switch", "build_llm_context"} <= set(PUBLIC)
    assert len(PUBLIC) >= 36


@pytest.mark.parametrize("name", PUBLIC)
def test_each_method_is_named_documented_and_awaitable(name: str) -> None:
    method = getattr(UnifiedMemoryService, name)
    assert method.__name__ == name
    assert method.__qualname__ == f"UnifiedMemoryService.{name}"
    doc = inspect.getdoc(method) or ""
    assert doc and not doc.startswith("See "), doc
    assert inspect.iscoroutinefunction(method) is (name != "use_encryption")


async def test_a_forwarded_method_runs_the_part_behind_it() -> None:
    async with UnifiedMemoryService() as service:
        stored = await service.add_entry("s1", {"role": "user", "content": "hi"}, user_id="u1")
        history = await service.get_history("s1", user_id="u1")
        assert [e.id for e in history] == [stored.id]
        assert await service.get_history("s1", user_id="u2") == []
