"""One settings object for the library, the server, the CLI and the MCP server.

:class:`Settings` has a section per concern (store, server, auth, LLM,
privacy). Nothing is read at import time, and ``Settings()`` is the defaults:
the environment is read only by :meth:`Settings.from_env`, which every entry
point calls once at start-up (the CLI passes its options in as overrides).
:func:`unimem.assembly.build_service` turns the result into a service.

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
==============================  ==============================================
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from .config import DEFAULT_USER_ID, MemoryConfig
from .context.llm_client import LLMEndpoint
from .embeddings import (
    Embedder,
    EmbeddingError,
    LocalEmbedder,
    OpenAICompatibleEmbedder,
    local_available,
)
from .errors import ConfigurationError
from .privacy.crypto import Keyring

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

_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}

#: HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2).
MIN_SECRET_BYTES = 32

#: Each variable and where it lands: (section, field). The first of two names
#: for one field that is set wins.
ENVIRONMENT: tuple[tuple[str, str, str], ...] = (
    ("UNIMEM_DATABASE_URL", "store", "database_url"),
    ("VOICEASSIST_DATA_DIR", "store", "data_dir"),
    ("UNIMEM_DATA_DIR", "store", "data_dir"),
    ("UNIMEM_REDIS_URL", "store", "redis_url"),
    ("UNIMEM_MAX_CONTENT_BYTES", "store", "max_content_bytes"),
    ("UNIMEM_HOT_WINDOW", "store", "hot_window"),
    ("UNIMEM_SESSION_TTL", "store", "session_ttl"),
    ("UNIMEM_SHORT_TERM_TTL", "store", "short_term_ttl"),
    ("UNIMEM_MAX_CLOCK_SKEW", "store", "max_clock_skew"),
    ("UNIMEM_JWT_SECRET", "auth", "jwt_secret"),
    ("UNIMEM_RATE_LIMIT", "server", "rate_limit"),
    ("UNIMEM_MAX_BODY_BYTES", "server", "max_body_bytes"),
    ("UNIMEM_WEB_DIR", "server", "web_dir"),
    ("UNIMEM_SWEEP_INTERVAL", "server", "sweep_interval"),
    ("UNIMEM_LLM_BASE_URL", "llm", "base_url"),
    ("UNIMEM_LLM_MODEL", "llm", "model"),
    ("UNIMEM_LLM_API_KEY", "llm", "api_key"),
    ("UNIMEM_LLM_TIMEOUT", "llm", "timeout"),
    ("UNIMEM_LLM_PHI", "llm", "phi"),
    ("UNIMEM_ENCRYPTION_KEYS", "privacy", "encryption_keys"),
    ("UNIMEM_AUTO_FACTS", "facts", "auto"),
    ("UNIMEM_FACTS_LLM_TIMEOUT", "facts", "llm_timeout"),
    ("UNIMEM_EMBEDDINGS", "embeddings", "mode"),
    ("UNIMEM_EMBEDDINGS_MODEL", "embeddings", "model"),
    ("UNIMEM_EMBEDDINGS_API_KEY", "embeddings", "api_key"),
    ("UNIMEM_EMBEDDINGS_TIMEOUT", "embeddings", "timeout"),
)

#: Values never echoed in an error.
_SECRET_FIELDS = {
    ("auth", "jwt_secret"),
    ("llm", "api_key"),
    ("privacy", "encryption_keys"),
    ("embeddings", "api_key"),
}


@dataclass(frozen=True, slots=True)
class RateLimit:
    """``requests`` per ``period`` seconds, per user."""

    requests: int
    period: float

    def __str__(self) -> str:
        names = {seconds: name for name, seconds in _PERIODS.items()}
        return f"{self.requests}/{names.get(self.period, f'{self.period:g}s')}"


def parse_rate_limit(raw: str) -> RateLimit | None:
    """Parse ``"600/minute"`` (also ``second``, ``hour``, ``day``, or seconds as a number).

    ``"off"``, ``"0"`` and ``""`` mean no limit (``None``).

    Raises:
        ConfigurationError: the text is not ``<count>/<period>``.
    """
    text = raw.strip().lower()
    if text in ("", "0", "off", "none"):
        return None
    count, _, period = text.partition("/")
    try:
        requests = int(count)
        seconds = _PERIODS.get(period.rstrip("s")) or float(period or "nan")
    except ValueError:
        seconds = float("nan")
        requests = 0
    if requests < 1 or not seconds > 0:
        raise ConfigurationError(
            f"UNIMEM_RATE_LIMIT must look like '600/minute' (count/second|minute|hour|day), "
            f"got {raw!r}"
        )
    return RateLimit(requests, seconds)


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StoreSettings(_Section):
    """Where data lives and the limits the service enforces."""

    #: The durable store's URL; ``None``: SQLite in :attr:`data_dir`.
    database_url: str | None = None
    #: The Redis session cache in front of it (optional).
    redis_url: str | None = None
    #: Data directory, relative to the working directory unless absolute.
    data_dir: Path = Path("./data")
    max_content_bytes: int = Field(32 * 1024, ge=1)
    hot_window: int = Field(50, ge=1)
    session_ttl: int = Field(24 * 3600, ge=1)
    short_term_ttl: int = Field(24 * 3600, ge=1)
    #: Seconds an entry's timestamp may be ahead of the server's clock.
    max_clock_skew: int = Field(300, ge=0)
    #: The user of calls that name none (and of local mode).
    default_user_id: str = DEFAULT_USER_ID
    max_context_messages: int = Field(200, ge=1)
    max_history_messages: int = Field(10_000, ge=1)
    max_events: int = Field(1_000, ge=1)

    @property
    def durable_url(self) -> str:
        """``database_url``, or ``sqlite:///<data dir>/unimem.db``."""
        return self.database_url or f"sqlite:///{self.data_dir.expanduser() / 'unimem.db'}"

    def memory_config(self) -> MemoryConfig:
        """The service limits these settings name."""
        return MemoryConfig(
            max_content_bytes=self.max_content_bytes,
            hot_window=self.hot_window,
            session_ttl_seconds=self.session_ttl,
            short_term_ttl_seconds=self.short_term_ttl,
            default_user_id=self.default_user_id,
            max_context_messages=self.max_context_messages,
            max_history_messages=self.max_history_messages,
            max_events=self.max_events,
            max_clock_skew_seconds=self.max_clock_skew,
        )


