"""Server settings, read from the environment when the app is built (never at import).

==============================  ==============================================
``UNIMEM_DATABASE_URL``         durable store (default ``sqlite:///<data dir>/unimem.db``)
``UNIMEM_REDIS_URL``            session cache (optional)
``UNIMEM_JWT_SECRET``           HS256 secret for bearer tokens (at least 32 bytes);
                                unset means local mode: loopback only, user ``local``
``UNIMEM_RATE_LIMIT``           per-user limit such as ``600/minute``; ``off`` disables
``UNIMEM_MAX_BODY_BYTES``       largest request body accepted (1048576)
``UNIMEM_WEB_DIR``              built web UI to serve at ``/`` (default: the packaged one)
``UNIMEM_SWEEP_INTERVAL``       seconds between retention sweeps (3600); ``0`` turns them off
``UNIMEM_ENCRYPTION_KEYS``      keys encrypting content at rest (see ``unimem.privacy.crypto``)
``UNIMEM_LLM_BASE_URL`` ...     the assistant's OpenAI-compatible endpoint (see
                                ``unimem.context.llm_client``); unset: no assistant replies
==============================  ==============================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..config import DEFAULT_USER_ID, MemoryConfig, load_config, resolve_data_dir
from ..context.llm_client import LLMEndpoint, endpoint_from_env
from ..errors import ConfigurationError

__all__ = ["RateLimit", "ServerSettings", "default_database_url", "parse_rate_limit"]

_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}

#: HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2).
MIN_SECRET_BYTES = 32


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


def default_database_url(env: Mapping[str, str] | None = None) -> str:
    """``sqlite:///<data dir>/unimem.db``: the server's embedded default store."""
    return f"sqlite:///{resolve_data_dir(env) / 'unimem.db'}"


def _default_web_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web" / "dist"


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

    def __post_init__(self) -> None:
        if self.jwt_secret is not None and len(self.jwt_secret.encode()) < MIN_SECRET_BYTES:
            raise ConfigurationError(
                f"UNIMEM_JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        if self.max_body_bytes < 1024:
            raise ConfigurationError("UNIMEM_MAX_BODY_BYTES must be at least 1024")
        if not self.sweep_interval >= 0:
            raise ConfigurationError("UNIMEM_SWEEP_INTERVAL must be a number of seconds >= 0")

    @property
    def local_mode(self) -> bool:
        """No secret: loopback only, and every request is ``local_user``."""
        return self.jwt_secret is None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerSettings:
        """Settings from ``UNIMEM_*`` variables (see the module docstring).

        Raises:
            ConfigurationError: a variable cannot work as given.
        """
        env = os.environ if env is None else env
        raw_body = env.get("UNIMEM_MAX_BODY_BYTES", "").strip()
        try:
            max_body = int(raw_body) if raw_body else 1024 * 1024
        except ValueError:
            raise ConfigurationError(
                f"UNIMEM_MAX_BODY_BYTES must be a whole number, got {raw_body!r}"
            ) from None
        web_dir = env.get("UNIMEM_WEB_DIR", "").strip()
        raw_sweep = env.get("UNIMEM_SWEEP_INTERVAL", "").strip()
        try:
            sweep_interval = float(raw_sweep) if raw_sweep else 3600.0
        except ValueError:
            raise ConfigurationError(
                f"UNIMEM_SWEEP_INTERVAL must be a number of seconds, got {raw_sweep!r}"
            ) from None
        return cls(
            database_url=env.get("UNIMEM_DATABASE_URL", "").strip() or default_database_url(env),
            redis_url=env.get("UNIMEM_REDIS_URL", "").strip() or None,
            jwt_secret=env.get("UNIMEM_JWT_SECRET", "") or None,
            rate_limit=parse_rate_limit(env.get("UNIMEM_RATE_LIMIT", "600/minute")),
            max_body_bytes=max_body,
            web_dir=Path(web_dir).expanduser() if web_dir else _default_web_dir(),
            memory=load_config(env),
            sweep_interval=sweep_interval,
            encryption_keys=env.get("UNIMEM_ENCRYPTION_KEYS", "").strip() or None,
            llm=endpoint_from_env(env),
        )
