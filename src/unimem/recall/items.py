"""Filtering and ranking namespaced items (pure: no I/O).

A filter selects items by their value's top-level fields, as LangGraph's
stores read one: ``{"kind": "food"}`` matches equal values (a dict compares
field by field, a list element by element), ``{"stars": {"$gte": 4}}``
applies operators (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``;
the ordering ones compare numbers, and an item whose field is no number
does not match). A query orders: every string of an item's value is its
text, ranked by BM25 over the query's terms (:mod:`unimem.recall.index`) and
fused by reciprocal rank (:func:`unimem.recall.rank.fuse`), so that another
ranking (dense vectors) joins as one more entry of the same fusion.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ..errors import InvalidInputError
from .index import TermIndex
from .rank import fuse
from .search_terms import terms

__all__ = [
    "FILTER_OPERATORS",
    "check_item_filter",
    "item_matches",
    "item_text",
    "namespace_matches",
    "rank_items",
]

K = TypeVar("K", bound=Hashable)

#: The operators a filter may use.
FILTER_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
_ORDERING = {"$gt", "$gte", "$lt", "$lte"}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_item_filter(filter: Any) -> dict[str, Any]:
    """``filter`` as a dict if it is one LangGraph's stores accept.

    Raises:
        InvalidInputError: not a dict of field names, an unknown operator, or an
            ordering operator given something other than a number.
    """
    if not isinstance(filter, Mapping) or not all(isinstance(k, str) for k in filter):
        raise InvalidInputError(
            'filter must be an object of value fields, e.g. {"kind": "food"}', field="filter"
        )
    stack: list[Any] = list(filter.values())
    while stack:
        cond = stack.pop()
        if isinstance(cond, Mapping):
            for name, operand in cond.items():
                if not isinstance(name, str):
                    raise InvalidInputError("filter keys must be strings", field="filter")
                if name.startswith("$"):
                    if name not in FILTER_OPERATORS:
                        raise InvalidInputError(
                            f"filter operator {name!r} is unknown; use one of "
                            + ", ".join(FILTER_OPERATORS),
                            field="filter",
                        )
                    if name in _ORDERING and not _number(operand):
                        raise InvalidInputError(
                            f"filter operator {name} compares numbers; got {operand!r}",
                            field="filter",
                        )
                else:
                    stack.append(operand)
        elif isinstance(cond, list | tuple):
            stack.extend(cond)
    return dict(filter)


def _apply(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(value == operand)
    if operator == "$ne":
        return bool(value != operand)
    if not _number(value):
        return False
    if operator == "$gt":
        return bool(value > operand)
    if operator == "$gte":
        return bool(value >= operand)
    if operator == "$lt":
        return bool(value < operand)
    return bool(value <= operand)


def _matches(value: Any, cond: Any) -> bool:
    if isinstance(cond, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in cond):
            return all(_apply(value, op, operand) for op, operand in cond.items())
        return isinstance(value, Mapping) and all(
            _matches(value.get(k), v) for k, v in cond.items()
        )
    if isinstance(cond, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(cond)
            and all(_matches(v, c) for v, c in zip(value, cond, strict=True))
        )
    return bool(value == cond)


def item_matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a (checked) filter; every item passes none."""
    return not filter or all(_matches(value.get(k), c) for k, c in filter.items())


def item_text(value: Any) -> str:
    """Every string in ``value`` (dict values, list elements), one per line."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Mapping):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))
    return "\n".join(out)


def namespace_matches(
    namespace: Sequence[str], prefix: Sequence[str] | None, suffix: Sequence[str] | None
) -> bool:
    """Whether ``namespace`` starts with ``prefix`` and ends with ``suffix``
    (``"*"`` in either matches any one label)."""
    for pattern, labels in ((prefix, namespace), (suffix, namespace[::-1])):
        if pattern is None:
            continue
        ordered = pattern if pattern is prefix else list(pattern)[::-1]
        if len(labels) < len(ordered):
            return False
        if any(p != "*" and p != label for p, label in zip(ordered, labels, strict=False)):
            return False
    return True


def rank_items(docs: Iterable[tuple[K, str]], query: str, *, limit: int) -> dict[K, float]:
    """``{key: score}`` of the documents matching the query's terms, at most
    ``limit`` (higher is better); documents matching no term are left out."""
    index: TermIndex[K] = TermIndex()
    for key, text in docs:
        index.add(key, text)
    keyword = [key for key, _ in index.search(terms(query), limit=limit)]
    return fuse({"keyword": (1.0, keyword)}) if keyword else {}
