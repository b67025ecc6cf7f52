"""What the facts rules' tests share: a fixed now, a current fact, the rules' changes."""

from __future__ import annotations

from datetime import UTC, datetime

from unimem.facts import FactChange, extract_facts, fact_line
from unimem.models import Fact

NOW = datetime(2026, 12, 4, 15, 0, tzinfo=UTC)  # a Friday


def fact(
    id: str, kind: str, key: str, value: str, *, valid_from: datetime = NOW, **attributes: str
) -> Fact:
    """A current fact with its rendered line, as the store would hold it."""
    return Fact(
        id=id,
        kind=kind,
        key=key,
        value=value,
        attributes=attributes,
        text=fact_line(kind, value, attributes),
        valid_from=valid_from,
    )


def changes(
    text: str, *, language: str | None = "en", current: list[Fact] | None = None
) -> list[FactChange]:
    """The rules' changes for a user's turn at :data:`NOW`."""
    return extract_facts(text, role="user", language=language, current=current or [], now=NOW)
