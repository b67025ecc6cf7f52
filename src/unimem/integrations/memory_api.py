"""The part of the memory API the adapters use, met by the service and the client alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from ..client import MemoryClient
    from ..service import UnifiedMemoryService

#: What every adapter takes: memory in this process or a remote ``unimem serve``.
Memory: TypeAlias = "UnifiedMemoryService | MemoryClient"

#: The most entries one history read returns (the service's ``get_history`` limit).
HISTORY_LIMIT = 10_000

__all__ = ["HISTORY_LIMIT", "Memory"]
