"""The memory service: :class:`UnifiedMemoryService`, a façade over its parts
(writes, reads, privacy, context), each in its own module of this package."""

from __future__ import annotations

from .facade import UnifiedMemoryService

__all__ = ["UnifiedMemoryService"]
