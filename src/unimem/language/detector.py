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

import math
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import compress, islice, repeat
from operator import sub
from typing import TYPE_CHECKING, Final

from .lexicon import (
    COUNT_BITS,
    INTERJECTION_EVIDENCE,
    LATIN_LANGUAGES,
    ORDINARY,
    Lexicon,
    is_word_of,
    lexicon,
    pack_languages,
)

if TYPE_CHECKING:
    from lingua import LanguageDetector

__all__ = [
    "SUPPORTED_LANGUAGES",
    "Detection",
    "build_lingua_detector",
    "detect",
    "detect_language",
    "preload",
]

#: The languages unimem detects (ISO 639-1).
SUPPORTED_LANGUAGES: Final = (
    "en", "es", "fr", "de", "it", "pt", "ar", "zh", "hi", "ur", "ja", "ko", "ru", "tr",
)  # fmt: skip
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

# A token is a run of characters between separators (white space and the
# punctuation below), without the apostrophes, hyphens and underscores at its
# edges; a run of those alone is no token. Replacing the punctuation by spaces
# and splitting on white space finds the runs: str.split() splits on exactly
# the characters the regex class \s matches.
_PUNCTUATION = re.compile(r"[.,!?;:¿¡()\[\]{}\"“”„«»،؟。、！？，：；…/+=*~|]")
_EDGE = "'’-‐_"
_DIGIT = re.compile(r"\d")
_ASCII_DIGIT = re.compile("[0-9]")
#: A character from U+0250 on. Below it the only digits (\d) are 0-9, and
#: there is no letter of a script but Latin, nor a CJK character.
_BEYOND_LATIN = re.compile("[^\x00-\u024f]")
#: Drug-name endings (tested with ``str.endswith``).
_DRUG_SUFFIXES: Final = (
    "pril", "sartan", "olol", "dipine", "statin", "formin", "gliptin", "gliflozin", "glutide",
    "prazole", "tidine", "cillin", "mycin", "floxacin", "cycline", "conazole", "vir", "mab",
    "tinib", "parin", "xaban", "gatran", "afil", "triptan", "lukast", "semide", "thiazide",
    "zepam", "zolam", "oxetine", "pramine", "triptyline", "setron", "olone", "terol",
    "tropium", "dronate",
)  # fmt: skip
_DRUG_SUFFIX_ENDINGS: Final = frozenset(suffix[-3:] for suffix in _DRUG_SUFFIXES)


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]"


# Letters of each script, by code point (the ranges are disjoint). A Latin
# letter is an alphabetic character below U+0250.
_LATIN_CLASS = _char_class(ch for ch in map(chr, range(0x250)) if ch.isalpha())
_LATIN_LETTER = re.compile(_LATIN_CLASS)
_TWO_LATIN_LETTERS = re.compile(f"{_LATIN_CLASS}[^{_LATIN_CLASS[1:]}*{_LATIN_CLASS}")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff]")
_DEVANAGARI = re.compile("[\u0900-\u097f]")
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufeff]")
_CYRILLIC = re.compile("[\u0400-\u04ff]")
#: A character of one of the scripts other than Latin that :func:`_by_script` counts.
_NON_LATIN_SCRIPT = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u4e00-\u9fff\u3400-\u4dbf\uac00-\ud7af\u1100-\u11ff"
    "\u0900-\u097f\u0600-\u06ff\u0750-\u077f\ufb50-\ufeff\u0400-\u04ff]"
)
_ARABIC_BLOCK = re.compile("[\u0600-\u06ff]")
#: The characters :func:`_is_cjk` is true of.
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")

# Letters only one of the two Arabic-script languages uses.
_URDU_LETTERS: Final = frozenset("ٹڈڑںےۓہۂھیکگپچژ")
_ARABIC_LETTERS: Final = frozenset("ةيكهىإأ")
_URDU_LETTER = re.compile(_char_class(_URDU_LETTERS))
_ARABIC_LETTER = re.compile(_char_class(_ARABIC_LETTERS))


@dataclass(frozen=True, slots=True)
class Detection:
    """What :func:`detect` found.

    Attributes:
        language: ISO 639-1 code, or ``None`` when unsure.
        confidence: 0..1; 1.0 when the script settled it, 0.0 when nothing to judge.
        reason: how it was decided: ``script``, ``lingua``, ``evidence`` (the
            function words alone settled it and lingua was not asked; only with
            ``exact_confidence=False``), ``empty`` (nothing but numbers, drugs,
            interjections or names), ``short`` (too little text or no function
            word), ``unsure`` (below the confidence floor) or ``romanized``
            (Hindi/Urdu in Latin letters).
    """

    language: str | None
    confidence: float
    reason: str


