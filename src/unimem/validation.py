"""Argument checks shared by every surface (library, HTTP, WebSocket, MCP, CLI).

Each failure names the field. The models' validators (:mod:`unimem.models`)
and the service call these, so a rule is written once and every surface
inherits it.

Rules:

* **ids** (users, sessions, entries, facts, a token's ``sub``): 1-128
  characters of letters, digits and ``. _ : @ -``, starting with a letter or
  digit, matched against the *whole* string (a trailing newline is refused);
* **free-form JSON** (``metadata``, ``sources``, event ``data``, ``rag_results``):
  JSON types only, at most :data:`MAX_JSON_DEPTH` levels of objects and
  arrays, at most :data:`MAX_JSON_BYTES` bytes of UTF-8 JSON, finite numbers,
  integers within 64 bits, valid Unicode;
* **numbers**: finite (no NaN or infinity, e.g. ``1e400``);
* **content**: not empty and not only whitespace or invisible characters
  (zero-width spaces and joiners, word joiners, byte order marks, direction
  marks, soft hyphens: :func:`is_blank`);
* **timestamps**: not more than the clock skew allowed
  (``MemoryConfig.max_clock_skew_seconds``, 300 s by default) in the future.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta
from typing import Any

from .errors import ContentTooLargeError, InvalidInputError

__all__ = [
    "ID_PATTERN",
    "ID_REGEX",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "check_content",
    "check_content_size",
    "check_depth",
    "check_finite",
    "check_flag",
    "check_id",
    "check_json",
    "check_not_future",
    "check_range",
    "is_blank",
    "is_valid_id",
    "json_problem",
]

#: An id, unanchored: match it with ``re.fullmatch``.
ID_REGEX = r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}"
#: The same, anchored, for pydantic and FastAPI ``pattern=`` (which search, and
#: whose ``$`` is the end of the text only).
ID_PATTERN = rf"^{ID_REGEX}$"
_ID_RE = re.compile(ID_REGEX)

#: Deepest nesting of objects and arrays in free-form JSON (``{"a": 1}`` is 1).
MAX_JSON_DEPTH = 32
#: Largest free-form JSON field, in bytes of UTF-8 JSON.
MAX_JSON_BYTES = 64 * 1024

#: The integers every store reads back exactly (orjson's range: int64 and uint64).
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


def is_valid_id(value: object) -> bool:
    """Whether ``value`` is a valid id (see :func:`check_id`)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


def check_id(value: object, field: str) -> str:
    """A user, session, entry or fact id: 1-128 characters of letters, digits and
    ``._:@-``, starting with a letter or digit (the whole string: no trailing newline).

    Raises:
        InvalidInputError: anything else, naming ``field``.
    """
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{field} must be a non-empty string", field=field)
    if _ID_RE.fullmatch(value) is None:
        raise InvalidInputError(
            f"{field} must be 1-128 characters of letters, digits and . _ : @ -, "
            "starting with a letter or digit (no spaces or line breaks)",
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


def check_flag(value: object, field: str) -> bool:
    """``value`` if it is ``True`` or ``False`` (not a truthy string or number).

    Raises:
        InvalidInputError: anything else, naming ``field``.
    """
    if not isinstance(value, bool):
        raise InvalidInputError(f"{field} must be true or false", field=field)
    return value


def check_finite(value: float | None, field: str) -> float | None:
    """``value`` unless it is NaN or infinite.

    Raises:
        InvalidInputError: a non-finite number, naming ``field``.
    """
    if value is not None and not math.isfinite(value):
        raise InvalidInputError(f"{field} must be a finite number, got {value!r}", field=field)
    return value


def check_content_size(content: str, limit: int, field: str = "content") -> None:
    """Refuse content longer than ``limit`` UTF-8 bytes, or not valid Unicode."""
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field} is not valid Unicode (a lone surrogate, {exc.object[exc.start]!r}); "
            "send text as UTF-8",
            field=field,
        ) from None
    if size > limit:
        raise ContentTooLargeError(
            f"{field} is {size} bytes of UTF-8; the limit is {limit} bytes "
            "(raise UNIMEM_MAX_CONTENT_BYTES, or split the message)",
            field=field,
            limit=limit,
        )


