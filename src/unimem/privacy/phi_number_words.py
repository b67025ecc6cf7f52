"""Number words of the PHI detector's four languages ("five", "doscientos",
"quatre", "اثنان") with their kind and value, and the lookup of a token's
number value."""

from __future__ import annotations

import re

__all__ = ["Num"]


# kind: d = digit 0-9, t = 10-19, y = tens, h = hundred multiplier, H = hundreds
# value (es/fr "doscientos", "cent"), k = thousand, x = repeat (double/triple).
_WORDS: dict[str, tuple[str, int]] = {}


def _add(kind: str, words: str, start: int = 0, step: int = 1) -> None:
    for offset, word in enumerate(words.split()):
        for alias in word.split("/"):
            _WORDS[alias] = (kind, start + offset * step)


_add("d", "zero/oh one two three four five six seven eight nine")


_add("t", "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen", 10)


_add("y", "twenty thirty forty fifty sixty seventy eighty ninety", 20, 10)


_add("d", "cero uno/una dos tres cuatro cinco seis siete ocho nueve")


_add(
    "t",
    "diez once doce trece catorce quince dieciséis/dieciseis diecisiete dieciocho diecinueve",
    10,
)


_add("y", "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa", 20, 10)


_add(
    "y",
    "veintiuno veintidós/veintidos veintitrés/veintitres veinticuatro veinticinco "
    "veintiséis/veintiseis veintisiete veintiocho veintinueve",
    21,
)


_add(
    "H",
    "cien/ciento doscientos trescientos cuatrocientos quinientos seiscientos "
    "setecientos ochocientos novecientos",
    100,
    100,
)


_add("k", "mil", 1000)


_add("d", "zéro un/une deux trois quatre cinq six sept huit neuf", 0)


_add("t", "dix onze douze treize quatorze quinze seize", 10)


_add("y", "vingt/vingts trente quarante cinquante soixante", 20, 10)


_add("h", "hundred cent/cents", 100, 0)


_add("k", "thousand mille", 1000, 0)


_add("x", "double", 2)


_add("x", "triple", 3)


_add("d", "صفر واحد/واحدة اثنان/اثنين/إثنان ثلاثة/ثلاث أربعة/اربعة/أربع خمسة/خمس ستة/ست")


_add("d", "سبعة/سبع ثمانية/ثمان تسعة/تسع", 7)


_add("t", "عشرة/عشر", 10)


_add(
    "y",
    "عشرون/عشرين ثلاثون/ثلاثين أربعون/أربعين/اربعين خمسون/خمسين ستون/ستين "
    "سبعون/سبعين ثمانون/ثمانين تسعون/تسعين",
    20,
    10,
)


_add("h", "مئة/مائة", 100)


_add("k", "ألف/الف", 1000)


# "uno"/"un"/"une" are also articles; "once" is English too. They only count
# inside a run of other number words (see number_runs).
_WEAK = frozenset({"un", "une", "una", "uno", "once", "oh", "double", "triple", "ست", "عشر"})


_STRONG_IN = {
    "es": frozenset({"una", "uno", "once"}),
    "fr": frozenset({"un", "une"}),
    "ar": frozenset({"ست", "عشر"}),
}


_CONNECTORS = frozenset({"and", "y", "et", "-"})


#: (kind, value) of a number word or digit string (see ``_WORDS``; "n" = digits, value = length).
Num = tuple[str, int]


def _number_of(low: str) -> Num | None:
    if low.isdigit() and low.isascii():
        return ("n", len(low))
    hit = _WORDS.get(low)
    if hit is None and low.startswith("و") and len(low) > 2:
        # Arabic joins "and" to the next word: "وتسعون" = "and ninety".
        hit = _WORDS.get(low[1:])
        if hit is not None and hit[0] in "yd":
            return ("&" + hit[0], hit[1])
    return hit


#: First characters of the tokens :func:`_number_of` reads other than by a ``_WORDS`` lookup.
_NUMBER_FIRST = frozenset("0123456789و")


_NUMBER_FIRST_RE = re.compile("[0-9و]")
