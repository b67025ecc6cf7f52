"""truncate_context: system prompt and last 3 kept, middle summarized, never over the limit."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unimem.context import count_tokens, truncate_context
from unimem.context.truncate import SUMMARY_PREFIX, group_tool_units
from unimem.errors import InvalidInputError


def _conversation(n: int) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are a careful medical assistant."}]
    for i in range(n):
        if i == 4:
            messages.append({"role": "user", "content": "I'm allergic to penicillin, I get hives."})
        elif i % 2 == 0:
            messages.append({"role": "user", "content": f"Turn {i}: the weather was grey again."})
        else:
            messages.append({"role": "assistant", "content": "I see. Tell me more about it."})
    return messages


def test_messages_that_fit_come_back_unchanged():
    messages = _conversation(6)
    out = truncate_context(messages, max_tokens=4000)
    assert out == messages
    assert out is not messages


def test_middle_becomes_one_summary_message():
    messages = _conversation(40)
    limit = count_tokens(messages) // 3
    out = truncate_context(messages, max_tokens=limit)
    assert count_tokens(out) <= limit
    assert out[0] == messages[0]
    assert out[-3:] == messages[-3:]
    assert len(out) == 5
    summary = out[1]
    assert summary["role"] == "system"
    assert summary["content"].startswith(SUMMARY_PREFIX)
    assert "penicillin" in summary["content"]  # the fact survives, the chatter does not
    assert "grey" not in summary["content"]


def test_tool_call_stays_with_its_results():
    messages = _conversation(20)
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "dose", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "label", "arguments": "{}"}},
        ],
    }
    messages += [
        call,
        {"role": "tool", "tool_call_id": "a", "content": "500 mg twice daily"},
        {"role": "tool", "tool_call_id": "b", "content": "take with food"},
        {"role": "assistant", "content": "Take 500 mg twice a day with food."},
    ]
    out = truncate_context(messages, max_tokens=150)
    assert count_tokens(out) <= 150
    # The last 3 messages start inside the tool unit: the whole unit is kept.
    assert out[-4:] == messages[-4:]


def test_protected_messages_are_shortened_when_they_alone_do_not_fit():
    huge = {"role": "system", "content": "Instructions. " * 400}
    messages = [huge, *_conversation(10)[1:]]
    out = truncate_context(messages, max_tokens=60)
    assert count_tokens(out) <= 60
    assert out[-1] == messages[-1]  # the newest message is the last thing cut


def test_tiny_limits_give_an_empty_or_minimal_list():
    messages = _conversation(10)
    assert truncate_context(messages, max_tokens=1) == []
    out = truncate_context(messages, max_tokens=12)
    assert count_tokens(out) <= 12


@pytest.mark.parametrize("bad", [0, -5, 1.5, True, "100"])
def test_bad_limit_is_refused(bad):
    with pytest.raises(InvalidInputError) as info:
        truncate_context(_conversation(3), max_tokens=bad)
    assert info.value.field == "max_tokens"


# ---------------------------------------------------------------- property

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=120,
) | st.sampled_from(
    [
        "I take lisinopril 20 mg every morning.",
        "actually its twenty milligrams not ten",
        "مرحبا، عندي حساسية من البنسلين",
        "我对青霉素过敏。",
        "ok",
        "",
    ]
)


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, object]]:
    messages: list[dict[str, object]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(_TEXT)})
    for index in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["user", "assistant", "tool_unit", "system"]))
        if kind == "tool_unit":
            ids = [f"call{index}_{k}" for k in range(draw(st.integers(1, 3)))]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
                        for i in ids
                    ],
                }
            )
            for i in ids:
                messages.append({"role": "tool", "tool_call_id": i, "content": draw(_TEXT)})
        else:
            messages.append({"role": kind, "content": draw(_TEXT)})
    return messages


def _units_intact(messages: list[dict[str, object]]) -> bool:
    """Every tool result follows its call, and every call keeps all its results."""
    for unit in group_tool_units(messages):
        head = unit[0]
        calls = head.get("tool_calls") or []
        if head.get("role") == "tool":
            return False  # a result without its call
        if calls and len(unit) != 1 + len(calls):  # type: ignore[arg-type]
            return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    messages=conversations(),
    max_tokens=st.integers(1, 400),
    model=st.sampled_from(["gpt-4o", "gpt-4", "llama-3-70b"]),
)
def test_never_exceeds_the_limit_and_never_splits_tool_calls(messages, max_tokens, model):
    out = truncate_context(messages, max_tokens=max_tokens, model=model)
    assert count_tokens(out, model) <= max_tokens
    assert _units_intact(out)
    if count_tokens(messages, model) <= max_tokens:
        assert out == messages
