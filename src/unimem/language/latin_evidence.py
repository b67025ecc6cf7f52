"""Latin-script detection: lingua's probabilities weighed with the function
words and the letters only some languages use, a confidence floor, and the
lead in function words from which lingua cannot change the label."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from functools import cache
from itertools import repeat
from operator import sub
from typing import Final

from .detection import Detection
from .lexicon import COUNT_BITS, LATIN_LANGUAGES, Lexicon, pack_languages
from .lingua_model import lingua_detector
from .script_rules import char_class

__all__ = [
    "DECISIVE_LEAD",
    "EVIDENCE_WEIGHT",
    "LINGUA_MAX_WORDS",
    "LONG_TEXT_CONFIDENCE",
    "LONG_TEXT_WORDS",
    "MAX_CHARS",
    "MIN_CONFIDENCE",
    "PROBABILITY_FLOOR",
    "detect_latin",
]

_LATIN: Final = LATIN_LANGUAGES
_SPANISH: Final = _LATIN.index("es")

#: Below this lingua probability a Latin-script text gets no language.
MIN_CONFIDENCE: Final = 0.50
#: Log-odds one function word (or letter only that language uses) adds.
EVIDENCE_WEIGHT: Final = 1.0
#: Added to each lingua probability before its logarithm: a language lingua
#: rules out (0.0) can still win on function words.
PROBABILITY_FLOOR: Final = 0.01
#: From this many content words a text may be labelled without function words.
LONG_TEXT_WORDS: Final = 4
LONG_TEXT_CONFIDENCE: Final = 0.90
#: Words of a text lingua reads.
LINGUA_MAX_WORDS: Final = 12
#: Characters of a text looked at.
MAX_CHARS: Final = 400


def _elided_evidence(token: str, languages_of: dict[str, frozenset[str]]) -> int:
    """The languages ``token`` is a word of by :func:`~.lexicon.is_word_of`'s rule, packed."""
    head, _, tail = token.partition("'")
    none: frozenset[str] = frozenset()
    return pack_languages(
        languages_of.get(token, none)
        | languages_of.get(head + "'", none)
        | languages_of.get(tail, none)
    )


#: Index in _LATIN of each lingua Language (built on first use).
_latin_index: dict[object, int] | None = None
# Packed counts are a byte a language and never overflow one: a token counts
# at most once a language, and 400 characters hold at most 200 tokens.
assert COUNT_BITS == 8 and MAX_CHARS // 2 < 1 << COUNT_BITS


def detect_latin(
    tokens: list[str],
    text: str,
    lex: Lexicon,
    *,
    ascii_only: bool,
    elisions: bool,
    exact_confidence: bool = True,
) -> Detection:
    """lingua's probabilities weighed with the function words and telling letters.

    Args:
        ascii_only: no token has a letter outside ASCII.
        elisions: some token may have an apostrophe.
        exact_confidence: else lingua is skipped when the evidence alone
            decides (see :func:`detect`).
    """
    # Each token counts once for every language it is a word of. The counts
    # are packed into one int (pack_languages), so one sum counts them all.
    evidence = lex.evidence_counts
    if elisions:  # "j'ai" is a word of each language "j'" or "ai" is a word of
        languages_of = lex.languages_of
        packed = sum(
            _elided_evidence(token, languages_of) if "'" in token else evidence.get(token, 0)
            for token in tokens
        )
    else:
        packed = sum(map(evidence.get, tokens, repeat(0)))
    hits = list(packed.to_bytes(len(_LATIN), "little"))  # a byte a language
    if not ascii_only:  # and once for each language whose telling letters it has
        for token in _tokens_with(_telling_letter(lex.any_letter), tokens):
            for k, letters in lex.letter_indices:
                hits[k] += not letters.isdisjoint(token)
    if "¿" in text or "¡" in text:
        hits[_SPANISH] += 1
    if not exact_confidence and DECISIVE_LEAD is not None:
        ranked = sorted(hits)
        if ranked[-1] - ranked[-2] >= DECISIVE_LEAD:
            best = hits.index(ranked[-1])
            return _unless_romanized(
                tokens, lex, hits, best, _lowest_confidence(hits, best), "evidence"
            )
    # lingua's cost grows with the text; a dozen words decide a language as
    # well as a paragraph does (the function words still count in full).
    values = lingua_detector().compute_language_confidence_values(
        " ".join(tokens[:LINGUA_MAX_WORDS])
    )
    latin_index = _latin_index or _index_latin_languages()
    probability = [0.0] * len(_LATIN)
    for value in values:  # sorted by value, highest first
        p = value.value
        if not p:
            break  # the rest are 0.0 as well
        index = latin_index.get(value.language)
        if index is not None:
            probability[index] = p
    best, confidence = _weigh(probability, hits)
    long_text = len(tokens) >= LONG_TEXT_WORDS
    if hits[best] == 0 and not (long_text and confidence >= LONG_TEXT_CONFIDENCE):
        return Detection(None, confidence, "short")
    if confidence < MIN_CONFIDENCE:
        return Detection(None, confidence, "unsure")
    return _unless_romanized(tokens, lex, hits, best, confidence, "lingua")


