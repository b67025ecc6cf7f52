"""One settings object for the library, the server, the CLI and the MCP server.

:class:`Settings` has a section per concern (store, server, auth, LLM,
privacy). Nothing is read at import time, and ``Settings()`` is the defaults:
the environment is read only by :meth:`Settings.from_env`, which every entry
point calls once at start-up (the CLI passes its options in as overrides).
:func:`unimem.assembly.build_service` turns the result into a service.

A module per section (``store_section``, ``server_section``, ``auth_section``,
``llm_section``, ``facts_section``, ``privacy_section``, ``embedding_section``);
:mod:`.environment` maps the variables onto them.

Environment variables (an empty value counts as unset):

==============================  ==============================================
``UNIMEM_DATABASE_URL``         durable store: ``sqlite:///path.db``, ``postgresql://...``
                                or ``memory://`` (default: ``sqlite:///<data dir>/unimem.db``)
``UNIMEM_DATA_DIR``             data directory (``./data``, relative to the working
                                directory); ``VOICEASSIST_DATA_DIR`` wins when set
``UNIMEM_REDIS_URL``            session cache: ``redis://...`` or ``redis+cluster://...``
``UNIMEM_MAX_CONTENT_BYTES``    largest ``content`` accepted, in UTF-8 bytes (32768)
``UNIMEM_HOT_WINDOW``           messages kept hot per session (50)
``UNIMEM_SESSION_TTL``          idle seconds before a cached session expires (86400)
``UNIMEM_SHORT_TERM_TTL``       seconds the short-term layer keeps entries (86400)
``UNIMEM_MAX_CLOCK_SKEW``       seconds an entry's ``timestamp`` may be ahead of the clock (300)
``UNIMEM_JWT_SECRET``           HS256 secret for bearer tokens (at least 32 bytes);
                                unset means local mode: loopback only, user ``local``
``UNIMEM_RATE_LIMIT``           per-user limit such as ``600/minute``; ``off`` disables
``UNIMEM_MAX_BODY_BYTES``       largest request body accepted (1048576)
``UNIMEM_MAX_CONCURRENT_REQUESTS``
                                HTTP requests a worker runs at once (32); more wait
                                their turn; ``0``: no limit
``UNIMEM_WEB_DIR``              built web UI to serve at ``/`` (default: the packaged one)
``UNIMEM_SWEEP_INTERVAL``       seconds between retention sweeps (3600); ``0`` turns them off
``UNIMEM_LLM_BASE_URL``         OpenAI-compatible endpoint base, e.g. ``http://127.0.0.1:8000/v1``
                                (unset: extractive summaries, no assistant replies)
``UNIMEM_LLM_MODEL``            model name sent in the request (``gpt-4o-mini``)
``UNIMEM_LLM_API_KEY``          bearer token, if the endpoint wants one
``UNIMEM_LLM_TIMEOUT``          seconds: the whole call, or the wait for each streamed
                                chunk (5)
``UNIMEM_LLM_PHI``              what the server's LLM may see of PHI: ``tokens`` (default:
                                ``[PERSON_1]``, never a value) or ``allowed`` (values from
                                the vault, for an LLM the deployment trusts)
``UNIMEM_AUTO_FACTS``           whether each turn updates the user's facts (``true``)
``UNIMEM_FACTS_LLM_TIMEOUT``    seconds the LLM fact extractor may take before the
                                offline rules decide alone (2)
``UNIMEM_ENCRYPTION_KEYS``      keys encrypting content at rest (``kid:base64key[,...]``,
                                see :mod:`unimem.privacy.crypto`)
``UNIMEM_EMBEDDINGS``           dense recall: ``auto`` (the built-in model when installed,
                                else keyword only; the default), ``local``, ``off``, or an
                                OpenAI-compatible base URL such as ``http://127.0.0.1:11434/v1``
``UNIMEM_EMBEDDINGS_MODEL``     model name sent to that endpoint (``nomic-embed-text``)
``UNIMEM_EMBEDDINGS_API_KEY``   bearer token of that endpoint, if it wants one
``UNIMEM_EMBEDDINGS_TIMEOUT``   seconds for each embeddings request (10)
``UNIMEM_VECTOR_CACHE_MB``      memory (MiB) of dense recall's per-user vector matrices and
                                indexes in each process (256; ``0``: the store scans)
==============================  ==============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .auth_section import MIN_SECRET_BYTES as MIN_SECRET_BYTES
from .auth_section import AuthSettings
from .embedding_section import EmbeddingSettings
from .environment import (
    ENVIRONMENT,
    EnvironmentSource,
    configuration_error,
    data_dir_from_env,
    merge_overrides,
)
from .facts_section import FactsSettings
from .llm_section import LLMSettings
from .privacy_section import PrivacySettings
from .server_section import RateLimit, ServerSection, parse_rate_limit
from .store_section import StoreSettings

__all__ = [
    "ENVIRONMENT",
    "AuthSettings",
    "EmbeddingSettings",
    "FactsSettings",
    "LLMSettings",
    "PrivacySettings",
    "RateLimit",
    "ServerSection",
    "Settings",
    "StoreSettings",
    "data_dir_from_env",
    "parse_rate_limit",
]


class Settings(BaseSettings):
    """Everything unimem can be configured with, by section.

    ``Settings()`` is the defaults; ``Settings(store={"database_url": ...})``
    names values; :meth:`from_env` reads the ``UNIMEM_*`` variables (see the
    module docstring).
    """

    model_config = SettingsConfigDict(frozen=True, extra="forbid")

    store: StoreSettings = StoreSettings()
    server: ServerSection = ServerSection()
    auth: AuthSettings = AuthSettings()
    llm: LLMSettings = LLMSettings()
    facts: FactsSettings = FactsSettings()
    privacy: PrivacySettings = PrivacySettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only what is passed in: the environment is read by :meth:`from_env` alone."""
        return (init_settings,)

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, **overrides: Mapping[str, Any]
    ) -> Settings:
        """The settings the ``UNIMEM_*`` variables name, then ``overrides`` by
        section (``store={"database_url": url}``: what a command-line option gives).

        Args:
            env: the variables; ``os.environ`` when omitted.

        Raises:
            ConfigurationError: a value cannot work; the message names the variable.
        """
        environ = os.environ if env is None else env
        values = merge_overrides(EnvironmentSource(cls, environ)(), overrides)
        try:
            return cls(**values)
        except ValidationError as exc:
            raise configuration_error(exc) from None

    @property
    def local_mode(self) -> bool:
        """No JWT secret: loopback only, every request is the local user."""
        return self.auth.local_mode
