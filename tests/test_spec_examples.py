"""The two tests of the design page, exactly as written there."""

import pytest

from unimem import MemoryEntry, UnifiedMemoryService


@pytest.mark.asyncio
async def test_cross_modal_context():
    memory = UnifiedMemoryService()
    await memory.add_entry(
        session_id="s1",
        entry=MemoryEntry(role="user", content="What is diabetes?", mode="voice", language="en"),
    )
    await memory.add_event(
        session_id="s1", event_type="mode_switch", data={"from_mode": "voice", "to_mode": "text"}
    )
    context = await memory.get_context("s1")
    assert len(context.messages) == 1
    assert context.messages[0].content == "What is diabetes?"
    assert context.messages[0].mode == "voice"


@pytest.mark.asyncio
async def test_language_switch_tracking():
    memory = UnifiedMemoryService()
    await memory.track_language_switch(
        session_id="s1", from_language="en", to_language="ar", trigger="auto_detected"
    )
    events = await memory.get_events("s1", "language_switch")
    assert len(events) == 1
    assert events[0]["from_language"] == "en"
    assert events[0]["to_language"] == "ar"
