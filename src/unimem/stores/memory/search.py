"""The in-process store's keyword index: a BM25 :class:`~unimem.recall.index.TermIndex`
per user, kept in step with the entries by the store."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ...models import MemoryEntry
from ...recall.hits import SearchFilters
from ...recall.index import TermIndex
from ..search import KeywordHit

__all__ = ["EntryIndex"]

_Key = tuple[str, str]  # (session_id, entry id)
_ALL = SearchFilters()


class EntryIndex:
    """Every user's entries, searchable by keyword."""

    def __init__(self) -> None:
        self._users: dict[str, TermIndex[_Key]] = {}
        self._entries: dict[str, dict[_Key, MemoryEntry]] = {}

    def add(self, entry: MemoryEntry) -> None:
        """Index (or index again) ``entry``."""
        key = (entry.session_id, entry.id)
        self._users.setdefault(entry.user_id, TermIndex()).add(key, entry.content)
        self._entries.setdefault(entry.user_id, {})[key] = entry

    def remove(self, entries: Iterable[MemoryEntry]) -> None:
        """Forget ``entries``."""
        for entry in entries:
            key = (entry.session_id, entry.id)
            index = self._users.get(entry.user_id)
            if index is None:
                continue
            index.remove(key)
            self._entries[entry.user_id].pop(key, None)
            if not len(index):
                del self._users[entry.user_id]
                del self._entries[entry.user_id]

    def search(
        self, user_id: str, terms: Sequence[str], *, filters: SearchFilters, limit: int
    ) -> list[KeywordHit]:
        """The user's best entries for ``terms`` (BM25)."""
        index = self._users.get(user_id)
        if index is None:
            return []
        entries = self._entries[user_id]
        left_out = filters.exclude_session

        def other_session(key: _Key) -> bool:  # the key says it: no entry to read
            return key[0] != left_out

        def passes(key: _Key) -> bool:
            return filters.accepts(entries[key])

        accept: Callable[[_Key], bool] | None = passes
        if filters == _ALL:
            accept = None
        elif filters == SearchFilters(exclude_session=left_out):  # the context's recall
            accept = other_session
        found = index.search(terms, limit=limit, accept=accept)
        return [KeywordHit(entries[key], score) for key, score in found]
