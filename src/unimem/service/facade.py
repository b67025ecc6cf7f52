"""UnifiedMemoryService: one conversation across voice and text.

The service is a façade over four plain parts built in its constructor, each
given the store and the shared state (:class:`~unimem.service.core.ServiceCore`):
writes (:mod:`~unimem.service.writes`: validate, fill ids, detect language,
apply the privacy settings, commit, publish), reads
(:mod:`~unimem.service.session_reads`), privacy (:mod:`~unimem.service.privacy`:
settings, deletion, export, retention, audit, encryption at rest) and context
(:mod:`~unimem.service.context`: LLM context, pinned facts, interruptions).
Stores never see unvalidated input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self

from ..config import MemoryConfig
from ..context.builder import LLMContext
from ..context.summarize import Summarizer
from ..embeddings.base import Embedder
from ..errors import ConfigurationError, InvalidInputError
from ..live_bus import LiveBus
from ..models import (
    AuditRecord,
    ConversationContext,
    DeletionReceipt,
    EventType,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    SessionInfo,
    StoredItem,
    SwitchTrigger,
    utcnow,
)
from ..privacy.crypto import Keyring
from ..privacy.pipeline import PrivacyPipeline
from ..privacy.vault import StreamReveal
from ..recall.hits import MemoryHit
from ..stores import DurableStore, InMemoryStore, durable_store_from_url
from ..stores.contracts import DeleteScope
from ..stores.layered import layered_store_from_urls
from ..validation import check_id
from .context import ContextOperations
from .core import ServiceCore
from .fact_extractors import FactExtractor
from .fact_updates import FactUpdates
from .facts import FactOperations
from .indexer import RecallIndexer
from .items import ItemOperations
from .privacy import PrivacyOperations
from .recall import DEFAULT_K, RecallOperations
from .reveal import RevealOperations
from .session_reads import SessionReads
from .writes import SessionWrites, enum_value

__all__ = ["UnifiedMemoryService", "store_from_urls"]


def _flag(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{field} must be true or false", field=field)
    return value


def store_from_urls(url: str | None, session: str | None, config: MemoryConfig) -> DurableStore:
    """The durable store named by ``url`` (``memory://`` when ``None``), behind
    the Redis session cache at ``session`` when given.

    Raises:
        ConfigurationError: an unsupported URL.
    """
    store = durable_store_from_url(url or "memory://")
    if not session:
        return store
    return layered_store_from_urls(
        store,
        session,
        hot_window=config.hot_window,
        session_ttl=config.session_ttl_seconds,
        short_term_ttl=config.short_term_ttl_seconds,
    )


class UnifiedMemoryService:
    """Conversation memory shared by voice and text.

    ``UnifiedMemoryService()`` keeps everything in this process;
    :meth:`from_url` opens a durable store. Use it as an async context manager
    (or call :meth:`setup` / :meth:`aclose`) to open and release connections;
    a service used without either opens its store on first use.

    Args:
        store: the store (in process by default).
        config: service limits (hot window, TTLs, sizes).
        live: where stored entries and events are published to live listeners
            (in process by default; the server passes one relayed between workers).
        summarizer: summarizer of older turns for :meth:`build_llm_context`
            (the offline extractive one by default).
        keyring: encrypt content fields at rest with these keys (see
            :meth:`use_encryption`).
        privacy: the redaction applied to every write (its PHI detector and the
            key of its token digests); the default detector when ``None``.
        fact_extractor: finds the facts each user and assistant turn states
            (the offline rules of :mod:`unimem.facts` by default).
        embedder: the model of dense recall (:mod:`unimem.embeddings`); ``None``
            is keyword recall only. With one, a background indexer embeds the
            stored entries off the request path while the service is set up
            (:attr:`recall_index`), and the service closes it on :meth:`aclose`.
    """

    def __init__(
        self,
        store: DurableStore | None = None,
        *,
        config: MemoryConfig | None = None,
        live: LiveBus | None = None,
        summarizer: Summarizer | None = None,
        keyring: Keyring | None = None,
        privacy: PrivacyPipeline | None = None,
        fact_extractor: FactExtractor | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self._core = ServiceCore(
            store if store is not None else InMemoryStore(),
            config or MemoryConfig(),
            live if live is not None else LiveBus(),
            privacy,
        )
        self._privacy = PrivacyOperations(self._core)
        self._facts = FactOperations(self._core)
        self._fact_updates = FactUpdates(self._core, self._privacy, fact_extractor)
        self._writes = SessionWrites(self._core, self._privacy, self._fact_updates)
        self._reads = SessionReads(self._core)
        self._recall = RecallOperations(self._core)
        self._reveal = RevealOperations(self._core)
        self._items = ItemOperations(self._core)
        self._recall = RecallOperations(self._core, embedder)
        self._indexer = RecallIndexer(self._core, embedder)
        self._context = ContextOperations(
            self._core, self._privacy, self._writes, self._recall, summarizer
        )
        if keyring is not None:
            self._privacy.use_encryption(keyring)

    @property
    def store(self) -> DurableStore:
        """The store the service reads and writes (wrapped by encryption when on)."""
        return self._core.store

    @property
    def config(self) -> MemoryConfig:
        """The service's limits."""
        return self._core.config

    @property
    def live(self) -> LiveBus:
        """Where stored entries and events are published to live listeners."""
        return self._core.live

    @property
    def privacy(self) -> PrivacyPipeline:
        """The redaction applied to every write before any store sees it."""
        return self._core.privacy

    @property
    def recall_index(self) -> RecallIndexer:
        """Dense recall's indexer: its :meth:`~RecallIndexer.status` (mode, model,
        lag) and :meth:`~RecallIndexer.drain` (index everything queued now)."""
        return self._indexer

    @property
    def summarizer(self) -> Summarizer:
        """The summarizer of older turns used by :meth:`build_llm_context`."""
        return self._context.summarizer

    @classmethod
    def from_url(
        cls,
        url: str | None = None,
        *,
        session: str | None = None,
        archive: str | None = None,
        config: MemoryConfig | None = None,
        live: LiveBus | None = None,
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
        return cls(store_from_urls(archive or url, session, config), config=config, live=live)

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
        from ..assembly import build_service
        from ..settings import Settings

        return build_service(Settings.from_env(env), cls)

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> None:
        """Open the store and create or migrate its schema, and start the recall
        indexer (when an embedder is configured). Idempotent."""
        await self._core.setup()
        await self._indexer.start()

    async def aclose(self) -> None:
        """Stop the recall indexer, close the store (after the facts of turns still
        being read are stored) and the embedder. The service can be set up again
        afterwards."""
        await self._indexer.stop()
        await self._fact_updates.drain()
        if self._indexer.embedder is not None:
            await self._indexer.embedder.aclose()
        await self._core.aclose()

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

    # ------------------------------------------------------------------ operations

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
        return await self._writes.add_entry(session_id, entry, user_id=user_id, trigger=trigger)

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
        return await self._writes.add_event(session_id, event_type, data, user_id=user_id)

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
        return await self._writes.track_language_switch(
            session_id, from_language, to_language, trigger, user_id=user_id
        )

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
        return await self.get_context(session_id, user_id=user_id)

    async def close_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """Close a session: it takes no more writes; its history stays readable."""
        return await self._writes.close_session(session_id, user_id=user_id)

    async def extend_ttl(self, session_id: str, *, user_id: str | None = None) -> bool:
        """Keep a session's cached layers alive for another idle period.

        Returns whether the session exists (``False`` for another user's).
        Embedded stores have no expiry.
        """
        return await self._writes.extend_ttl(session_id, user_id=user_id)

    async def get_context(
        self,
        session_id: str,
        max_messages: int = 10,
        include_rag: bool = True,
        *,
        user_id: str | None = None,
    ) -> ConversationContext:
        """The last ``max_messages`` messages (oldest first) with the session's mode,
        language, recent switches, RAG context, settings and metadata.

        An unknown session, or another user's, gives an empty context.
        """
        return await self._reads.get_context(session_id, max_messages, include_rag, user_id=user_id)

    async def get_history(
        self,
        session_id: str,
        max_messages: int = 50,
        *,
        before_seq: int | None = None,
        user_id: str | None = None,
        reveal: bool = False,
    ) -> list[MemoryEntry]:
        """Up to ``max_messages`` entries of the session, oldest first (those before
        ``before_seq`` when given, for paging back).

        ``reveal``: with ``anonymize_phi`` on, give the owner their own words
        back: each PHI token (``[PERSON_1]``) replaced by its value from the
        vault (kept only when encryption keys are set; without, the text is as
        stored). Audited (``reveal``: how many values, never which). Another
        user's session is empty either way.

        Raises:
            InvalidInputError: a bad argument (named in the error).
        """
        entries = await self._reads.get_history(
            session_id, max_messages, before_seq=before_seq, user_id=user_id
        )
        if _flag(reveal, "reveal"):
            entries = await self._reveal.entries(entries, session_id)
        return entries

    async def get_events(
        self,
        session_id: str,
        event_type: EventType | str | None = None,
        limit: int = 10,
        *,
        user_id: str | None = None,
    ) -> list[MemoryEvent]:
        """The last ``limit`` events of the session (of ``event_type`` if given), newest last."""
        return await self._reads.get_events(session_id, event_type, limit, user_id=user_id)

    async def get_session(self, session_id: str, *, user_id: str | None = None) -> SessionInfo:
        """The session's metadata. Raises ``SessionNotFoundError`` if unknown
        (or another user's: the same error, word for word)."""
        return await self._reads.get_session(session_id, user_id=user_id)

    async def list_sessions(
        self, *, user_id: str | None = None, limit: int = 20, offset: int = 0
    ) -> list[SessionInfo]:
        """The user's sessions, most recently active first."""
        return await self._reads.list_sessions(user_id=user_id, limit=limit, offset=offset)

    async def search_memory(
        self,
        query: str,
        *,
        user_id: str | None = None,
        k: int = DEFAULT_K,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        modes: Sequence[str] | None = None,
        languages: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[MemoryHit]:
        """Search the user's whole memory: the turns of every session, the pinned
        facts and the sessions' summaries; the best ``k`` hits first.

        Args:
            query: what to look for, in any language.
            k: how many hits (1-100).
            session_id: only this session (another user's session, like one
                never used, holds nothing: no hits).
            since, until: only turns said from ``since`` and before ``until``.
            modes: only turns of these modes (``voice``, ``text``).
            languages: only turns in these languages (ISO 639 codes).
            kinds: only these kinds of hit (``entry``, ``fact``, ``summary``).

        With the user's memory off nothing is found; with ``cross_session`` off
        only the session named by ``session_id`` is searched.

        Raises:
            InvalidInputError: a bad argument (named in the error).
        """
        return await self._recall.search_memory(
            query,
            user_id=user_id,
            k=k,
            session_id=session_id,
            since=since,
            until=until,
            modes=modes,
            languages=languages,
            kinds=kinds,
        )

    async def get_settings(self, *, user_id: str | None = None) -> MemorySettings:
        """The user's memory settings (defaults until they set any)."""
        return await self._privacy.get_settings(user_id=user_id)

    async def update_settings(
        self,
        settings: MemorySettings | Mapping[str, Any],
        *,
        user_id: str | None = None,
        actor: str | None = None,
    ) -> MemorySettings:
        """Replace the user's settings; a dict may name only the fields to change.

        The change is audited (``settings_change``: the fields changed and their
        new values, which are flags and a number of days, never content);
        ``actor`` is who made it (the user by default).
        """
        return await self._privacy.update_settings(settings, user_id=user_id, actor=actor)

    async def delete_user_memory(
        self,
        scope: DeleteScope | str,
        *,
        user_id: str | None = None,
        tz: str | None = None,
        session_id: str | None = None,
        actor: str | None = None,
    ) -> DeletionReceipt:
        """Delete a user's memory and return what was removed, counted per layer.

        ``scope``: ``session`` deletes the session ``session_id`` (required);
        ``day`` deletes everything written since
        today's midnight in ``tz`` (an IANA name; UTC by default); ``all``
        deletes every layer (entries, events, sessions, summaries, facts,
        namespaced items, the session cache) and keeps the settings and the
        audit log; ``day`` deletes the items updated today too.

        A write racing the deletion: the deletion is one atomic step in the
        durable store's commit order. What was committed before it is gone;
        what commits after it is kept as a new message (on the embedded stores
        the service stamps entries right before committing, so that is the same
        as: entries timestamped before ``receipt.deleted_at`` are gone).

        The deletion is audited (``delete``: scope and counts). Live listeners
        of each deleted session receive a ``memory_deleted`` event (not stored).

        Raises:
            InvalidInputError: bad scope, time zone, ``session_id`` missing with
                scope ``session`` or given with another scope.

        A ``session_id`` of another user's session deletes nothing and answers
        as one never used does (all counts 0).
        """
        return await self._privacy.delete_user_memory(
            scope, user_id=user_id, tz=tz, session_id=session_id, actor=actor
        )

    async def delete_entry(
        self,
        session_id: str,
        entry_id: str,
        *,
        user_id: str | None = None,
        actor: str | None = None,
    ) -> bool:
        """Delete one message of a session; whether it existed.

        The entry is removed from every layer (durable store, session cache,
        short-term layer) with the session's running summary, which may quote
        it and is rebuilt from what is left. The rest of the session, its
        events and its numbering stay. The deletion is audited (``delete``,
        scope ``entry``), and live listeners of the session receive a
        ``memory_deleted`` event (not stored).

        Another user's session deletes nothing (``False``), as one never used.

        Raises:
            InvalidInputError: a malformed id.
        """
        return await self._privacy.delete_entry(session_id, entry_id, user_id=user_id, actor=actor)

    async def export_user_memory(
        self, *, user_id: str | None = None, actor: str | None = None, reveal: bool = False
    ) -> dict[str, Any]:
        """Everything stored about the user, JSON-ready (data portability).

        Keys: ``format``, ``user_id``, ``exported_at``, ``settings``,
        ``sessions``, ``entries``, ``events``, ``facts``, ``summaries``,
        ``items`` and ``audit`` (the audit records about the user). The export is audited.
        ``reveal``: the owner's copy, PHI tokens of entries, events, facts and
        summaries replaced by their values (as :meth:`get_history`); the vault
        itself is never exported.
        """
        data = await self._privacy.export_user_memory(user_id=user_id, actor=actor)
        if _flag(reveal, "reveal"):
            data = await self._reveal.export(data, data["user_id"], actor=actor)
        return data

    async def sweep_retention(
        self, now: datetime | None = None, *, default_retention_days: int | None = None
    ) -> int:
        """Delete (not hide) every entry and event older than its owner's
        ``retention_days``; returns how many rows were deleted.

        ``default_retention_days`` applies to users who never set theirs (the
        ``MemorySettings`` default otherwise). ``unimem sweep`` and the
        server's periodic job call this. A sweep that deleted something is
        audited under the user id ``"*"``.
        """
        return await self._privacy.sweep_retention(
            now, default_retention_days=default_retention_days
        )

    async def list_audit(
        self, *, user_id: str | None = None, limit: int = 100
    ) -> list[AuditRecord]:
        """The last ``limit`` audit records about the user, oldest first
        (``"*"`` for the retention sweeps)."""
        return await self._privacy.list_audit(user_id=user_id, limit=limit)

    async def record_audit(
        self,
        action: str,
        *,
        user_id: str | None = None,
        actor: str,
        session_id: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> AuditRecord:
        """Append an audit record made outside the service (e.g. the HTTP API
        recording that ``actor`` read ``user_id``'s memory). ``details`` must
        hold ids and counts only, never content."""
        return await self._privacy.record_audit(
            action, user_id=user_id, actor=actor, session_id=session_id, details=details
        )

    async def build_llm_context(
        self,
        session_id: str,
        current_query: str,
        rag_results: Sequence[Any] | None = None,
        max_tokens: int = 4000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        *,
        user_id: str | None = None,
        reveal_phi: bool = False,
    ) -> LLMContext:
        """The messages to send the LLM for this turn, within ``max_tokens``.

        System prompt (language and switches, mode, numbered passages with
        sources), pinned facts, a summary of older turns, the history ordered by
        turn start, then ``current_query`` (see :mod:`unimem.context.builder`).
        The result is a list of ``{"role", "content"}`` dicts with
        ``token_count``, ``degradations`` and ``summary_used`` attributes.
        With ``budget_ms`` (ms left of the voice turn) it never waits past it
        and cuts passages to 5/3/1; degradations are also recorded on the last
        user entry.

        Raises:
            InvalidInputError: bad ``max_tokens`` (1..1,000,000), ``budget_ms``,
                ``model`` or ``rag_results``.

        Another user's session is built as a session never used.

        ``reveal_phi``: for an LLM the deployment trusts (self-hosted, or under
        a BAA), every PHI token of the context (history, summary, facts,
        recalled turns, the query) is replaced by its value from the owner's
        vault, each with its own session's values; the stored summary keeps
        its tokens. Audited (``reveal``, view ``llm_context``). Without
        encryption keys there is no vault and the context keeps its tokens.
        """
        return await self._context.build_llm_context(
            session_id,
            current_query,
            rag_results,
            max_tokens,
            model,
            budget_ms,
            user_id=user_id,
            reveal_phi=reveal_phi,
        )

    async def pin_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> Fact:
        """Pin an entry's content as a fact of the session's owner: it appears in
        every context of that user until deleted (pinning twice returns the same fact).

        Raises:
            SessionNotFoundError: unknown session, or another user's.
            EntryNotFoundError: no such entry in the session.
        """
        return await self._context.pin_entry(session_id, entry_id, user_id=user_id)

    async def add_fact(
        self,
        text: str,
        kind: str = "note",
        *,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> Fact:
        """Add a pinned fact (``kind``: ``allergy``, ``medication``, ``preference``, ...)
        that appears in every context of the user until deleted.

        Raises:
            InvalidInputError: empty text or kind; ContentTooLargeError: text too long.
        """
        return await self._context.add_fact(text, kind, user_id=user_id, session_id=session_id)

    async def list_facts(
        self,
        *,
        user_id: str | None = None,
        include_history: bool = False,
        kinds: Sequence[str] | None = None,
        reveal: bool = False,
    ) -> list[Fact]:
        """The user's facts, oldest first: those pinned and those found in the
        conversation (each user and assistant turn updates them).

        Args:
            user_id: whose facts.
            include_history: also the facts a change or a correction closed
                (``valid_to`` set), oldest first among the rest.
            kinds: only facts of these kinds (``allergy``, ``medication``, ...).
            reveal: PHI tokens replaced by their values from the user's vault
                (as :meth:`get_history`; audited).

        Raises:
            InvalidInputError: ``kinds`` is not a list of names.
        """
        facts = await self._facts.list_facts(
            user_id=user_id, include_history=include_history, kinds=kinds
        )
        if _flag(reveal, "reveal"):
            facts = await self._reveal.facts(facts, self._core.user(user_id))
        return facts

    async def confirm_fact(self, fact_id: str, *, user_id: str | None = None) -> Fact:
        """Mark a current fact of the user as confirmed (``status="confirmed"``).

        Raises:
            FactNotFoundError: no such fact of the user (another user's is reported the same).
            ConflictError: the fact was superseded; confirm the current one.
        """
        return await self._facts.confirm_fact(fact_id, user_id=user_id)

    async def correct_fact(
        self,
        fact_id: str,
        value: str,
        *,
        user_id: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> Fact:
        """Correct a current fact of the user: the old one is closed (kept as
        history) and the new one, ``status="corrected"``, is current; returns it.

        Args:
            fact_id: the fact to correct.
            value: its right value (``"20 mg"``, ``"penicillin"``, ...).
            attributes: its attributes (``dose``, ``reaction``, ...); the old
                ones when ``None``.

        Raises:
            FactNotFoundError: no such fact of the user (another user's is reported the same).
            ConflictError: the fact was superseded meanwhile; correct the current one.
            InvalidInputError: an empty or too long value or attribute.
        """
        return await self._facts.correct_fact(
            fact_id, value, user_id=user_id, attributes=attributes
        )

    async def delete_fact(self, fact_id: str, *, user_id: str | None = None) -> bool:
        """Delete one fact of the user (current or past); whether it existed."""
        return await self._facts.delete_fact(fact_id, user_id=user_id)

    async def mark_interrupted(
        self, session_id: str, entry_id: str, spoken_text: str, *, user_id: str | None = None
    ) -> MemoryEntry:
        """Record that the user cut a voice answer off after hearing ``spoken_text``.

        The entry's content becomes ``spoken_text`` (so the next context holds
        what was heard; empty, or only whitespace, when the user heard nothing:
        the only entry whose content may be empty); the full answer stays in
        ``metadata["generated_text"]`` with ``metadata["interrupted"] = True``.
        Records an ``interruption`` event.

        Raises:
            SessionNotFoundError: unknown session, or another user's.
            EntryNotFoundError: no such entry; InvalidInputError: not an assistant entry.
        """
        return await self._context.mark_interrupted(
            session_id, entry_id, spoken_text, user_id=user_id
        )

    # ------------------------------------------------------------------ items

    async def put_item(
        self,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        *,
        user_id: str | None = None,
    ) -> StoredItem | None:
        """Store (or replace) the JSON object ``value`` under ``namespace`` and
        ``key`` among the user's items (an agent's long-term memory; see
        :mod:`unimem.service.items`); returns it as stored, or ``None`` when the
        user's memory is off (nothing stored). With ``anonymize_phi`` its strings
        are redacted first. A replaced item keeps its ``created_at``.

        Raises:
            InvalidInputError: an empty namespace, a label with ``.``, a bad key,
                or a value that is not a JSON object within the limits.
        """
        return await self._items.put_item(namespace, key, value, user_id=user_id)

    async def get_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> StoredItem | None:
        """The user's item under ``namespace`` and ``key``, or ``None``."""
        return await self._items.get_item(namespace, key, user_id=user_id)

    async def delete_item(
        self, namespace: Sequence[str], key: str, *, user_id: str | None = None
    ) -> bool:
        """Delete one item of the user; whether it existed."""
        return await self._items.delete_item(namespace, key, user_id=user_id)

    async def search_items(
        self,
        namespace_prefix: Sequence[str] = (),
        *,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        facts_namespace: Sequence[str] | None = None,
        user_id: str | None = None,
    ) -> list[StoredItem]:
        """The user's items under ``namespace_prefix`` that pass ``filter``
        (LangGraph's: equal fields, ``$eq $ne $gt $gte $lt $lte``); with a
        ``query``, those its words find first, best first (``score`` set), then
        the rest, most recently updated first. ``facts_namespace``: the user's
        pinned facts take part as items of that namespace when it is under the
        prefix.

        Raises:
            InvalidInputError: a bad prefix, filter, ``limit`` (1-1,000) or
                ``offset`` (0-100,000).
        """
        return await self._items.search_items(
            namespace_prefix,
            query=query,
            filter=filter,
            limit=limit,
            offset=offset,
            facts_namespace=facts_namespace,
            user_id=user_id,
        )

    async def list_item_namespaces(
        self,
        *,
        prefix: Sequence[str] | None = None,
        suffix: Sequence[str] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
        user_id: str | None = None,
    ) -> list[list[str]]:
        """The namespaces holding items of the user, sorted, that start with
        ``prefix`` and end with ``suffix`` (``"*"`` matches any one label),
        cut to ``max_depth`` labels (then each once)."""
        return await self._items.list_item_namespaces(
            prefix=prefix,
            suffix=suffix,
            max_depth=max_depth,
            limit=limit,
            offset=offset,
            user_id=user_id,
        )

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
        return await self._reveal.stream(session_id, user_id)

    # ------------------------------------------------------------------ encryption

    def use_encryption(self, keys: Keyring | str | None = None) -> bool:
        """Encrypt content fields written from now on (AES-GCM); earlier plaintext stays readable.

        ``keys``: a :class:`~unimem.privacy.crypto.Keyring`, a
        ``kid:base64key[,...]`` string, or ``None`` to read
        ``UNIMEM_ENCRYPTION_KEYS``. Also keys the PHI token digests, so tokens
        stay consistent across processes. Returns whether encryption is on.

        Raises:
            ConfigurationError: malformed keys.
        """
        return self._privacy.use_encryption(keys)

    async def rotate_encryption(self, user_ids: Sequence[str]) -> int:
        """Re-encrypt the users' content under the current key (after putting a new
        key first in ``UNIMEM_ENCRYPTION_KEYS``); returns the records rewritten."""
        return await self._privacy.rotate_encryption(user_ids)
