"""Search filters as SQL: the conditions keyword and vector search both apply,
written with numbered parameters (``$n``)."""

from __future__ import annotations

from collections.abc import Callable

from ...recall.hits import SearchFilters

__all__ = ["Params", "filter_clauses"]


class Params:
    """A statement's arguments, numbered in the order they are added."""

    def __init__(self, *first: object) -> None:
        self.values: list[object] = list(first)

    def __call__(self, value: object) -> str:
        """Add ``value``; its placeholder (``$3``)."""
        self.values.append(value)
        return f"${len(self.values)}"


def filter_clauses(
    filters: SearchFilters, arg: Callable[[object], str], *, row: str, time: str
) -> tuple[list[str], list[str]]:
    """The conditions of ``filters`` (beyond the owner): those on the row ``row``
    (its ``session_id``, and ``time``'s ``ts``), then those on the entry ``e``
    (mode, language and role, which only the entry holds)."""
    where: list[str] = []
    if filters.session_id is not None:
        where.append(f"{row}.session_id = {arg(filters.session_id)}")
    if filters.exclude_session is not None:
        where.append(f"{row}.session_id <> {arg(filters.exclude_session)}")
    if filters.since is not None:
        where.append(f"{time}.ts >= {arg(filters.since)}")
    if filters.until is not None:
        where.append(f"{time}.ts < {arg(filters.until)}")
    on_entry = [
        f"(e.data->>'{field}') = ANY({arg(list(values))}::text[])"
        for field, values in (
            ("mode", filters.modes),
            ("language", filters.languages),
            ("role", filters.roles),
        )
        if values is not None
    ]
    return where, on_entry