_lock = threading.Lock()
_detector: LanguageDetector | None = None
#: whether the Latin-script models are loaded (see :func:`is_warm`)
_warm = False


def build_lingua_detector(*, low_accuracy: bool = False, preload: bool = False) -> LanguageDetector:
    """A new lingua detector for the 14 supported languages (no caching).

    Args:
        low_accuracy: trigram-only models (~20 MB, much worse on short texts).
        preload: load every model now instead of on first use.
    """
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, code.upper()) for code in SUPPORTED_LANGUAGES]
    builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
    if low_accuracy:
        builder = builder.with_low_accuracy_mode()
    if preload:
        builder = builder.with_preloaded_language_models()
    return builder.build()


def _lingua() -> LanguageDetector:
    global _detector
    if _detector is None:
        with _lock:
            if _detector is None:
                _detector = build_lingua_detector()
    return _detector


#: Texts that make lingua load every model a detection can need: its n-gram
#: models of orders 1 to 5 load on first use, so words of five letters and more.
_PRELOAD_SAMPLES = (
    "the", "el", "le", "der", "il", "o", "ve",
    "would appointment tomorrow morning medicine",
    "quisiera reservar consulta mañana",
    "voudrais prendre rendez-vous demain",
)  # fmt: skip


def preload() -> None:
    """Build the detector and load every Latin-script model now (about a second,
    once per process), so that no user turn pays for it (``unimem serve`` calls
    it at start-up; the service calls it before the first detection)."""
    global _warm
    detector = _lingua()
    for sample in _PRELOAD_SAMPLES:
        detector.compute_language_confidence_values(sample)
    _warm = True


def is_warm() -> bool:
    """Whether :func:`preload` ran. Until then a detection may hold the thread
    for up to a second, which callers keep apart from timed I/O."""
    return _warm


def _strip_cjk_interjections(token: str, singles: frozenset[str]) -> str:
    """Remove leading interjections from a CJK run written without spaces ("嗯好的我…")."""
    changed = True
    while token and changed:
        changed = False
        for size in range(min(len(token), 6), 0, -1):
            if token[:size] in singles:
                token, changed = token[size:], True
                break
    return token


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def _tokens(text: str) -> list[str]:
    """The runs of ``text`` between separators, edge characters stripped, none empty."""
    runs = _PUNCTUATION.sub(" ", text).split()
    if "'" in text or "-" in text or "_" in text or "‐" in text or "’" in text:
        return list(filter(None, map(str.strip, runs, repeat(_EDGE))))
    return runs


def _is_drug_by_suffix(token: str) -> bool:
    # The three-letter ending first: a set lookup rules most words out.
    return (
        len(token) >= 7
        and token.isascii()
        and token[-3:] in _DRUG_SUFFIX_ENDINGS
        and token.endswith(_DRUG_SUFFIXES)
    )


def _is_content_free(token: str, may_have_digit: bool) -> bool:
    """A number or dose, or a drug by its suffix (titles, units and listed drugs are in
    :attr:`Lexicon.rules`)."""
    return bool(may_have_digit and _DIGIT.search(token)) or _is_drug_by_suffix(token)


def _content_tokens(
    tokens: list[str], lex: Lexicon, *, may_have_digit: bool, may_have_cjk: bool
) -> tuple[list[str], list[int] | None]:
    """The (lower-cased) ``tokens`` that may carry language, and their indices in ``tokens``.

    Drops numbers and doses, units and titles, drug names and interjections
    (the longest interjection of one to four words at each position first).
    Interjections that are also function words ("no", "não", "si") are kept
    when the text says something else too: "Não consigo dormir" is Portuguese
    because of "não". Empty when no content word is left.

    The indices are ``None`` when every token was kept or dropped for what it
    is, whatever its neighbours: then a token is kept if and only if it
    equals a kept one.

    Args:
        may_have_digit: some token may contain a digit (else none is searched).
        may_have_cjk: some token may start with a CJK character.
    """
    if may_have_cjk or not lex.phrase_openings.isdisjoint(
        zip(tokens, islice(tokens, 1, None), strict=False)
    ):
        return _content_tokens_in_order(tokens, lex, may_have_digit=may_have_digit)
    # No interjection of several words can match and no token is a CJK run:
    # the loop in _content_tokens_in_order would judge each token alone.
    dropped = {  # a drug by its suffix (_is_drug_by_suffix, inlined)
        token
        for token in tokens
        if len(token) >= 7
        and token.isascii()
        and token[-3:] in _DRUG_SUFFIX_ENDINGS
        and token.endswith(_DRUG_SUFFIXES)
    }
    if may_have_digit:  # a number or dose
        dropped.update(filter(_DIGIT.search, tokens))
    evidence_interjections = lex.evidence_interjections
    dropped -= evidence_interjections  # an interjection first, kept
    dropped |= lex.dropped_alone.intersection(tokens)
    kept = [token for token in tokens if token not in dropped] if dropped else tokens
    if evidence_interjections.issuperset(kept):  # no content word
        return [], None
    return kept, None


