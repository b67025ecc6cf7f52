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
round trip. The screen, the read and the extractor run while the turn
commits (:meth:`FactUpdates.read_ahead`), so they add no round trip of their
own to the write; a change is stored, as before, before ``add_entry`` returns.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from datetime import datetime

from ..facts import FactChange, TurnReading
from ..facts.cues import base_language
from ..ids import new_id
from ..models import Fact, MemoryEntry, MemorySettings, Role, utcnow
from ..stores.contracts import DurableStore, FactsChanged
from .core import ServiceCore
from .fact_extractors import FactExtractor, FactTurn, RuleFactExtractor, ScreeningExtractor
from .keyed_locks import KeyedLocks
from .privacy import PrivacyOperations

__all__ = ["FactUpdates", "ReadAhead"]

logger = logging.getLogger("unimem.facts")

#: Times a turn's facts are found again when another write changed them meanwhile.
FACT_ATTEMPTS = 3
#: Attributes that are a fact's clinical content, kept as found when the turn
#: is redacted: when an appointment or a procedure is, when a symptom began.
#: A date alone names no one; the turn's own text keeps its tokens.
CLINICAL_TIMES = ("date", "time", "when", "onset", "onset_date")

#: The owner's current facts as read, and the changes a turn makes to them.
_Found = tuple[list[Fact], list[FactChange]]


class ReadAhead:
    """A turn's facts being found while the turn commits
    (:meth:`FactUpdates.read_ahead`): the screen, the read of the owner's
    current facts and the extractor's changes. :meth:`FactUpdates.observe_turn`
    uses them when the turn was stored as it was found with; :meth:`discard`
    drops them otherwise."""

    __slots__ = ("applied", "found", "language", "reading")

    def __init__(self, language: str | None, applied: int) -> None:
        #: the language the turn was read in (its stored one, unless the store changed it)
        self.language = language
        #: :attr:`FactUpdates._applied` when the read started
        self.applied = applied
        #: the screen's reading of the turn
        self.reading: TurnReading | None = None
        #: the current facts and the changes; ``None``: screened out
        self.found: asyncio.Future[_Found | None] | None = None

    def discard(self) -> None:
        """Stop the work (its failure, if it failed, is not reported)."""
        if self.found is None:
            return
        if not self.found.done():
            self.found.cancel()
        elif not self.found.cancelled():
            self.found.exception()


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

    def _observed(self, entry: MemoryEntry, settings: MemorySettings) -> bool:
        return (
            self._core.config.auto_facts
            and entry.role in (Role.USER, Role.ASSISTANT)
            and settings.enabled
            and bool(entry.content.strip())  # not stored (voice transcripts off)
        )

    def _screen(self, written: MemoryEntry, entry: MemoryEntry) -> tuple[bool, TurnReading | None]:
        """Whether the owner's facts must be read for the turn, and its reading.
        Raises what the extractor's screen raises."""
        if not isinstance(self.extractor, ScreeningExtractor):
            return True, None
        language = entry.language or entry.detected_language
        reading = self.extractor.screen(written.content, entry.role.value, language)
        return reading is not None, reading

    def read_ahead(
        self, written: MemoryEntry, entry: MemoryEntry, settings: MemorySettings
    ) -> ReadAhead | None:
        """Start finding the facts of a turn about to be stored (``entry``: as
        it will be stored, before the store numbers it), to run while the turn
        commits; ``None`` when its update will read under the owner's lock
        anyway. Pass the result to :meth:`observe_turn`, or discard it."""
        if (
            self.extractor.background
            or entry.user_id in self._locks
            or not self._observed(entry, settings)
        ):
            return None
        ahead = ReadAhead(entry.language or entry.detected_language, self._applied)
        ahead.found = asyncio.ensure_future(self._found_ahead(written, entry, ahead))
        return ahead

    async def _found_ahead(
        self, written: MemoryEntry, entry: MemoryEntry, ahead: ReadAhead
    ) -> _Found | None:
        needed, ahead.reading = self._screen(written, entry)
        return await self._find(written, entry, ahead.reading) if needed else None

    async def observe_turn(
        self,
        written: MemoryEntry,
        stored: MemoryEntry,
        settings: MemorySettings,
        ahead: ReadAhead | None = None,
    ) -> None:
        """Update the owner's facts from a turn just stored (``written``: the
        turn as written, ``stored``: as stored; ``ahead``: what
        :meth:`read_ahead` started), or hand it to the background when the
        extractor runs there. Never raises."""
        if ahead is not None and (
            ahead.found is None
            or not self._observed(stored, settings)
            or base_language(ahead.language)
            != base_language(stored.language or stored.detected_language)
        ):
            ahead.discard()  # the store gave the turn another language: find again
            ahead = None
        if ahead is not None:
            await self._observe_safely(written, stored, settings, None, ahead)
            return
        if not self._observed(stored, settings):
            return
        reading: TurnReading | None = None
        if isinstance(self.extractor, ScreeningExtractor):
            try:
                needed, reading = self._screen(written, stored)
            except Exception as exc:  # a fact must never cost the turn
                logger.warning(
                    "facts of an entry not read (%s); the entry is stored", type(exc).__name__
                )
                return
            if not needed:
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
        ahead: ReadAhead | None = None,
    ) -> None:
        started = time.perf_counter()
        owner = stored.user_id
        try:
            first: _Found | None = None
            seen = self._applied
            if ahead is not None and ahead.found is not None:
                # found while the turn committed, with the facts as they were
                # before any update that started since (``seen``): _observe
                # finds them again when one was stored meanwhile
                seen = ahead.applied
                try:
                    found = await ahead.found
                except Exception as exc:  # a fact must never cost the turn
                    logger.warning(
                        "facts of an entry not read (%s); the entry is stored", type(exc).__name__
                    )
                    return
                reading = ahead.reading
                if found is None:
                    self.screened_out += 1
                    return
                first = found
                if not first[1]:
                    return
            elif owner not in self._locks and not self.extractor.background:
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

    async def _current(self, user_id: str) -> list[Fact]:
        """The owner's current facts, as stored now."""
        store = await self._core.ready_store()
        return [f for f in await store.list_facts(user_id) if f.current]

    async def _find(
        self, written: MemoryEntry, stored: MemoryEntry, reading: TurnReading | None
    ) -> _Found:
        """The owner's current facts and the changes the turn makes to them."""
        current = await self._current(stored.user_id)
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
