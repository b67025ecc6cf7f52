"""Runs of spoken or written numbers in a text's tokens ("five five five one
two one two", "nineteen fifty two", "555 1212"), each with its digit
string: :class:`NumberRun`."""

from __future__ import annotations

from dataclasses import dataclass

from .phi_number_words import _CONNECTORS, _STRONG_IN, _WEAK
from .phi_tokens import Token, Tokens

__all__ = ["NumberRun", "number_runs", "runs_of"]


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