def _weigh(probability: Sequence[float], hits: Sequence[int]) -> tuple[int, float]:
    """The Latin language (its index) lingua's ``probability`` and the evidence
    ``hits`` favour, and its confidence.

    Each function word multiplies a language's odds by e: lingua's
    probability is the prior, the words are the evidence it lacks on a few
    words. The result is normalized again over the Latin-script languages.
    """
    log_score = [
        math.log(p + PROBABILITY_FLOOR) + EVIDENCE_WEIGHT * hit
        for p, hit in zip(probability, hits, strict=True)
    ]
    top = max(log_score)
    best = log_score.index(top)  # the first of equals, as max(key=...) would pick
    # softmax relative to the best: no overflow on long texts
    return best, 1.0 / sum(map(math.exp, map(sub, log_score, repeat(top))))


def _unless_romanized(
    tokens: list[str],
    lex: Lexicon,
    hits: Sequence[int],
    best: int,
    confidence: float,
    reason: str,
) -> Detection:
    """Language ``best``, unless the text is Hindi or Urdu in Latin letters."""
    roman = sum(map(lex.roman_hindustani.__contains__, tokens))
    if roman >= 2 and roman >= hits[best]:
        return Detection(None, confidence, "romanized")
    return Detection(_LATIN[best], confidence, reason)


#: lingua's probabilities are each >= 0 and sum to at most this over the
#: Latin-script languages (1 over the 14; a little slack for rounding).
_LINGUA_MASS: Final = 1.0 + 1e-9


def _lowest_confidence(hits: Sequence[int], best: int) -> float:
    """The lowest confidence :func:`_weigh` gives ``best`` over every lingua output.

    The sum in :func:`_weigh`'s softmax, relative to ``best``, is
    ``S = Σ_{j≠best} (p_j + F) e^{-W d_j} / (p_best + F)`` with ``d_j =
    hits[best] - hits[j]``. It is largest when ``p_best = 0`` and all of
    lingua's probability sits on the runner-up (the ``j`` with the smallest
    ``d_j``): ``S = (e^{-W d} + F Σ_{j≠best} e^{-W d_j}) / F``. The confidence is
    ``1 / (1 + S)``.
    """
    top = hits[best]
    rest = [math.exp(EVIDENCE_WEIGHT * (hit - top)) for j, hit in enumerate(hits) if j != best]
    worst = (_LINGUA_MASS * max(rest) + PROBABILITY_FLOOR * sum(rest)) / PROBABILITY_FLOOR
    return 1.0 / (1.0 + worst)


def _decisive_lead(languages: int = len(_LATIN)) -> int | None:
    """The smallest lead in evidence over every other Latin language that decides
    the label whatever lingua's probabilities (``None`` if none below 256 does).

    Let ``b`` lead every other language ``j`` by ``d_j >= m`` hits; write
    ``W`` for :data:`EVIDENCE_WEIGHT` and ``F`` for :data:`PROBABILITY_FLOOR`.
    For any probabilities (``p_j >= 0``, summing to at most ``M``):

    * ``b`` scores strictly above each ``j`` in :func:`_weigh` (so it is the
      first best, no tie): ``score_b - score_j >= log F - log(M + F) + W m``,
      positive once ``W m > log((M + F) / F)``;
    * its confidence is at least ``1 / (1 + S)`` with ``S <= (M + F (n - 1))
      e^{-W m} / F`` (``n`` languages; see :func:`_lowest_confidence`), which
      is at least :data:`MIN_CONFIDENCE` once ``S <= 1 / MIN_CONFIDENCE - 1``;
    * ``hits[b] >= m > 0``, so the "no function word" rule does not apply.

    The romanized rule reads no probability. So from this lead the label
    :func:`detect_latin` gives is the same whatever lingua says.
    """
    if EVIDENCE_WEIGHT <= 0 or not 0 < MIN_CONFIDENCE <= 1:
        return None
    mass, floor = _LINGUA_MASS, PROBABILITY_FLOOR
    for lead in range(1, 1 << COUNT_BITS):
        beats = EVIDENCE_WEIGHT * lead > math.log((mass + floor) / floor)
        spread = (mass + floor * (languages - 1)) * math.exp(-EVIDENCE_WEIGHT * lead) / floor
        if beats and spread <= 1.0 / MIN_CONFIDENCE - 1.0:
            return lead
    return None


#: From this lead in function words (and telling letters) over every other
#: Latin-script language, lingua cannot change the label (5 with the weights
#: above; see :func:`_decisive_lead`).
DECISIVE_LEAD: Final = _decisive_lead()


@cache
def _telling_letter(letters: frozenset[str]) -> re.Pattern[str]:
    return re.compile(char_class(letters))


def _tokens_with(character: re.Pattern[str], tokens: list[str]) -> Iterator[str]:
    """Each of ``tokens`` (once per occurrence) that has a ``character``.

    One regex scan of the tokens joined by spaces instead of a test per token:
    most texts have no such character, or in a few tokens.
    """
    spaced = " ".join(tokens)
    previous = -1
    for match in character.finditer(spaced):
        start = spaced.rfind(" ", 0, match.start()) + 1
        if start != previous:  # not the token of the previous match
            previous = start
            end = spaced.find(" ", match.end())
            yield spaced[start:] if end < 0 else spaced[start:end]


def _index_latin_languages() -> dict[object, int]:
    global _latin_index
    from lingua import IsoCode639_1, Language

    index: dict[object, int] = {
        Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())): k
        for k, code in enumerate(_LATIN)
    }
    _latin_index = index  # whole, for other threads
    return index
