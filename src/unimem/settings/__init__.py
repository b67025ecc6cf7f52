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

==============================  ======================================="""

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