def _content_tokens_in_order(
    tokens: list[str], lex: Lexicon, *, may_have_digit: bool
) -> tuple[list[str], list[int] | None]:
    """:func:`_content_tokens`, token by token."""
    rules = lex.rules
    phrases = lex.interjections
    kept: list[str] = []
    positions: list[int] = []
    content = False
    count = len(tokens)
    i = 0
    while i < count:
        token = tokens[i]
        rule = rules.get(token)
        if rule is not None:  # an interjection, title, unit or drug, alone or leading a phrase
            sizes, alone = rule
            size = next(
                (n for n in sizes if i + n <= count and tuple(tokens[i : i + n]) in phrases), 0
            )
            if size:
                i += size
                continue
            if alone == INTERJECTION_EVIDENCE:
                kept.append(token)
                positions.append(i)
            if alone != ORDINARY:
                i += 1
                continue
        if _is_content_free(token, may_have_digit):
            i += 1
            continue
        if _is_cjk(token[0]) and token[0] in lex.interjection_initials:
            token = _strip_cjk_interjections(token, lex.single_interjections)
        if token:
            kept.append(token)
            positions.append(i)
            content = True
        i += 1
    return (kept, positions) if content else ([], [])


def _elided_evidence(token: str, languages_of: dict[str, frozenset[str]]) -> int:
    """The languages ``token`` is a word of by :func:`~.lexicon.is_word_of`'s rule, packed."""
    head, _, tail = token.partition("'")
    none: frozenset[str] = frozenset()
    return pack_languages(
        languages_of.get(token, none)
        | languages_of.get(head + "'", none)
        | languages_of.get(tail, none)
    )


def _script_counts(joined: str) -> dict[str, int]:
    """Letters of each script in ``joined`` (the content tokens, concatenated)."""
    return {
        "latin": len(_LATIN_LETTER.findall(joined)),
        "han": len(_HAN.findall(joined)),
        "kana": len(_KANA.findall(joined)),
        "hangul": len(_HANGUL.findall(joined)),
        "deva": len(_DEVANAGARI.findall(joined)),
        "arab": len(_ARABIC_SCRIPT.findall(joined)),
        "cyr": len(_CYRILLIC.findall(joined)),
    }


def _arabic_or_urdu(tokens: list[str], lex: Lexicon) -> str:
    text = "".join(tokens)
    urdu = len(_URDU_LETTER.findall(text)) + 3 * sum(map(lex.urdu_words.__contains__, tokens))
    arabic = len(_ARABIC_LETTER.findall(text)) + 3 * sum(map(lex.arabic_words.__contains__, tokens))
    if urdu != arabic:
        return "ur" if urdu > arabic else "ar"
    from lingua import Language

    ur = _lingua().compute_language_confidence(" ".join(tokens), Language.URDU)
    return "ur" if ur > 0.5 else "ar"


def _by_script(counts: dict[str, int], tokens: list[str], joined: str, lex: Lexicon) -> str | None:
    """The language the script alone settles, if any.

    Never one when no letter of a script but Latin is counted: the Latin
    letters then outweigh nothing, or there are none and every rule below
    needs some.
    """
    cjk = counts["han"] + counts["kana"] + counts["hangul"]
    # A CJK character carries about a word; weigh it against Latin letters.
    if 3 * cjk + counts["deva"] + counts["arab"] + counts["cyr"] < counts["latin"]:
        return None
    if counts["hangul"] >= 2:
        return "ko"
    if counts["kana"] >= 1 and counts["kana"] + counts["han"] >= 2:
        return "ja"
    if counts["han"] >= 2 and counts["kana"] == 0:
        if counts["han"] >= 4 or not lex.zh_markers.isdisjoint(joined):
            return "zh"
        return None  # "頭痛": two or three kanji may be Japanese too
    if counts["deva"] >= 3:
        return "hi"
    if counts["cyr"] >= 3:
        return "ru"
    if counts["arab"] >= 3:
        return _arabic_or_urdu([t for t in tokens if _ARABIC_BLOCK.search(t)], lex)
    return None


