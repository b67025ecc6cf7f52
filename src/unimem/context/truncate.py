"""Fit a list of chat messages into a token limit.

:func:`truncate_context` keeps the system prompt (the leading run of system
messages) and the last 3 messages, and replaces everything between them with
one system message summarizing it. Its result never exceeds ``max_tokens``,
whatever the input: when even the protected messages do not fit, their
contents are shortened (largest first, the newest message last), and as a
last resort whole messages are dropped (oldest first), down to an empty list.

A tool call and its results form one unit: an assistant message with
``tool_calls`` (or a legacy ``function_call``) and the ``tool``/``function``
messages answering it are kept or dropped together, never split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import InvalidInputError
from .extractive import ExtractiveSummarizer
from .tokens import content_text, count_message_tokens, count_text_tokens, count_tokens, fit_text

__all__ = ["SUMMARY_PREFIX", "group_tool_units", "truncate_context"]

#: How the summary message of the middle starts (and ``]`` ends it), as in the spec.
SUMMARY_PREFIX = "[Previous conversation summary: "
_MIN_SUMMARY_TOKENS = 12
_HEAD_ROLES = ("system", "developer")

SyncSummarizer = Callable[[Sequence[Mapping[str, Any]], int, str], str]
Message = dict[str, Any]


def _call_ids(message: Mapping[str, Any]) -> set[str]:
    ids = set()
    for call in message.get("tool_calls") or ():
        if isinstance(call, Mapping) and call.get("id"):
            ids.add(str(call["id"]))
    return ids


def group_tool_units(messages: Sequence[Message]) -> list[list[Message]]:
    """Split messages into units: a tool-calling message with its results, or one message."""
    units: list[list[Message]] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        unit = [message]
        index += 1
        if message.get("role") == "assistant":
            ids = _call_ids(message)
            legacy = isinstance(message.get("function_call"), Mapping)
            while index < len(messages):
                nxt = messages[index]
                answers_call = (
                    ids and nxt.get("role") == "tool" and str(nxt.get("tool_call_id")) in ids
                )
                if not (answers_call or (legacy and nxt.get("role") == "function")):
                    break
                unit.append(nxt)
                index += 1
        units.append(unit)
    return units


def _set_content_tokens(message: Message, target: int, model: str) -> None:
    text = content_text(message.get("content"))
    if message.get("content") is None:
        return
    message["content"] = fit_text(text, max(0, target), model)


def _shrink(
    head: list[Message], tail_units: list[list[Message]], max_tokens: int, model: str
) -> list[Message]:
    """Shorten, then drop, protected messages until they fit (``head`` is updated in place).

    The largest content is shortened first; the newest message is touched
    only when nothing else is left. A message that would be emptied is
    dropped instead when it stands alone (a head message, or a one-message
    unit that is not the newest), since an empty message still costs tokens.
    """
    units: list[list[Message]] = [[m] for m in head] + tail_units
    newest_unit = tail_units[-1] if tail_units else None
    while units:
        result = [m for unit in units for m in unit]
        total = count_tokens(result, model)
        if total <= max_tokens:
            head[:] = [unit[0] for unit in units[: len(units) - len(tail_units)]]
            return result
        excess = total - max_tokens
        candidates = [
            (count_text_tokens(content_text(m.get("content")), model), u, i)
            for u, unit in enumerate(units)
            if unit is not newest_unit
            for i, m in enumerate(unit)
            if m.get("content")
        ]
        if not candidates and newest_unit is not None:
            candidates = [
                (count_text_tokens(content_text(m.get("content")), model), len(units) - 1, i)
                for i, m in enumerate(newest_unit)
                if m.get("content")
            ]
        if candidates:
            size, u, i = max(candidates, key=lambda c: (c[0], -c[1]))
            unit = units[u]
            if size <= excess and len(unit) == 1 and unit is not newest_unit:
                if u >= len(units) - len(tail_units):
                    tail_units.remove(unit)
                del units[u]
            else:
                _set_content_tokens(unit[i], size - excess if size > excess else 0, model)
            continue
        # Every content is empty and it still does not fit: drop whole units, oldest first.
        dropped = units.pop(0)
        if tail_units and dropped is tail_units[0]:
            tail_units.pop(0)
    head.clear()
    return []


def truncate_context(
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int = 4000,
    model: str = "gpt-4o",
    *,
    summarizer: SyncSummarizer | None = None,
    keep_last: int = 3,
) -> list[dict[str, Any]]:
    """Fit ``messages`` into ``max_tokens`` for ``model``.

    Messages that already fit are returned unchanged (as copies). Otherwise the
    leading system messages and the last ``keep_last`` messages (extended so
    no tool call is split from its results) are kept, and the messages between
    them become one system message, ``[Previous conversation summary: ...]``,
    made by ``summarizer`` (default: the offline extractive one) within the
    tokens left. Pure and synchronous.

    Args:
        messages: ``{"role", "content", ...}`` dicts (OpenAI chat format).
        max_tokens: the limit, counted with :func:`count_tokens` for ``model``.
        model: model name; decides exact counting or the documented estimate.
        summarizer: ``(messages, max_tokens, model) -> str``.
        keep_last: how many newest messages are always kept.

    Raises:
        InvalidInputError: ``max_tokens`` below 1 or ``keep_last`` negative.
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidInputError(
            "max_tokens must be a whole number of at least 1", field="max_tokens"
        )
    if keep_last < 0:
        raise InvalidInputError("keep_last must not be negative", field="keep_last")
    copies: list[Message] = [dict(m) for m in messages]
    if count_tokens(copies, model) <= max_tokens:
        return copies

    head_count = 0
    while head_count < len(copies) and copies[head_count].get("role") in _HEAD_ROLES:
        head_count += 1
    head = copies[:head_count]
    units = group_tool_units(copies[head_count:])
    tail_units: list[list[Message]] = []
    kept = 0
    while units and kept < keep_last:
        unit = units.pop()
        tail_units.insert(0, unit)
        kept += len(unit)
    middle = [m for unit in units for m in unit]

    protected = _shrink(head, tail_units, max_tokens, model)
    if not middle:
        return protected
    room = max_tokens - count_tokens(protected, model)
    frame = count_message_tokens({"role": "system", "content": SUMMARY_PREFIX + "]"}, model)
    if not protected:
        room -= 3  # the reply priming is counted once the list is not empty
    if room - frame < _MIN_SUMMARY_TOKENS:
        return protected
    summarize = summarizer or ExtractiveSummarizer()
    summary = summarize(middle, room - frame, model).strip()
    if not summary:
        return protected
    message = {"role": "system", "content": f"{SUMMARY_PREFIX}{summary}]"}
    # The summarizer was given the room; verify, since a custom one may not respect it.
    limit = room - frame
    while count_message_tokens(message, model) > room and summary:
        limit -= 1
        summary = fit_text(summary, limit, model)
        message = {"role": "system", "content": f"{SUMMARY_PREFIX}{summary}]"}
    if not summary:
        return protected
    return [*protected[: len(head)], message, *protected[len(head) :]]
