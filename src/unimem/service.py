"""UnifiedMemoryService: one conversation across voice and text.

The service validates input, fills identifiers, runs the detection and
privacy pipeline, commits to the durable store and then fans the result out
to live listeners. Stores never see unvalidated input.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from types import TracebackType
from typing import Any, Self

from .config import MemoryConfig
from .context.service_ops import ContextOperations
from .errors import (
    ConfigurationError,
    InvalidInputError,
    SessionNotFoundError,
    StoreUnavailableError,
)
from .ids import new_id
from .language import apply_language_policy, detection_needed, is_warm, preload
from .live import LiveBus
from .models import (
    ConversationContext,
    EventType,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    SessionInfo,
    SwitchTrigger,
    utcnow,
)
from .privacy.operations import (
    audit_record,
)
from .privacy.pipeline import PrivacyPipeline
from .privacy.service_ops import POLICY_ACTOR, PrivacyOperations
from .privacy.write_settings import WriteSettings
from .reads import SessionReads, check_owner, visible
from .recall_service import RecallOperations
from .stores import DurableStore, InMemoryStore, durable_store_from_url
from .stores.contracts import SessionTtlStore, SettingsChanged, TokensChanged
from .stores.layered import layered_store_from_urls
from .validation import check_content, check_content_size, check_id, check_not_future

__all__ = ["UnifiedMemoryService"]

#: Times add_entry prepares an entry again when the owner's settings changed under it.
SETTINGS_ATTEMPTS = 3


def _enum_value(value: Any, enum: type[Mode] | type[SwitchTrigger], field: str) -> str:
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


class UnifiedMemoryService(SessionReads, PrivacyOperations, ContextOperations, RecallOperations):
    """Conversation memory shared by voice and text.

    ``UnifiedMemoryService()`` keeps everything in this process;
    :meth:`from_url` opens a durable store. Use it as an async context manager
    (or call :meth:`setup` / :meth:`aclose`) to open and release connections;
    a service used without either opens its store on first use.
    """

    def __init__(
        self,
        store: DurableStore | None = None,
        *,
        config: MemoryConfig | None = None,
    ) -> None:
        self.store: DurableStore = store if store is not None else InMemoryStore()
        self.config = config or MemoryConfig()
        self.live = LiveBus()
        self._ready = False
        #: The user's settings applied to every write (``unimem.privacy.pipeline``).
        self.privacy = PrivacyPipeline()
        #: The settings each owner's last write used (``unimem.privacy.write_settings``).
        self.write_settings = WriteSettings()
        self.summarizer = None  # ContextOperations: from UNIMEM_LLM_* on first use

    @classmethod
    def from_url(
        cls,
        url: str | None = None,
        *,
        session: str | None = None,
        archive: str | None = None,
        config: MemoryConfig | None = None,
    ) -> Self:
        """A service on the stores named by URL.

        Args:
            url: the durable store (``memory://``, ``sqlite:///path.db``,
                ``postgresql://...``); ``archive`` is the same, by its layer name.
            session: the Redis session cache and short-term layer in front of it
                (``redis://host:port/db`` or ``redis+cluster://host:port``); optional.
            config: service limits (hot window, TTLs, ...).

        Raises:
            ConfigurationError: an unsupported URL, or ``url`` and ``archive`` both given.
        """
        if url is not None and archive is not None and url != archive:
            raise ConfigurationError("pass the durable store as url or archive, not both")
        config = config or MemoryConfig()
        store = durable_store_from_url(archive or url or "memory://")
        if session:
            store = layered_store_from_urls(
                store,
                session,
                hot_window=config.hot_window,
                session_ttl=config.session_ttl_seconds,
                short_term_ttl=config.short_term_ttl_seconds,
            )
        return cls(store, config=config)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """The service the ``UNIMEM_*`` variables name (``os.environ`` by default):
        ``build_service(Settings.from_env(env))``, as the server, the CLI and the
        MCP server open it (see :mod:`unimem.settings`): ``UNIMEM_DATABASE_URL``
        (default: embedded SQLite in the data directory), ``UNIMEM_REDIS_URL``,
        ``UNIMEM_ENCRYPTION_KEYS``, ``UNIMEM_LLM_*`` and the limits.

        Raises:
            ConfigurationError: a variable cannot work as given.
        """
        from .assembly import build_service
        from .settings import Settings

        return build_service(Settings.from_env(env), cls)

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        """Open the store and create or migrate its schema. Idempotent."""
        if not self._ready:
            await self.store.setup()
            self._ready = True

    async def aclose(self) -> None:
        """Close the store. The service can be set up again afterwards."""
        self._ready = False
        await self.store.aclose()

    async def __aenter__(self) -> Self:
        await self.setup()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _store(self) -> DurableStore:
        if not self._ready:
            await self.setup()
        return self.store

    def _user(self, user_id: str | None) -> str:
        return check_id(user_id, "user_id") if user_id is not None else self.config.default_user_id

    async def _owned_session(self, session_id: str, user_id: str | None) -> SessionInfo | None:
        """The session if it exists and (when ``user_id`` is given) belongs to that user."""
        state = await (await self._store()).get_session(session_id)
        check_owner(state, session_id, user_id)
        return state

    # ------------------------------------------------------------------ writes

    def _prepare_entry(
        self, session_id: str, entry: MemoryEntry | Mapping[str, Any], user_id: str | None
    ) -> MemoryEntry:
        check_id(session_id, "session_id")
        if not isinstance(entry, MemoryEntry):
            if not isinstance(entry, Mapping):
                raise InvalidInputError("entry must be a MemoryEntry or a dict", field="entry")
            entry = MemoryEntry.model_validate(dict(entry))
        check_content_size(entry.content, self.config.max_content_bytes)
        check_content(entry.content)
        now = utcnow()
        check_not_future(
            entry.timestamp, "timestamp", now=now, skew_seconds=self.config.max_clock_skew_seconds
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
        owner = self._user(user_id if user_id is not None else (entry.user_id or None))
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
        user_id: str | None = None,
        *,
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
            _enum_value(trigger, SwitchTrigger, "trigger") if trigger is not None else None
        )
        store = await self._store()
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
        known = self.write_settings.peek(owner)
        if known is None:
            loaded, decided = await asyncio.gather(
                self.write_settings.load(store, owner),
                apply_language_policy(prepared, trigger_value, store),
                return_exceptions=True,
            )
            if isinstance(decided, BaseException):
                raise decided
            if isinstance(loaded, BaseException):
                raise loaded
            known, policy = loaded, decided
        else:
            policy = await apply_language_policy(prepared, trigger_value, store)
        prepared, trigger_value = policy
        for _ in range(SETTINGS_ATTEMPTS):
            write = await self._privacy_entry(prepared, store, known.settings)
            if not write.store:
                if not known.fresh:  # confirm before dropping a turn
                    known = await self.write_settings.load(store, owner)
                    continue
                return write.entry
            # the phi_detected event (types and counts) commits with the entry
            phi_event = self._phi_event(write.phi, write.tokens, write.entry)
            try:
                result = await store.append_entry(
                    write.entry,
                    trigger=trigger_value,
                    settings_guard=known.guard,
                    events_after=(phi_event,) if phi_event is not None else (),
                    phi_guard=write.phi_guard,
                )
            except SettingsChanged as changed:
                known = self.write_settings.changed(owner, changed.current)
                continue
            except TokensChanged:  # another process recorded PHI here: read its map
                self.privacy.forget([session_id])
                continue
            break
        else:
            raise StoreUnavailableError(
                "the user's settings kept changing during this write; retry"
            )
        if result.created:
            live = result.entry
            if write.live is not None:  # a voice transcript kept for live listeners only
                live = live.model_copy(update={"content": write.live.content})
            self.live.publish(session_id, "entry", live)
            for event in result.events:
                self.live.publish(session_id, "event", event)
            if phi_event is not None and write.tokens is not None:
                self.privacy.recorded(session_id, write.tokens, phi_event.seq)
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
        state = await self._owned_session(session_id, user_id)
        owner = state.user_id if state is not None and user_id is None else self._user(user_id)
        event = MemoryEvent(
            id=new_id(),
            session_id=session_id,
            user_id=owner,
            event_type=event_type,
            timestamp=utcnow(),
            data=dict(data or {}),
        )
        store = await self._store()
        settings = await self._settings_of(owner)
        if not settings.enabled:  # nothing about the user is stored
            return event
        data_out, tally, tokens = await self.privacy.redact_data(
            event.data, settings, store, session_id, state.current_language if state else None
        )
        if tally.total:
            event = event.model_copy(update={"data": data_out})
        stored = await store.append_event(event)
        self.live.publish(session_id, "event", stored)
        if tally.total:
            await self._record_phi(tally, tokens, stored)
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
            "trigger": _enum_value(trigger, SwitchTrigger, "trigger"),
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
            "from_mode": _enum_value(from_mode, Mode, "from_mode"),
            "to_mode": _enum_value(to_mode, Mode, "to_mode"),
            "trigger": "user_request",
            "timestamp": utcnow().isoformat(),
        }
        await self.add_event(session_id, EventType.MODE_SWITCH, data, user_id=user_id)
        return await self.get_context(session_id, user_id=user_id)

    async def close_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Close a session: it takes no more writes; its history stays readable."""
        check_id(session_id, "session_id")
        state = await self._owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        if state.closed_at is None:
            await self.add_event(session_id, EventType.SESSION_CLOSED, {}, user_id=state.user_id)
        closed = await (await self._store()).close_session(session_id, now=utcnow())
        if not (await self._settings_of(state.user_id)).cross_session:
            # cross_session=False: a session's memory does not outlive it
            await self.delete_user_memory(
                state.user_id, "session", session_id=session_id, actor=POLICY_ACTOR
            )
        return closed

    async def extend_ttl(self, session_id: str, *, user_id: str | None = None) -> bool:
        """Keep a session's cached layers alive for another idle period.

        Returns whether the session exists (``False`` for another user's).
        Embedded stores have no expiry.
        """
        check_id(session_id, "session_id")
        exists = visible(await (await self._store()).get_session(session_id), user_id)
        if exists and isinstance(self.store, SessionTtlStore):  # a store with a session cache
            await self.store.extend_ttl(session_id)
        return exists

    # ------------------------------------------------------------------ settings

    async def get_settings(self, user_id: str | None = None) -> MemorySettings:
        """The user's memory settings (defaults until they set any)."""
        stored = await (await self._store()).get_settings(self._user(user_id))
        return stored or MemorySettings()

    async def update_settings(
        self,
        user_id: str | None,
        settings: MemorySettings | Mapping[str, Any],
        *,
        actor: str | None = None,
    ) -> MemorySettings:
        """Replace the user's settings; a dict may name only the fields to change.

        The change is audited (``settings_change``: the fields changed and their
        new values, which are flags and a number of days, never content);
        ``actor`` is who made it (the user by default).
        """
        user = self._user(user_id)
        current = await self.get_settings(user)
        if isinstance(settings, MemorySettings):
            new = settings
        elif isinstance(settings, Mapping):
            new = MemorySettings.model_validate({**current.model_dump(), **dict(settings)})
        else:
            raise InvalidInputError("settings must be MemorySettings or a dict", field="settings")
        store = await self._store()
        await store.put_settings(user, new)
        self.write_settings.forget(user)
        old, now_set = current.model_dump(), new.model_dump()
        changed = {k: v for k, v in now_set.items() if old[k] != v}
        await store.append_audit(
            audit_record("settings_change", user, actor=actor, now=utcnow(), details=changed)
        )
        return new
