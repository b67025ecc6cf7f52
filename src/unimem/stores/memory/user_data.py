"""The in-process store's user data: settings, pinned facts and session summaries."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ...models import Fact, MemorySettings, Summary
from ..contracts import FactsChanged

__all__ = ["MemoryUserData"]


class MemoryUserData:
    """Mixin of :class:`~unimem.stores.memory.InMemoryStore`: a user's settings,
    facts and summaries, in dicts."""

    if TYPE_CHECKING:  # provided by InMemoryStore
        _settings: dict[str, MemorySettings]
        _facts: dict[str, dict[str, Fact]]
        _summaries: dict[str, Summary]

    async def get_settings(self, user_id: str) -> MemorySettings | None:
        return self._settings.get(user_id)

    async def put_settings(self, user_id: str, settings: MemorySettings) -> None:
        self._settings[user_id] = settings

    async def put_fact(self, fact: Fact) -> Fact:
        self._facts.setdefault(fact.user_id, {})[fact.id] = fact
        return fact

    async def list_facts(self, user_id: str) -> list[Fact]:
        facts = list(self._facts.get(user_id, {}).values())
        facts.sort(key=lambda f: (f.created_at is None, f.created_at, f.id))
        return facts

    async def delete_fact(self, user_id: str, fact_id: str) -> bool:
        return self._facts.get(user_id, {}).pop(fact_id, None) is not None

    async def apply_fact_changes(
        self,
        user_id: str,
        *,
        close: Sequence[tuple[str, datetime]] = (),
        add: Sequence[Fact] = (),
    ) -> list[Fact]:
        # checked in full before anything changes, with no await in between
        facts = self._facts.setdefault(user_id, {})
        for fact_id, _ in close:
            held = facts.get(fact_id)
            if held is None or not held.current:
                raise FactsChanged(fact_id)
        for fact_id, valid_to in close:
            facts[fact_id] = facts[fact_id].model_copy(update={"valid_to": valid_to})
        for fact in add:
            facts[fact.id] = fact
        return list(add)

    async def put_summary(self, summary: Summary) -> None:
        self._summaries[summary.session_id] = summary

    async def get_summary(self, session_id: str) -> Summary | None:
        return self._summaries.get(session_id)
