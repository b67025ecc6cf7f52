"""``build_service(settings)``: the memory service a :class:`~unimem.settings.Settings` names.

Every entry point builds its service here: ``UnifiedMemoryService.from_env``,
the HTTP app, the CLI and the MCP server, so they open the same stores with the
same limits, encryption and summarizer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

from .context.summarize import summarizer_for
from .live_bus import LiveBus
from .service import UnifiedMemoryService
from .service.facade import store_from_urls
from .service.fact_extractors import LLMFactExtractor
from .settings import Settings
from .stores import DurableStore

__all__ = ["build_service"]

S = TypeVar("S", bound=UnifiedMemoryService)


def build_service(
    settings: Settings,
    service_class: type[S] = UnifiedMemoryService,  # type: ignore[assignment]
    *,
    live: LiveBus | None = None,
    observe: Callable[[DurableStore], DurableStore] | None = None,
) -> S:
    """The service on the settings' stores (not yet set up: call ``setup()`` or
    use it as an async context manager).

    The durable store is ``settings.store.durable_url`` (SQLite in the data
    directory by default), behind the Redis session cache when
    ``store.redis_url`` is set; content is encrypted at rest when
    ``privacy.encryption_keys`` is set; older turns are summarized by the
    ``llm`` endpoint when one is set (else by the offline extractive summarizer),
    which also proposes each turn's facts (else the offline rules find them);
    recall is hybrid with the ``embeddings`` model (keyword only when it is off).

    Args:
        settings: what to open.
        service_class: the class to build (a subclass of the service).
        live: where stored entries and events are published (in process by default).
        observe: a wrapper put around the store (the server times every store call).

    Raises:
        ConfigurationError: a URL or the keys cannot work.
    """
    config = dataclasses.replace(settings.store.memory_config(), auto_facts=settings.facts.auto)
    store = store_from_urls(settings.store.durable_url, settings.store.redis_url, config)
    endpoint = settings.llm.endpoint()
    return service_class(
        observe(store) if observe is not None else store,
        config=config,
        live=live,
        summarizer=summarizer_for(endpoint),
        keyring=settings.privacy.keyring(),
        fact_extractor=(
            LLMFactExtractor(endpoint, timeout=settings.facts.llm_timeout)
            if endpoint is not None
            else None
        ),
        embedder=settings.embeddings.embedder(),
    )
