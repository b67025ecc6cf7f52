"""Tokens of the PHI detector.

Voice transcripts spell numbers out ("five five five one two one two",
"nineteen fifty two", "quatre-vingt-douze", "اثنان وتسعون"), typed text writes
digits. Each token carries its number value (:mod:`.phi_number_words`), and
:mod:`.phi_number_runs` reads runs of them as one digit string, so the
detector classifies "555 1212" and "five five five one two one two" alike.

Offsets always refer to the caller's original text: normalization only maps
characters one to one (lowercase, Arabic-Indic digits to ASCII).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import accumulate

from .phi_number_words import _NUMBER_FIRST, _NUMBER_FIRST_RE, _WORDS, Num, _number_of

__all__ = [
    "Num",
    "Token",
    "Tokens",
    "normalize",
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
