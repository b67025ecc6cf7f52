"""The ``server`` section: the HTTP server's rate limit, body limit, web UI
and retention sweeps."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from ..errors import ConfigurationError
from .section import Section

__all__ = ["RateLimit", "ServerSection", "parse_rate_limit"]

_PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}


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


def _packaged_web_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "web" / "dist"


class ServerSection(Section):
    """The HTTP server's limits and files."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    rate_limit: RateLimit | None = RateLimit(600, 60.0)
    max_body_bytes: int = Field(1024 * 1024, ge=1024)
    #: HTTP requests one worker runs at once; more wait their turn. 0: no limit.
    max_concurrent_requests: int = Field(32, ge=0)
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
