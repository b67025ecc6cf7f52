"""Server crash under write load: ``unimem serve`` is killed with SIGKILL at
random moments while clients write over HTTP, and restarted. Every entry the
server acknowledged (201) is there exactly once, in the order it was
acknowledged, with the seq it was acknowledged with; entries whose requests
were cut off are stored exactly once when the client retries them."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from reliability_support import (
    KINDS,
    Served,
    WriteLog,
    assert_timeline,
    history,
    post_entry,
    stores,
    write_until_error,
)

pytestmark = [pytest.mark.slow]

KILLS = 3
#: two writers share a session (concurrent seq assignment), two have their own
WRITERS = ("shared", "shared", "own-a", "own-b")


@pytest.mark.parametrize("kind", KINDS)
async def test_acknowledged_entries_survive_repeated_sigkill(kind: str, tmp_path: Path):
    rng = random.Random()
    logs = [WriteLog() for _ in WRITERS]
    async with stores(kind, tmp_path) as store:
        server = Served(store, tmp_path)
        try:
            for _ in range(KILLS):
                server.start()
                async with server.client() as client:
                    await _retry_in_flight(client, logs)  # what the last crash cut off
                    stop = asyncio.Event()
                    tasks = [
                        asyncio.create_task(write_until_error(client, sid, log, stop))
                        for sid, log in zip(WRITERS, logs, strict=True)
                    ]
                    await asyncio.sleep(rng.uniform(0.4, 1.5))
                    server.kill()  # at a random moment, mid-request for some writers
                    await asyncio.gather(*tasks)
            server.start()
            async with server.client() as client:
                await _check(client, logs, retried=False)
                await _retry_in_flight(client, logs)
                await _check(client, logs, retried=True)
        finally:
            server.stop()
    assert sum(len(log.acked) for log in logs) >= 20, "too little load to prove anything"


async def _retry_in_flight(client, logs: list[WriteLog]) -> None:
    for log in logs:
        for entry_id, session_id in log.in_flight().items():
            for _ in range(2):  # twice: the retry of a retry is a no-op too
                resp = await post_entry(client, session_id, log, entry_id)
                assert resp.status_code == 201, (resp.status_code, resp.text[:300])


async def _check(client, logs: list[WriteLog], *, retried: bool) -> None:
    for session_id in sorted(set(WRITERS)):
        entries = await history(client, session_id)
        assert_timeline(entries)
        stored = {e["id"]: e["seq"] for e in entries}
        mine = [log for sid, log in zip(WRITERS, logs, strict=True) if sid == session_id]
        sent = {eid for log in mine for eid in log.sent}
        assert set(stored) <= sent, "an entry nobody sent"
        for log in mine:
            # acknowledged: present, with the seq the client was told, in ack order
            for entry_id, seq in log.acked.items():
                assert stored.get(entry_id) == seq, "an acknowledged entry is missing or moved"
            seqs = [log.acked[eid] for eid in log.ack_order]
            assert seqs == sorted(seqs)
        if retried:
            assert set(stored) == sent, "a retried entry is missing"
            window = (
                await client.get(f"/v1/sessions/{session_id}/context", params={"max_messages": 10})
            ).json()["messages"]
            assert [m["id"] for m in window] == [e["id"] for e in entries[-10:]]
