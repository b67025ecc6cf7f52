"""The working state of one detection: tokens, number runs, what is already claimed."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .phi_lexicon import Lexicon, local_words
from .phi_number_runs import NumberRun, runs_of
from .phi_number_words import Num
from .phi_tokens import normalize, split

__all__ = ["SENTENCE_END", "Doc", "Span", "after_hint", "run_start", "scan", "words"]

#: Tokens that end a clause: cues never reach across them.
SENTENCE_END = frozenset({".", "?", "!", ";", "¿", "¡", "؟", "،", "\n"})


def scan(
    pattern: re.Pattern[str], text: str, earliest: Callable[[int], int]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``, searching each time from where the next match can begin.

    ``earliest(pos)`` is, for a pattern that cannot match the empty string, an
    offset at or after ``pos`` before which no match starting at or after
    ``pos`` can begin, or -1 when no such match exists: a cheap test (a literal,
    a short hint pattern) that saves the pattern's own scan through text that
    cannot hold a match. ``search(text, pos)`` still reads the characters before
    ``pos`` for lookbehinds and ``\b``, so it finds what ``finditer`` finds.
    """
    pos = earliest(0)
    while pos >= 0:
        match = pattern.search(text, pos)
        if match is None:
            return
        yield match
        pos = earliest(match.end())


def after_hint(hint: re.Pattern[str], text: str, pos: int, back: int) -> int:
    """For :func:`scan`: ``back`` characters before the next ``hint`` at or after ``pos``.

    Right for a pattern whose every match has a ``hint`` match starting at most
    ``back`` characters after its own start; -1 when there is no more ``hint``.
    """
    found = hint.search(text, pos)
    return -1 if found is None else max(pos, found.start() - back)


def run_start(text: str, i: int, chars: frozenset[str]) -> int:
    """Where the run of ``chars`` that ends just before ``text[i]`` begins."""
    while i > 0 and text[i - 1] in chars:
        i -= 1
    return i


def words(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` (word lists read better as one string)."""
    return text.split()


@dataclass(slots=True)
class Span:
    """A detected PHI span (character offsets into the original text)."""

    type: str
    start: int
    end: int
    score: float


#: Any decimal digit, as the detectors' ``\d`` patterns see one.
_DIGIT_RE = re.compile(r"\d")
_ASCII_DIGIT_RE = re.compile(r"[0-9]")


_ASCII_UPPER_RE = re.compile(r"[A-Z]")


def _cased(text: str, norm: str) -> bool:
    """Whether ``text`` has case information: it differs from ``norm`` and has an uppercase letter.

    Cheap answers first: ASCII text differs from its normal form only by its
    A-Z letters; an A-Z letter is an uppercase one; ``str.islower`` is only true
    when no character is uppercase (or titlecase).
    """
    if norm == text:
        return False
    if text.isascii() or _ASCII_UPPER_RE.search(text):
        return True
    if text.islower():
        return False
    return any(c.isupper() for c in text)


@dataclass(slots=True)
class Doc:
    r"""Text, normalized text, tokens and the findings claimed so far.

    Token ``k`` is ``lows[k]`` (normalized), ``text[starts[k]:ends[k]]``, and
    ``nums[k]``, its (kind, value) when it is a number word or digit string.

    Besides the tokens, a doc keeps facts the detectors use to skip work that
    cannot find anything: ``vocab`` (the tokens' normalized forms as a set, for
    "is any cue word here at all" tests), ``digit`` (the normalized text has a
    ``\d`` digit) and ``ascii_digit`` (it has one of 0-9).
    """

    text: str
    lex: Lexicon
    language: str | None
    norm: str
    lows: list[str]
    starts: list[int]
    ends: list[int]
    nums: list[Num | None]
    runs: list[NumberRun]
    #: Number runs by the index of their first token.
    run_starts: dict[int, NumberRun]
    used: list[bool]
    #: True when the text has case information (typed text, not a lowercase
    #: transcript nor all capitals).
    cased: bool
    vocab: frozenset[str]
    #: The ordinary words of the text's language ("mesa", "petit"): no name without a cue.
    local: frozenset[str]
    digit: bool
    ascii_digit: bool
    spans: list[Span] = field(default_factory=list)

    @classmethod
    def build(cls, text: str, lex: Lexicon, language: str | None) -> Doc:
        norm = normalize(text)
        toks = split(norm)
        runs = runs_of(toks, language)
        lows = toks.lows
        digit = _DIGIT_RE.search(norm) is not None
        return cls(
            text=text,
            lex=lex,
            language=language,
            norm=norm,
            lows=lows,
            starts=toks.starts,
            ends=toks.ends,
            nums=toks.nums,
            runs=runs,
            run_starts={run.first: run for run in runs},
            used=[False] * len(lows),
            # all capitals ("MRS. HOFFMAN CALLED") tell no more than a transcript
            cased=_cased(text, norm) and not text.isupper(),
            vocab=frozenset(lows),
            local=local_words(language),
            digit=digit,
            ascii_digit=digit and _ASCII_DIGIT_RE.search(norm) is not None,
        )

    def low(self, i: int) -> str:
        """The normalized token at ``i``, or "" past either end."""
        return self.lows[i] if 0 <= i < len(self.lows) else ""

    def token_text(self, i: int) -> str:
        """Token ``i`` as written in the original text."""
        return self.text[self.starts[i] : self.ends[i]]

    def is_alpha(self, i: int) -> bool:
        """Whether token ``i`` is letters only, apostrophes aside."""
        return self.lows[i].replace("'", "").replace("’", "").isalpha()

    def free(self, i: int, j: int | None = None) -> bool:
        """Whether tokens ``i``..``j`` (inclusive) exist and none is claimed yet."""
        if j is None:  # one token: the detectors' most frequent question, no slice
            return 0 <= i < len(self.lows) and not self.used[i]
        return i >= 0 and j < len(self.lows) and not any(self.used[i : j + 1])

    def claim(self, type_: str, i: int, j: int, score: float) -> None:
        """Record tokens ``i``..``j`` (inclusive) as one finding of ``type_``."""
        for k in range(i, j + 1):
            self.used[k] = True
        self.spans.append(Span(type_, self.starts[i], self.ends[j], score))

    def claim_chars(self, type_: str, start: int, end: int, score: float) -> bool:
        """Record ``text[start:end]`` as a finding unless a token in it is already claimed."""
        # tokens are sorted and disjoint: those overlapping start..end are one slice
        first = bisect.bisect_right(self.ends, start)
        stop = bisect.bisect_left(self.starts, end)
        if any(self.used[first:stop]):
            return False
        for k in range(first, stop):
            self.used[k] = True
        self.spans.append(Span(type_, start, end, score))
        return True

    def run_at(self, i: int) -> NumberRun | None:
        """The number run starting at token ``i``."""
        return self.run_starts.get(i)

    def capitalized(self, i: int) -> bool:
        """Whether token ``i`` starts with an uppercase letter followed by a lowercase one
        (False past either end)."""
        if not 0 <= i < len(self.starts):
            return False
        text = self.text[self.starts[i] : self.ends[i]]
        return text[:1].isupper() and (len(text) == 1 or not text.isupper())
