"""Long-term recall: finding what a user said in earlier sessions (pure core).

:mod:`~unimem.recall.search_terms` makes search terms for every script,
:mod:`~unimem.recall.query` reads the question with the conversation so far,
:mod:`~unimem.recall.index` ranks by BM25 in memory,
:mod:`~unimem.recall.rank` fuses rankings and spreads them over sessions,
:mod:`~unimem.recall.block` writes the dated block of the LLM context.
Nothing here does I/O; the service searches the stores.
"""

from .block import format_hit, recall_block, select_hits
from .hits import MemoryHit, SearchFilters
from .query import RecallQuery, build_query
from .search_terms import terms, terms_text

__all__ = [
    "MemoryHit",
    "RecallQuery",
    "SearchFilters",
    "build_query",
    "format_hit",
    "recall_block",
    "select_hits",
    "terms",
    "terms_text",
]
