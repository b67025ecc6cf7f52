"""Argument checks shared by the service and the server. Each failure names the field."""

from __future__ import annotations

import re

from .errors import ContentTooLargeError, InvalidInputError

__all__ = ["check_content_size", "check_id", "check_range"]

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")


def check_id(value: object, field: str) -> str:
    """A session or user id: 1-128 characters of letters, digits and ``._:@-``."""
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{field} must be a non-empty string", field=field)
    if not _ID_RE.match(value):
        raise InvalidInputError(
            f"{field} must be 1-128 characters of letters, digits and . _ : @ -, "
            "starting with a letter or digit",
            field=field,
            limit=128,
        )
    return value


def check_range(value: object, field: str, low: int, high: int) -> int:
    """An integer within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{field} must be an integer", field=field)
    if not low <= value <= high:
        raise InvalidInputError(
            f"{field} must be between {low} and {high}, got {value}", field=field, limit=high
        )
    return value


def check_content_size(content: str, limit: int, field: str = "content") -> None:
    """Refuse content longer than ``limit`` UTF-8 bytes."""
    size = len(content.encode("utf-8"))
    if size > limit:
        raise ContentTooLargeError(
            f"{field} is {size} bytes of UTF-8; the limit is {limit} bytes "
            "(raise UNIMEM_MAX_CONTENT_BYTES, or split the message)",
            field=field,
            limit=limit,
        )
