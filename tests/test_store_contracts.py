"""Every backend and wrapper implements the store contract explicitly: each
method of each protocol defined on its class with the contract's parameters,
no attribute forwarding, and the optional capabilities named where they are."""

from __future__ import annotations

import inspect

import pytest

from unimem.privacy.crypto import Keyring, generate_key
from unimem.privacy.encrypted_store import EncryptedStore
from unimem.server.metrics import Metrics
from unimem.server.timed_store import TimedStore
from unimem.stores import DurableStore, InMemoryStore, SQLiteStore
from unimem.stores.contracts import (
    EventStateStore,
    ItemStore,
    PrivacyStore,
    SessionStore,
    SessionTtlStore,
    StoreLifecycle,
    SweepReportStore,
    TimelineStore,
    UserDataStore,
    VaultStore,
)
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres import PostgresStore
from unimem.stores.vectors import VectorStore

CONCERNS = (StoreLifecycle, TimelineStore, SessionStore, UserDataStore, PrivacyStore, VaultStore)
IMPLEMENTATIONS = (
    InMemoryStore,
    SQLiteStore,
    PostgresStore,
    LayeredStore,
    EncryptedStore,
    TimedStore,
)


def _methods(protocol: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in vars(protocol).items()
        if inspect.iscoroutinefunction(fn)
    }


def _params(sig: inspect.Signature) -> list[tuple[str, object]]:
    return [(p.name, p.kind) for p in sig.parameters.values()]


def test_the_contract_is_the_union_of_its_concerns() -> None:
    members = [name for concern in CONCERNS for name in _methods(concern)]
    assert len(members) == len(set(members)) == 31  # each method in one concern only
    assert set(members) == {
        name
        for name in dir(DurableStore)
        if inspect.iscoroutinefunction(getattr(DurableStore, name))
    }


@pytest.mark.parametrize("cls", IMPLEMENTATIONS, ids=lambda c: c.__name__)
def test_each_implementation_defines_every_method_itself(cls: type) -> None:
    assert not hasattr(cls, "__getattr__")
    for concern in CONCERNS:
        for name, sig in _methods(concern).items():
            method = inspect.getattr_static(cls, name)
            assert inspect.iscoroutinefunction(method), f"{cls.__name__}.{name}"
            assert _params(inspect.signature(method)) == _params(sig), f"{cls.__name__}.{name}"


@pytest.mark.parametrize("cls", IMPLEMENTATIONS, ids=lambda c: c.__name__)
def test_each_implementation_keeps_namespaced_items_itself(cls: type) -> None:
    methods = _methods(ItemStore)
    assert len(methods) == 8
    for name, sig in methods.items():
        method = inspect.getattr_static(cls, name)
        assert inspect.iscoroutinefunction(method), f"{cls.__name__}.{name}"
        assert _params(inspect.signature(method)) == _params(sig), f"{cls.__name__}.{name}"
    assert issubclass(cls, ItemStore)


def test_capabilities_are_named_where_they_are() -> None:
    assert issubclass(PostgresStore, EventStateStore) and issubclass(
        PostgresStore, SweepReportStore
    )
    assert issubclass(LayeredStore, SessionTtlStore)
    for cls in (InMemoryStore, SQLiteStore, PostgresStore):
        assert not issubclass(cls, SessionTtlStore)
    for cls in (InMemoryStore, SQLiteStore, LayeredStore):
        assert not issubclass(cls, EventStateStore) and not issubclass(cls, SweepReportStore)


async def test_wrappers_pass_extend_ttl_on_only_to_a_store_that_has_it() -> None:
    keyring = Keyring.parse(generate_key("k1"))
    for store in (EncryptedStore(InMemoryStore(), keyring), TimedStore(InMemoryStore(), Metrics())):
        assert isinstance(store, DurableStore)
        assert await store.extend_ttl("s1") is False


def test_a_snapshot_carries_recent_turns_and_degradations() -> None:
    """What a layered store reads with the context is part of the contract's
    snapshot, so the service and wrappers read it as fields, not by probing."""
    from unimem.stores import ContextSnapshot

    plain = ContextSnapshot(None, [], [], [], None)
    assert plain.recent is None and plain.degradations == []
    rich = ContextSnapshot(None, [], [], [], None, recent=[], degradations=["x"])
    assert rich.recent == [] and rich.degradations == ["x"]


@pytest.mark.parametrize("cls", IMPLEMENTATIONS, ids=lambda c: c.__name__)
def test_each_implementation_keeps_or_refuses_vectors_itself(cls: type) -> None:
    """The vector capability (four methods) is defined on every backend and
    wrapper with the protocol's parameters: the wrappers delegate it, the
    encrypted store refuses it (sealed content gets no vectors)."""
    methods = _methods(VectorStore)
    assert set(methods) == {"pending_vectors", "put_vectors", "vector_search", "vector_backlog"}
    assert issubclass(cls, VectorStore)
    for name, sig in methods.items():
        method = inspect.getattr_static(cls, name)
        assert inspect.iscoroutinefunction(method), f"{cls.__name__}.{name}"
        assert _params(inspect.signature(method)) == _params(sig), f"{cls.__name__}.{name}"
