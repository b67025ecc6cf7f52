"""The working state of one detection: tokens, number runs, what is already claimed."""

from __future__ import annotations

from dataclasses import dataclass, field

from .phi_lexicon import Lexicon
from .phi_tokens import NumberRun, Token, normalize, number_runs, tokenize

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


@dataclass(slots=True)
class Doc:
    """Text, normalized text, tokens and the findings claimed so far."""

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

    @classmethod
    def build(cls, text: str, lex: Lexicon, language: str | None) -> Doc:
        norm = normalize(text)
        tokens = tokenize(text, norm)
        return cls(
            text=text,
            lex=lex,
            language=language,
            norm=norm,
            tokens=tokens,
            runs=number_runs(tokens, language),
            used=[False] * len(tokens),
            cased=norm != text and any(c.isupper() for c in text),
        )

    def low(self, i: int) -> str:
        """The normalized token at ``i``, or "" past either end."""
        return self.tokens[i].low if 0 <= i < len(self.tokens) else ""

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
        for run in self.runs:
            if run.first == i:
                return run
            if run.first > i:
                break
        return None

    def capitalized(self, i: int) -> bool:
        """Whether token ``i`` starts with an uppercase letter followed by a lowercase one."""
        text = self.tokens[i].text
        return text[:1].isupper() and (len(text) == 1 or not text.isupper())
