"""Spoken ordinals of a date ("march eighteenth", "le premier juillet") as numbers,
read before the spoken numbers are turned into digits."""

from __future__ import annotations

from collections.abc import Container, Sequence

__all__ = ["day_of_month", "month_ordinals"]


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


_DAY_BEFORE = frozenset(
    ["the", "to", "on", "for", "el", "al", "le", "au", "il", "al", "am", "den", "zum"]
)
_DAY_AFTER = frozenset(["th", "st", "nd", "rd", "er", "ro"])
# a number followed by these is a time, a dose or a span, not a day
_NOT_A_DAY = frozenset(
    _spaced(
        "am pm p h o'clock hours hour heures heure horas hora uhr weeks week semanas semaines "
        "days dias jours tage minutes mg"
    )
)


def day_of_month(words: Sequence[str]) -> int | None:
    """A day said with no month ("moved me to the seventeenth", "to the 17th",
    "al 17", "au 22"), or None: a number from 1 to 31 after an article or a
    preposition, or before an ordinal ending, or an English ordinal after one."""
    for i, word in enumerate(words):
        before = i > 0 and words[i - 1] in _DAY_BEFORE
        after = i + 1 < len(words) and words[i + 1] in _DAY_AFTER
        if word in _ORDINALS and before:
            day = _DAY_NUMBERS[word]
        elif (
            word.isdigit()
            and (before or after)
            and not _NOT_A_DAY.intersection(words[i + 1 : i + 2])
        ):
            day = int(word)
        else:
            continue
        if 1 <= day <= 31:
            return day
    return None


_DAY_NUMBERS = {word: n for n, word in enumerate(_ORDINALS, start=1)}
_DAY_NUMBERS["thirtieth"] = 30
