"""Re-identification: the PHI vault's values put back for the owner, and for
an LLM the deployment trusts.

With ``anonymize_phi`` on, stored text holds tokens (``[PERSON_1]``) and the
vault their values, sealed (:mod:`unimem.privacy.vault`). A reveal reads the
values of the sessions involved, of the owner only (the vault is per user, so
another user's tokens never open), puts them back and records one ``reveal``
audit record (what was revealed and how many values, never the values). No
keyring: no vault, the text stays as stored.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..models import Fact, MemoryEntry, utcnow
from ..privacy.deletion import audit_record
from ..privacy.vault import (
    StreamReveal,
    VaultValues,
    open_values,
    reveal_entry,
    reveal_fact,
    reveal_text,
    reveal_value,
)
from ..validation import check_id
from .core import ServiceCore

__all__ = ["OwnerValues", "RevealOperations"]


class OwnerValues:
    """The vault values of one user's sessions, loaded on demand, and how many
    were put back (the :class:`~unimem.context.session_context.Reidentifier`
    a context is built with).

    Args:
        core: the shared state (store and keyring).
        user_id: whose values; only theirs are ever read.
    """

    def __init__(self, core: ServiceCore, user_id: str) -> None:
        self._core = core
        self.user_id = user_id
        self._values: dict[str, VaultValues] = {}
        self._loaded: set[str] = set()
        #: tokens replaced so far
        self.count = 0

    async def load(self, session_ids: Collection[str | None]) -> None:
        """Read the values of these sessions (those not read yet)."""
        keyring = self._core.keyring
        wanted = {sid for sid in session_ids if sid is not None} - self._loaded
        if keyring is None or not wanted:
            return
        rows = await (await self._core.ready_store()).get_vault_values(self.user_id, list(wanted))
        self._values.update(open_values(keyring, rows))
        self._loaded |= wanted

    def pending(self, session_id: str, values: Mapping[str, str]) -> None:
        """Values this process holds for tokens not yet in the vault (a query
        just redacted): used where the vault has none."""
        if values:
            self._values[session_id] = {**values, **self._values.get(session_id, {})}

    def of(self, session_id: str | None) -> Mapping[str, str]:
        """Token -> value of one session (empty when none are kept)."""
        return self._values.get(session_id, {}) if session_id is not None else {}

    def text(self, session_id: str | None, text: str) -> str:
        """``text`` of that session re-identified."""
        shown, count = reveal_text(text, self.of(session_id))
        self.count += count
        return shown

    def value(self, session_id: str | None, value: Any) -> Any:
        """Every string of ``value`` (lists, dicts) of that session re-identified."""
        shown, count = reveal_value(value, self.of(session_id))
        self.count += count
        return shown

    def entry(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` re-identified."""
        shown, count = reveal_entry(entry, self.of(entry.session_id))
        self.count += count
        return shown

    def fact(self, fact: Fact) -> Fact:
        """``fact`` re-identified (the tokens of the session it was found in)."""
        shown, count = reveal_fact(fact, self.of(fact.session_id))
        self.count += count
        return shown

    def stream(self, session_id: str) -> StreamReveal:
        """A re-identifier of text streamed in pieces in that session."""
        return StreamReveal(self.of(session_id))


class RevealOperations:
    """The reveals of :class:`unimem.UnifiedMemoryService`: the owner's view of
    their history, facts, export and streamed replies."""

    def __init__(self, core: ServiceCore) -> None:
        self._core = core

    async def reveal_stream(self, session_id: str, *, user_id: str | None = None) -> StreamReveal:
        """A re-identifier for text streamed into the session (an LLM's reply
        written with PHI tokens, shown to the owner with their values):
        ``feed(piece)`` gives what can be shown of each piece, ``flush()`` the
        rest, ``entry(stored)`` a stored entry of the session re-identified.
        It reveals nothing for another user's session (nor without encryption
        keys: no vault). The caller audits what it showed (``count``).

        Raises:
            InvalidInputError: a malformed id.
        """
        check_id(session_id, "session_id")
        state = await self._core.owned_session(session_id, None)
        if state is None or (user_id is not None and state.user_id != user_id):
            return StreamReveal({})
        values = self.owner(state.user_id)
        await values.load([session_id])
        return values.stream(session_id)

    def owner(self, user_id: str) -> OwnerValues:
        """An empty set of the owner's values, to load and reveal with."""
        return OwnerValues(self._core, user_id)

    async def audit(
        self,
        values: OwnerValues,
        view: str,
        *,
        actor: str | None = None,
        session_id: str | None = None,
    ) -> None:
        """Record that ``values.count`` values of the owner were revealed in ``view``
        (``history``, ``export``, ``llm_context``, ``reply``); nothing when none were."""
        if not values.count:
            return
        details = {"view": view, "values": values.count}
        record = audit_record(
            "reveal",
            values.user_id,
            actor=actor,
            now=utcnow(),
            session_id=session_id,
            details=details,
        )
        await (await self._core.ready_store()).append_audit(record)

    async def entries(
        self, entries: list[MemoryEntry], session_id: str, *, actor: str | None = None
    ) -> list[MemoryEntry]:
        """A session's entries (all of one owner) re-identified for that owner."""
        if not entries or self._core.keyring is None:
            return entries
        values = self.owner(entries[0].user_id)
        await values.load([session_id])
        shown = [values.entry(e) for e in entries]
        await self.audit(values, "history", actor=actor, session_id=session_id)
        return shown

    async def facts(
        self, facts: list[Fact], user_id: str, *, actor: str | None = None
    ) -> list[Fact]:
        """The user's facts re-identified, each with its own session's values."""
        if not facts or self._core.keyring is None:
            return facts
        values = self.owner(user_id)
        await values.load({f.session_id for f in facts})
        shown = [values.fact(f) for f in facts]
        await self.audit(values, "facts", actor=actor)
        return shown

    async def export(
        self, data: dict[str, Any], user_id: str, *, actor: str | None = None
    ) -> dict[str, Any]:
        """An export of ``user_id``'s memory with every stored text re-identified."""
        if self._core.keyring is None:
            return data
        values = self.owner(user_id)
        await values.load([s["session_id"] for s in data.get("sessions", [])])
        out = dict(data)
        for kind in ("entries", "events", "summaries", "facts"):
            out[kind] = [
                {
                    key: item
                    if key in ("id", "session_id", "user_id")
                    else values.value(record.get("session_id"), item)
                    for key, item in record.items()
                }
                for record in data.get(kind, [])
            ]
        await self.audit(values, "export", actor=actor)
        return out
