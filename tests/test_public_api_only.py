"""unimem uses its dependencies through their public API only: a scan of every
module under ``src/unimem`` (its syntax tree, nothing is imported) fails on

* an import of a private module of another package (a dotted path with a
  component starting with ``_``: ``from fastapi._compat import ...``) or of a
  private name from one (``from prometheus_client.utils import _x``);
* a private attribute (``._name``, including ``__pydantic_*__``) read from
  anything known to belong to another package: a name imported from it, a
  variable, parameter or ``self`` attribute annotated with or built by one of
  its types, and attribute chains starting there;
* wherever they appear, as attributes (on anything but ``self``/``cls``),
  import paths or names looked up by string (``getattr(x, "...")``), the names
  of internals unimem once relied on (``httptools_impl``, ``dependant``, ...).

Python's own dunders (``__name__``, ``__dict__``, ...) are allowed, and so is
unimem's use of its own private names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "unimem"
OWN_PACKAGE = "unimem"

#: Internals unimem once used: flagged wherever they appear.
DENIED = frozenset(
    {
        "httptools_impl",
        "_compat",
        "connection_kwargs",
        "dependant",
        "_state",
        "__pydantic_serializer__",
        "__pydantic_fields_set__",
        "__pydantic_validator__",
        "metrics_core",
        "floatToGoString",
    }
)

#: Modules whose remaining uses of a dependency's internals are being
#: replaced; each entry goes once its module is on public APIs only (the test
#: fails on an entry that has no violation left, so the list only shrinks).
KNOWN: dict[str, str] = {}


@dataclass(frozen=True)
class Violation:
    """One use of another package's internals."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"src/unimem/{self.path}:{self.line}: {self.what}"


#: Public names that start with ``_``: namedtuple's documented methods.
PUBLIC_UNDERSCORED = frozenset({"_asdict", "_field_defaults", "_fields", "_make", "_replace"})


def _private(name: str) -> bool:
    """A private name: ``_x`` or a pydantic dunder; Python's own dunders are public."""
    if name.startswith("__pydantic"):
        return True
    if (name.startswith("__") and name.endswith("__")) or name in PUBLIC_UNDERSCORED:
        return False
    return name.startswith("_")


