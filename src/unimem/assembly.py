"""``build_service(settings)``: the memory service a :class:`~unimem.settings.Settings` names.

Every entry point builds its service here: ``UnifiedMemoryService.from_env``,
the HTTP app, the CLI and the MCP server, so they open the same stores with the
same limits, encryption and summarizer.
"""

from __future__ import annotations

from typing import TypeVar

from .context.summarize import summarizer_for
from .service import UnifiedMemoryService
from .settings import Settings

__all__ = ["build_service"]

S = TypeVar("S", bound=UnifiedMemoryService)


def build_service(
    settings: Settings,
    service_class: type[S] = UnifiedMemoryService,  # type: ignore[assignment]
) -> S:
    """The service on the settings' stores (not yet set up: call ``setup()`` or
    use it as an async context manager).

    The durable store is ``settings.store.durable_url`` (SQLite in the data
    directory by default), behind the Redis session cache when
    ``store.redis_url`` is set; content is encrypted at rest when
    ``privacy.encryption_keys`` is set; older turns are summarized by the
    ``llm`` endpoint when one is set (else by the offline extractive summarizer).

    Args:
        settings: what to open.
        service_class: the class to build (a subclass of the service).

    Raises:
        ConfigurationError: a URL or the keys cannot work.
    """
    store = settings.store
    service = service_class.from_url(
        archive=store.durable_url, session=store.redis_url, config=store.memory_config()
    )
    keyring = settings.privacy.keyring()
    if keyring is not None:
        service.use_encryption(keyring)
    service.summarizer = summarizer_for(settings.llm.endpoint())
    return service
