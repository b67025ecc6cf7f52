"""The SQLite backend: the embedded default durable store."""

from __future__ import annotations

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
