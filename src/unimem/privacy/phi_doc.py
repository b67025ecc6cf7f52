"""The working state of one detection: tokens, number runs, what is already claimed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .phi_lexicon import Lexicon
from .phi_tokens import NumberRun, Token, normalize, number_runs_at, tokenize_lows

__all__ = ["SENTENCE_END", "Doc", "Span", "words"]

#: Tokens that end a clause: cues never reach across them.
SENTENCE_END = frozenset({".", "?", "!", ";", "¿", "¡", "؟", "،", "\n"})


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


@dataclass(slots=True)
class Doc:
    r"""Text, normalized text, tokens and the findings claimed so far.

    Besides the tokens, a doc keeps facts the detectors use to skip work that
    cannot find anything: ``lows`` (every token's normalized form, in order),
    ``vocab`` (the same as a set, for "is any cue word here at all" tests),
    ``digit`` (the normalized text has a ``\d`` digit) and ``ascii_digit``
    (it has one of 0-9).
    """

    text: str
    lex: Lexicon
    language: str | None = None
    norm: str = ""
    tokens: list[Token] = field(default_factory=list)
    runs: list[NumberRun] = field(default_factory=list)
    used: list[bool] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    #: True when the text has case information (typed text, not a lowercase transcript).
    cased: bool = False
    lows: list[str] = field(default_factory=list)
    vocab: frozenset[str] = frozenset()
    digit: bool = False
    ascii_digit: bool = False
    #: Number runs by the index of their first token.
    run_starts: dict[int, NumberRun] = field(default_factory=dict)

    @classmethod
    def build(cls, text: str, lex: Lexicon, language: str | None) -> Doc:
        norm = normalize(text)
        tokens, lows, numbered = tokenize_lows(text, norm)
        runs = number_runs_at(tokens, numbered, language)
        # ASCII: norm differs from text exactly where text has an A-Z letter
        cased = norm != text and (text.isascii() or any(c.isupper() for c in text))
        digit = _DIGIT_RE.search(norm) is not None
        return cls(
            text=text,
            lex=lex,
            language=language,
            norm=norm,
            tokens=tokens,
            runs=runs,
            used=[False] * len(tokens),
            cased=cased,
            lows=lows,
            vocab=frozenset(lows),
            digit=digit,
            ascii_digit=digit and _ASCII_DIGIT_RE.search(norm) is not None,
            run_starts={run.first: run for run in runs},
        )

    def low(self, i: int) -> str:
        """The normalized token at ``i``, or "" past either end."""
        return self.lows[i] if 0 <= i < len(self.lows) else ""

    def free(self, i: int, j: int | None = None) -> bool:
        """Whether tokens ``i``..``j`` (inclusive) exist and none is claimed yet."""
        if j is None:  # one token: the detectors' most frequent question, no slice
            return 0 <= i < len(self.tokens) and not self.used[i]
        return i >= 0 and j < len(self.tokens) and not any(self.used[i : j + 1])

    def claim(self, type_: str, i: int, j: int, score: float) -> None:
        """Record tokens ``i``..``j`` (inclusive) as one finding of ``type_``."""
        for k in range(i, j + 1):
            self.used[k] = True
        self.spans.append(Span(type_, self.tokens[i].start, self.tokens[j].end, score))

    def claim_chars(self, type_: str, start: int, end: int, score: float) -> bool:
        """Record ``text[start:end]`` as a finding unless a token in it is already claimed."""
        inside = [t.index for t in self.tokens if t.start < end and t.end > start]
        if any(self.used[k] for k in inside):
            return False
        for k in inside:
            self.used[k] = True
        self.spans.append(Span(type_, start, end, score))
        return True

    def run_at(self, i: int) -> NumberRun | None:
        """The number run starting at token ``i``."""
        return self.run_starts.get(i)

    def capitalized(self, i: int) -> bool:
        """Whether token ``i`` starts with an uppercase letter followed by a lowercase one."""
        text = self.tokens[i].text
        return text[:1].isupper() and (len(text) == 1 or not text.isupper())
