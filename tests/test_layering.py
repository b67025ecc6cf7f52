"""Imports point one way (docs/design.md, "Layers"): models and errors at the
bottom; pure cores import no store, service or edge; stores import no
service or edge; the service imports no edge. Read from the source (AST),
imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "unimem"

EDGES = ("unimem.server", "unimem.cli", "unimem.mcp_server", "unimem.client")
SERVICE = ("unimem.service", "unimem.assembly")
STORE_BACKENDS = (
    "unimem.stores.memory",
    "unimem.stores.sqlite",
    "unimem.stores.postgres",
    "unimem.stores.redis",
    "unimem.stores.layered",
    "unimem.stores.spec_stores",
)
#: Pure cores: synchronous rules with no I/O (a store's contract types are allowed).
PURE = (
    "unimem.language",
    "unimem.context.tokens",
    "unimem.context.truncate",
    "unimem.context.budget",
    "unimem.context.builder",
    "unimem.context.extractive",
    "unimem.context.fact_block",
    "unimem.privacy.phi",
    "unimem.privacy.pseudonyms",
    "unimem.privacy.sealing",
    "unimem.facts",
    "unimem.stores.timeline",
    "unimem.stores.rows",
    "unimem.recall.vectors",
)

#: (modules the rule is about, what they may not import, except)
RULES: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = [
    (("unimem.errors", "unimem.ids"), ("unimem",), ()),
    (("unimem.models", "unimem.validation"), ("unimem",), ("unimem.errors", "unimem.models")),
    (PURE, ("unimem.stores", *SERVICE, *EDGES), ("unimem.stores.contracts",)),
    (("unimem.stores",), ("unimem.privacy", "unimem.context", *SERVICE, *EDGES), ()),
    (("unimem.stores.contracts", "unimem.stores.timeline"), STORE_BACKENDS, ()),
    (
        ("unimem.context", "unimem.privacy", "unimem.language", "unimem.facts"),
        (*SERVICE, *EDGES),
        (),
    ),
    (SERVICE, EDGES, ()),
    # embedders turn text into vectors: no store, service or edge
    (("unimem.embeddings",), ("unimem.stores", *SERVICE, *EDGES), ()),
]


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    module = _name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
                names = [f"{target}.{a.name}" for a in node.names] if not node.module else []
                found.update([target, *names] if names else [target])
            elif node.module:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "unimem" or name.startswith("unimem.")}


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") or name.startswith(p + "_") for p in prefixes)


MODULES = {_name(path): _imports(path) for path in sorted(PACKAGE.rglob("*.py"))}


def test_the_graph_sees_every_layer() -> None:
    assert "unimem.service.facade" in MODULES and "unimem.stores.contracts" in MODULES
    assert "unimem.stores.contracts" in MODULES["unimem.stores.memory.store"]


@pytest.mark.parametrize(("about", "banned", "allowed"), RULES, ids=lambda v: str(v)[:40])
def test_imports_point_one_way(
    about: tuple[str, ...], banned: tuple[str, ...], allowed: tuple[str, ...]
) -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in MODULES.items()
        if _under(module, about)
        for target in targets
        if _under(target, banned) and not _under(target, allowed) and not _under(target, about)
    )
    assert wrong == []
