"""``search_memory`` and the recall of ``build_llm_context``: arguments
checked here, the search in :mod:`~unimem.service.recall_search`, dense
recall in :mod:`~unimem.service.recall_dense`.

Privacy: nothing is searched for a user whose memory is off; with
``cross_session`` off only the session named by the search is; a search only
ever reads one user's rows (every store query is by ``user_id``); another
user's session reads as one never used.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from ..context.recall_hook import RecallAnswer, RecallHook
from ..embeddings.base import Embedder
from ..errors import InvalidInputError
from ..models import MemoryEntry, MemorySettings, Mode, utcnow
from ..recall.hits import HIT_KINDS, MemoryHit, SearchFilters
from ..recall.query import build_query, standalone_text
from ..stores.vectors import vector_store_of
from ..validation import check_content_size, check_id, check_range
from .core import ServiceCore
from .recall_dense import DenseRecall
from .recall_search import CANDIDATES, SUMMARY_SESSIONS, RecallResult, search_user_memory
from .vector_cache import VectorCache

__all__ = [
    "CANDIDATES",
    "DEFAULT_K",
    "MAX_K",
    "SUMMARY_SESSIONS",
    "RecallOperations",
    "RecallResult",
    "search_user_memory",
]

#: Hits a search returns by default, and at most.
DEFAULT_K = 10
MAX_K = 100
#: Longest query (bytes of UTF-8).
MAX_QUERY_BYTES = 4096


class RecallOperations:
    """``search_memory`` and the recall of ``build_llm_context``, for
    :class:`unimem.UnifiedMemoryService` (which documents each public method)."""

    def __init__(self, core: ServiceCore, embedder: Embedder | None = None) -> None:
        self._core = core
        #: the model of dense recall (``None``: keyword only)
        self.embedder = embedder
        #: the users' vector matrices and indexes of dense recall
        self.vectors = VectorCache(core.config.vector_cache_bytes)
        self.dense = DenseRecall(embedder, self.vectors) if embedder is not None else None

    def prefetch(self, user_id: str, question: str) -> None:
        """Start embedding ``user_id``'s ``question`` when its dense query does not
        depend on the turns before it (a build's store reads then overlap the
        embedding)."""
        text = standalone_text(question)
        if self.dense is not None and text is not None and vector_store_of(self._core.store):
            self.dense.prefetch(user_id, text)

    def forget(self, user_id: str) -> None:
        """Drop what this process keeps of the user's stored text: the vector
        matrices and indexes, and the embeddings of the user's questions."""
        self.vectors.forget(user_id)
        if self.dense is not None:
            self.dense.queries.forget(user_id)

    async def search_memory(
        self,
        query: str,
        *,
        user_id: str | None = None,
        k: int = DEFAULT_K,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        modes: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[MemoryHit]:
        """See :meth:`unimem.UnifiedMemoryService.search_memory`."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("query must be a non-empty string", field="query")
        check_content_size(query, MAX_QUERY_BYTES, field="query")
        check_range(k, "k", 1, MAX_K)
        owner = self._core.user(user_id)
        filters = SearchFilters(
            session_id=check_id(session_id, "session_id") if session_id is not None else None,
            since=_time(since, "since"),
            until=_time(until, "until"),
            modes=_choices(modes, "modes", [m.value for m in Mode]),
            languages=_languages(languages),
        )
        if filters.since and filters.until and filters.since >= filters.until:
            raise InvalidInputError("since must be before until", field="since")
        chosen = _choices(kinds, "kinds", list(HIT_KINDS))
        if filters.session_id is not None:
            # another user's session reads as one never used: nothing in it
            state = await (await self._core.ready_store()).get_session(filters.session_id)
            if state is None or state.user_id != owner:
                return []
        result = await search_user_memory(
            await self._core.ready_store(),
            user_id=owner,
            query=build_query(query),
            settings=await self._core.settings_of(owner),
            filters=filters,
            kinds=[kind for kind in HIT_KINDS if chosen is None or kind in chosen],
            k=k,
            now=utcnow(),
            dense=self.dense,
        )
        return result.hits

    def context_recall(
        self, user_id: str, session_id: str, limit: int, settings: MemorySettings
    ) -> RecallHook:
        """The recall of ``build_llm_context`` for a session of ``user_id`` (whose
        ``settings`` the caller read): the turns of the user's other sessions (the
        pinned facts are in the context already), up to ``limit`` hits."""

        async def recall(
            query: str, recent: Sequence[str], deadline_ms: float | None
        ) -> RecallAnswer:
            if not settings.cross_session:
                return RecallAnswer()  # the session's own older turns are in its summary
            result = await search_user_memory(
                await self._core.ready_store(),
                user_id=user_id,
                query=build_query(query, recent),
                settings=settings,
                filters=SearchFilters(exclude_session=session_id),
                kinds=("entry",),
                k=limit,
                now=utcnow(),
                dense=self.dense,
                dense_deadline=(
                    time.perf_counter() + deadline_ms / 1e3 if deadline_ms is not None else None
                ),
            )
            return RecallAnswer(result.hits, result.modes, result.degradations)

        return recall


def _time(value: datetime | None, field: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{field} must be a date and time", field=field)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _choices(values: Sequence[str] | None, field: str, allowed: list[str]) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInputError(f"{field} must be a list", field=field)
    bad = [v for v in values if v not in allowed]
    if bad:
        raise InvalidInputError(
            f"{field} may hold {', '.join(allowed)}; got {bad[0]!r}", field=field
        )
    return list(values)


def _languages(values: Sequence[str] | None) -> list[str] | None:
    if values is None:
        return None
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInputError("languages must be a list", field="languages")
    out = []
    for value in values:
        try:
            code = MemoryEntry(role="user", content="", language=value).language
        except InvalidInputError:
            code = None
        if not code:
            raise InvalidInputError(
                f"languages must be ISO 639 codes such as 'en'; got {value!r}", field="languages"
            )
        out.append(code)
    return out
