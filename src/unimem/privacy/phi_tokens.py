"""Tokens and spoken numbers for the PHI detector.

Voice transcripts spell numbers out ("five five five one two one two",
"nineteen fifty two", "quatre-vingt-douze", "اثنان وتسعون"), typed text writes
digits. Both become :class:`NumberRun` objects carrying the digit string, so the
detector classifies "555 1212" and "five five five one two one two" alike.

Offsets always refer to the caller's original text: normalization only maps
characters one to one (lowercase, Arabic-Indic digits to ASCII).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

__all__ = [
    "NumberRun",
    "Token",
    "normalize",
    "number_runs",
    "number_runs_at",
    "tokenize",
    "tokenize_lows",
]

_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\S")
_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")


@dataclass(slots=True)
class Token:
    """One word, number or punctuation mark: ``low`` is normalized, offsets are original."""

    text: str
    low: str
    start: int
    end: int
    index: int
    #: (kind, value) when the token is a number word or a digit string.
    num: tuple[str, int] | None = None

    @property
    def is_alpha(self) -> bool:
        return self.low.replace("'", "").replace("’", "").isalpha()


def normalize(text: str) -> str:
    """Lowercase ``text`` and map Arabic-Indic digits to ASCII, keeping every offset."""
    lowered = text.lower()
    if len(lowered) != len(text):
        # A few characters (e.g. 'İ') lowercase to two; keep those unchanged.
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    if lowered.isascii():
        return lowered  # only non-ASCII digits are translated
    return lowered.translate(_DIGITS)


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


def _number_of(low: str) -> tuple[str, int] | None:
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


def tokenize(text: str, norm: str) -> list[Token]:
    """Split ``text`` (with its :func:`normalize` form ``norm``) into tokens."""
    return tokenize_lows(text, norm)[0]


def tokenize_lows(text: str, norm: str) -> tuple[list[Token], list[str], list[int]]:
    """:func:`tokenize`, the tokens' ``low`` forms, and the indices of the number tokens.

    The number reading is :func:`_number_of`, which only differs from a plain
    ``_WORDS`` lookup for ASCII digit strings and Arabic words joined to "و"
    (``_WORDS`` has no key starting with a digit): only those are passed to it.
    """
    tokens: list[Token] = []
    lows: list[str] = []
    numbered: list[int] = []
    append = tokens.append
    append_low = lows.append
    lookup = _WORDS.get
    for i, match in enumerate(_TOKEN_RE.finditer(norm)):
        low = match.group()
        start, end = match.span()
        num = lookup(low)
        if num is None and low[0] in _NUMBER_FIRST:
            num = _number_of(low)
        append(Token(text[start:end], low, start, end, i, num))
        append_low(low)
        if num is not None:
            numbered.append(i)
    if "hundred" in norm or "thousand" in norm:  # else no token is either word
        for prev, tok in itertools.pairwise(tokens):
            if prev.low == "a" and tok.low in ("hundred", "thousand"):
                prev.num = ("d", 1)  # "a hundred and one"
        numbered = [k for k, tok in enumerate(tokens) if tok.num is not None]
    return tokens, lows, numbered


@dataclass(slots=True)
class NumberRun:
    """Consecutive number tokens read as one digit string (tokens ``first``..``last``)."""

    first: int
    last: int
    digits: str
    #: Values of the spoken segments, e.g. [19, 52] for "nineteen fifty two".
    segments: list[int]
    start: int
    end: int

    @property
    def value(self) -> int | None:
        """The run as one number when it is a single segment ("ninety two" -> 92)."""
        return self.segments[0] if len(self.segments) == 1 else None


def _parse(tokens: list[Token], i: int, j: int) -> tuple[list[str], list[int]]:
    """Read tokens[i:j] (number tokens and connectors) as digit chunks and segment values."""
    chunks: list[str] = []
    values: list[int] = []
    repeat = 1
    while i < j:
        tok = tokens[i]
        assert tok.num is not None or tok.low in _CONNECTORS
        if tok.num is None:
            i += 1
            continue
        kind, value = tok.num
        if kind == "x":
            repeat = value
            i += 1
            continue
        if kind == "n":
            chunks.append(tok.low * repeat)
            values.append(int(tok.low))
            repeat = 1
            i += 1
            continue
        total, i = _segment(tokens, i, j)
        chunks.append(str(total) * repeat)
        values.append(total)
        repeat = 1
    return chunks, values


def _peek(tokens: list[Token], i: int, j: int, kinds: str) -> tuple[int, int] | None:
    """The next number token at or after i (skipping connectors) if its kind is in kinds."""
    k = i
    while k < j and tokens[k].num is None and tokens[k].low in _CONNECTORS:
        k += 1
    if k < j and tokens[k].num is not None:
        kind, value = tokens[k].num  # type: ignore[misc]
        if kind.lstrip("&") in kinds:
            return k, value
    return None


def _segment(tokens: list[Token], i: int, j: int) -> tuple[int, int]:
    kind, value = tokens[i].num  # type: ignore[misc]
    kind = kind.lstrip("&")
    i += 1
    total = value
    if kind == "d" and value == 4 and (nxt := _peek(tokens, i, j, "y")) and nxt[1] == 20:
        total, i = 80, nxt[0] + 1  # quatre-vingt
        kind = "y"
    if kind == "d" and (nxt := _peek(tokens, i, j, "y")) and tokens[nxt[0]].num[0] == "&y":  # type: ignore[index]
        return value + nxt[1], nxt[0] + 1  # Arabic: "اثنان وتسعون" = 2 + 90
    if kind == "y":
        if total in (60, 80) and (nxt := _peek(tokens, i, j, "t")):
            teen, k = _segment(tokens, nxt[0], j)  # soixante-dix-huit, quatre-vingt-douze
            return total + teen, k
        if total in (60, 80) and (nxt := _peek(tokens, i, j, "y")) and nxt[1] == 10:
            total, i = total + 10, nxt[0] + 1
        elif (nxt := _peek(tokens, i, j, "d")) and 0 < nxt[1] < 10:
            total, i = total + nxt[1], nxt[0] + 1
        return total, i
    if kind == "t" and value == 10 and (nxt := _peek(tokens, i, j, "d")) and 6 < nxt[1] < 10:
        return 10 + nxt[1], nxt[0] + 1  # dix-sept, dix-huit, dix-neuf
    if kind in "dH" or (kind == "h" and value == 100) or kind == "k":
        if kind == "h" or kind == "k":
            total = value
        elif (nxt := _peek(tokens, i, j, "h")) and nxt[1] == 100:
            total, i = value * 100, nxt[0] + 1
        elif kind == "d":
            return total, i
        if total < 1000 and (nxt := _peek(tokens, i, j, "k")):
            total, i = total * 1000, nxt[0] + 1
        rest = _peek(tokens, i, j, "dtyH")
        if rest and total % 100 == 0:
            sub, k = _segment(tokens, rest[0], j)
            if sub < (1000 if total >= 1000 else 100):
                return total + sub, k
        return total, i
    return total, i


def _joins(prev: Token, tok: Token) -> bool:
    """Whether number token ``tok`` continues the run ending with number token ``prev``."""
    prev_digit = prev.num is not None and prev.num[0] == "n"
    tok_digit = tok.num is not None and tok.num[0] == "n"
    # Typed digit groups ("612 34 56 78") and spoken words chain; a mix does not.
    return prev_digit == tok_digit


def number_runs(tokens: list[Token], language: str | None = None) -> list[NumberRun]:
    """Maximal runs of number tokens.

    A lone weak word ("un", "once", "oh") is no run, unless ``language`` says it is
    a number there (Spanish "once" is eleven).
    """
    numbered = [k for k, tok in enumerate(tokens) if tok.num is not None]
    return number_runs_at(tokens, numbered, language)


def number_runs_at(
    tokens: list[Token], numbered: list[int], language: str | None = None
) -> list[NumberRun]:
    """:func:`number_runs`, given the ascending indices of the tokens with a ``num``.

    A run starts at a number token only, so the scan visits those and nothing else.
    """
    weak = _WEAK - _STRONG_IN.get(language or "", frozenset())
    runs: list[NumberRun] = []
    n = len(tokens)
    i = 0
    for first in numbered:
        if first < i:
            continue  # inside the run just read
        i = first
        j = i + 1
        while j < n:
            tok = tokens[j]
            prev = tokens[j - 1]
            if tok.num is not None:
                if not _joins(prev, tok):
                    break
                j += 1
                continue
            nxt = tokens[j + 1] if j + 1 < n else None
            if nxt is None or nxt.num is None or not _joins(prev, nxt):
                break
            spoken = prev.num is not None and prev.num[0] != "n"
            if (spoken and tok.low in _CONNECTORS) or (
                tok.low == "-" and prev.end == tok.start == nxt.start - 1
            ):
                j += 2
                continue
            break
        span = tokens[i:j]
        words = [t for t in span if t.num is not None]
        if len(words) == 1 and words[0].low in weak:
            i = j
            continue
        chunks, values = _parse(tokens, i, j)
        if chunks:
            runs.append(NumberRun(i, j - 1, "".join(chunks), values, span[0].start, span[-1].end))
        i = j
    return runs
