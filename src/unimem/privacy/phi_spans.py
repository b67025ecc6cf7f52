"""Where a PHI detector's findings sit in a text and how they are replaced by
session tokens; which JSON keys hold structure (ids, codes, times) rather
than free text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .pseudonyms import SessionTokens

__all__ = ["UNKNOWN_TYPE", "Detector", "structural_key"]


#: ``detect_phi(text, language)``: findings with ``type``, ``start``, ``end``
#: (attributes or keys).
Detector = Callable[[str, str | None], Sequence[Any]]


#: Replacement of a finding whose type the token map does not know.
UNKNOWN_TYPE = "PHI"


# Event data keys that hold structure (ids, codes, times), never free text.
_STRUCTURAL_KEYS = frozenset({"trigger", "timestamp", "from_mode", "to_mode", "topic_id"})


_STRUCTURAL_SUFFIXES = ("_id", "_ids", "_seq", "_at", "language", "_mode")


def _attr(finding: Any, name: str) -> Any:
    if isinstance(finding, Mapping):
        return finding.get(name)
    return getattr(finding, name, None)


def _spans(text: str, findings: Sequence[Any]) -> list[tuple[int, int, str]]:
    """Valid, non-overlapping ``(start, end, type)`` spans, longest first at a position."""
    spans: list[tuple[int, int, str]] = []
    for finding in findings:
        start, end, kind = _attr(finding, "start"), _attr(finding, "end"), _attr(finding, "type")
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text):
            spans.append((start, end, str(getattr(kind, "value", kind) or "PHI")))
    spans.sort(key=lambda s: (s[0], s[0] - s[1]))
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def _replace(text: str, spans: list[tuple[int, int, str]], tokens: SessionTokens) -> str:
    out: list[str] = []
    last = 0
    for start, end, kind in spans:
        out.append(text[last:start])
        try:
            out.append(tokens.token(kind, text[start:end]))
        except ValueError:  # a type the token map does not number
            out.append(f"[{UNKNOWN_TYPE}]")
        last = end
    out.append(text[last:])
    return "".join(out)


def structural_key(key: str) -> bool:
    """Whether a ``metadata`` or event ``data`` key holds structure (ids, codes,
    times, modes, languages), never free text: its value is not redacted."""
    return key in _STRUCTURAL_KEYS or key.endswith(_STRUCTURAL_SUFFIXES)