def _root(node: ast.expr) -> ast.expr:
    """The innermost value of an attribute chain, call or subscript: ``a`` of ``a.b().c[0].d``."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _annotation_names(node: ast.expr | None) -> Iterator[str]:
    """The root names an annotation mentions (``X`` of ``X | None``, ``a`` of ``a.B[int]``)."""
    if node is None:
        return
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            yield sub.id
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                parsed = ast.parse(sub.value, mode="eval")
            except SyntaxError:
                continue
            yield from _annotation_names(parsed.body)


class _Scan(ast.NodeVisitor):
    """Finds the violations of one module."""

    def __init__(self, path: str, tree: ast.Module) -> None:
        self.path = path
        self.found: list[Violation] = []
        #: names bound to another package's modules or objects, module-wide
        self.foreign: set[str] = set()
        #: ``self`` attributes holding another package's objects
        self.foreign_attrs: set[str] = set()
        self._collect(tree)

    def _flag(self, node: ast.AST, what: str) -> None:
        self.found.append(Violation(self.path, getattr(node, "lineno", 0), what))

    # what belongs to another package

    def _is_foreign_type(self, annotation: ast.expr | None) -> bool:
        return any(name in self.foreign for name in _annotation_names(annotation))

    def _is_foreign_value(self, value: ast.expr | None) -> bool:
        """Whether ``value`` is, or is reached from, another package's object."""
        node = value
        while node is not None:
            if isinstance(node, ast.Name):
                return node.id in self.foreign
            if isinstance(node, ast.Attribute):
                if (
                    isinstance(node.value, ast.Name)
                    and node.value.id in ("self", "cls")
                    and node.attr in self.foreign_attrs
                ):
                    return True
                node = node.value
            elif isinstance(node, ast.Call):
                node = node.func
            elif isinstance(node, ast.Subscript):
                node = node.value
            else:
                return False
        return False

    def _bind(self, target: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.foreign.add(target.id)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in ("self", "cls")
        ):
            self.foreign_attrs.add(target.attr)

    def _collect(self, tree: ast.Module) -> None:
        """Every name imported from another package, then (to a fixed point)
        every name annotated with or assigned from one of those."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] != OWN_PACKAGE:
                        self.foreign.add((alias.asname or alias.name).split(".")[0])
            elif (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and node.module
                and node.module.split(".")[0] not in (OWN_PACKAGE, "__future__")
            ):
                for alias in node.names:
                    self.foreign.add(alias.asname or alias.name)
        # typing helpers are everywhere in annotations and say nothing of the value
        self.foreign -= {"Any", "Optional", "Union", "TYPE_CHECKING", "cast", "annotations"}
        size = -1
        while size != len(self.foreign) + len(self.foreign_attrs):
            size = len(self.foreign) + len(self.foreign_attrs)
            for node in ast.walk(tree):
                if isinstance(node, ast.arg) and self._is_foreign_type(node.annotation):
                    self.foreign.add(node.arg)
                elif isinstance(node, ast.AnnAssign):
                    if self._is_foreign_type(node.annotation) or self._is_foreign_value(node.value):
                        self._bind(node.target)
                elif isinstance(node, ast.Assign) and self._is_foreign_value(node.value):
                    for target in node.targets:
                        self._bind(target)
                elif (
                    isinstance(node, ast.withitem)
                    and node.optional_vars is not None
                    and self._is_foreign_value(node.context_expr)
                ):
                    self._bind(node.optional_vars)

    # the checks

    def _check_module_path(self, node: ast.AST, module: str) -> None:
        if module.split(".")[0] in (OWN_PACKAGE, "__future__"):
            return
        for part in module.split("."):
            if _private(part) or part in DENIED:
                self._flag(node, f"imports the private module {module!r}")
                return

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module_path(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self._check_module_path(node, node.module)
            if node.module.split(".")[0] not in (OWN_PACKAGE, "__future__"):
                for alias in node.names:
                    if _private(alias.name) or alias.name in DENIED:
                        self._flag(node, f"imports {alias.name!r} from {node.module!r}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        root = _root(node.value)
        own = isinstance(root, ast.Name) and root.id in ("self", "cls")
        if node.attr.startswith("__pydantic") or (
            node.attr in DENIED and not (own and node.value is root)
        ):
            self._flag(node, f"uses the internal {node.attr!r}")
        elif _private(node.attr) and self._is_foreign_value(node.value):
            self._flag(node, f"reads the private attribute {node.attr!r} of another package")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        for arg in node.args:
            if (
                isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and (arg.value in DENIED or arg.value.startswith("__pydantic"))
            ):
                self._flag(node, f"looks up the internal {arg.value!r} by name")
        if (
            isinstance(func, ast.Name)
            and func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            name = node.args[1].value
            if _private(name) and name not in DENIED and self._is_foreign_value(node.args[0]):
                self._flag(node, f"looks up the private attribute {name!r} of another package")
        self.generic_visit(node)


def scan(path: Path) -> list[Violation]:
    """The violations in one module."""
    relative = path.relative_to(SRC).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    visitor = _Scan(relative, tree)
    visitor.visit(tree)
    return visitor.found


def scan_source(source: str) -> list[str]:
    """The violations in a snippet, as ``line: what``."""
    tree = ast.parse(source)
    visitor = _Scan("snippet.py", tree)
    visitor.visit(tree)
    return [f"{v.line}: {v.what}" for v in visitor.found]


MODULES = sorted(SRC.rglob("*.py"))


def test_the_scan_sees_every_module() -> None:
    assert len(MODULES) > 50
    assert SRC / "service" / "facade.py" in MODULES


def test_no_module_uses_a_dependencys_internals() -> None:
    found = [v for path in MODULES for v in scan(path) if v.path not in KNOWN]
    assert not found, "private APIs of dependencies:\n" + "\n".join(map(str, found))


def test_each_module_still_allowed_still_needs_it() -> None:
    """An entry of ``KNOWN`` whose module is gone or clean is removed from the list."""
    for known in sorted(KNOWN):
        path = SRC / known
        assert path.is_file() and scan(path), f"{known} uses no internals now: remove it from KNOWN"


# The scan itself, on snippets of what it must find and must leave alone.

FLAGGED = [
    "from fastapi._compat import ModelField",
    "import uvicorn.protocols.http.httptools_impl",
    "from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol",
    "from prometheus_client.metrics_core import Metric",
    "from prometheus_client.utils import floatToGoString",
    "from opentelemetry import _logs",
    "import redis\nredis.asyncio._private",
    "from pydantic import BaseModel\nBaseModel.__pydantic_fields__",
    "def f(route):\n    return route.dependant",
    "def f(request):\n    return request.app.state._state",
    "def f(model):\n    return model.__pydantic_serializer__",
    "class M:\n    def f(self):\n        return self.__pydantic_fields_set__",
    "def f(model):\n    object.__setattr__(model, '__pydantic_fields_set__', set())",
    "def f(pool):\n    return pool.connection_kwargs",
    "def f(state):\n    return getattr(state, '_state', None)",
    "from starlette.requests import Request\ndef f(r: Request):\n    return r._receive",
    "from starlette.requests import Request\ndef f(r: Request | None):\n    return r._send",
    "import httpx\ndef f():\n    c = httpx.AsyncClient()\n    return c._transport",
    "import redis.asyncio as aioredis\n"
    "class C:\n    def __init__(self):\n        self.r = aioredis.Redis()\n"
    "    def f(self):\n        return self.r._pool",
    "import asyncio\ndef f(t: 'asyncio.Transport'):\n    return t._sock",
    "from redis.asyncio import Redis\ndef f(r: Redis):\n    return getattr(r, '_pool')",
]

ALLOWED = [
    "from . import _private_helper",
    "from unimem.stores._rows import x",
    "class C:\n    def __init__(self):\n        self._state = 1\n    def f(self):\n"
    "        return self._state",
    "def f(other):\n    return other._inner",
    "from pydantic import BaseModel\ndef f(m: BaseModel):\n    return m.__class__.__name__",
    "import enum\nclass E(enum.Enum):\n    A = 1\nE.__members__",
    "import os\nos.environ",
    "from __future__ import annotations",
    "from urllib.parse import urlsplit\nurlsplit('x')._replace(query='')",
]


@pytest.mark.parametrize("source", FLAGGED)
def test_the_scan_flags_internals(source: str) -> None:
    assert scan_source(source), source


@pytest.mark.parametrize("source", ALLOWED)
def test_the_scan_allows_public_and_own_names(source: str) -> None:
    assert scan_source(source) == []
