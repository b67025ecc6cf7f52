"""The server's settings: the sections of :class:`unimem.settings.Settings` the
app reads, flat (``ServerSettings(database_url=..., jwt_secret=...)`` for
embedding and tests). :meth:`ServerSettings.from_env` reads the ``UNIMEM_*``
variables through :meth:`Settings.from_env <unimem.settings.Settings.from_env>`;
the variables are listed there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..config import DEFAULT_USER_ID, MemoryConfig, resolve_data_dir
from ..context.llm_client import LLMEndpoint
from ..errors import ConfigurationError
from ..settings import (
    MIN_SECRET_BYTES,
    AuthSettings,
    EmbeddingSettings,
    FactsSettings,
    LLMSettings,
    PrivacySettings,
    RateLimit,
    ServerSection,
    Settings,
    StoreSettings,
    parse_rate_limit,
)

__all__ = [
    "MIN_SECRET_BYTES",
    "RateLimit",
    "ServerSettings",
    "default_database_url",
    "parse_rate_limit",
]


def default_database_url(env: Mapping[str, str] | None = None) -> str:
    """``sqlite:///<data dir>/unimem.db``: the server's embedded default store."""
    return f"sqlite:///{resolve_data_dir(env) / 'unimem.db'}"


def _default_web_dir() -> Path:
    return ServerSection().web_root


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything the HTTP server needs to start.

    ``jwt_secret=None`` is local mode: every request is the user ``local`` and
    the CLI refuses to bind anything but loopback.
    """

    database_url: str = "memory://"
    redis_url: str | None = None
    jwt_secret: str | None = None
    rate_limit: RateLimit | None = field(default_factory=lambda: RateLimit(600, 60.0))
    max_body_bytes: int = 1024 * 1024
    #: HTTP requests one worker runs at once (the rest wait); 0: no limit.
    max_concurrent_requests: int = 32
    web_dir: Path = field(default_factory=_default_web_dir)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    local_user: str = DEFAULT_USER_ID
    #: Redis pub/sub channel prefix of the live relay between workers.
    live_channel_prefix: str = "unimem:live:"
    #: Seconds between retention sweeps; 0 turns the periodic sweep off.
    sweep_interval: float = 3600.0
    #: ``UNIMEM_ENCRYPTION_KEYS`` as given (parsed when the service is built).
    encryption_keys: str | None = field(default=None, repr=False)
    #: The assistant's endpoint; ``None``: the server records but does not answer.
    llm: LLMEndpoint | None = field(default=None, repr=False)
    #: What the LLM may see of PHI (``UNIMEM_LLM_PHI``): ``tokens`` or ``allowed``.
    llm_phi: Literal["tokens", "allowed"] = "tokens"
    #: Seconds the LLM fact extractor may take (``UNIMEM_FACTS_LLM_TIMEOUT``);
    #: whether turns update facts at all is ``memory.auto_facts``.
    facts_llm_timeout: float = 2.0
    #: Dense recall's embedder (``UNIMEM_EMBEDDINGS``; built here: keyword only
    #: unless named, so an embedding app loads no model it did not ask for).
    embeddings: EmbeddingSettings = field(
        default_factory=lambda: EmbeddingSettings(mode="off"), repr=False
    )

    def __post_init__(self) -> None:
        if self.jwt_secret is not None and len(self.jwt_secret.encode()) < MIN_SECRET_BYTES:
            raise ConfigurationError(
                f"UNIMEM_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        if self.max_body_bytes < 1024:
            raise ConfigurationError("UNIMEM_MAX_BODY_BYTES must be at least 1024")
        if self.max_concurrent_requests < 0:
            raise ConfigurationError("UNIMEM_MAX_CONCURRENT_REQUESTS must be 0 (no limit) or more")
        if not self.sweep_interval >= 0:
            raise ConfigurationError("UNIMEM_SWEEP_INTERVAL must be a number of seconds >= 0")

    @property
    def local_mode(self) -> bool:
        """No secret: loopback only, and every request is ``local_user``."""
        return self.jwt_secret is None

    @property
    def store_kind(self) -> str:
        """The store's kind: the URL schemes (never the URLs, which may carry
        passwords), e.g. ``sqlite`` or ``redis+postgresql``."""
        durable = self.database_url.split("://", 1)[0].lower()
        durable = "postgresql" if durable == "postgres" else durable
        if self.redis_url:
            return f"{self.redis_url.split('://', 1)[0].lower()}+{durable}"
        return durable

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerSettings:
        """The server's view of ``settings``."""
        store, server = settings.store, settings.server
        secret, keys = settings.auth.jwt_secret, settings.privacy.encryption_keys
        return cls(
            database_url=store.durable_url,
            redis_url=store.redis_url,
            jwt_secret=secret.get_secret_value() if secret is not None else None,
            rate_limit=server.rate_limit,
            max_body_bytes=server.max_body_bytes,
            max_concurrent_requests=server.max_concurrent_requests,
            web_dir=server.web_root,
            memory=dataclasses.replace(store.memory_config(), auto_facts=settings.facts.auto),
            local_user=settings.auth.local_user,
            live_channel_prefix=server.live_channel_prefix,
            sweep_interval=server.sweep_interval,
            encryption_keys=keys.get_secret_value() if keys is not None else None,
            llm=settings.llm.endpoint(),
            llm_phi=settings.llm.phi,
            facts_llm_timeout=settings.facts.llm_timeout,
            embeddings=settings.embeddings,
        )

    def to_settings(self) -> Settings:
        """The :class:`~unimem.settings.Settings` these are a view of (what
        :func:`unimem.assembly.build_service` builds the service from)."""
        llm = self.llm
        memory = self.memory
        return Settings(
            store=StoreSettings(
                database_url=self.database_url,
                redis_url=self.redis_url,
                max_content_bytes=memory.max_content_bytes,
                hot_window=memory.hot_window,
                session_ttl=memory.session_ttl_seconds,
                short_term_ttl=memory.short_term_ttl_seconds,
                default_user_id=memory.default_user_id,
                max_context_messages=memory.max_context_messages,
                max_history_messages=memory.max_history_messages,
                max_events=memory.max_events,
            ),
            server=ServerSection(
                rate_limit=self.rate_limit,
                max_body_bytes=self.max_body_bytes,
                max_concurrent_requests=self.max_concurrent_requests,
                web_dir=self.web_dir,
                sweep_interval=self.sweep_interval,
                live_channel_prefix=self.live_channel_prefix,
            ),
            auth=AuthSettings(jwt_secret=self.jwt_secret, local_user=self.local_user),
            llm=LLMSettings(phi=self.llm_phi)
            if llm is None
            else LLMSettings(
                base_url=llm.base_url,
                model=llm.model,
                api_key=llm.api_key,
                timeout=llm.timeout,
                phi=self.llm_phi,
            ),
            facts=FactsSettings(auto=memory.auto_facts, llm_timeout=self.facts_llm_timeout),
            privacy=PrivacySettings(encryption_keys=self.encryption_keys),
            embeddings=self.embeddings,
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerSettings:
        """Settings from ``UNIMEM_*`` variables (``os.environ`` by default; see
        :mod:`unimem.settings`).

        Raises:
            ConfigurationError: a variable cannot work as given.
        """
        return cls.from_settings(Settings.from_env(env))
