"""The PostgreSQL backend: the durable store of a production deployment."""

from __future__ import annotations

from .store import PostgresStore

__all__ = ["PostgresStore"]
