"""The public API is exactly what ``unimem.__all__`` says, sorted (as httpx's
``tests/test_exported_members.py`` checks), and every type a public method of
the service returns is part of it."""

import inspect
import types
import typing

import unimem


def test_all_is_exactly_the_public_names_sorted():
    public = sorted(
        name
        for name, value in vars(unimem).items()
        if (not name.startswith("_") or name == "__version__")
        and not isinstance(value, types.ModuleType)
    )
    assert unimem.__all__ == public


def _types_in(annotation: object) -> set[type]:
    found: set[type] = set()
    if isinstance(annotation, type):
        found.add(annotation)
    for arg in typing.get_args(annotation):
        found |= _types_in(arg)
    return found


def test_every_type_a_service_method_returns_is_exported():
    service = unimem.UnifiedMemoryService
    returned: set[type] = set()
    for name, method in inspect.getmembers(service, inspect.isfunction):
        if not name.startswith("_"):
            returned |= _types_in(typing.get_type_hints(method).get("return"))
    ours = {t for t in returned if t.__module__.startswith("unimem")}
    assert {"Fact", "DeletionReceipt", "LLMContext", "AuditRecord"} <= {t.__name__ for t in ours}
    for kind in ours:
        assert getattr(unimem, kind.__name__, None) is kind, kind.__name__


def test_the_spec_stores_import_from_their_first_module() -> None:
    """The public promise: the spec's store classes import where they were published."""
    from unimem.stores import spec_faces, spec_stores

    assert spec_faces.RedisMemoryStore is spec_stores.RedisMemoryStore
    assert spec_faces.PostgresMemoryStore is spec_stores.PostgresMemoryStore
