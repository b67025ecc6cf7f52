"""UnifiedMemoryService: one conversation across voice and text.

The service is a façade over plain parts built in its constructor, each given
the shared state (:class:`~unimem.service.core.ServiceCore`: the store, the
limits, the live bus) and the parts it needs: writes
(:mod:`~unimem.service.writes`: validate, fill ids, detect language, apply the
privacy settings, commit, publish), reads (:mod:`~unimem.service.session_reads`),
recall (:mod:`~unimem.service.recall`), privacy (:mod:`~unimem.service.privacy`:
settings, audit, encryption at rest), data rights
(:mod:`~unimem.service.data_rights`: deletion, export, retention), context
(:mod:`~unimem.service.context`: LLM context, pinned facts, interruptions),
facts (:mod:`~unimem.service.facts`), items (:mod:`~unimem.service.items`) and
reveals (:mod:`~unimem.service.reveal`). Stores never see unvalidated input.

Each operation is written and documented once, in the part that does it; the
façade forwards to it (:func:`_forward`), so a signature or a docstring cannot
drift between the two. ``search_memory`` and ``use_encryption`` are written out
here with their documentation.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Concatenate, ParamSpec, Self, TypeVar

from ..config import MemoryConfig
from ..context.summarize import Summarizer
from ..embeddings.base import Embedder
from ..errors import ConfigurationError
from ..live_bus import LiveBus
from ..privacy.crypto import Keyring
from ..privacy.pipeline import PrivacyPipeline
from ..recall.hits import MemoryHit
from ..stores import DurableStore, InMemoryStore, durable_store_from_url
from ..stores.layered import layered_store_from_urls
from .context import ContextOperations
from .core import ServiceCore
from .data_rights import DataRights
from .fact_extractors import FactExtractor
from .fact_updates import FactUpdates
from .facts import FactOperations
from .indexer import RecallIndexer
from .items import ItemOperations
from .privacy import PrivacyOperations
from .recall import DEFAULT_K, RecallOperations
from .reveal import RevealOperations
from .session_reads import SessionReads
from .writes import SessionWrites

__all__ = ["UnifiedMemoryService", "store_from_urls"]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_Part = TypeVar("_Part")


def _forward(
    part: str, method: Callable[Concatenate[_Part, _P], Awaitable[_R]]
) -> Callable[Concatenate[Any, _P], Coroutine[Any, Any, _R]]:
    """A method of the service that awaits ``method`` on its part ``part``
    (the attribute holding it), with ``method``'s signature and docstring."""

    @functools.wraps(method)
    async def forwarded(self: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await method(getattr(self, part), *args, **kwargs)

    forwarded.__qualname__ = f"UnifiedMemoryService.{method.__name__}"
    return forwarded


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
        self._reveal = RevealOperations(self._core)
        self._privacy = PrivacyOperations(self._core)
        self._recall = RecallOperations(self._core, embedder)
        self._rights = DataRights(self._core, self._reveal, forget=self._recall.forget)
        self._facts = FactOperations(self._core, self._reveal)
        self._fact_updates = FactUpdates(self._core, self._privacy, fact_extractor)
        self._reads = SessionReads(self._core, self._reveal)
        self._writes = SessionWrites(
            self._core, self._privacy, self._rights, self._reads, self._fact_updates
        )
        self._items = ItemOperations(self._core)
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

    # ------------------------------------------------------------------ writes

    add_entry = _forward("_writes", SessionWrites.add_entry)
    add_event = _forward("_writes", SessionWrites.add_event)
    track_language_switch = _forward("_writes", SessionWrites.track_language_switch)
    handle_mode_switch = _forward("_writes", SessionWrites.handle_mode_switch)
    close_session = _forward("_writes", SessionWrites.close_session)
    extend_ttl = _forward("_writes", SessionWrites.extend_ttl)

    # ------------------------------------------------------------------ reads

    get_context = _forward("_reads", SessionReads.get_context)
    get_history = _forward("_reads", SessionReads.get_history)
    get_events = _forward("_reads", SessionReads.get_events)
    get_session = _forward("_reads", SessionReads.get_session)
    list_sessions = _forward("_reads", SessionReads.list_sessions)

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

    # ------------------------------------------------------------------ privacy

    get_settings = _forward("_privacy", PrivacyOperations.get_settings)
    update_settings = _forward("_privacy", PrivacyOperations.update_settings)
    list_audit = _forward("_privacy", PrivacyOperations.list_audit)
    record_audit = _forward("_privacy", PrivacyOperations.record_audit)
    delete_user_memory = _forward("_rights", DataRights.delete_user_memory)
    delete_entry = _forward("_rights", DataRights.delete_entry)
    export_user_memory = _forward("_rights", DataRights.export_user_memory)
    sweep_retention = _forward("_rights", DataRights.sweep_retention)

    # ------------------------------------------------------------------ context and facts

    build_llm_context = _forward("_context", ContextOperations.build_llm_context)
    pin_entry = _forward("_context", ContextOperations.pin_entry)
    add_fact = _forward("_context", ContextOperations.add_fact)
    mark_interrupted = _forward("_context", ContextOperations.mark_interrupted)
    list_facts = _forward("_facts", FactOperations.list_facts)
    confirm_fact = _forward("_facts", FactOperations.confirm_fact)
    correct_fact = _forward("_facts", FactOperations.correct_fact)
    delete_fact = _forward("_facts", FactOperations.delete_fact)

    # ------------------------------------------------------------------ items

    put_item = _forward("_items", ItemOperations.put_item)
    get_item = _forward("_items", ItemOperations.get_item)
    delete_item = _forward("_items", ItemOperations.delete_item)
    search_items = _forward("_items", ItemOperations.search_items)
    list_item_namespaces = _forward("_items", ItemOperations.list_item_namespaces)
    reveal_stream = _forward("_reveal", RevealOperations.reveal_stream)

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

    rotate_encryption = _forward("_privacy", PrivacyOperations.rotate_encryption)
