"""Tokens and spoken numbers for the PHI detector.

Voice transcripts spell numbers out ("five five five one two one two",
"nineteen fifty two", "quatre-vingt-douze", "اثنان وتسعون"), typed text writes
digits. Both become :class:`NumberRun` objects carrying the digit string, so the
detector classifies "555 1212" and "five five five one two one two" alike.

Offsets always refer to the caller's original text: normalization only maps
characters one to one (lowercase, Arabic-Indic digits to ASCII).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import accumulate

__all__ = [
    "Num",
    "NumberRun",
    "Token",
    "Tokens",
    "normalize",
    "number_runs",
    "runs_of",
    "split",
    "tokenize",
]

_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|\S")
_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")
_ARABIC_DIGIT_RE = re.compile("[٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹]")


@dataclass(slots=True)
class Token:
    """One word, number or punctuation mark: ``low`` is normalized, offsets are original."""

    text: str
    low: str
    start: int
    end: int
    index: int
    #: (kind, value) when the token is a number word or a digit string.
    num: Num | None = None

    @property
    def is_alpha(self) -> bool:
        return self.low.replace("'", "").replace("’", "").isalpha()


def normalize(text: str) -> str:
    """Lowercase ``text`` and map Arabic-Indic digits to ASCII, keeping every offset."""
    lowered = text.lower()
    if len(lowered) != len(text):
        # A few characters (e.g. 'İ') lowercase to two; keep those unchanged.
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    if lowered.isascii() or not _ARABIC_DIGIT_RE.search(lowered):
        return lowered  # nothing to translate
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


@dataclass(slots=True)
class Tokens:
    """The tokens of one text as parallel lists (index ``k`` is token ``k``).

    The detector reads tokens by index many times; lists of plain values cost
    less to build and to read than one object per token.
    """

    #: Normalized forms (see :func:`normalize`).
    lows: list[str]
    #: Character offsets into the text (the original and the normalized one alike).
    starts: list[int]
    ends: list[int]
    #: (kind, value) of the number words and digit strings, None for other tokens.
    nums: list[Num | None]
    #: Ascending indices of the tokens whose ``nums`` entry is not None.
    numbered: list[int]


def _chunk_tokens(chunks: list[str]) -> tuple[list[str], list[int]]:
    r"""The tokens of ``chunks``, and their lengths with one more for the last of each chunk.

    A chunk of letters and digits is one token; letters and digits then one
    other character ("day,", "were.") are two: ``[^\W_]+`` takes the letters and
    digits, and no letter or digit follows an apostrophe there. Other chunks go
    through ``_TOKEN_RE``.
    """
    lows: list[str] = []
    lens: list[int] = []
    for chunk in chunks:
        if chunk.isalnum():
            lows.append(chunk)
            lens.append(len(chunk) + 1)
        elif chunk[:-1].isalnum() and not chunk[-1].isalnum():
            lows += (chunk[:-1], chunk[-1])
            lens += (len(chunk) - 1, 2)
        else:
            subs = _TOKEN_RE.findall(chunk)
            lows += subs
            sizes = list(map(len, subs))
            sizes[-1] += 1
            lens += sizes
    return lows, lens


def _find_starts(norm: str, lows: list[str]) -> list[int]:
    """Token offsets: each token starts at the first occurrence of its text after the last."""
    starts: list[int] = []
    append = starts.append
    find = norm.find
    pos = 0
    for low in lows:
        pos = find(low, pos)
        append(pos)
        pos += len(low)
    return starts


def split(norm: str) -> Tokens:
    r"""Split the normalized text ``norm`` into tokens (``_TOKEN_RE`` matches, in order).

    No token contains whitespace and every match ends at whitespace or inside a
    whitespace-separated chunk, so each chunk is tokenized on its own; a chunk
    of letters and digits only (``str.isalnum``, the regex's ``[^\W_]``) is one
    token without a regex pass. Tokens cover every non-space character, so when
    single spaces separate the chunks a token starts where the lengths of the
    tokens and spaces before it add up to; otherwise each one starts at the first
    occurrence of its text after the previous token.
    """
    chunks = norm.split()
    joined = "".join(chunks)
    spaced = len(joined) + len(chunks) - 1 == len(norm) and " ".join(chunks) == norm
    if joined.isalnum():  # one token per chunk (or no chunk at all)
        lows = chunks
        if spaced:
            # token k starts after the k tokens and k spaces before it (map
            # stops with the range, before the total length accumulate ends with)
            before = accumulate(map(len, lows), initial=0)
            starts = list(map(operator.add, before, range(len(lows))))
        else:
            starts = _find_starts(norm, lows)
    else:
        lows, lens = _chunk_tokens(chunks)
        if spaced:
            starts = list(accumulate(lens, initial=0))
            starts.pop()
        else:
            starts = _find_starts(norm, lows)
    ends = list(map(operator.add, starts, map(len, lows)))
    nums: list[Num | None] = list(map(_WORDS.get, lows))
    # _number_of only differs from the _WORDS lookup for ASCII digit strings and
    # Arabic words joined to "و" (no _WORDS key starts with a digit)
    if _NUMBER_FIRST_RE.search(norm):
        for k, low in enumerate(lows):
            if low[0] in _NUMBER_FIRST and nums[k] is None:
                nums[k] = _number_of(low)
    if "hundred" in norm or "thousand" in norm:  # else no token is either word
        for k in range(1, len(lows)):
            if lows[k - 1] == "a" and lows[k] in ("hundred", "thousand"):
                nums[k - 1] = ("d", 1)  # "a hundred and one"
    numbered = (
        [k for k, num in enumerate(nums) if num is not None]
        if nums.count(None) != len(nums)
        else []
    )
    return Tokens(lows, starts, ends, nums, numbered)


def tokenize(text: str, norm: str) -> list[Token]:
    """Split ``text`` (with its :func:`normalize` form ``norm``) into tokens."""
    toks = split(norm)
    return [
        Token(text[start:end], low, start, end, i, num)
        for i, (low, start, end, num) in enumerate(
            zip(toks.lows, toks.starts, toks.ends, toks.nums, strict=True)
        )
    ]


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


def _parse(toks: Tokens, i: int, j: int) -> tuple[list[str], list[int]]:
    """Read tokens i..j-1 (number tokens and connectors) as digit chunks and segment values."""
    lows = toks.lows
    nums = toks.nums
    chunks: list[str] = []
    values: list[int] = []
    repeat = 1
    while i < j:
        num = nums[i]
        assert num is not None or lows[i] in _CONNECTORS
        if num is None:
            i += 1
            continue
        kind, value = num
        if kind == "x":
            repeat = value
            i += 1
            continue
        if kind == "n":
            chunks.append(lows[i] * repeat)
            values.append(int(lows[i]))
            repeat = 1
            i += 1
            continue
        total, i = _segment(toks, i, j)
        chunks.append(str(total) * repeat)
        values.append(total)
        repeat = 1
    return chunks, values


def _peek(toks: Tokens, i: int, j: int, kinds: str) -> tuple[int, int, str] | None:
    """The next number token at or after i (skipping connectors) if its kind is in kinds.

    Returns its index, its value and its kind.
    """
    nums = toks.nums
    k = i
    while k < j and nums[k] is None and toks.lows[k] in _CONNECTORS:
        k += 1
    if k < j:
        num = nums[k]
        if num is not None and num[0].lstrip("&") in kinds:
            return k, num[1], num[0]
    return None


def _segment(toks: Tokens, i: int, j: int) -> tuple[int, int]:
    nums = toks.nums
    kind, value = nums[i]  # type: ignore[misc]
    kind = kind.lstrip("&")
    i += 1
    total = value
    if kind == "d":
        # a digit word only combines with tens or "hundred" after it (the
        # tests below): with anything else next, it stands alone
        k = i
        while k < j and nums[k] is None and toks.lows[k] in _CONNECTORS:
            k += 1
        after = nums[k] if k < j else None
        if after is None or after[0].lstrip("&") not in ("y", "h"):
            return value, i
    if kind == "d" and value == 4 and (nxt := _peek(toks, i, j, "y")) and nxt[1] == 20:
        total, i = 80, nxt[0] + 1  # quatre-vingt
        kind = "y"
    if kind == "d" and (nxt := _peek(toks, i, j, "y")) and nxt[2] == "&y":
        return value + nxt[1], nxt[0] + 1  # Arabic: "اثنان وتسعون" = 2 + 90
    if kind == "y":
        if total in (60, 80) and (nxt := _peek(toks, i, j, "t")):
            teen, k = _segment(toks, nxt[0], j)  # soixante-dix-huit, quatre-vingt-douze
            return total + teen, k
        if total in (60, 80) and (nxt := _peek(toks, i, j, "y")) and nxt[1] == 10:
            total, i = total + 10, nxt[0] + 1
        elif (nxt := _peek(toks, i, j, "d")) and 0 < nxt[1] < 10:
            total, i = total + nxt[1], nxt[0] + 1
        return total, i
    if kind == "t" and value == 10 and (nxt := _peek(toks, i, j, "d")) and 6 < nxt[1] < 10:
        return 10 + nxt[1], nxt[0] + 1  # dix-sept, dix-huit, dix-neuf
    if kind in "dH" or (kind == "h" and value == 100) or kind == "k":
        if kind == "h" or kind == "k":
            total = value
        elif (nxt := _peek(toks, i, j, "h")) and nxt[1] == 100:
            total, i = value * 100, nxt[0] + 1
        elif kind == "d":
            return total, i
        if total < 1000 and (nxt := _peek(toks, i, j, "k")):
            total, i = total * 1000, nxt[0] + 1
        rest = _peek(toks, i, j, "dtyH")
        if rest and total % 100 == 0:
            sub, k = _segment(toks, rest[0], j)
            if sub < (1000 if total >= 1000 else 100):
                return total + sub, k
        return total, i
    return total, i


def runs_of(toks: Tokens, language: str | None = None) -> list[NumberRun]:
    """Maximal runs of number tokens (see :func:`number_runs`).

    A run starts at a number token only, so the scan visits ``toks.numbered``.
    Typed digit groups ("612 34 56 78") and spoken words chain; a mix does not.
    """
    weak = _WEAK - _STRONG_IN.get(language or "", frozenset())
    lows = toks.lows
    nums = toks.nums
    starts = toks.starts
    ends = toks.ends
    runs: list[NumberRun] = []
    n = len(lows)
    i = 0
    for first in toks.numbered:
        if first < i:
            continue  # inside the run just read
        i = first
        j = i + 1
        # every token of a run is a number token or a connector between two
        # number tokens, all digit strings or all words ("n" kind or not)
        digits = nums[i][0] == "n"  # type: ignore[index]
        count = 1
        while j < n:
            num = nums[j]
            if num is not None:
                if (num[0] == "n") != digits:
                    break
                count += 1
                j += 1
                continue
            nxt = nums[j + 1] if j + 1 < n else None
            if nxt is None or (nxt[0] == "n") != digits:
                break
            if (not digits and lows[j] in _CONNECTORS) or (
                lows[j] == "-" and ends[j - 1] == starts[j] == starts[j + 1] - 1
            ):
                count += 1  # the number token after the connector
                j += 2
                continue
            break
        if count == 1 and lows[i] in weak:
            i = j
            continue
        chunks, values = _parse(toks, i, j)
        if chunks:
            runs.append(NumberRun(i, j - 1, "".join(chunks), values, starts[i], ends[j - 1]))
        i = j
    return runs


def number_runs(tokens: list[Token], language: str | None = None) -> list[NumberRun]:
    """Maximal runs of number tokens.

    A lone weak word ("un", "once", "oh") is no run, unless ``language`` says it is
    a number there (Spanish "once" is eleven).
    """
    nums = [tok.num for tok in tokens]
    toks = Tokens(
        [tok.low for tok in tokens],
        [tok.start for tok in tokens],
        [tok.end for tok in tokens],
        nums,
        [k for k, num in enumerate(nums) if num is not None],
    )
    return runs_of(toks, language)
