"""unimem: unified conversation memory for voice and text AI assistants."""

from .assembly import build_service
from .config import MemoryConfig, load_config, resolve_data_dir
from .context.builder import LLMContext
from .embeddings import Embedder, EmbeddingError
from .errors import (
    AuthError,
    ConfigurationError,
    ConflictError,
    ContentTooLargeError,
    EntryNotFoundError,
    FactNotFoundError,
    InvalidInputError,
    NotFoundError,
    RateLimitedError,
    SchemaError,
    SessionClosedError,
    SessionNotFoundError,
    StoreError,
    StoreUnavailableError,
    UnimemError,
)
from .models import (
    AuditRecord,
    ConversationContext,
    DeletionReceipt,
    EventType,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    RagContext,
    Role,
    SessionInfo,
    StoredItem,
    SwitchTrigger,
)
from .privacy.vault import StreamReveal
from .recall.hits import MemoryHit
from .service import UnifiedMemoryService
from .service.indexer import IndexStatus
from .settings import Settings

__version__ = "0.1.0"

__all__ = [
    "AuditRecord",
    "AuthError",
    "ConfigurationError",
    "ConflictError",
    "ContentTooLargeError",
    "ConversationContext",
    "DeletionReceipt",
    "Embedder",
    "EmbeddingError",
    "EntryNotFoundError",
    "EventType",
    "Fact",
    "FactNotFoundError",
    "IndexStatus",
    "InvalidInputError",
    "LLMContext",
    "MemoryConfig",
    "MemoryEntry",
    "MemoryEvent",
    "MemoryHit",
    "MemorySettings",
    "Mode",
    "NotFoundError",
    "RagContext",
    "RateLimitedError",
    "Role",
    "SchemaError",
    "SessionClosedError",
    "SessionInfo",
    "SessionNotFoundError",
    "Settings",
    "StoreError",
    "StoreUnavailableError",
    "StoredItem",
    "StreamReveal",
    "SwitchTrigger",
    "UnifiedMemoryService",
    "UnimemError",
    "__version__",
    "build_service",
    "load_config",
    "resolve_data_dir",
]