def _packaged_web_dir() -> Path:
    return Path(__file__).resolve().parent / "web" / "dist"


class ServerSection(_Section):
    """The HTTP server's limits and files."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    rate_limit: RateLimit | None = RateLimit(600, 60.0)
    max_body_bytes: int = Field(1024 * 1024, ge=1024)
    #: The built web UI; ``None``: the one packaged in ``unimem/web/dist``.
    web_dir: Path | None = None
    #: Seconds between retention sweeps; 0 turns the periodic sweep off.
    sweep_interval: float = Field(3600.0, ge=0)
    #: Redis pub/sub channel prefix of the live relay between workers.
    live_channel_prefix: str = "unimem:live:"

    @field_validator("rate_limit", mode="before")
    @classmethod
    def _parse_rate_limit(cls, value: Any) -> Any:
        return parse_rate_limit(value) if isinstance(value, str) else value

    @field_validator("sweep_interval")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number of seconds")
        return value

    @property
    def web_root(self) -> Path:
        """:attr:`web_dir`, or the packaged web UI."""
        return self.web_dir.expanduser() if self.web_dir is not None else _packaged_web_dir()


class AuthSettings(_Section):
    """Bearer tokens, or local mode."""

    #: HS256 secret of bearer tokens; ``None`` is local mode.
    jwt_secret: SecretStr | None = None
    #: The user every request is in local mode.
    local_user: str = DEFAULT_USER_ID

    @field_validator("jwt_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
            raise ValueError(
                f"must be at least {MIN_SECRET_BYTES} bytes "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        return value

    @property
    def local_mode(self) -> bool:
        """No secret: loopback only, and every request is ``local_user``."""
        return self.jwt_secret is None


class LLMSettings(_Section):
    """The OpenAI-compatible endpoint summarizing older turns and answering in the server."""

    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key: SecretStr | None = None
    timeout: float = 5.0
    #: What the server's LLM may see of PHI (``/llm-context``, ``/reply``):
    #: ``tokens`` (never a value) or ``allowed`` (values from the vault).
    phi: Literal["tokens", "allowed"] = "tokens"

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if not (value > 0 and math.isfinite(value)):
            raise ValueError("must be a positive number of seconds")
        return value

    def endpoint(self) -> LLMEndpoint | None:
        """The endpoint, or ``None`` when no base URL is set."""
        if self.base_url is None:
            return None
        key = self.api_key.get_secret_value() if self.api_key is not None else None
        return LLMEndpoint(self.base_url, model=self.model, api_key=key, timeout=self.timeout)


class FactsSettings(_Section):
    """The facts each turn updates (allergies, medicines, names, ...)."""

    #: Whether user and assistant turns update the user's facts.
    auto: bool = True
    #: Seconds the LLM extractor (when an LLM is configured) may take.
    llm_timeout: float = 2.0

    @field_validator("llm_timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if not (value > 0 and math.isfinite(value)):
            raise ValueError("must be a positive number of seconds")
        return value


class PrivacySettings(_Section):
    """Encryption at rest."""

    encryption_keys: SecretStr | None = None

    def keyring(self) -> Keyring | None:
        """The keys, parsed; ``None`` when encryption is off.

        Raises:
            ConfigurationError: malformed keys.
        """
        if self.encryption_keys is None:
            return None
        return Keyring.parse(self.encryption_keys.get_secret_value())


class EmbeddingSettings(_Section):
    """Dense recall's embedder: the built-in model, an endpoint, or none."""

    #: ``auto``, ``local``, ``off`` or an ``http(s)://`` OpenAI-compatible base URL.
    mode: str = "auto"
    #: The model an endpoint is asked for (the built-in model has its own name).
    model: str = "nomic-embed-text"
    api_key: SecretStr | None = None
    timeout: float = 10.0

    @field_validator("mode")
    @classmethod
    def _known(cls, value: str) -> str:
        if value.lower() in ("auto", "local", "off"):
            return value.lower()
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be auto, local, off or an http(s):// base URL")
        return value

    @field_validator("timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if not (value > 0 and math.isfinite(value)):
            raise ValueError("must be a positive number of seconds")
        return value

    def embedder(self) -> Embedder | None:
        """The embedder named, or ``None`` (keyword recall only).

        Raises:
            ConfigurationError: ``local`` is asked for and the model is not installed.
        """
        if self.mode == "off" or (self.mode == "auto" and not local_available()):
            return None
        if self.mode in ("auto", "local"):
            try:
                return LocalEmbedder()
            except EmbeddingError as exc:
                raise ConfigurationError(f"UNIMEM_EMBEDDINGS=local: {exc}") from None
        key = self.api_key.get_secret_value() if self.api_key is not None else None
        return OpenAICompatibleEmbedder(
            self.mode, model=self.model, api_key=key, timeout=self.timeout
        )


class _Environment(PydanticBaseSettingsSource):
    """The documented ``UNIMEM_*`` variables of a mapping, as section values."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self.environ = environ

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: :meth:`__call__` reads the variables by the table."""
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        values: dict[str, dict[str, Any]] = {}
        for name, section, field in ENVIRONMENT:
            raw = self.environ.get(name)
            if raw is None or not raw.strip():
                continue
            # secrets keep their spaces; every other value is trimmed
            value = raw if (section, field) in _SECRET_FIELDS else raw.strip()
            values.setdefault(section, {}).setdefault(field, value)
        return values


#: The variables naming the data directory, first set wins.
_DATA_DIR_VARIABLES = tuple(name for name, *where in ENVIRONMENT if where == ["store", "data_dir"])


def data_dir_from_env(env: Mapping[str, str] | None = None) -> Path:
    """The data directory ``Settings.from_env(env).store.data_dir`` names, user
    directory expanded, reading only its variables (a question asked on every
    PHI detection, which must not fail on another variable's value).

    Args:
        env: the variables; ``os.environ`` when omitted.
    """
    environ = os.environ if env is None else env
    for name in _DATA_DIR_VARIABLES:
        raw = environ.get(name)
        if raw is not None and raw.strip():
            return Path(raw.strip()).expanduser()
    return StoreSettings.model_fields["data_dir"].default.expanduser()  # type: ignore[no-any-return]


def _variable(section: str, field: str) -> str:
    for name, sec, fld in reversed(ENVIRONMENT):
        if (sec, fld) == (section, field):
            return name
    return f"{section}.{field}"


def _configuration_error(exc: ValidationError) -> ConfigurationError:
    problems = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        name = _variable(*loc[:2]) if len(loc) >= 2 else ".".join(loc)
        ctx = error.get("ctx") or {}
        message = str(ctx["error"]) if error["type"] == "value_error" else error["msg"]
        shown = "" if tuple(loc[:2]) in _SECRET_FIELDS else f", got {error['input']!r}"
        problems.append(f"{name}: {message[0].lower()}{message[1:]}{shown}")
    return ConfigurationError("; ".join(problems))


def _merge(base: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


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
        values = _merge(_Environment(cls, environ)(), overrides)
        try:
            return cls(**values)
        except ValidationError as exc:
            raise _configuration_error(exc) from None

    @property
    def local_mode(self) -> bool:
        """No JWT secret: loopback only, every request is the local user."""
        return self.auth.local_mode
