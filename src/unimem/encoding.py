"""JSON bytes of the library's models, byte for byte what pydantic writes, in a
fraction of its time.

pydantic's serializer reads every enum member's ``.value`` through Python
(``Role``, ``Mode``: two per entry) and walks each field's declared schema,
about 2 µs per entry: 45 µs for a context of 20 entries, more than the rest of
the request's HTTP layer together. orjson writes the same plain data in about
a fifth of that. This module hands orjson the models' own field dicts (no
copy in the usual case) after checking that orjson will write exactly what
pydantic would:

* only plainly typed fields are taken (``str``, ``int``, ``bool``, ``float``,
  ``datetime``, ``str``/``int`` enums, lists and ``dict[str, ...]`` of those,
  ``Any``, and nested models of the same kind), from models without custom
  serializers, computed fields, aliases, exclusions or ``ser_json_*``
  settings; any other model is pydantic's to write;
* pydantic writes the fields found in the model's ``__dict__``, in its order:
  so does this (a ``__dict__`` holding anything but fields is filtered first);
* a ``float`` field must hold a ``float`` (pydantic writes an ``int`` there as
  ``5.0``, orjson as ``5``);
* a ``datetime`` field must hold a UTC or naive ``datetime`` (for an offset
  that is not whole minutes orjson rounds where pydantic truncates);
* ``Any`` values must be JSON's own types (``dict`` with ``str`` keys,
  ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool``, ``None``);
* whatever fails a check, or orjson refuses (integers beyond 64 bits, lone
  surrogates), is written by pydantic, exactly as before.

What validation or a store's decoder builds passes these checks; values of
undeclared types (which pydantic warns about when writing) are not looked for
in declared ``str``/``int``/``list[str]`` fields. Where both write a value
they agree: shortest round-trip floats, ``null`` for NaN and infinities, the
same string escapes, ``Z`` for UTC and microseconds only when non-zero, enums
as their values (tests/test_server_encode.py compares them over generated
values).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

import orjson
from pydantic import BaseModel

__all__ = ["model_json", "model_json_with", "models_json"]

_OPTIONS = orjson.OPT_UTC_Z
# field kinds
_PLAIN = "plain"
_FLOAT = "float"
_TIME = "datetime"
_ANY = "any"
_MODEL = "model"
_MODELS = "models"
_CHECKED = (_FLOAT, _TIME, _ANY)
# errors that send a model to pydantic (orjson.JSONEncodeError is a TypeError)
_FALLBACK = (TypeError, KeyError, AttributeError, RecursionError)
_NOT_A_ZONE = object()


class _Unsupported(Exception):
    """This value is pydantic's to write."""


@dataclass(frozen=True, slots=True)
class _Spec:
    #: the fields, in declaration order
    names: tuple[str, ...]
    keys: frozenset[str]
    #: fields whose values are checked: (name, kind), kind in _CHECKED
    checks: tuple[tuple[str, str], ...]
    #: nested model fields: (name, whether a list of models, the declared class, its spec)
    nested: tuple[tuple[str, bool, type, _Spec], ...]
    #: for checks of one datetime, one float and two ``Any`` fields (an
    #: entry's): their values in that order, for a loop without a loop
    entry_checks: Callable[[dict[str, Any]], tuple[Any, ...]] | None


#: model class -> its spec, or None when pydantic must write it
_SPECS: dict[type, _Spec | None] = {}


def _kind(annotation: Any) -> tuple[str | None, type | None]:
    """How a field of this type is written (``None``: only pydantic may) and,
    for nested models, the declared model class."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        kinds = {_kind(arg) for arg in typing.get_args(annotation) if arg is not type(None)}
        return kinds.pop() if len(kinds) == 1 else (None, None)
    if annotation is Any:
        return _ANY, None
    if annotation in (str, int, bool):
        return _PLAIN, None
    if annotation is float:
        return _FLOAT, None
    if annotation is datetime:
        return _TIME, None
    if origin is list:
        (item,) = typing.get_args(annotation)
        inner, cls = _kind(item)
        if inner in (_PLAIN, _ANY):
            return inner, None
        return (_MODELS, cls) if inner == _MODEL else (None, None)
    if origin is dict:
        key, value = typing.get_args(annotation)
        inner = _kind(value)[0]
        return (inner, None) if key is str and inner in (_PLAIN, _ANY) else (None, None)
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return (_PLAIN, None) if issubclass(annotation, (str, int)) else (None, None)
        if issubclass(annotation, BaseModel) and _spec(annotation) is not None:
            return _MODEL, annotation
    return None, None


def _spec(cls: type) -> _Spec | None:
    if cls in _SPECS:
        return _SPECS[cls]
    _SPECS[cls] = None  # while it is being built (and for good when unsupported)
    if not issubclass(cls, BaseModel):
        return None
    decorators = cls.__pydantic_decorators__
    config = cls.model_config
    if (
        decorators.field_serializers
        or decorators.model_serializers
        or decorators.computed_fields
        or any(key.startswith("ser_") or key == "json_encoders" for key in config)
        or config.get("extra") == "allow"
    ):
        return None
    names: list[str] = []
    checks: list[tuple[str, str]] = []
    nested: list[tuple[str, bool, type, _Spec]] = []
    for name, field in cls.model_fields.items():
        if field.exclude or field.alias or field.serialization_alias:
            return None
        kind, declared = _kind(field.annotation)
        if kind is None:
            return None
        names.append(name)
        if kind in _CHECKED:
            checks.append((name, kind))
        elif declared is not None:
            inner = _SPECS[declared]
            assert inner is not None  # _kind said so
            nested.append((name, kind == _MODELS, declared, inner))
    by_kind = {kind: [name for name, of in checks if of == kind] for kind in _CHECKED}
    entry_checks = None
    if [len(by_kind[_TIME]), len(by_kind[_FLOAT]), len(by_kind[_ANY])] == [1, 1, 2]:
        entry_checks = itemgetter(*by_kind[_TIME], *by_kind[_FLOAT], *by_kind[_ANY])
    spec = _Spec(tuple(names), frozenset(names), tuple(checks), tuple(nested), entry_checks)
    _SPECS[cls] = spec
    return spec


def _native(value: Any) -> bool:
    """Whether ``value`` is made of JSON's own types only, which orjson and
    pydantic write alike."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return True
    if kind is dict:
        return all(type(key) is str and _native(item) for key, item in value.items())
    if kind is list or kind is tuple:
        return all(_native(item) for item in value)
    return False