#: Text that shows nothing: whitespace and the characters that are drawn as
#: nothing (soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul
#: fillers, Khmer inherent vowels, Mongolian separators and selectors,
#: zero-width space/joiners, direction marks and embeddings, word joiner and
#: invisible operators, variation selectors, byte order mark, tag characters).
_BLANK = re.compile(
    "[\\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]*"
)


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: empty, whitespace or invisible characters only."""
    return _BLANK.fullmatch(text) is not None


def check_content(content: str, field: str = "content") -> str:
    """Refuse text that shows nothing (:func:`is_blank`).

    Raises:
        InvalidInputError: nothing but whitespace or invisible characters, naming ``field``.
    """
    if is_blank(content):
        raise InvalidInputError(
            f"{field} must not be empty or only whitespace or invisible characters"
            " (such as U+200B ZERO WIDTH SPACE); send the text of the message",
            field=field,
        )
    return content


def check_not_future(
    value: datetime | None, field: str, *, now: datetime, skew_seconds: int
) -> datetime | None:
    """Refuse a time more than ``skew_seconds`` after ``now`` (both tz-aware).

    A time in the future would keep its row past every retention sweep.

    Raises:
        InvalidInputError: too far in the future, naming ``field``.
    """
    if value is not None and value > now + timedelta(seconds=skew_seconds):
        raise InvalidInputError(
            f"{field} {value.isoformat()} is in the future (more than {skew_seconds} s "
            "after the server's clock); send the time the message was made, or leave it out",
            field=field,
            limit=skew_seconds,
        )
    return value


def json_problem(value: Any, field: str, *, finite: bool = True) -> str | None:
    """What is wrong with ``value`` as free-form JSON, or ``None`` when nothing is.

    Checks (see the module's rules) nesting depth, JSON types, finite numbers
    (unless ``finite`` is false), 64-bit integers, valid Unicode and size.
    The walk is iterative, so no nesting depth raises ``RecursionError``.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth >= MAX_JSON_DEPTH:
                return _too_deep(field)
            if isinstance(item, dict):
                for key in item:
                    if not isinstance(key, str):
                        return f"{field} must have string keys, got {type(key).__name__}"
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        elif isinstance(item, int):
            if not _INT_MIN <= item <= _INT_MAX:
                return (
                    f"{field} holds an integer beyond 64 bits, which would read back rounded; "
                    f"keep integers within {_INT_MIN}..{_INT_MAX} or send the number as a string"
                )
        elif isinstance(item, float):
            if finite and not math.isfinite(item):
                return f"{field} holds a number that is not finite ({item!r}); send finite numbers"
        else:
            return f"{field} must be JSON-serializable: {type(item).__name__} is not a JSON type"
    try:
        text = json.dumps(value, allow_nan=not finite, ensure_ascii=False)
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        return (
            f"{field} is not valid Unicode (a lone surrogate, {exc.object[exc.start]!r}); "
            "send text as UTF-8"
        )
    except (TypeError, ValueError) as exc:
        return f"{field} must be JSON-serializable: {exc}"
    if size > MAX_JSON_BYTES:
        return f"{field} is {size} bytes of JSON; the limit is {MAX_JSON_BYTES} bytes"
    return None


def check_depth(value: Any, field: str) -> Any:
    """``value`` if its dicts, lists and tuples nest at most :data:`MAX_JSON_DEPTH`
    levels (other values are not looked into).

    Raises:
        InvalidInputError: nested deeper, naming ``field``.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth >= MAX_JSON_DEPTH:
                raise InvalidInputError(_too_deep(field), field=field, limit=MAX_JSON_DEPTH)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return value


def _too_deep(field: str) -> str:
    return (
        f"{field} is nested more than {MAX_JSON_DEPTH} levels deep; "
        "flatten it (objects and arrays count as levels)"
    )


def check_json(value: Any, field: str) -> Any:
    """``value`` if it is acceptable free-form JSON (see :func:`json_problem`).

    Raises:
        InvalidInputError: what is wrong, naming ``field``.
    """
    problem = json_problem(value, field)
    if problem is not None:
        raise InvalidInputError(problem, field=field)
    return value
