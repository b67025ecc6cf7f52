"""Dense recall inside ``build_llm_context``: the question's embedding is made
once per text, a failure or a late answer is a degradation of the context
(keyword recall goes on), and the mode used stays in the block's header."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from unimem import UnifiedMemoryService
from unimem.embeddings import EmbeddingError, EmbedKind, normalized
from unimem.embeddings.cache import QueryEmbeddings


class _Words:
    """A deterministic embedder: each word a fixed direction; counts its calls and
    may answer questions late or fail."""

    model = "words"
    dim = 64

    def __init__(self, *, query_delay: float = 0.0, fail: bool = False) -> None:
        self.query_delay = query_delay
        self.fail = fail
        self.asked: list[str] = []

    async def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> npt.NDArray[np.float32]:
        if kind == "query":
            self.asked.extend(texts)
            await asyncio.sleep(self.query_delay)
            if self.fail:
                raise EmbeddingError("the embeddings endpoint failed: connection refused")
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                rows[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        return normalized(rows)

    async def aclose(self) -> None:
        return None


async def _service(embedder: _Words) -> UnifiedMemoryService:
    svc = UnifiedMemoryService(embedder=embedder)
    await svc.setup()
    said = {"role": "user", "content": "the nephrologist changed my metformin dose"}
    await svc.add_entry("old", said, user_id="a")
    await svc.recall_index.drain()
    return svc


QUESTION = "what did the nephrologist say about my metformin dose"


async def test_a_failed_embedder_is_a_degradation_of_the_context():
    svc = await _service(_Words(fail=True))
    try:
        context = await svc.build_llm_context("new", QUESTION, user_id="a")
    finally:
        await svc.aclose()
    assert "recall_dense_unavailable" in context.degradations
    assert "Relevant earlier conversations (keyword)" in str(context)
    assert "the nephrologist changed my metformin dose" in str(context)


async def test_an_embedding_later_than_the_voice_budget_leaves_keyword_recall():
    svc = await _service(_Words(query_delay=2.0))
    try:
        context = await svc.build_llm_context("new", QUESTION, user_id="a", budget_ms=300)
    finally:
        await svc.aclose()
    assert "recall_dense_timeout" in context.degradations
    assert "recall_timeout" not in context.degradations  # the keyword part arrived
    assert "Relevant earlier conversations (keyword)" in str(context)
    assert "the nephrologist changed my metformin dose" in str(context)


async def test_without_a_budget_the_context_waits_for_the_embedding():
    svc = await _service(_Words(query_delay=0.2))
    try:
        context = await svc.build_llm_context("new", QUESTION, user_id="a")
    finally:
        await svc.aclose()
    assert not [d for d in context.degradations if d.startswith("recall")]
    assert "Relevant earlier conversations (keyword + dense)" in str(context)


async def test_a_question_asked_again_is_embedded_once():
    embedder = _Words()
    svc = await _service(embedder)
    try:
        await svc.build_llm_context("new", QUESTION, user_id="a")
        await svc.build_llm_context("new2", QUESTION, user_id="a")
        await svc.search_memory(QUESTION, user_id="a")
    finally:
        await svc.aclose()
    assert embedder.asked == [QUESTION]


async def test_embeddings_on_their_way_are_shared_and_failures_are_not_kept():
    embedder = _Words(query_delay=0.05)
    cache = QueryEmbeddings(embedder, size=2)
    first, second = await asyncio.gather(cache.get("a b"), cache.get("a b"))
    assert embedder.asked == ["a b"] and np.array_equal(first, second)
    await cache.get("c d")
    await cache.get("e f")  # the oldest, "a b", is dropped
    await cache.get("a b")
    assert embedder.asked == ["a b", "c d", "e f", "a b"]
    embedder.fail = True
    with pytest.raises(EmbeddingError):
        await cache.get("g h")
    embedder.fail = False
    await cache.get("g h")  # tried again, not answered by the failure
    assert embedder.asked[-2:] == ["g h", "g h"]


async def test_a_caller_that_stops_waiting_leaves_the_embedding_for_the_next():
    embedder = _Words(query_delay=0.2)
    cache = QueryEmbeddings(embedder)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(cache.get("late question"), 0.01)
    await cache.get("late question")
    assert embedder.asked == ["late question"]


async def test_one_users_question_embedding_is_not_served_to_another():
    embedder = _Words()
    cache = QueryEmbeddings(embedder)
    mine = await cache.get("a b", owner="alice")
    theirs = await cache.get("a b", owner="bob")
    assert embedder.asked == ["a b", "a b"] and np.array_equal(mine, theirs)
    await cache.get("a b", owner="alice")
    cache.forget("alice")
    await cache.get("a b", owner="alice")
    await cache.get("a b", owner="bob")
    assert embedder.asked == ["a b", "a b", "a b"]


@pytest.mark.parametrize("scope", ["session", "day", "all"])
async def test_deleting_a_users_data_drops_their_vectors_and_questions_from_memory(scope):
    embedder = _Words()
    svc = await _service(embedder)
    try:
        await svc.search_memory(QUESTION, user_id="a")
        vectors = svc._recall.vectors
        assert vectors.nbytes > 0
        session = {"session_id": "old"} if scope == "session" else {}
        await svc.delete_user_memory(scope, user_id="a", **session)
        assert vectors.nbytes == 0
        await svc.search_memory(QUESTION, user_id="a")
    finally:
        await svc.aclose()
    assert embedder.asked == [QUESTION, QUESTION]  # asked again: the kept one was dropped
