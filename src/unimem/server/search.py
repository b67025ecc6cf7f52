"""``GET /v1/me/search``: search the caller's memory across every session."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel

from ..recall.hits import MemoryHit
from ..service.recall import DEFAULT_K, MAX_K, MAX_QUERY_BYTES
from .deps import ServiceDep, UserDep
from .error_handlers import ERROR_RESPONSES
from .sessions import ID_PATTERN

__all__ = ["SearchResults", "router"]

router = APIRouter(prefix="/v1/me", tags=["me"], responses=ERROR_RESPONSES)


class SearchResults(BaseModel):
    """The hits of a search of the caller's memory, best first."""

    hits: list[MemoryHit]


@router.get(
    "/search",
    operation_id="search_memory",
    response_model=SearchResults,
    summary="Search the caller's memory",
)
async def search_memory(
    service: ServiceDep,
    user: UserDep,
    q: Annotated[str, Query(min_length=1, max_length=MAX_QUERY_BYTES, description="what to find")],
    k: Annotated[int, Query(ge=1, le=MAX_K)] = DEFAULT_K,
    session_id: Annotated[
        str | None, Query(min_length=1, max_length=128, pattern=ID_PATTERN)
    ] = None,
    since: Annotated[datetime | None, Query(description="only turns from this time")] = None,
    until: Annotated[datetime | None, Query(description="only turns before this time")] = None,
    modes: Annotated[list[Literal["voice", "text"]] | None, Query()] = None,
    languages: Annotated[list[str] | None, Query(description="ISO 639 codes")] = None,
    kinds: Annotated[list[Literal["entry", "fact", "summary"]] | None, Query()] = None,
) -> SearchResults:
    """The turns of every session, the pinned facts and the sessions' summaries
    that match ``q``, best first (``modes``, ``languages`` and ``kinds`` may be
    repeated). A ``session_id`` of another user, like one never used,
    finds nothing (200, no hits)."""
    hits = await service.search_memory(
        q,
        user_id=user,
        k=k,
        session_id=session_id,
        since=since,
        until=until,
        modes=modes,
        languages=languages,
        kinds=kinds,
    )
    return SearchResults(hits=hits)
