"""Language of one utterance: script fast paths, then lingua for Latin script.

Pipeline, cheapest first:

1. Tokenize and drop what carries no language: numbers and doses, units and
   titles, known drug names (list plus suffix rules), interjections and
   greetings ("ok", "hmm", "merci", "はい"), and name-only texts.
2. Decide by script when the script settles it: Hangul → ko, Kana → ja,
   Han without Kana → zh (when a Chinese-only character or four Han
   characters rule out kanji-only Japanese), Devanagari → hi, Cyrillic → ru, Arabic script →
   ar or ur by the letters and words only Urdu (ٹ ڈ ڑ ں ے ہ ھ ی ک گ) or only
   Arabic (ة ي ك ه ى) uses.
3. Latin script: lingua's probabilities for the 14 languages plus the
   function words of each language. A text must contain a function word of
   the winning language (or be long and unambiguous) and clear a confidence
   floor, otherwise the answer is ``None``.

The lingua detector is built on the first Latin-script text, once per
process, in high-accuracy mode with lazily loaded models: only the models a
text's script makes relevant are ever loaded (the seven Latin-script ones in
practice: ~190 MB RSS, against ~290 MB with all 14 preloaded and 13 MB in
lingua's low-accuracy mode, which loses three points on 2-5 word texts).
``bench/bench_language.py`` measures these trade-offs.

Detection runs on every user turn, so the rules are applied with whole-text
operations (one lower-casing, regex scans, set operations, packed counts)
wherever that provably gives what applying them token by token gives;
``tests/test_language_equivalence.py`` keeps the token-by-token version and
checks both agree. lingua's call is most of the cost of a Latin-script text
(about 26 us for three words, 80 us for twelve).

When the function words alone lead by :data:`DECISIVE_LEAD`, no lingua
probabilities can change the label (see :func:`_decisive_lead`), and
``detect(text, exact_confidence=False)`` skips lingua: the same language, with
the lowest confidence lingua could have given instead of the exact one.
"""

from __future__ import annotations

from itertools import compress
from typing import Final

from .content_words import (
    ASCII_DIGIT,
    BEYOND_LATIN,
    DIGIT,
    content_tokens,
    only_names,
    split_tokens,
)
from .detection import Detection
from .latin_evidence import (
    DECISIVE_LEAD,
    EVIDENCE_WEIGHT,
    LINGUA_MAX_WORDS,
    LONG_TEXT_CONFIDENCE,
    LONG_TEXT_WORDS,
    MAX_CHARS,
    MIN_CONFIDENCE,
    PROBABILITY_FLOOR,
    detect_latin,
)
from .lexicon import lexicon
from .lingua_model import SUPPORTED_LANGUAGES, build_lingua_detector, is_warm, preload
from .script_rules import (
    CJK,
    LATIN_LETTER,
    NON_LATIN_SCRIPT,
    TWO_LATIN_LETTERS,
    script_counts,
    script_language,
)

__all__ = [
    "DECISIVE_LEAD",
    "EVIDENCE_WEIGHT",
    "LINGUA_MAX_WORDS",
    "LONG_TEXT_CONFIDENCE",
    "LONG_TEXT_WORDS",
    "MAX_CHARS",
    "MIN_CONFIDENCE",
    "PROBABILITY_FLOOR",
    "SUPPORTED_LANGUAGES",
    "Detection",
    "build_lingua_detector",
    "detect",
    "detect_language",
    "is_warm",
    "preload",
]


_EMPTY: Final = Detection(None, 0.0, "empty")
_SHORT: Final = Detection(None, 0.0, "short")
_BY_SCRIPT: Final = {lang: Detection(lang, 1.0, "script") for lang in SUPPORTED_LANGUAGES}


def detect(text: str, *, exact_confidence: bool = True) -> Detection:
    """The language of ``text`` with its confidence and how it was decided.

    Pure and synchronous; the first Latin-script text builds the lingua
    detector (once per process).

    Args:
        exact_confidence: ``False`` for a caller that reads only the language
            (and whether there is one): when a Latin-script text's function
            words lead by :data:`DECISIVE_LEAD`, lingua is not asked, and the
            answer is the language lingua's answer would have had, with reason
            ``evidence`` and the lowest confidence any lingua probabilities
            could have given (a lower bound of the exact one, at least
            :data:`MIN_CONFIDENCE`). Every other answer is the exact one.
    """
    # The opening of a long message decides its language as well as all of it
    # does, and keeps the cost bounded whatever the message's size.
    text = text[:MAX_CHARS]
    source = text.replace("’", "'")
    ascii_only = source.isascii()
    lex = lexicon()
    # Lower-casing the text lower-cases its tokens: str.lower maps every
    # character on its own (but a capital sigma, which looks at its
    # neighbours), never to or from a separator or edge character, an
    # apostrophe, a digit or a CJK character (tests/test_language_equivalence.py).
    if ascii_only or "Σ" not in source:
        folded = source.lower()
        tokens = split_tokens(folded)
        narrow = ascii_only or BEYOND_LATIN.search(folded) is None
        may_have_digit = (ASCII_DIGIT if narrow else DIGIT).search(folded) is not None
        may_have_cjk = not narrow and CJK.search(folded) is not None
    else:
        tokens = [token.lower() for token in split_tokens(source)]
        narrow = False
        may_have_digit = may_have_cjk = True
    kept, positions = content_tokens(
        tokens, lex, may_have_digit=may_have_digit, may_have_cjk=may_have_cjk
    )
    if not kept:
        return _EMPTY
    joined = "".join(kept)
    if narrow or NON_LATIN_SCRIPT.search(joined) is None:
        # Only Latin letters, if any: the script settles nothing (see script_language).
        two_letters = TWO_LATIN_LETTERS.search(joined) is not None
    else:
        counts = script_counts(joined)
        by_script = script_language(counts, kept, joined, lex)
        if by_script is not None:
            return _BY_SCRIPT[by_script]
        two_letters = counts["latin"] >= 2
    latin = kept
    if not ascii_only:  # a Latin word is ASCII or has a Latin letter
        is_latin = [token.isascii() or LATIN_LETTER.search(token) is not None for token in kept]
        latin = list(compress(kept, is_latin))
        if positions is not None:
            positions = list(compress(positions, is_latin))
    # One Latin-script word is not a sentence: "twice", "Ramipril", "Yılmaz".
    if not two_letters or len(latin) < 2:
        return _SHORT
    if len(latin) <= 4 and only_names(latin, tokens, positions, source, lex):
        return _EMPTY
    if lex.dose_words.issuperset(latin):
        return _EMPTY  # a spelled-out dose: "five hundred milligrams"
    return detect_latin(
        latin,
        text,
        lex,
        ascii_only=ascii_only,
        elisions="'" in source,
        exact_confidence=exact_confidence,
    )


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the language ``text`` is written in, or ``None`` when unsure.

    Returns one of :data:`SUPPORTED_LANGUAGES`. ``None`` for empty or very
    short text and for text made only of numbers, doses, drug names, person
    names or interjections ("ok", "hmm", "thanks", "sí", "merci").
    """
    return detect(text, exact_confidence=False).language