def _checked(data: dict[str, Any], checks: tuple[tuple[str, str], ...]) -> None:
    for name, kind in checks:
        value = data.get(name)
        if value is None:
            continue
        if kind is _FLOAT:
            if type(value) is not float:
                raise _Unsupported
        elif kind is _TIME:
            zone = value.tzinfo if type(value) is datetime else _NOT_A_ZONE
            if zone is not UTC and zone is not None:
                raise _Unsupported
        elif value and not _native(value):
            raise _Unsupported


def _plain(model: Any) -> dict[str, Any]:
    """The model's fields as orjson should write them (its own ``__dict__``
    when nothing needs changing)."""
    cls = type(model)
    spec = _SPECS[cls] if cls in _SPECS else _spec(cls)
    if spec is None:
        raise _Unsupported
    return _fields(model, spec)


def _fields(model: Any, spec: _Spec) -> dict[str, Any]:
    if model.__pydantic_extra__:
        raise _Unsupported
    data: dict[str, Any] = model.__dict__
    if tuple(data) != spec.names:
        data = _only_fields(data, spec)
    _checked(data, spec.checks)
    if spec.nested:
        data = dict(data)
        for name, many, declared, inner in spec.nested:
            value = data.get(name)
            if value is None:
                continue
            if many:
                if type(value) is not list:
                    raise _Unsupported
                data[name] = _all(value, declared, inner)
            elif type(value) is declared:
                data[name] = _fields(value, inner)
            else:
                raise _Unsupported
    return data


def _all(models: list[Any], declared: type, spec: _Spec) -> list[dict[str, Any]]:
    """``_fields`` of each model, which must be of the declared class: pydantic
    writes a subclass instance by the declared class's fields. One loop for a
    whole list, as the lists of a context hold up to a few hundred entries."""
    if spec.nested:
        return [_fields(model, spec) if type(model) is declared else _refuse() for model in models]
    names = spec.names
    checks = spec.checks
    entry_checks = spec.entry_checks
    out: list[dict[str, Any]] = []
    append = out.append
    for model in models:
        cls = type(model)
        if cls is not declared or model.__pydantic_extra__ is not None:
            raise _Unsupported
        data = model.__dict__
        if tuple(data) != names:
            data = _only_fields(data, spec)
        if entry_checks is not None:
            # _checked, unrolled for an entry's fields (a KeyError: pydantic's)
            stamp, amount, first, second = entry_checks(data)
            zone = stamp.tzinfo if type(stamp) is datetime else _NOT_A_ZONE
            if (
                (stamp is not None and zone is not UTC and zone is not None)
                or (amount is not None and type(amount) is not float)
                or (first and not _native(first))
                or (second and not _native(second))
            ):
                raise _Unsupported
        else:
            _checked(data, checks)
        append(data)
    return out


def _only_fields(data: dict[str, Any], spec: _Spec) -> dict[str, Any]:
    """What pydantic writes of a ``__dict__`` not plainly the declared fields
    in order: its fields, in the dict's order (a missing one is left out)."""
    keys = spec.keys
    return {name: value for name, value in data.items() if name in keys}


def _refuse() -> dict[str, Any]:
    raise _Unsupported


def model_json(model: BaseModel) -> bytes:
    """``model.model_dump_json()`` as UTF-8 bytes."""
    try:
        return orjson.dumps(_plain(model), option=_OPTIONS)
    except (_Unsupported, *_FALLBACK):
        content: bytes = model.__pydantic_serializer__.to_json(model)
        return content


def model_json_with(model: BaseModel, written: dict[str, bytes]) -> bytes | None:
    """``model_json(model)`` with the fields named in ``written`` taken as the
    JSON given there (written before, e.g. entries as a store keeps them),
    the model's own values of those fields ignored; ``None`` when the rest of
    the model is pydantic's to write (the caller then writes it whole)."""
    try:
        data = _plain(model)
        if data is model.__dict__:
            data = dict(data)
        for name, raw in written.items():
            data[name] = orjson.Fragment(raw)
        return orjson.dumps(data, option=_OPTIONS)
    except (_Unsupported, *_FALLBACK):
        return None


def models_json(models: list[BaseModel]) -> bytes:
    """The JSON array of ``model_json`` of each model."""
    try:
        return orjson.dumps([_plain(model) for model in models], option=_OPTIONS)
    except (_Unsupported, *_FALLBACK):
        return b"[" + b",".join(model_json(model) for model in models) + b"]"
