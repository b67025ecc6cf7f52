"""Modules that became packages or moved keep their old import paths, with
every name their ``__all__`` listed before the move (the same objects)."""

import importlib

import pytest

# module path before the move -> (where the names live now, the old __all__)
MOVED = {
    "unimem.server.settings": (
        "unimem.server.server_settings",
        [
            "MIN_SECRET_BYTES",
            "RateLimit",
            "ServerSettings",
            "default_database_url",
            "parse_rate_limit",
        ],
    ),
    "unimem.recall.tokens": (
        "unimem.recall.search_terms",
        ["STOPWORDS", "is_cjk", "terms", "terms_text"],
    ),
}

# modules that became packages of the same name
PACKAGED = {
    "unimem.models": [
        "AuditRecord", "ConversationContext", "DeletionReceipt", "EventType", "Fact",
        "FactStatus", "MemoryEntry", "MemoryEvent", "MemorySettings", "Mode", "RagContext",
        "Role", "SessionInfo", "StoredItem", "Summary", "SwitchTrigger",
    ],
    "unimem.settings": [
        "ENVIRONMENT", "AuthSettings", "EmbeddingSettings", "FactsSettings", "LLMSettings",
        "PrivacySettings", "RateLimit", "ServerSection", "Settings", "StoreSettings",
        "data_dir_from_env", "parse_rate_limit",
    ],
    "unimem.client": ["MemoryClient"],
    "unimem.cli": ["main"],
    "unimem.stores.contracts": [
        "RECENT_SCAN", "AppendResult", "ContextSnapshot", "DeleteScope", "DurableStore",
        "EventStateStore", "FactsChanged", "ItemStore", "PhiGuard", "PrivacyStore",
        "SessionStore", "SessionTtlStore", "SettingsChanged", "SettingsGuard",
        "StoreLifecycle", "SweepReportStore", "TimelineStore", "TokensChanged",
        "UserDataStore", "VaultStore", "VaultValue",
    ],
    "unimem.stores.memory": ["InMemoryStore"],
    "unimem.stores.layered": ["CACHE_DEGRADATION", "LayeredStore", "layered_store_from_urls"],
}  # fmt: skip


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_imports_from_its_old_path_with_the_same_objects(old: str) -> None:
    new, names = MOVED[old]
    old_module, new_module = importlib.import_module(old), importlib.import_module(new)
    assert old_module.__all__ == names
    for name in names:
        assert getattr(old_module, name) is getattr(new_module, name), name


@pytest.mark.parametrize("path", sorted(PACKAGED))
def test_a_module_that_became_a_package_keeps_its_names(path: str) -> None:
    module = importlib.import_module(path)
    missing = [name for name in PACKAGED[path] if not hasattr(module, name)]
    assert missing == []
