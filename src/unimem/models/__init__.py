"""Data model of unimem: entries, events, sessions, settings and context.

The models are pydantic models so that the library, the HTTP API and the
client share one definition. Invalid input raises
:class:`unimem.errors.InvalidInputError` naming the field, never a bare
pydantic error.

One module per concern: :mod:`~unimem.models.enums` (roles, modes, event
types, switch triggers), :mod:`~unimem.models.entries` (a session's timeline),
:mod:`~unimem.models.sessions` (its metadata, summary and context),
:mod:`~unimem.models.facts`, :mod:`~unimem.models.privacy_records` (settings,
audit, deletion receipts) and :mod:`~unimem.models.stored_items`, all on the
strict base of :mod:`~unimem.models.base`. Import them from here.
"""

from __future__ import annotations

from .base import translate_validation_error as translate_validation_error
from .base import utcnow as utcnow
from .entries import MemoryEntry, MemoryEvent
from .enums import EventType, Mode, Role, SwitchTrigger
from .facts import FACT_KEY_CHARS as FACT_KEY_CHARS
from .facts import FACT_MAX_ATTRIBUTES as FACT_MAX_ATTRIBUTES
from .facts import FACT_MAX_SOURCES as FACT_MAX_SOURCES
from .facts import FACT_VALUE_CHARS as FACT_VALUE_CHARS
from .facts import Fact, FactStatus
from .privacy_records import AuditRecord, DeletionReceipt, MemorySettings
from .sessions import ConversationContext, RagContext, SessionInfo, Summary
from .stored_items import StoredItem

__all__ = [
    "AuditRecord",
    "ConversationContext",
    "DeletionReceipt",
    "EventType",
    "Fact",
    "FactStatus",
    "MemoryEntry",
    "MemoryEvent",
    "MemorySettings",
    "Mode",
    "RagContext",
    "Role",
    "SessionInfo",
    "StoredItem",
    "Summary",
    "SwitchTrigger",
]
