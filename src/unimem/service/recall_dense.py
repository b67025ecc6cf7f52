"""Dense recall: the entries nearest the question's embedding, kept only when related.

The question is embedded through :class:`~unimem.embeddings.cache.QueryEmbeddings`
(the same question of the same user is embedded once, and the context
builder starts it early, beside its store reads); the user's vectors are
searched in the per-user matrices of
:class:`~unimem.service.vector_cache.VectorCache` (exactly, or through an
approximate index for a large history), or scanned by the store. Only
user turns with at least two search terms are candidates, and only those
within :data:`DENSE_MARGIN` of the best cosine and above the floor.

When the embedder fails, or the embedding does not arrive before the
caller's deadline (a voice turn's budget), the search goes on by keyword and
says so: ``recall_dense_unavailable`` / ``recall_dense_timeout``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace

from ..embeddings.base import Embedder, EmbeddingError
from ..embeddings.cache import QueryEmbeddings
from ..recall.hits import SearchFilters
from ..recall.search_terms import terms as search_terms
from ..stores.search import KeywordHit
from ..stores.vectors import VectorStore
from .vector_cache import VectorCache

__all__ = [
    "DEGRADATION_DENSE_TIMEOUT",
    "DEGRADATION_DENSE_UNAVAILABLE",
    "DENSE_CANDIDATES",
    "DENSE_FLOOR",
    "DENSE_MARGIN",
    "DENSE_MIN_TERMS",
    "DENSE_ROLES",
    "DenseRecall",
    "DenseResult",
]

log = logging.getLogger(__name__)

#: A dense candidate counts only if its cosine is at least this far from the
#: best one's: below it, a turn is "nearest" without being related.
DENSE_MARGIN = 0.03
#: Below this cosine a turn is not related to the question at all (the built-in
#: model's cosines of off-topic questions to a user's turns reach 0.75-0.84, of
#: related ones 0.86-0.92; 0.80 lost nothing on the tune split, 0.84 lost one
#: turn): with nothing above it, dense recall adds nothing. Another model needs
#: its own value (``embedder.min_similarity``). A related pair can sit just
#: above it ("renal doctor visit" to a nephrologist's turn: 0.819) and a word
#: never said just below or above (0.803), hence the one-word rule of the search.
DENSE_FLOOR = 0.80
#: How many dense candidates take part in the fusion.
DENSE_CANDIDATES = 30
#: A dense candidate needs at least this many search terms: "ok", "got it"
#: are near every short question in embedding space and say nothing.
DENSE_MIN_TERMS = 2
#: Whose turns the dense ranking reads unless the search names roles: the
#: assistant's replies are mostly acknowledgements whose embeddings sit near
#: any conversational question (keyword search still reads them).
DENSE_ROLES = ("user",)
#: The embedder failed: the search went on by keyword.
DEGRADATION_DENSE_UNAVAILABLE = "recall_dense_unavailable"
#: The question's embedding did not arrive inside the turn's time budget: the
#: search went on by keyword.
DEGRADATION_DENSE_TIMEOUT = "recall_dense_timeout"


@dataclass(slots=True)
class DenseResult:
    """The related entries, best first (``None``: dense recall could not run),
    and what went wrong."""

    hits: list[KeywordHit] | None = None
    degradations: list[str] = field(default_factory=list)


def _floor(embedder: Embedder) -> float:
    """The embedder's own similarity floor, or :data:`DENSE_FLOOR` for the built-in one."""
    own = getattr(embedder, "min_similarity", None)
    return float(own) if isinstance(own, int | float) else DENSE_FLOOR


class DenseRecall:
    """Embeds questions (cached) and finds a user's nearest entries.

    Args:
        embedder: the model.
        vectors: the users' vector matrices (``None``: the store scans).
    """

    def __init__(self, embedder: Embedder, vectors: VectorCache | None = None) -> None:
        self.embedder = embedder
        self.queries = QueryEmbeddings(embedder)
        self.vectors = vectors

    def prefetch(self, user_id: str, text: str) -> None:
        """Start embedding ``user_id``'s ``text`` now; the search that asks for it awaits it."""
        self.queries.start(text, owner=user_id)

    async def search(
        self,
        store: VectorStore,
        user_id: str,
        text: str,
        filters: SearchFilters,
        *,
        deadline: float | None = None,
    ) -> DenseResult:
        """The user's entries related to ``text``; ``deadline`` (``time.perf_counter``
        seconds) is when the embedding must have arrived."""
        try:
            if deadline is None:
                asked = await self.queries.get(text, owner=user_id)
            else:
                left = max(0.0, deadline - time.perf_counter())
                asked = await asyncio.wait_for(self.queries.get(text, owner=user_id), left)
        except EmbeddingError as exc:
            log.warning("dense recall unavailable (%s); searching by keyword", exc)
            return DenseResult(degradations=[DEGRADATION_DENSE_UNAVAILABLE])
        except TimeoutError:
            return DenseResult(degradations=[DEGRADATION_DENSE_TIMEOUT])
        if filters.roles is None:
            filters = replace(filters, roles=DENSE_ROLES)
        model = self.embedder.model
        if self.vectors is not None:
            found = await self.vectors.search(
                store, user_id, asked, model=model, filters=filters, limit=DENSE_CANDIDATES
            )
        else:
            found = await store.vector_search(
                user_id, asked, model=model, filters=filters, limit=DENSE_CANDIDATES
            )
        near = [f for f in found if len(search_terms(f.entry.content)) >= DENSE_MIN_TERMS]
        floor = max(near[0].score - DENSE_MARGIN if near else 0.0, _floor(self.embedder))
        return DenseResult(hits=[f for f in near if f.score >= floor])