def _looks_like_names(raw: list[str], lex: Lexicon) -> bool:
    """Only capitalized words and name particles ("Maria", "Juan de la Cruz")."""
    if len(raw) > 4:
        return False
    words = [t for t in raw if t.lower() not in lex.name_particles]
    # The tests only read, so the cheapest goes first.
    if not words or not all(t[:1].isupper() for t in words):
        return False
    evidence = lex.evidence_words
    if is_word_of(" ".join(words).lower(), evidence):
        return False
    return not any(is_word_of(t.lower(), evidence) for t in words)


def _only_names(
    latin: list[str], tokens: list[str], positions: list[int] | None, source: str, lex: Lexicon
) -> bool:
    """:func:`_looks_like_names` of the kept ``latin`` tokens (see :func:`_spelled`)."""
    if positions is None and not lex.evidence_beyond_particles.isdisjoint(latin):
        # Each of latin is a word of source lower-cased (positions is None: none
        # lost a CJK prefix), and a function word other than a name particle
        # is no name: _looks_like_names would say no.
        return False
    return _looks_like_names(_spelled(latin, tokens, positions, source), lex)


def _spelled(
    latin: list[str], tokens: list[str], positions: list[int] | None, source: str
) -> list[str]:
    """The kept ``latin`` tokens as ``source`` spells them (case and all).

    Args:
        tokens: ``source``'s tokens, lower-cased, one for one with its own.
        positions: the index in ``tokens`` of each of ``latin``, or ``None``
            when a token is kept if and only if it equals a kept one.
    """
    spelled = _tokens(source)
    if positions is None:
        wanted = set(latin)
        return [word for token, word in zip(tokens, spelled, strict=True) if token in wanted]
    return [spelled[i] for i in positions]


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
        tokens = _tokens(folded)
        narrow = ascii_only or _BEYOND_LATIN.search(folded) is None
        may_have_digit = (_ASCII_DIGIT if narrow else _DIGIT).search(folded) is not None
        may_have_cjk = not narrow and _CJK.search(folded) is not None
    else:
        tokens = [token.lower() for token in _tokens(source)]
        narrow = False
        may_have_digit = may_have_cjk = True
    kept, positions = _content_tokens(
        tokens, lex, may_have_digit=may_have_digit, may_have_cjk=may_have_cjk
    )
    if not kept:
        return _EMPTY
    joined = "".join(kept)
    if narrow or _NON_LATIN_SCRIPT.search(joined) is None:
        # Only Latin letters, if any: the script settles nothing (see _by_script).
        two_letters = _TWO_LATIN_LETTERS.search(joined) is not None
    else:
        counts = _script_counts(joined)
        by_script = _by_script(counts, kept, joined, lex)
        if by_script is not None:
            return _BY_SCRIPT[by_script]
        two_letters = counts["latin"] >= 2
    latin = kept
    if not ascii_only:  # a Latin word is ASCII or has a Latin letter
        is_latin = [token.isascii() or _LATIN_LETTER.search(token) is not None for token in kept]
        latin = list(compress(kept, is_latin))
        if positions is not None:
            positions = list(compress(positions, is_latin))
    # One Latin-script word is not a sentence: "twice", "Ramipril", "Yılmaz".
    if not two_letters or len(latin) < 2:
        return _SHORT
    if len(latin) <= 4 and _only_names(latin, tokens, positions, source, lex):
        return _EMPTY
    if lex.dose_words.issuperset(latin):
        return _EMPTY  # a spelled-out dose: "five hundred milligrams"
    return _latin(
        latin,
        text,
        lex,
        ascii_only=ascii_only,
        elisions="'" in source,
        exact_confidence=exact_confidence,
    )


#: Index in _LATIN of each lingua Language (built on first use).
_latin_index: dict[object, int] | None = None
# Packed counts are a byte a language and never overflow one: a token counts
# at most once a language, and 400 characters hold at most 200 tokens.
assert COUNT_BITS == 8 and MAX_CHARS // 2 < 1 << COUNT_BITS


def _latin(
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
    values = _lingua().compute_language_confidence_values(" ".join(tokens[:LINGUA_MAX_WORDS]))
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
    :func:`_latin` gives is the same whatever lingua says.
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
    return re.compile(_char_class(letters))


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


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the language ``text`` is written in, or ``None`` when unsure.

    Returns one of :data:`SUPPORTED_LANGUAGES`. ``None`` for empty or very
    short text and for text made only of numbers, doses, drug names, person
    names or interjections ("ok", "hmm", "thanks", "sí", "merci").
    """
    return detect(text, exact_confidence=False).language
