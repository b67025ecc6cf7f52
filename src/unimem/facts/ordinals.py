"""Spoken ordinals of a date ("march eighteenth", "le premier juillet") as numbers,
read before the spoken numbers are turned into digits."""

from __future__ import annotations

from collections.abc import Container

__all__ = ["month_ordinals"]


def _spaced(text: str) -> list[str]:
    return text.split()


_ORDINALS = dict(
    zip(
        _spaced(
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth "
            "thirtieth"
        ),
        _spaced(
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
            "fifteen sixteen seventeen eighteen nineteen twenty thirty"
        ),
        strict=True,
    )
)
_FIRST = frozenset(["premier", "1er", "primero", "1ro", "1o"])


def month_ordinals(words: list[str], months: Container[str]) -> list[str]:
    """``words`` with a spoken ordinal next to a month name (one of ``months``) as
    its number and "th" ("march eighteenth", "the twenty second of march" ->
    "march eighteen th", "twenty two th of march"), and "premier" / "primero" as
    "1"; "first" elsewhere stays a word ("first thing in the morning")."""
    if not any(w in _ORDINALS or w in _FIRST for w in words):
        return words
    out: list[str] = []
    for i, word in enumerate(words):
        near = words[max(0, i - 2) : i] + words[i + 1 : i + 3]
        dated = any(w in months for w in near if len(w) > 2)
        if word in _ORDINALS and dated:
            out += [_ORDINALS[word], "th"]
        elif word in _FIRST and dated:
            out.append("1")  # "le premier juillet", "el primero de julio"
        else:
            out.append(word)
    return out
