"""Times as the SQLite store keeps them: microseconds since the epoch, UTC."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["time_of", "us"]


def us(value: datetime | None) -> int:
    """``value`` as microseconds since the epoch (it must be set)."""
    assert value is not None
    return int(value.timestamp() * 1_000_000)


def time_of(value: int) -> datetime:
    """The time ``value`` microseconds after the epoch, in UTC."""
    return datetime.fromtimestamp(value / 1_000_000, tz=UTC)
