"""The in-process backend: the zero-configuration default store."""

from __future__ import annotations

from .store import InMemoryStore

__all__ = ["InMemoryStore"]
