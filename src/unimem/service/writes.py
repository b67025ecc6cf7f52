"""The service's writes: entries, events, switches, closing and keeping sessions.

An entry is validated and given its ids, its language is decided, the
owner's privacy settings are applied, and only then is it committed to the
durable store and published to live listeners.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInputError, SessionNotFoundError, StoreUnavailableError
from ..ids import new_id
from ..language import decide_entry_language, detection_needed, is_warm, preload
from ..models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    Mode,
    SessionInfo,
    SwitchTrigger,
    utcnow,
)
from ..stores.contracts import SessionTtlStore, SettingsChanged, TokensChanged
from ..validation import check_content, check_content_size, check_id, check_not_future
from .core import ServiceCore, visible
from .data_rights import POLICY_ACTOR, DataRights
from .fact_updates import FactUpdates, ReadAhead
from .privacy import PrivacyOperations
from .session_reads import SessionReads

__all__ = ["SETTINGS_ATTEMPTS", "SessionWrites", "enum_value"]

#: Times add_entry prepares an entry again when the owner's settings changed under it.
SETTINGS_ATTEMPTS = 3


def enum_value(value: Any, enum: type[Mode] | type[SwitchTrigger], field: str) -> str:
    try:
        return enum(value).value
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise InvalidInputError(
            f"{field} must be one of {allowed}, got {value!r}", field=field
        ) from None


def _language(value: Any, field: str) -> str:
    try:
        checked = MemoryEntry(role="user", content="", language=value).language
    except InvalidInputError:
        checked = None
    if not checked:
        raise InvalidInputError(f"{field} must be an ISO 639 code such as 'en'", field=field)
    return checked


async def _decided(entry: MemoryEntry, trigger: str | None) -> tuple[MemoryEntry, str | None, bool]:
    """:func:`decide_entry_language` as an awaitable, to run beside a round trip."""
    return decide_entry_language(entry, trigger)


class SessionWrites:
    """The writes of :class:`unimem.UnifiedMemoryService`.

    Args:
        core: the shared state.
        privacy: redaction before the store, PHI events and the vault's values.
        rights: the deletion a closed session of a ``cross_session=False`` owner gets.
        reads: the context a mode switch continues with.
        facts: the facts each stored turn updates (none when ``None``).
    """

    def __init__(
        self,
        core: ServiceCore,
        privacy: PrivacyOperations,
        rights: DataRights,
        reads: SessionReads,
        facts: FactUpdates | None = None,
    ) -> None:
        self._core = core
        self._privacy = privacy
        self._rights = rights
        self._reads = reads
        self._facts = facts

    def _prepare_entry(
        self, session_id: str, entry: MemoryEntry | Mapping[str, Any], user_id: str | None
    ) -> MemoryEntry:
        check_id(session_id, "session_id")
        if not isinstance(entry, MemoryEntry):
            if not isinstance(entry, Mapping):
                raise InvalidInputError("entry must be a MemoryEntry or a dict", field="entry")
            entry = MemoryEntry.model_validate(dict(entry))
        check_content_size(entry.content, self._core.config.max_content_bytes)
        check_content(entry.content)
        now = utcnow()
        check_not_future(
            entry.timestamp,
            "timestamp",
            now=now,
            skew_seconds=self._core.config.max_clock_skew_seconds,
        )
        if entry.session_id and entry.session_id != session_id:
            raise InvalidInputError(
                f"entry.session_id {entry.session_id!r} does not match session_id {session_id!r}",
                field="entry.session_id",
            )
        if user_id is not None and entry.user_id and entry.user_id != user_id:
            raise InvalidInputError(
                "entry.user_id does not match user_id; pass one or make them equal",
                field="entry.user_id",
            )
        owner = self._core.user(user_id if user_id is not None else (entry.user_id or None))
        entry_id = entry.id or new_id()
        check_id(entry_id, "entry.id")
        return entry.model_copy(
            update={
                "id": entry_id,
                "session_id": session_id,
                "user_id": owner,
                "timestamp": entry.timestamp or now,
                "seq": None,
                "detected_language": entry.detected_language,
            }
        )

    async def add_entry(
        self,
        session_id: str,
        entry: MemoryEntry | Mapping[str, Any],
        *,
        user_id: str | None = None,
        trigger: SwitchTrigger | str | None = None,
    ) -> MemoryEntry:
        """Store one message and return it as stored (``id``, ``seq``, ``timestamp`` set).

        A user entry in another mode than the session's records a ``mode_switch``
        event; one in another language is marked ``language_switched`` and records
        a ``language_switch`` event (``trigger``, default ``auto_detected``).
        Re-sending an entry with the same ``id`` returns the stored one unchanged.

        Raises:
            InvalidInputError: bad field (named in the error); nothing stored.
            ContentTooLargeError: content over ``config.max_content_bytes``.
            SessionNotFoundError: the session belongs to another user.
            SessionClosedError: the session was closed.
            StoreUnavailableError: the durable store is down; nothing stored.
        """
        prepared = self._prepare_entry(session_id, entry, user_id)
        trigger_value = (
            enum_value(trigger, SwitchTrigger, "trigger") if trigger is not None else None
        )
        store = await self._core.ready_store()
        owner = prepared.user_id
        # The owner's settings: those this process's last write of theirs used
        # (the store checks them at commit, see unimem.privacy.write_settings),
        # else read now, meanwhile the language is detected (started first, so
        # the round trip overlaps detection's CPU). Detection reads the text as
        # the user wrote it, before privacy; both must succeed before anything
        # is stored, and the policy's error wins.
        if not is_warm() and detection_needed(prepared):
            # lingua loads its models once per process (about a second holding
            # the event loop): now, before this turn's timed Redis calls, not
            # in the middle of them (`unimem serve` does it at start-up)
            preload()
        known = self._core.write_settings.peek(owner)
        if known is None:
            loaded, decided = await asyncio.gather(
                self._core.write_settings.load(store, owner),
                _decided(prepared, trigger_value),
                return_exceptions=True,
            )
            if isinstance(decided, BaseException):
                raise decided
            if isinstance(loaded, BaseException):
                raise loaded
            known, policy = loaded, decided
        else:
            policy = decide_entry_language(prepared, trigger_value)
        # a detected language is compared with the session's at commit, by the store
        prepared, trigger_value, language_detected = policy
        ahead: ReadAhead | None = None
        try:
            for _ in range(SETTINGS_ATTEMPTS):
                write = await self._privacy.privacy_entry(prepared, store, known.settings)
                if not write.store:
                    if not known.fresh:  # confirm before dropping a turn
                        known = await self._core.write_settings.load(store, owner)
                        continue
                    if ahead is not None:
                        ahead.discard()
                    return write.entry
                # the phi_detected event (types and counts) commits with the entry
                phi_event = self._privacy.phi_event(write.phi, write.tokens, write.entry)
                # the values of the tokens it introduces commit with it too (the vault)
                vault = self._privacy.vault_values(
                    write.tokens if phi_event is not None else None,
                    write.entry.user_id,
                    session_id,
                    write.entry.timestamp,
                )
                if ahead is None and self._facts is not None:
                    # the owner's facts are read while the turn commits
                    ahead = self._facts.read_ahead(prepared, write.entry, write.settings)
                try:
                    result = await store.append_entry(
                        write.entry,
                        trigger=trigger_value,
                        settings_guard=known.guard,
                        events_after=(phi_event,) if phi_event is not None else (),
                        phi_guard=write.phi_guard,
                        vault=vault,
                        language_detected=language_detected,
                    )
                except SettingsChanged as changed:
                    known = self._core.write_settings.changed(owner, changed.current)
                    continue
                except TokensChanged:  # another process recorded PHI here: read its map
                    self._core.privacy.forget([session_id])
                    continue
                break
            else:
                raise StoreUnavailableError(
                    "the user's settings kept changing during this write; retry"
                )
        except BaseException:
            if ahead is not None:
                ahead.discard()
            raise
        if result.created:
            live = result.entry
            if write.live is not None:  # a voice transcript kept for live listeners only
                live = live.model_copy(update={"content": write.live.content})
            self._core.live.publish(session_id, "entry", live)
            for event in result.events:
                self._core.live.publish(session_id, "event", event)
            if phi_event is not None and write.tokens is not None:
                self._core.privacy.recorded(session_id, write.tokens, phi_event.seq)
            if self._facts is not None:
                # the turn as written (in memory only) and as stored
                await self._facts.observe_turn(prepared, result.entry, write.settings, ahead)
        elif ahead is not None:
            ahead.discard()
        return result.entry

    async def add_event(
        self,
        session_id: str,
        event_type: EventType | str,
        data: Mapping[str, Any] | None = None,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record an event (``mode_switch``, ``language_switch``, ``topic_change``, ...).

        A ``mode_switch`` or ``language_switch`` event also moves the session's
        current mode or language to ``data["to_mode"]`` / ``data["to_language"]``.
        """
        check_id(session_id, "session_id")
        if data is not None and not isinstance(data, Mapping):
            raise InvalidInputError("data must be a JSON object", field="data")
        state = await self._core.owned_session(session_id, user_id)
        owner = state.user_id if state is not None and user_id is None else self._core.user(user_id)
        event = MemoryEvent(
            id=new_id(),
            session_id=session_id,
            user_id=owner,
            event_type=event_type,
            timestamp=utcnow(),
            data=dict(data or {}),
        )
        store = await self._core.ready_store()
        settings = await self._core.settings_of(owner)
        if not settings.enabled:  # nothing about the user is stored
            return event
        data_out, tally, tokens = await self._core.privacy.redact_data(
            event.data, settings, store, session_id, state.current_language if state else None
        )
        if tally.total:
            event = event.model_copy(update={"data": data_out})
            await self._privacy.keep_values(tokens, owner, session_id, event.timestamp)
        stored = await store.append_event(event)
        self._core.live.publish(session_id, "event", stored)
        if tally.total:
            await self._privacy.record_phi(tally, tokens, stored)
        return stored

    async def track_language_switch(
        self,
        session_id: str,
        from_language: str,
        to_language: str,
        trigger: SwitchTrigger | str = SwitchTrigger.USER_REQUEST,
        *,
        user_id: str | None = None,
    ) -> MemoryEvent:
        """Record a language switch and make ``to_language`` the session's language."""
        data = {
            "from_language": _language(from_language, "from_language"),
            "to_language": _language(to_language, "to_language"),
            "trigger": enum_value(trigger, SwitchTrigger, "trigger"),
            "timestamp": utcnow().isoformat(),
        }
        return await self.add_event(session_id, EventType.LANGUAGE_SWITCH, data, user_id=user_id)

    async def handle_mode_switch(
        self,
        session_id: str,
        from_mode: Mode | str,
        to_mode: Mode | str,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """Record a voice/text switch and return the context to continue with."""
        data = {
            "from_mode": enum_value(from_mode, Mode, "from_mode"),
            "to_mode": enum_value(to_mode, Mode, "to_mode"),
            "trigger": "user_request",
            "timestamp": utcnow().isoformat(),
        }
        await self.add_event(session_id, EventType.MODE_SWITCH, data, user_id=user_id)
        return await self._reads.get_context(session_id, user_id=user_id)

    async def close_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Close a session: it takes no more writes; its history stays readable."""
        check_id(session_id, "session_id")
        state = await self._core.owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        if state.closed_at is None:
            await self.add_event(session_id, EventType.SESSION_CLOSED, {}, user_id=state.user_id)
        closed = await (await self._core.ready_store()).close_session(session_id, now=utcnow())
        if not (await self._core.settings_of(state.user_id)).cross_session:
            # cross_session=False: a session's memory does not outlive it
            await self._rights.delete_user_memory(
                "session", user_id=state.user_id, session_id=session_id, actor=POLICY_ACTOR
            )
        return closed

    async def extend_ttl(self, session_id: str, *, user_id: str | None = None) -> bool:
        """Keep a session's cached layers alive for another idle period.

        Returns whether the session exists (``False`` for another user's).
        Embedded stores have no expiry.
        """
        check_id(session_id, "session_id")
        exists = visible(await (await self._core.ready_store()).get_session(session_id), user_id)
        store = self._core.store
        if exists and isinstance(store, SessionTtlStore):  # a store with a session cache
            await store.extend_ttl(session_id)
        return exists
