"""Check what an LLM extractor proposes before it touches the facts.

The LLM answers in the style of Mem0's update step: a list of
``{"op": "add" | "update" | "delete", "kind", "key", "value", "attributes",
"replaces"}`` (``supersede`` and ``close`` are read as ``update`` and
``delete``; the list may sit under ``"facts"`` or ``"memory"``). Only what the
rules accept is kept: a known kind, a non-empty value of bounded length,
attributes that are short snake_case names with text values, and a
``replaces`` that names a current fact of the same kind. Anything else is
dropped, item by item, so a half-right answer still yields its right part.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from .changes import FACT_KINDS, CurrentFact, FactChange, fact_line
from .reconcile import add_or_supersede, close, index_current, slug

__all__ = ["MAX_PROPOSED_CHANGES", "validate_proposal"]

#: More changes than this in one turn is not a proposal worth trusting: the rest is dropped.
MAX_PROPOSED_CHANGES = 32
_MAX_VALUE = 512
_MAX_ATTRIBUTES = 16
_ATTRIBUTE = re.compile(r"[a-z][a-z0-9_]{0,63}")
_SINGLE = ("preferred_name", "preferred_language")
_OPS = {
    "add": "add",
    "update": "update",
    "supersede": "update",
    "delete": "delete",
    "close": "delete",
}


def _items(proposal: object) -> list[object]:
    if isinstance(proposal, Mapping):
        for name in ("facts", "memory", "changes"):
            inner = proposal.get(name)
            if isinstance(inner, list):
                return list(inner)
        return []
    return list(proposal) if isinstance(proposal, list) else []


def _text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return " ".join(str(value).split())[:_MAX_VALUE]


def _attributes(raw: object) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, str] = {}
    for name, value in raw.items():
        text = _text(value)
        if isinstance(name, str) and _ATTRIBUTE.fullmatch(name) and text:
            out[name] = text
        if len(out) == _MAX_ATTRIBUTES:
            break
    return out


def _key(kind: str, raw: object, name: str) -> str:
    if kind in _SINGLE:
        return kind
    key = _text(raw).lower()
    if key.startswith(f"{kind}:") and slug(key[len(kind) + 1 :]):
        return f"{kind}:{slug(key[len(kind) + 1 :])}"
    part = slug(key or name)
    return f"{kind}:{part}" if part else ""


def validate_proposal(proposal: object, *, current: Sequence[CurrentFact]) -> list[FactChange]:
    """The changes of an LLM's proposal that the rules accept.

    Args:
        proposal: the parsed JSON the LLM answered (a list of changes, or an
            object holding one under ``facts``).
        current: the user's current facts.

    Returns:
        Valid changes only, at most :data:`MAX_PROPOSED_CHANGES`: an ``add`` of a
        key that is current becomes a ``supersede`` of it (or nothing when it
        says nothing new); an ``update`` or ``delete`` whose ``replaces`` names
        no current fact of its kind is dropped. Never raises on a bad proposal.
    """
    by_id = {fact.id: fact for fact in current}
    by_key = index_current(current)
    out: list[FactChange] = []
    touched: set[str] = set()
    keys: set[str] = set()
    for item in _items(proposal)[:MAX_PROPOSED_CHANGES]:
        if not isinstance(item, Mapping):
            continue
        op = _OPS.get(_text(item.get("op", item.get("event"))).lower())
        kind = _text(item.get("kind")).lower()
        if op is None or kind not in FACT_KINDS:
            continue
        corrected = item.get("corrected") is True
        replaces = _text(item.get("replaces", item.get("id")))
        old = by_id.get(replaces) if replaces else None
        if old is not None and old.kind != kind:
            continue
        if op == "delete":
            if old is not None and old.id not in touched:
                touched.add(old.id)
                out.append(close(old, corrected=corrected))
            continue
        value = _text(item.get("value"))
        attributes = _attributes(item.get("attributes"))
        key = old.key if old is not None and old.key else _key(kind, item.get("key"), value)
        if not value or not key:
            continue
        if op == "update" and old is None:
            continue
        if old is not None:
            by_key = {**by_key, key: old}
        change = add_or_supersede(kind, key, value, attributes, by_key, corrected=corrected)
        if change is None or key in keys or (change.replaces and change.replaces in touched):
            continue
        keys.add(key)
        if ":" in key and "name" not in change.attributes:
            # the line names what the fact is about, from its key, even when the
            # proposal gave no name attribute (the attributes stay as proposed)
            named = {"name": key.split(":", 1)[1].replace("-", " "), **change.attributes}
            change = replace(change, text=fact_line(kind, change.value, named))
        if change.replaces:
            touched.add(change.replaces)
        out.append(change)
    return out
