"""Turn what a turn says into changes against the current facts.

A statement about a key with no current fact adds it; one that changes a
current fact's value or a detail supersedes it (details not said again are
kept from the old fact); one that says nothing new changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .changes import CurrentFact, FactChange, fact_line

__all__ = ["add_or_supersede", "close", "index_current", "slug"]

_NOT_SLUG = re.compile(r"[^\w]+")


def slug(text: str) -> str:
    """A key part: lowercase words joined by ``-`` ("Type 2 Diabetes" -> "type-2-diabetes")."""
    return _NOT_SLUG.sub("-", text.lower()).strip("-_")


def index_current(current: Sequence[CurrentFact]) -> dict[str, CurrentFact]:
    """The current facts by key (facts pinned by hand have no key and are left out)."""
    return {fact.key: fact for fact in current if fact.key}


def add_or_supersede(
    kind: str,
    key: str,
    value: str,
    attributes: Mapping[str, str],
    current: Mapping[str, CurrentFact],
    *,
    corrected: bool = False,
    keep_old: bool = True,
) -> FactChange | None:
    """The change that makes ``key`` state ``value`` and ``attributes``, or None
    when the current fact already says so.

    With ``keep_old`` the old fact's attributes not given here are carried over
    ("I take it at night" keeps the dose said earlier).
    """
    old = current.get(key)
    if old is None:
        attrs = dict(attributes)
        return FactChange("add", kind, key, value, attrs, fact_line(kind, value, attrs), corrected)
    before = dict(old.attributes)
    attrs = {**before, **attributes} if keep_old else dict(attributes)
    if value == (old.value or "") and attrs == before:
        return None
    line = fact_line(kind, value, attrs)
    return FactChange("supersede", kind, key, value, attrs, line, corrected, old.id)


def close(old: CurrentFact, *, corrected: bool = False) -> FactChange:
    """The change that ends ``old`` with no new value."""
    attrs = dict(old.attributes)
    value = old.value or ""
    return FactChange(
        "close",
        old.kind,
        old.key or "",
        value,
        attrs,
        fact_line(old.kind, value, attrs),
        corrected,
        old.id,
    )
