"""The Redis layers: the session cache and the short-term layer in front of a durable store."""

from __future__ import annotations

from .cache import RedisSessionCache

__all__ = ["RedisSessionCache"]
