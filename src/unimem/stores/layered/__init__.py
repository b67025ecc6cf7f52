"""The production layering: a durable store behind a Redis session cache."""

from __future__ import annotations

from .context_reads import CACHE_DEGRADATION
from .store import LayeredStore, layered_store_from_urls

__all__ = ["CACHE_DEGRADATION", "LayeredStore", "layered_store_from_urls"]
