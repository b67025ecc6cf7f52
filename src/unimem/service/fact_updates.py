"""Each stored user or assistant turn updates its owner's facts (allergies,
medicines, conditions, appointments, names, ...).

A turn's facts are found in its text as written (held in memory only), then
stored as the turn is: redacted with the turn's own tokens when
``anonymize_phi`` is on (but for the dates and times that are a fact's
content, :data:`CLINICAL_TIMES`), nothing when memory is off. A change or a correction
closes the old fact and adds the new one in one store operation, so the
history is kept and a superseded value is never current. Finding facts never
fails a write: an error is logged (its type, never the text) and the turn
stays stored.

The owner's current facts are read from the store only for a turn the
extractor may find something in: the rules screen each turn first, from its
text alone (:func:`unimem.facts.read_turn`), and a turn of chatter costs no
round trip.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from datetime import datetime

from ..facts import FactChange, TurnReading
from ..ids import new_id
from ..models import Fact, MemoryEntry, MemorySettings, Role, utcnow
from ..stores.contracts import DurableStore, FactsChanged
from .core import ServiceCore
from .fact_extractors import FactExtractor, FactTurn, RuleFactExtractor, ScreeningExtractor
from .keyed_locks import KeyedLocks
from .privacy import PrivacyOperations

__all__ = ["FactUpdates"]

logger = logging.getLogger("unimem.facts")

#: Times a turn's facts are found again when another write changed them meanwhile.
FACT_ATTEMPTS = 3
#: Attributes that are a fact's clinical content, kept as found when the turn
#: is redacted: when an appointment or a procedure is, when a symptom began.
#: A date alone names no one; the turn's own text keeps its tokens.
CLINICAL_TIMES = ("date", "time", "when", "onset", "onset_date")

#: The owner's current facts as read, and the changes a turn makes to them.
_Found = tuple[list[Fact], list[FactChange]]


class FactUpdates:
    """The facts each stored turn updates.

    Args:
        core: the shared state.
        privacy: the PHI events of tokens the facts add.
        extractor: finds a turn's facts (the offline rules by default).
    """

    def __init__(
        self,
        core: ServiceCore,
        privacy: PrivacyOperations,
        extractor: FactExtractor | None = None,
    ) -> None:
        self._core = core
        self._privacy = privacy
        self.extractor: FactExtractor = extractor or RuleFactExtractor()
        #: One user's turns update their facts one at a time, in order.
        self._locks: KeyedLocks[str] = KeyedLocks()
        self._pending: set[asyncio.Task[None]] = set()
        #: Turns the screen found nothing to look for in (their owner's facts not read).
        self.screened_out = 0
        #: Changes of facts stored by this process (a read made before it no longer holds).
        self._applied = 0

    async def drain(self) -> None:
        """Wait until the facts of every turn handed to the background are stored."""
        while self._pending:
            await asyncio.gather(*self._pending, return_exceptions=True)

    async def observe_turn(
        self, written: MemoryEntry, stored: MemoryEntry, settings: MemorySettings
    ) -> None:
        """Update the owner's facts from a turn just stored (``written``: the
        turn as written, ``stored``: as stored), or hand it to the background
        when the extractor runs there. Never raises."""
        if (
            not self._core.config.auto_facts
            or stored.role not in (Role.USER, Role.ASSISTANT)
            or not settings.enabled
            or not stored.content.strip()  # not stored (voice transcripts off)
        ):
            return
        reading: TurnReading | None = None
        if isinstance(self.extractor, ScreeningExtractor):
            try:
                reading = self.extractor.screen(
                    written.content, stored.role.value, stored.language or stored.detected_language
                )
            except Exception as exc:  # a fact must never cost the turn
                logger.warning(
                    "facts of an entry not read (%s); the entry is stored", type(exc).__name__
                )
                return
            if reading is None:
                self.screened_out += 1
                return
        if self.extractor.background:
            task = asyncio.create_task(self._observe_safely(written, stored, settings, reading))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)
            return
        await self._observe_safely(written, stored, settings, reading)

    async def _observe_safely(
        self,
        written: MemoryEntry,
        stored: MemoryEntry,
        settings: MemorySettings,
        reading: TurnReading | None,
    ) -> None:
        started = time.perf_counter()
        owner = stored.user_id
        try:
            first: _Found | None = None
            seen = self._applied
            if owner not in self._locks and not self.extractor.background:
                # no update of this user's facts runs in this process: read them
                # without waiting; only a turn that changes one takes the lock
                # (one user's many sessions at once do not queue behind it).
                # A background extractor takes the lock first: its turns are
                # not awaited one by one, and the lock keeps them in order.
                first = await self._find(written, stored, reading)
                if not first[1]:
                    return
            async with self._locks.hold(owner):
                await self._observe(written, stored, settings, reading, first, seen)
        except Exception as exc:  # a fact must never cost the turn
            logger.warning(
                "facts of an entry not updated (%s); the entry is stored", type(exc).__name__
            )
        finally:
            logger.debug("facts of a turn: %.2f ms", (time.perf_counter() - started) * 1e3)

    async def _find(
        self, written: MemoryEntry, stored: MemoryEntry, reading: TurnReading | None
    ) -> _Found:
        """The owner's current facts and the changes the turn makes to them."""
        store = await self._core.ready_store()
        current = [f for f in await store.list_facts(stored.user_id) if f.current]
        turn = FactTurn(
            text=written.content,
            stored_text=stored.content,
            role=stored.role.value,
            language=stored.language or stored.detected_language,
            current=current,
            now=stored.timestamp or utcnow(),
            reading=reading,
        )
        return current, await self.extractor.extract(turn)

    async def _observe(
        self,
        written: MemoryEntry,
        stored: MemoryEntry,
        settings: MemorySettings,
        reading: TurnReading | None,
        first: _Found | None,
        seen: int,
    ) -> None:
        """Store the turn's changes (the caller holds the owner's lock). ``first``:
        what a read before the lock found, used when no change of facts was
        stored in this process since (``seen``: :attr:`_applied` then)."""
        store = await self._core.ready_store()
        owner = stored.user_id
        when = stored.timestamp or utcnow()
        for attempt in range(FACT_ATTEMPTS):
            if attempt == 0 and first is not None and self._applied == seen:
                current, changes = first
            else:
                current, changes = await self._find(written, stored, reading)
            if not changes:
                return
            close, add = self._plan(changes, current, stored, when)
            add = await self._redact(add, written.content, settings, store, stored)
            try:
                await store.apply_fact_changes(owner, close=close, add=add)
            except FactsChanged:  # another write changed them meanwhile: again
                continue
            self._applied += 1
            return
        logger.warning("facts of an entry not updated (they kept changing)")

    @staticmethod
    def _plan(
        changes: Sequence[FactChange], current: Sequence[Fact], entry: MemoryEntry, when: datetime
    ) -> tuple[list[tuple[str, datetime]], list[Fact]]:
        ids = {f.id for f in current}
        close: list[tuple[str, datetime]] = []
        add: list[Fact] = []
        for change in changes:
            if change.op in ("supersede", "close"):
                if change.replaces is None or change.replaces not in ids:
                    continue  # names no current fact: nothing to close
                if all(change.replaces != fact_id for fact_id, _ in close):
                    close.append((change.replaces, when))
                if change.op == "close":
                    continue
            add.append(
                Fact(
                    id=new_id(),
                    user_id=entry.user_id,
                    kind=change.kind,
                    key=change.key,
                    value=change.value,
                    attributes=dict(change.attributes),
                    text=change.text,
                    status="corrected" if change.corrected else "reported",
                    session_id=entry.session_id,
                    source_entry_ids=[entry.id],
                    created_at=when,
                    valid_from=when,
                )
            )
        return close, add

    async def _redact(
        self,
        facts: list[Fact],
        written: str,
        settings: MemorySettings,
        store: DurableStore,
        entry: MemoryEntry,
    ) -> list[Fact]:
        """``facts`` as storage may hold them: with the turn's tokens for its PHI."""
        if not settings.anonymize_phi or not facts:
            return facts
        texts: list[str] = []
        for fact in facts:
            texts += [fact.text, fact.value or "", *fact.attributes.values()]
        redacted, tally = await self._core.privacy.redact_derived(
            texts,
            written,
            settings,
            store,
            entry.session_id,
            entry.language or entry.detected_language,
            keep={
                value
                for fact in facts
                for name, value in fact.attributes.items()
                if name in CLINICAL_TIMES and value
            },
        )
        if not tally.total:
            return facts
        if tally.tokens is not None and tally.tokens.added:
            await self._privacy.record_phi(tally, tally.tokens, entry)
        out: list[Fact] = []
        position = 0
        for fact in facts:
            text, value = redacted[position], redacted[position + 1]
            names = list(fact.attributes)
            values = redacted[position + 2 : position + 2 + len(names)]
            position += 2 + len(names)
            update = {"text": text, "attributes": dict(zip(names, values, strict=True))}
            if fact.value is not None:
                update["value"] = value
            out.append(fact.model_copy(update=update))
        return out
