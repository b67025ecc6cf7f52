"""Search filters as SQL: the conditions keyword and vector search both apply."""

from __future__ import annotations

from ...recall.hits import SearchFilters
from .times import us

__all__ = ["filter_clauses"]


def filter_clauses(filters: SearchFilters) -> tuple[list[str], list[object]]:
    """SQL conditions on ``entries e`` for ``filters`` (beyond the owner), and
    their arguments in order."""
    where: list[str] = []
    args: list[object] = []
    if filters.session_id is not None:
        where.append("e.session_id = ?")
        args.append(filters.session_id)
    if filters.exclude_session is not None:
        where.append("e.session_id != ?")
        args.append(filters.exclude_session)
    if filters.since is not None:
        where.append("e.ts_us >= ?")
        args.append(us(filters.since))
    if filters.until is not None:
        where.append("e.ts_us < ?")
        args.append(us(filters.until))
    for field, values in (
        ("mode", filters.modes),
        ("language", filters.languages),
        ("role", filters.roles),
    ):
        if values is not None:
            where.append(
                f"json_extract(e.data, '$.{field}') IN ({', '.join('?' * len(values))})"
                if values
                else "0"
            )
            args.extend(values)
    return where, args
