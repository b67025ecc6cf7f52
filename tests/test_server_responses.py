"""Responses of the library's models carry what pydantic writes of them, with
the headers Starlette gives any JSON response."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from starlette.responses import Response

from unimem.models import MemoryEntry, MemoryEvent, Mode, Role, SessionInfo
from unimem.server.responses import ModelResponse

NOW = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


def _entry(seq: int = 1) -> MemoryEntry:
    return MemoryEntry(
        role=Role.USER,
        content='héllo \u2028 "there"',
        mode=Mode.VOICE,
        language="en",
        session_id="s",
        user_id="u",
        seq=seq,
        timestamp=NOW,
        latency_ms=12.0,
        metadata={"n": 2**60, "x": [1.5, None, "v"]},
    )


def test_a_model_is_written_as_model_dump_json() -> None:
    entry = _entry()
    assert ModelResponse(entry, 201).body == entry.model_dump_json().encode()


def test_a_list_writes_each_item_as_its_own_class() -> None:
    session = SessionInfo(session_id="s", user_id="u", started_at=NOW, last_active_at=NOW)
    event = MemoryEvent(session_id="s", event_type="topic_change", data={"t": 1}, timestamp=NOW)
    items = [_entry(1), _entry(2), session, event]
    expected = b"[" + b",".join(m.model_dump_json().encode() for m in items) + b"]"
    assert ModelResponse(items).body == expected
    assert ModelResponse(tuple(items)).body == expected
    assert ModelResponse([]).body == b"[]"


@pytest.mark.parametrize("status", [200, 201, 204, 304, 404])
def test_headers_are_starlettes_json_headers(status: int) -> None:
    entry = _entry()
    ours = ModelResponse(entry, status)
    theirs = Response(entry.model_dump_json().encode(), status, media_type="application/json")
    assert ours.status_code == status
    assert ours.raw_headers == theirs.raw_headers
