"""The per-user vector matrices of dense recall: the same answers as the store's
exact scan, current with what any process stores or deletes, and bounded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from unimem import MemoryEntry
from unimem.embeddings import normalized
from unimem.ids import new_id
from unimem.recall.hits import SearchFilters
from unimem.recall.vectors import to_bytes
from unimem.service.vector_cache import VectorCache
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.contracts import DurableStore
from unimem.stores.vectors import VectorStore, vector_store_of

MODEL = "test-model"
DIM = 16
USER_TURNS = SearchFilters(roles=["user"])


def _vector(rng: np.random.Generator) -> np.ndarray:
    return normalized(rng.standard_normal(DIM))[0]


async def _fill(store: DurableStore, n: int, rng: np.random.Generator, user: str = "u") -> None:
    for i in range(n):
        role = "user" if i % 3 else "assistant"
        entry = MemoryEntry(
            id=new_id(), role=role, content=f"turn {i} of {user}", timestamp=datetime.now(UTC)
        )
        await store.append_entry(
            entry.model_copy(update={"session_id": f"{user}-s{i % 4}", "user_id": user})
        )
    vectors = vector_store_of(store)
    assert vectors is not None
    pending = await vectors.pending_vectors(10_000)
    await vectors.put_vectors(MODEL, [(p, to_bytes(_vector(rng))) for p in pending])


@pytest.fixture(params=["memory", "sqlite"])
async def store(request: pytest.FixtureRequest, tmp_path: Path):
    made: DurableStore = (
        InMemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "v.db")
    )
    await made.setup()
    yield made
    await made.aclose()


def _keys(hits: list) -> list[tuple[str, int | None]]:
    return [(h.entry.session_id, h.entry.seq) for h in hits]


async def test_the_matrix_answers_as_the_stores_exact_scan(store):
    rng = np.random.default_rng(1)
    await _fill(store, 120, rng)
    await _fill(store, 30, rng, user="other")
    vectors = vector_store_of(store)
    assert isinstance(vectors, VectorStore)
    cache = VectorCache()
    for filters in (
        USER_TURNS,
        SearchFilters(),
        SearchFilters(exclude_session="u-s1", roles=["user"]),
    ):
        for _ in range(5):
            query = _vector(rng)
            exact = await vectors.vector_search("u", query, model=MODEL, filters=filters, limit=10)
            cached = await cache.search(store, "u", query, model=MODEL, filters=filters, limit=10)
            assert _keys(cached) == _keys(exact)
            assert [h.score for h in cached] == pytest.approx([h.score for h in exact], abs=1e-5)
            assert len(cached) == 10
            assert all(h.entry.user_id == "u" for h in cached)
    assert cache.nbytes > 0


async def test_vectors_stored_after_a_search_are_found_by_the_next(store):
    rng = np.random.default_rng(2)
    await _fill(store, 20, rng)
    cache = VectorCache()
    query = _vector(rng)
    await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=5)
    said = await store.append_entry(
        MemoryEntry(
            id=new_id(),
            session_id="u-new",
            user_id="u",
            role="user",
            content="the new turn",
            timestamp=datetime.now(UTC),
        )
    )
    vectors = vector_store_of(store)
    assert vectors is not None
    [pending] = await vectors.pending_vectors(10)
    await vectors.put_vectors(MODEL, [(pending, to_bytes(query))])  # the nearest there is
    [first, *_] = await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=5)
    assert first.entry.id == said.entry.id and first.score == pytest.approx(1.0)


async def test_a_turn_deleted_by_another_process_is_never_found_nor_kept(tmp_path: Path):
    rng = np.random.default_rng(3)
    here, there = SQLiteStore(tmp_path / "shared.db"), SQLiteStore(tmp_path / "shared.db")
    await here.setup()
    await there.setup()
    try:
        await _fill(here, 30, rng)
        cache = VectorCache()
        query = _vector(rng)
        found = await cache.search(here, "u", query, model=MODEL, filters=USER_TURNS, limit=3)
        gone = found[0].entry
        await there.delete_user_data("u", scope="session", session_ids=[gone.session_id])
        again = await cache.search(here, "u", query, model=MODEL, filters=USER_TURNS, limit=30)
        assert again and all(h.entry.session_id != gone.session_id for h in again)
        # the matrix was read again: the deleted session's vectors are not in memory
        [matrix] = cache._users.values()
        assert all(sid != gone.session_id for sid, _ in matrix.keys)
    finally:
        await here.aclose()
        await there.aclose()


async def test_the_matrices_stay_within_their_bound(store):
    rng = np.random.default_rng(4)
    for user in ("a", "b", "c"):
        await _fill(store, 40, rng, user=user)
    one_user = 64 * DIM * 4 + 64 * 6  # the smallest matrix: room for 64 rows
    cache = VectorCache(max_bytes=2 * one_user)
    for user in ("a", "b", "c"):
        hits = await cache.search(
            store, user, _vector(rng), model=MODEL, filters=USER_TURNS, limit=3
        )
        assert [h.entry.user_id for h in hits] == [user] * 3
    assert cache.nbytes <= 2 * one_user
    assert [k[0] for k in cache._users] == ["b", "c"]  # the least recently searched went
    tiny = VectorCache(max_bytes=100)  # no matrix fits: the store scans
    hits = await tiny.search(store, "a", _vector(rng), model=MODEL, filters=USER_TURNS, limit=3)
    assert len(hits) == 3 and tiny.nbytes == 0


async def test_a_large_users_index_answers_as_the_exact_scan_and_follows_the_store(store):
    """From ``ann_min_rows`` rows the matrix gets an approximate index, built off
    the event loop; its answers (candidates scored again exactly) match the
    store's scan, rows stored later are added to it, and a deletion rebuilds it."""
    rng = np.random.default_rng(5)
    await _fill(store, 600, rng)
    await _fill(store, 30, rng, user="other")
    vectors = vector_store_of(store)
    assert isinstance(vectors, VectorStore)
    cache = VectorCache(ann_min_rows=100)
    query = _vector(rng)
    await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=10)
    await cache.wait_built()
    for filters in (USER_TURNS, SearchFilters(exclude_session="u-s1", roles=["user"])):
        for _ in range(5):
            query = _vector(rng)
            exact = await vectors.vector_search("u", query, model=MODEL, filters=filters, limit=10)
            cached = await cache.search(store, "u", query, model=MODEL, filters=filters, limit=10)
            assert cache.indexed_rows("u", MODEL) == 600
            assert _keys(cached) == _keys(exact)
            assert all(h.entry.user_id == "u" and h.entry.role == "user" for h in cached)
            if filters.exclude_session is not None:
                assert all(h.entry.session_id != "u-s1" for h in cached)
    await _fill(store, 3, rng)  # three more rows of "u"
    await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=10)
    assert cache.indexed_rows("u", MODEL) == 603
    await store.delete_user_data("u", scope="session", session_ids=["u-s2"])
    found = await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=30)
    assert found and all(h.entry.session_id != "u-s2" for h in found)
    assert cache.indexed_rows("u", MODEL) == 0  # read again; the exact scan answers meanwhile
    await cache.wait_built()
    again = await cache.search(store, "u", query, model=MODEL, filters=USER_TURNS, limit=30)
    assert 0 < cache.indexed_rows("u", MODEL) < 603
    assert _keys(again) == _keys(found)


async def test_forget_drops_the_users_matrices_and_indexes(store):
    rng = np.random.default_rng(6)
    await _fill(store, 200, rng)
    await _fill(store, 40, rng, user="other")
    cache = VectorCache(ann_min_rows=100)
    for user in ("u", "other"):
        await cache.search(store, user, _vector(rng), model=MODEL, filters=USER_TURNS, limit=3)
    await cache.wait_built()
    await cache.search(store, "u", _vector(rng), model=MODEL, filters=USER_TURNS, limit=3)
    assert cache.indexed_rows("u", MODEL) == 200
    cache.forget("u")
    assert [k[0] for k in cache._users] == ["other"] and cache.indexed_rows("u", MODEL) == 0


def test_the_cache_bound_is_a_setting():
    from unimem.config import load_config

    assert load_config({"UNIMEM_VECTOR_CACHE_MB": "64"}).vector_cache_bytes == 64 * 1024 * 1024
    assert load_config({}).vector_cache_bytes == 256 * 1024 * 1024
