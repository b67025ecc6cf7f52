"""Dense recall on every backend: entries indexed off the write path within a
bounded lag, found by meaning with no shared word, isolated per user, and
gone with their entries (deletion, retention, export)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conftest import BACKENDS
from store_rows import holding
from unimem import MemoryEntry, MemorySettings, UnifiedMemoryService
from unimem.embeddings import LocalEmbedder
from unimem.recall.hits import SearchFilters
from unimem.stores.vectors import vector_store_of

NOW = datetime.now(UTC)
#: Longest the background indexer may take to embed a handful of entries here.
LAG_LIMIT_S = 30.0


@pytest.fixture(scope="session")
def embedder() -> LocalEmbedder:
    """The built-in model (the test extra installs it; loaded once)."""
    return LocalEmbedder()


@pytest.fixture(params=sorted(BACKENDS))
async def dense(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: LocalEmbedder
) -> AsyncIterator[UnifiedMemoryService]:
    """A set-up service with dense recall on each backend, isolated to this test."""
    plain = await BACKENDS[request.param](tmp_path, request.node.nodeid)
    svc = UnifiedMemoryService(plain.store, config=plain.config, embedder=embedder)
    async with svc:
        yield svc


async def say(
    svc: UnifiedMemoryService,
    sid: str,
    text: str,
    uid: str = "alice",
    *,
    at: datetime | None = None,
    language: str = "en",
) -> MemoryEntry:
    entry = MemoryEntry(
        role="user", content=text, language=language, detected_language=language, timestamp=at
    )
    return await svc.add_entry(sid, entry, user_id=uid)


async def indexed(svc: UnifiedMemoryService) -> None:
    """Wait for the background indexer (not drained by hand): the lag is bounded."""
    for _ in range(int(LAG_LIMIT_S / 0.05)):
        if not (await svc.recall_index.status()).pending:
            return
        await asyncio.sleep(0.05)
    pytest.fail(f"entries still waiting for their vectors after {LAG_LIMIT_S} s")


async def stored_vectors(svc: UnifiedMemoryService, uid: str = "alice") -> list[dict[str, object]]:
    exported = await svc.export_user_memory(user_id=uid)
    vectors: list[dict[str, object]] = exported["vectors"]
    return vectors


async def test_entries_are_indexed_in_the_background_and_found_by_meaning(dense):
    await say(dense, "s1", "The nephrologist said my kidneys are working well")
    await say(dense, "s2", "We repainted the kitchen yellow over the weekend")
    await say(dense, "s3", "My grandson scored two goals at his football match")
    status = await dense.recall_index.status()
    assert status.mode == "hybrid" and status.model == "multilingual-e5-small-q4"
    assert status.running
    await indexed(dense)
    status = await dense.recall_index.status()
    assert status.pending == 0 and status.oldest_pending_seconds is None
    # no word in common with the turn: found by meaning only
    hits = await dense.search_memory("renal doctor visit", user_id="alice", k=3)
    assert hits[0].snippet.startswith("The nephrologist") and hits[0].matched_by == ["dense"]


async def test_a_question_in_another_language_finds_the_turn(dense):
    await say(dense, "s1", "I saw the cardiologist about my blood pressure pills")
    await say(dense, "s2", "the garden needs watering every evening")
    await indexed(dense)
    hits = await dense.search_memory("¿cuándo vi al médico del corazón?", user_id="alice", k=2)
    assert hits[0].snippet.startswith("I saw the cardiologist")


async def test_a_turn_is_found_by_keyword_before_it_is_indexed(dense):
    await dense.recall_index.stop()  # hold the queue: the write path does not wait for it
    await say(dense, "s1", "metformin 500 mg twice a day")
    assert (await dense.recall_index.status()).pending == 1
    [hit] = await dense.search_memory("metformin", user_id="alice", kinds=["entry"])
    assert hit.matched_by == ["keyword"]
    await dense.recall_index.drain()
    [hit] = await dense.search_memory("metformin", user_id="alice", kinds=["entry"])
    assert hit.matched_by == ["keyword", "dense"]


async def test_one_users_vectors_never_answer_another(dense):
    await say(dense, "s1", "The nephrologist said my kidneys are working well", uid="alice")
    await say(dense, "s2", "my favourite colour is blue", uid="bob")
    await indexed(dense)
    hits = await dense.search_memory("renal doctor visit", user_id="bob", k=10)
    assert all(h.session_id == "s2" for h in hits)
    vectors = vector_store_of(dense.store)
    assert vectors is not None
    [asked] = await LocalEmbedder().embed(["kidneys"], kind="query")
    found = await vectors.vector_search(
        "bob", asked, model="multilingual-e5-small-q4", filters=SearchFilters(), limit=10
    )
    assert [h.entry.user_id for h in found] == ["bob"]
    assert [v["session_id"] for v in await stored_vectors(dense, "bob")] == ["s2"]


async def test_the_export_holds_each_entry_vector(dense):
    first = await say(dense, "s1", "my knee hurts when I climb stairs")
    await indexed(dense)
    [row] = await stored_vectors(dense)
    assert row["session_id"] == "s1" and row["seq"] == first.seq
    assert row["model"] == "multilingual-e5-small-q4"
    assert len(base64.b64decode(str(row["vector"]))) == 384 * 4


@pytest.mark.parametrize("scope", ["session", "day", "all"])
async def test_deleting_memory_deletes_the_vectors_and_the_queue(dense, scope):
    await say(dense, "s1", "The nephrologist said my kidneys are working well")
    await say(dense, "s2", "my physiotherapist wants me to walk daily")
    await indexed(dense)
    await dense.recall_index.stop()
    await say(dense, "s1", "a turn still waiting for its vector")
    kw = {"session_id": "s1"} if scope == "session" else {}
    await dense.delete_user_memory(scope, user_id="alice", **kw)
    left = await stored_vectors(dense)
    assert [v["session_id"] for v in left] == ([] if scope != "session" else ["s2"])
    assert (await dense.recall_index.status()).pending == 0
    hits = await dense.search_memory("renal doctor visit", user_id="alice", k=10)
    assert all(h.session_id != "s1" for h in hits)
    if scope == "all":  # not even the count of her deleted vectors names her
        assert await holding(dense.store, "alice") <= {"settings", "audit"}


async def test_deleting_one_entry_deletes_its_vector(dense):
    gone = await say(dense, "s1", "The nephrologist said my kidneys are working well")
    await say(dense, "s1", "my physiotherapist wants me to walk daily")
    await indexed(dense)
    assert await dense.delete_entry("s1", gone.id, user_id="alice")
    assert [v["seq"] for v in await stored_vectors(dense)] == [gone.seq + 1]


async def test_the_retention_sweep_deletes_expired_vectors(dense):
    await dense.update_settings({"retention_days": 30}, user_id="alice")
    await say(dense, "old", "the nephrologist visit", at=NOW - timedelta(days=40))
    await say(dense, "new", "the physiotherapist visit")
    await indexed(dense)
    assert len(await stored_vectors(dense)) == 2
    await dense.sweep_retention()
    assert [v["session_id"] for v in await stored_vectors(dense)] == ["new"]


async def test_cross_session_off_searches_only_the_named_session(dense):
    await say(dense, "s1", "The nephrologist said my kidneys are working well")
    await say(dense, "s2", "my physiotherapist wants me to walk daily")
    await dense.update_settings(MemorySettings(cross_session=False), user_id="alice")
    await indexed(dense)
    assert await dense.search_memory("renal doctor visit", user_id="alice") == []
    hits = await dense.search_memory("renal doctor visit", user_id="alice", session_id="s2")
    assert {h.session_id for h in hits} == {"s2"}


async def test_memory_off_indexes_nothing(dense):
    await dense.update_settings(MemorySettings(enabled=False), user_id="alice")
    await say(dense, "s1", "The nephrologist said my kidneys are working well")
    status = await dense.recall_index.status()
    assert status.pending == 0
    await dense.recall_index.drain()
    assert await stored_vectors(dense) == []


async def test_a_single_word_never_said_finds_nothing(dense):
    # one word's embedding lands near some turn (cosine 0.80 here for a turn of
    # placeholder tokens); alone, it only reorders what the word itself finds
    await say(dense, "s1", "My SSN is [SSN_1], call me on [PHONE_1]")
    await say(dense, "s2", "The nephrologist said my kidneys are working well")
    await indexed(dense)
    assert await dense.search_memory("zzyzx", user_id="alice", kinds=["entry"]) == []
    [hit] = await dense.search_memory("nephrologist", user_id="alice", kinds=["entry"])
    assert hit.matched_by == ["keyword", "dense"]
