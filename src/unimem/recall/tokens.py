"""Keyword search terms under the module name they were first published at.

The terms are made in :mod:`unimem.recall.search_terms` (not to be confused
with :mod:`unimem.context.tokens`, which counts LLM tokens); this module keeps
``from unimem.recall.tokens import terms`` working.
"""

from __future__ import annotations

from .search_terms import STOPWORDS, is_cjk, terms, terms_text

__all__ = ["STOPWORDS", "is_cjk", "terms", "terms_text"]
