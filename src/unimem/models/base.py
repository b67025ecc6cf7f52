"""What every model shares: the strict base (unknown fields refused, pydantic's
errors turned into :class:`~unimem.errors.InvalidInputError` naming each field),
the current time, and the checks of text, JSON, language codes and times."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator

from ..errors import InvalidInputError
from ..validation import json_problem

__all__ = [
    "StrictModel",
    "as_utc",
    "check_json",
    "check_language",
    "check_text",
    "translate_validation_error",
    "utcnow",
]

_LANGUAGE_RE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")


def _field_path(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(body)"


def translate_validation_error(model: str, exc: pydantic.ValidationError) -> InvalidInputError:
    """Turn a pydantic error into an :class:`InvalidInputError` naming every field."""
    errors: list[dict[str, Any]] = []
    for err in exc.errors(include_url=False, include_input=False):
        item: dict[str, Any] = {"field": _field_path(tuple(err["loc"])), "message": err["msg"]}
        ctx = err.get("ctx") or {}
        for key in ("limit_value", "max_length", "min_length", "le", "ge", "lt", "gt"):
            if key in ctx:
                item["limit"] = ctx[key]
                break
        errors.append(item)
    first = errors[0] if errors else {"field": None, "message": "invalid"}
    detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
    return InvalidInputError(
        f"invalid {model}: {detail}", field=first["field"], limit=first.get("limit"), errors=errors
    )


class StrictModel(BaseModel):
    """Base: unknown fields are refused and errors come from unimem's tree."""

    # allow_inf_nan: a float field never takes NaN or an infinity (``1e400``)
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    @model_validator(mode="wrap")
    @classmethod
    def _translate_errors(cls, data: Any, handler: pydantic.ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(data)
        except pydantic.ValidationError as exc:
            raise translate_validation_error(cls.__name__, exc) from exc


def utcnow() -> datetime:
    """The current time, UTC, tz-aware."""
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """``value`` in UTC (a naive time is taken as UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def check_text(value: str, field: str) -> str:
    """``value`` if it can be stored as text (no NUL, no lone surrogate)."""
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL character (U+0000), which cannot be stored")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{field} is not valid Unicode (lone surrogate at {exc.start})") from None
    return value


def check_json(value: Any, field: str, info: ValidationInfo) -> Any:
    """``value`` if it can be stored as free-form JSON (the rules of
    :func:`unimem.validation.json_problem`: depth, size, JSON types, 64-bit
    integers, valid Unicode in keys as in values, finite numbers). JSON read
    back from a store may hold ``null`` where a non-finite number was, never
    the number: NaN is let through in JSON mode only."""
    if not value:
        return value
    problem = json_problem(value, field, finite=info.mode != "json")
    if problem is not None:
        raise ValueError(problem)
    return value


def check_language(value: str | None) -> str | None:
    """``value`` stripped if it is an ISO 639 code (``en``, ``pt-BR``); ``None`` for none."""
    if value is None or value == "":
        return None
    value = value.strip()
    if not _LANGUAGE_RE.fullmatch(value):
        raise ValueError("language must be an ISO 639 code such as 'en', 'ar' or 'pt-BR'")
    head, _, tail = value.partition("-")
    return head.lower() + (f"-{tail}" if tail else "")
