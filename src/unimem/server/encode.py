"""JSON bytes of the library's models, byte for byte what pydantic writes, in a
fraction of its time.

pydantic's serializer reads every enum member's ``.value`` through Python
(``Role``, ``Mode``: two per entry) and walks each field's declared schema,
about 2 µs per entry: 45 µs for a context of 20 entries, more than the rest of
the request's HTTP layer together. orjson writes the same plain data in about
a tenth of that. This module hands orjson the models' own field dicts (no
copy, when they are already in field order) and checks first that orjson will
write exactly what pydantic would:

* only plainly typed fields are taken (``str``, ``int``, ``bool``, ``datetime``,
  ``str``/``int`` enums, ``Any``, lists and ``dict[str, ...]`` of those, nested
  models of the same kind, and ``float``), and only from models without custom
  serializers, computed fields, aliases, exclusions or ``ser_json_*`` settings;
  anything else is pydantic's;
* fields come out in the order of the model's ``__dict__`` (declaration order,
  but for a model built another way), as pydantic writes them, and only
  fields;
* a ``float`` field must hold a ``float`` (pydantic writes an ``int`` there as
  ``5.0``, orjson as ``5``);
* whatever orjson cannot write (integers beyond 64 bits, lone surrogates,
  non-string keys, unknown types) goes to pydantic, which writes it as before.

Where both write a value, they agree: shortest round-trip floats, ``null``
for NaN and infinities, the same string escapes, datetimes in ISO 8601 with
``Z`` for a zero offset and microseconds only when non-zero, enums as their
values (tests/test_server_encode.py compares them over generated values).
"""

from __future__ import annotations

import enum
import types
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from pydantic import BaseModel

__all__ = ["model_json", "models_json"]

_OPTIONS = orjson.OPT_UTC_Z
_PLAIN = "plain"
_FLOAT = "float"
_MODEL = "model"
_MODELS = "models"


class _Unsupported(Exception):
    """This value is pydantic's to write."""


@dataclass(frozen=True, slots=True)
class _Spec:
    #: the fields, in declaration order
    names: tuple[str, ...]
    keys: frozenset[str]
    #: ``float`` fields: the value must be a ``float`` or ``None``.
    floats: tuple[str, ...]
    #: nested model fields: (name, whether a list of models, the declared
    #: class, its spec)
    nested: tuple[tuple[str, bool, type, _Spec], ...]


#: model class -> its spec, or None when pydantic must write it
_SPECS: dict[type, _Spec | None] = {}


def _kind(annotation: Any) -> tuple[str | None, type | None]:
    """How a field of this type is written (``None``: only pydantic may) and,
    for nested models, the declared model class."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        kinds = {_kind(arg) for arg in typing.get_args(annotation) if arg is not type(None)}
        return kinds.pop() if len(kinds) == 1 else (None, None)
    if annotation is Any or annotation in (str, int, bool, datetime):
        return _PLAIN, None
    if annotation is float:
        return _FLOAT, None
    if origin is list:
        (item,) = typing.get_args(annotation)
        inner, cls = _kind(item)
        if inner == _PLAIN:
            return _PLAIN, None
        return (_MODELS, cls) if inner == _MODEL else (None, None)
    if origin is dict:
        key, value = typing.get_args(annotation)
        return (_PLAIN, None) if key is str and _kind(value)[0] == _PLAIN else (None, None)
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
    floats: list[str] = []
    nested: list[tuple[str, bool, type, _Spec]] = []
    for name, field in cls.model_fields.items():
        if field.exclude or field.alias or field.serialization_alias:
            return None
        kind, declared = _kind(field.annotation)
        if kind is None:
            return None
        names.append(name)
        if kind == _FLOAT:
            floats.append(name)
        elif declared is not None:
            inner = _SPECS[declared]
            assert inner is not None  # _kind said so
            nested.append((name, kind == _MODELS, declared, inner))
    spec = _Spec(tuple(names), frozenset(names), tuple(floats), tuple(nested))
    _SPECS[cls] = spec
    return spec


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
    for name in spec.floats:
        value = data.get(name)
        if value is not None and type(value) is not float:
            raise _Unsupported
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
    floats = spec.floats
    # The usual case, one float field (an entry's latency), checked without a loop.
    (only_float,) = floats if len(floats) == 1 else (None,)
    out: list[dict[str, Any]] = []
    append = out.append
    for model in models:
        cls = type(model)
        if cls is not declared or model.__pydantic_extra__ is not None:
            raise _Unsupported
        data = model.__dict__
        if tuple(data) != names:
            data = _only_fields(data, spec)
        if only_float is not None:
            value = data.get(only_float)
            if value is not None and type(value) is not float:
                raise _Unsupported
        else:
            for name in floats:
                value = data.get(name)
                if value is not None and type(value) is not float:
                    raise _Unsupported
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
    except (_Unsupported, TypeError, KeyError, AttributeError):
        # orjson.JSONEncodeError is a TypeError
        content: bytes = model.__pydantic_serializer__.to_json(model)
        return content


def models_json(models: list[BaseModel]) -> bytes:
    """The JSON array of ``model_json`` of each model."""
    try:
        return orjson.dumps([_plain(model) for model in models], option=_OPTIONS)
    except (_Unsupported, TypeError, KeyError, AttributeError):
        return b"[" + b",".join(model_json(model) for model in models) + b"]"
