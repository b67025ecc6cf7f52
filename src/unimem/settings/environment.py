"""The ``UNIMEM_*`` variables: which section and field each one sets, how a
mapping of them becomes section values, and errors that name the variable
(never a secret's value)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from ..errors import ConfigurationError
from .store_section import StoreSettings

__all__ = [
    "ENVIRONMENT",
    "EnvironmentSource",
    "configuration_error",
    "data_dir_from_env",
    "merge_overrides",
]

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
    ("UNIMEM_VECTOR_CACHE_MB", "store", "vector_cache_mb"),
    ("UNIMEM_JWT_SECRET", "auth", "jwt_secret"),
    ("UNIMEM_RATE_LIMIT", "server", "rate_limit"),
    ("UNIMEM_MAX_BODY_BYTES", "server", "max_body_bytes"),
    ("UNIMEM_MAX_CONCURRENT_REQUESTS", "server", "max_concurrent_requests"),
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


class EnvironmentSource(PydanticBaseSettingsSource):
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


def configuration_error(exc: ValidationError) -> ConfigurationError:
    """The error of settings that cannot work, each problem under its variable's name."""
    problems = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        name = _variable(*loc[:2]) if len(loc) >= 2 else ".".join(loc)
        ctx = error.get("ctx") or {}
        message = str(ctx["error"]) if error["type"] == "value_error" else error["msg"]
        shown = "" if tuple(loc[:2]) in _SECRET_FIELDS else f", got {error['input']!r}"
        problems.append(f"{name}: {message[0].lower()}{message[1:]}{shown}")
    return ConfigurationError("; ".join(problems))


def merge_overrides(base: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` in place, section by section."""
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged
