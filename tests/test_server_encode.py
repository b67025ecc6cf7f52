"""The HTTP layer's JSON writer gives byte for byte what pydantic's
``model_dump_json`` gives, for every model it writes and any value in them:
generated entries and contexts, fields out of order, values orjson cannot
write or would write differently (which go to pydantic)."""

from __future__ import annotations

import math
import random
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from enum import Enum, IntEnum
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from unimem import encoding as encode
from unimem.encoding import model_json, models_json
from unimem.models import (
    AuditRecord,
    ConversationContext,
    DeletionReceipt,
    Fact,
    MemoryEntry,
    MemoryEvent,
    MemorySettings,
    Mode,
    RagContext,
    Role,
    SessionInfo,
    Summary,
)
from unimem.server.schemas import LlmContextOut, SessionPage, Status
from unimem.server.sessions import TtlOut

NOW = datetime(2026, 11, 30, 7, 54, 14, 881829, tzinfo=UTC)


def pydantic_json(model: BaseModel) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mistyped values warn (and are written anyway)
        content: bytes = model.__pydantic_serializer__.to_json(model)
        return content


def ours(write: Callable[[Any], bytes], value: Any) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fallback is pydantic, warnings included
        return write(value)


def outcome(write: Callable[[Any], bytes], value: Any) -> bytes | type[BaseException]:
    try:
        return write(value)
    except Exception as exc:
        return type(exc)


def assert_same(model: BaseModel) -> None:
    """Same bytes, or the same error when pydantic cannot write the model."""
    assert outcome(lambda m: ours(model_json, m), model) == outcome(pydantic_json, model)


def entry(**changes: Any) -> MemoryEntry:
    values: dict[str, Any] = {
        "id": "01a22b72-83e1-71a3-a889-3d42636028e9",
        "session_id": "s1",
        "user_id": "bench",
        "timestamp": NOW,
        "seq": 3,
        "role": "user",
        "content": "Metformin is usually taken with meals",
        "mode": "voice",
        "language": "en",
        "detected_language": "en",
    }
    values.update(changes)
    return MemoryEntry(**values)


def constructed(model: BaseModel, **changes: Any) -> Any:
    """The model with ``changes`` put in its ``__dict__`` unvalidated, as a
    store's trusted decoder builds it."""
    copy = model.model_copy()
    copy.__dict__.update(changes)
    return copy


def event(kind: str = "mode_switch", **data: Any) -> MemoryEvent:
    return MemoryEvent(
        id="e1", session_id="s1", user_id="bench", seq=2, event_type=kind, timestamp=NOW, data=data
    )


def session() -> SessionInfo:
    return SessionInfo(
        session_id="s1",
        user_id="bench",
        started_at=NOW,
        last_active_at=NOW + timedelta(seconds=5),
        current_mode=Mode.VOICE,
        current_language="en",
        message_count=12,
        event_count=2,
        modes_used=[Mode.VOICE, Mode.TEXT],
        languages_used=["en", "ar"],
    )


def context(messages: list[Any], recent: list[Any] | None = None, **changes: Any) -> Any:
    ctx = ConversationContext(
        session_id="s1",
        user_id="bench",
        current_mode=Mode.VOICE,
        current_language="en",
        language_events=[event("language_switch", to="ar")],
        mode_events=[event(from_mode="text", to_mode="voice")],
        rag_context=RagContext(passages=["p1"], sources=[{"source": "doc", "score": 0.5}]),
        settings=MemorySettings(retention_days=7),
        session=session(),
        degradations=["recent:timeout"],
    )
    ctx.__dict__.update(messages=messages, recent=recent or [], **changes)
    return ctx


class _NoOffset(tzinfo):
    """A zone that knows no offset: pydantic writes the time as naive."""

    def utcoffset(self, dt: datetime | None) -> None:
        return None

    def dst(self, dt: datetime | None) -> None:
        return None


@dataclass
class _Point:
    x: int = 1
    y: float = 2.5


# -------------------------------------------------------------- generated values

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
offsets = st.sampled_from(
    [
        UTC,
        timezone(timedelta(0), "other"),
        timezone(timedelta(hours=5, minutes=30)),
        timezone(-timedelta(hours=3)),
        timezone(timedelta(seconds=61)),
        timezone(timedelta(seconds=59)),
        timezone(-timedelta(seconds=3599)),
        timezone(timedelta(hours=23, minutes=59, seconds=59, microseconds=5)),
        timezone(timedelta(microseconds=1)),
        _NoOffset(),
        ZoneInfo("Europe/London"),
        ZoneInfo("America/New_York"),
        None,
    ]
)
times = st.builds(
    lambda moment, tz: moment.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    offsets,
)
entries = st.builds(
    lambda text, meta, sources, latency, stamp, seq, flags: constructed(
        entry(),
        content=text,
        metadata=meta,
        sources=sources,
        latency_ms=latency,
        timestamp=stamp,
        seq=seq,
        language_switched=flags[0],
        phi_detected=flags[1],
        retrieved_passages=[text[:5]],
        degradations=["a", text[-3:]],
    ),
    st.text(),
    st.dictionaries(st.text(max_size=8), json_values, max_size=4),
    st.lists(st.dictionaries(st.text(max_size=8), json_values, max_size=3), max_size=2),
    st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(0, 10**6),
    st.none() | times,
    st.none() | st.integers(min_value=1, max_value=2**64),
    st.tuples(st.booleans(), st.booleans()),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries)
def test_generated_entries_are_written_as_pydantic_writes_them(item: MemoryEntry) -> None:
    assert_same(item)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(entries, max_size=6), st.lists(entries, max_size=6))
def test_generated_contexts_are_written_as_pydantic_writes_them(
    messages: list[MemoryEntry], recent: list[MemoryEntry]
) -> None:
    assert_same(context(messages, recent))
    assert ours(models_json, messages) == b"[" + b",".join(map(pydantic_json, messages)) + b"]"


def test_every_character_is_escaped_as_pydantic_escapes_it() -> None:
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert_same(constructed(entry(), content=text, metadata={text[:5000]: text}))


def test_floats_are_written_as_pydantic_writes_them() -> None:
    rng = random.Random(7)
    values = [0.0, -0.0, 1.0, 0.1, 1e16, 1e15, 1e21, 1e22, 1e-7, 5e-324, 1.7976931348623157e308]
    values += [rng.uniform(-1e9, 1e9) for _ in range(2000)]
    values += [math.ldexp(rng.random(), rng.randint(-1070, 1020)) for _ in range(2000)]
    values += [math.nan, math.inf, -math.inf]
    assert_same(constructed(entry(), metadata={"f": values}, latency_ms=1.5))
    for value in values[:200]:
        assert_same(constructed(entry(), latency_ms=abs(value)))


# -------------------------------------------------------------- the edges


@pytest.mark.parametrize(
    "changes",
    [
        {"latency_ms": 5},  # an int in a float field: pydantic writes 5.0
        {"latency_ms": True},
        {"latency_ms": "5"},
        {"seq": 2**64},  # beyond orjson
        {"seq": -(2**63) - 1},
        {"metadata": {"big": 2**64, "small": -(2**63)}},
        {"metadata": {1: "int key", None: "none key"}},
        {"metadata": {"s": {1, 2}, "t": (1, 2), "d": Decimal("1.50"), "b": b"raw"}},
        {"metadata": {"u": uuid.UUID(int=5), "when": NOW, "day": NOW.date()}},
        {"metadata": {"when": NOW.replace(tzinfo=timezone(timedelta(seconds=59)))}},
        {"metadata": {"when": NOW.replace(tzinfo=_NoOffset())}},
        {"metadata": {"at": time(1, 2, 3, tzinfo=UTC), "p": _Point()}},
        {"sources": [{"when": NOW.replace(tzinfo=timezone(-timedelta(seconds=1)))}]},
        {"timestamp": NOW.replace(tzinfo=timezone(timedelta(seconds=59)))},
        {"timestamp": NOW.replace(tzinfo=timezone(-timedelta(seconds=3599)))},
        {"timestamp": NOW.replace(tzinfo=_NoOffset())},
        {"timestamp": NOW.replace(tzinfo=None)},
        {"timestamp": NOW.replace(tzinfo=ZoneInfo("Asia/Kolkata"))},
        {"metadata": {"e": Mode.TEXT, "i": IntEnum("I", "A B").B}},
        {"metadata": {"lone": "\ud800"}},
        {"content": "lone \udfff surrogate"},
        {"metadata": {"nan": math.nan, "inf": -math.inf}},
        {"metadata": {"deep": [[[[[[[[[[[[1]]]]]]]]]]]]}},
        {"role": "user", "mode": "voice"},  # plain strings in enum fields
        {"role": Role.SYSTEM, "mode": Mode.TEXT},
        {"timestamp": "2026-01-01T00:00:00Z"},  # a string in a datetime field
        {"timestamp": NOW.date()},
        {"sources": ({"a": 1},), "retrieved_passages": ("x",)},
        {"language": None, "detected_language": None, "id": ""},
    ],
    ids=repr,
)
def test_unusual_values_are_written_as_pydantic_writes_them(changes: dict[str, Any]) -> None:
    item = constructed(entry(), **changes)
    assert_same(item)
    assert_same(context([item], [item]))


@pytest.mark.parametrize(
    "zone",
    [timezone(timedelta(seconds=59)), timezone(-timedelta(seconds=3599)), _NoOffset(), None, UTC],
    ids=repr,
)
def test_times_of_events_and_sessions_are_written_as_pydantic_writes_them(zone: Any) -> None:
    odd = NOW.replace(tzinfo=zone)
    ctx = context([entry()])
    ctx.__dict__["mode_events"] = [constructed(event(), timestamp=odd)]
    ctx.__dict__["language_events"] = [constructed(event(), data={"at": odd})]
    assert_same(ctx)
    ctx = context([entry()])
    ctx.__dict__["session"] = constructed(session(), started_at=odd, closed_at=odd)
    assert_same(ctx)
    assert_same(constructed(session(), last_active_at=odd))


def test_fields_out_of_order_come_out_in_the_same_order() -> None:
    item = entry(metadata={"k": 1})
    names = list(item.__dict__)
    random.Random(3).shuffle(names)
    shuffled = MemoryEntry.model_construct()
    shuffled.__dict__.clear()
    shuffled.__dict__.update({name: item.__dict__[name] for name in names})
    assert list(shuffled.__dict__) != list(MemoryEntry.model_fields)
    assert_same(shuffled)
    assert_same(context([shuffled, item], [shuffled]))


def test_missing_and_unknown_keys_are_written_as_pydantic_writes_them() -> None:
    item = entry()
    del item.__dict__["metadata"]
    assert_same(item)
    item.__dict__["unknown"] = 1
    assert_same(item)
    assert_same(context([item], [entry()]))
    ctx = context([entry()])
    del ctx.__dict__["session"]
    ctx.__dict__["zzz"] = {1}
    assert_same(ctx)
    for mistyped in ({}, (entry(),), None, "x", {"a": entry()}):
        ctx = context([entry()])
        ctx.__dict__["messages"] = mistyped
        assert_same(ctx)


def test_subclass_instances_are_written_by_the_declared_class() -> None:
    class Tagged(MemoryEntry):
        tag: str = "extra"

    class TaggedRag(RagContext):
        more: int = 1

    tagged = Tagged(role="user", content="hi")
    assert_same(tagged)  # written by its own class at the top
    assert_same(context([tagged], [entry()]))  # by MemoryEntry inside a context
    assert_same(context([entry()], rag_context=TaggedRag()))


def test_values_nobody_can_write_fail_as_in_pydantic() -> None:
    item = constructed(entry(), metadata={"x": object()})
    assert isinstance(outcome(pydantic_json, item), type)
    assert_same(item)


class _Colour(Enum):
    RED = 1.5  # a float enum: only pydantic writes it


class _Custom(BaseModel):
    colour: _Colour = _Colour.RED
    amounts: list[float] = [1, 2.5]
    table: dict[int, str] = {1: "a"}


def test_other_models_of_the_api_are_written_as_pydantic_writes_them() -> None:
    models: list[BaseModel] = [
        # (validation refuses integers beyond 64 bits; a model built without it may hold one)
        event("topic_change", topic="x").model_copy(update={"data": {"n": 2**70}}),
        session(),
        SessionInfo(session_id="s", user_id="u", started_at=NOW, last_active_at=NOW),
        MemorySettings(),
        RagContext(),
        Fact(user_id="u", text="likes tea", created_at=NOW),
        Summary(session_id="s", user_id="u", text="t", from_seq=1, to_seq=3, created_at=NOW),
        AuditRecord(timestamp=NOW, actor="a", action="read", user_id="u", details={"n": 1}),
        DeletionReceipt(user_id="u", scope="all", deleted_at=NOW, counts={"entries": 3}),
        SessionPage(sessions=[session()], limit=1, offset=0, next_offset=None),
        LlmContextOut(messages=[{"role": "user", "content": "x"}], token_count=3, degradations=[]),
        TtlOut(session_id="s", extended=True),
        Status(status="ok", store="sqlite", local_mode=False),
        _Custom(),
        context([entry(), entry(seq=4)], [entry(session_id="s0")]),
        ConversationContext(session_id="s", user_id="u"),
    ]
    for model in models:
        assert_same(model)
    assert ours(models_json, models) == b"[" + b",".join(map(pydantic_json, models)) + b"]"
    assert ours(models_json, []) == b"[]"


def test_ordinary_contexts_take_the_fast_writer() -> None:
    """The comparisons above test the fast writer, not only the fallback."""
    ctx = context([entry(), entry(seq=4, latency_ms=12.5)], [entry(session_id="s0")])
    assert isinstance(encode._plain(ctx), dict)
    item = entry()
    assert encode._plain(item) is item.__dict__  # no copy
