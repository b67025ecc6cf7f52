"""Many clients at once against one ``unimem serve``: 16 clients on one session
and 16 on sessions of their own, mixing voice and text and two languages. No
entry is lost or stored twice, seq has no gaps, every response's seq is the
stored one, and the switch events are exactly those the entries imply."""

from __future__ import annotations

import asyncio
import itertools
import random
from pathlib import Path
from typing import Any

import pytest
from reliability_support import (
    KINDS,
    WriteLog,
    assert_timeline,
    history,
    post_entry,
    served,
    stores,
)

pytestmark = [pytest.mark.slow]

SHARED_CLIENTS = 16
OWN_CLIENTS = 16
PER_CLIENT = 12


@pytest.mark.parametrize("kind", KINDS)
async def test_concurrent_clients_keep_one_consistent_timeline(kind: str, tmp_path: Path):
    async with stores(kind, tmp_path) as store, served(store, tmp_path) as server:
        sessions = ["shared"] * SHARED_CLIENTS + [f"own-{i}" for i in range(OWN_CLIENTS)]
        logs = [WriteLog() for _ in sessions]

        async def client_work(session_id: str, log: WriteLog, seed: int) -> None:
            rng = random.Random(seed)
            async with server.client() as client:
                for _ in range(PER_CLIENT):
                    resp = await post_entry(
                        client,
                        session_id,
                        log,
                        mode=rng.choice(["voice", "text"]),
                        language=rng.choice(["en", "es"]),
                    )
                    assert resp.status_code == 201, (resp.status_code, resp.text[:300])
                    if rng.random() < 0.3:  # readers interleaved with the writers
                        ctx = await client.get(f"/v1/sessions/{session_id}/context")
                        assert ctx.status_code == 200

        await asyncio.gather(
            *(
                client_work(sid, log, i)
                for i, (sid, log) in enumerate(zip(sessions, logs, strict=True))
            )
        )

        async with server.client() as client:
            for session_id in sorted(set(sessions)):
                entries = await history(client, session_id)
                assert_timeline(entries)
                mine = [log for sid, log in zip(sessions, logs, strict=True) if sid == session_id]
                acked = {eid: seq for log in mine for eid, seq in log.acked.items()}
                assert {e["id"]: e["seq"] for e in entries} == acked
                resp = await client.get(f"/v1/sessions/{session_id}/events", params={"limit": 1000})
                assert resp.status_code == 200
                _assert_events_match(entries, resp.json())
                ctx = (await client.get(f"/v1/sessions/{session_id}/context")).json()
                assert [m["id"] for m in ctx["messages"]] == [e["id"] for e in entries[-10:]]
                assert ctx["current_mode"] == entries[-1]["mode"]
                assert ctx["current_language"] == entries[-1]["language"]


def _assert_events_match(entries: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """Replaying the entries in seq order gives exactly the recorded switch events."""
    expected: set[tuple[str, str, str, str]] = set()
    for before, entry in itertools.pairwise(entries):
        if entry["mode"] != before["mode"]:
            expected.add(("mode_switch", entry["id"], before["mode"], entry["mode"]))
        if entry["language"] != before["language"]:
            expected.add(("language_switch", entry["id"], before["language"], entry["language"]))
            assert entry["language_switched"] is True
    recorded: list[tuple[str, str, str, str]] = []
    for event in events:
        data = event["data"]
        if event["event_type"] == "mode_switch":
            recorded.append(("mode_switch", data["entry_id"], data["from_mode"], data["to_mode"]))
        elif event["event_type"] == "language_switch":
            recorded.append(
                ("language_switch", data["entry_id"], data["from_language"], data["to_language"])
            )
    assert len(recorded) == len(set(recorded)), "a switch event is recorded twice"
    assert set(recorded) == expected
    event_seqs = [e["seq"] for e in events]
    assert event_seqs == list(range(1, len(events) + 1)), "event seq has gaps"
