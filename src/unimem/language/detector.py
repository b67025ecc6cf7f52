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
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .lexicon import lexicon

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
_LATIN: Final = ("en", "es", "fr", "de", "it", "pt", "tr")

#: Below this lingua probability a Latin-script text gets no language.
MIN_CONFIDENCE: Final = 0.50
#: Log-odds one function word (or letter only that language uses) adds.
EVIDENCE_WEIGHT: Final = 1.0
#: From this many content words a text may be labelled without function words.
LONG_TEXT_WORDS: Final = 4
LONG_TEXT_CONFIDENCE: Final = 0.90
#: Words of a text lingua reads.
LINGUA_MAX_WORDS: Final = 12
#: Characters of a text looked at.
MAX_CHARS: Final = 400

_TOKEN = re.compile(r"[^\s.,!?;:¿¡()\[\]{}\"“”„«»،؟。、！？，：；…/+=*~|]+")
_DIGIT = re.compile(r"\d")
_DRUG_SUFFIX = re.compile(
    r"(?:pril|sartan|olol|dipine|statin|formin|gliptin|gliflozin|glutide|prazole|tidine"
    r"|cillin|mycin|floxacin|cycline|conazole|vir|mab|tinib|parin|xaban|gatran|afil"
    r"|triptan|lukast|semide|thiazide|zepam|zolam|oxetine|pramine|triptyline|setron"
    r"|olone|terol|tropium|dronate)$"
)
_EDGE = "'’-‐_"

# Letters only one of the two Arabic-script languages uses.
_URDU_LETTERS: Final = frozenset("ٹڈڑںےۓہۂھیکگپچژ")
_ARABIC_LETTERS: Final = frozenset("ةيكهىإأ")


@dataclass(frozen=True, slots=True)
class Detection:
    """What :func:`detect` found.

    Attributes:
        language: ISO 639-1 code, or ``None`` when unsure.
        confidence: 0..1; 1.0 when the script settled it, 0.0 when nothing to judge.
        reason: how it was decided: ``script``, ``lingua``, ``empty`` (nothing
            but numbers, drugs, interjections or names), ``short`` (too little
            text or no function word), ``unsure`` (below the confidence floor) or
            ``romanized`` (Hindi/Urdu in Latin letters).
    """

    language: str | None
    confidence: float
    reason: str


_lock = threading.Lock()
_detector: LanguageDetector | None = None


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


def preload() -> None:
    """Build the detector and load the Latin-script models now (~0.4 s, once per
    process), so that the first user turn does not pay for it."""
    detector = _lingua()
    for sample in ("the", "el", "le", "der", "il", "o", "ve"):
        detector.compute_language_confidence_values(sample)


def _is_content_free(token: str, lex_neutral: frozenset[str], drugs: frozenset[str]) -> bool:
    if _DIGIT.search(token) or token in lex_neutral or token in drugs:
        return True
    return len(token) >= 7 and token.isascii() and _DRUG_SUFFIX.search(token) is not None


def _strip_cjk_interjections(token: str, phrases: frozenset[tuple[str, ...]]) -> str:
    """Remove leading interjections from a CJK run written without spaces ("嗯好的我…")."""
    changed = True
    while token and changed:
        changed = False
        for size in range(min(len(token), 6), 0, -1):
            if (token[:size],) in phrases:
                token, changed = token[size:], True
                break
    return token


def _content_tokens(text: str) -> tuple[list[str], list[str]]:
    """Lower-cased content tokens and their original spelling, language-free ones removed.

    Interjections that are also function words ("no", "não", "si") are kept
    when the text says something else too: "Não consigo dormir" is Portuguese
    because of "não".
    """
    lex = lexicon()
    raw = [t.strip(_EDGE) for t in _TOKEN.findall(text.replace("’", "'"))]
    raw = [t for t in raw if t]
    lower = [t.lower() for t in raw]
    keep: list[tuple[str, str, bool]] = []  # (lower, raw, is_content)
    i = 0
    while i < len(lower):
        for size in range(min(lex.max_phrase, len(lower) - i), 0, -1):
            if tuple(lower[i : i + size]) in lex.interjections:
                if size == 1 and _evidence_of(lower[i], lex.evidence):
                    keep.append((lower[i], raw[i], False))
                i += size
                break
        else:
            token = lower[i]
            if not _is_content_free(token, lex.neutral, lex.drugs):
                if _is_cjk(token[0]):
                    token = _strip_cjk_interjections(token, lex.interjections)
                if token:
                    keep.append((token, raw[i], True))
            i += 1
    if not any(content for _, _, content in keep):
        return [], []
    return [low for low, _, _ in keep], [orig for _, orig, _ in keep]


def _evidence_of(token: str, evidence: dict[str, frozenset[str]]) -> bool:
    return any(_is_word_of(token, words) for words in evidence.values())


def _is_word_of(token: str, words: frozenset[str]) -> bool:
    """``token`` is one of ``words``, or an elided form of them ("j'ai", "dov'è")."""
    if token in words:
        return True
    if "'" in token:
        head, _, tail = token.partition("'")
        return head + "'" in words or tail in words
    return False


def _evidence_languages(token: str, languages_of: dict[str, frozenset[str]]) -> frozenset[str]:
    """The languages ``token`` is a word of, by :func:`_is_word_of`'s rule, in one pass."""
    found = languages_of.get(token, _NONE)
    if "'" in token:
        head, _, tail = token.partition("'")
        found = found | languages_of.get(head + "'", _NONE) | languages_of.get(tail, _NONE)
    return found


_NONE: Final[frozenset[str]] = frozenset()


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def _script_counts(tokens: list[str]) -> dict[str, int]:
    counts = {"latin": 0, "han": 0, "kana": 0, "hangul": 0, "deva": 0, "arab": 0, "cyr": 0}
    for token in tokens:
        for ch in token:
            code = ord(ch)
            if code < 0x250:
                if ch.isalpha():
                    counts["latin"] += 1
            elif 0x3040 <= code <= 0x30FF or 0x31F0 <= code <= 0x31FF:
                counts["kana"] += 1
            elif 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF:
                counts["han"] += 1
            elif 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
                counts["hangul"] += 1
            elif 0x0900 <= code <= 0x097F:
                counts["deva"] += 1
            elif 0x0600 <= code <= 0x06FF or 0x0750 <= code <= 0x077F or 0xFB50 <= code <= 0xFEFF:
                counts["arab"] += 1
            elif 0x0400 <= code <= 0x04FF:
                counts["cyr"] += 1
    return counts


def _arabic_or_urdu(tokens: list[str]) -> str:
    text = "".join(tokens)
    lex = lexicon()
    urdu = sum(ch in _URDU_LETTERS for ch in text) + 3 * sum(t in lex.urdu_words for t in tokens)
    arabic = sum(ch in _ARABIC_LETTERS for ch in text) + 3 * sum(
        t in lex.arabic_words for t in tokens
    )
    if urdu != arabic:
        return "ur" if urdu > arabic else "ar"
    from lingua import Language

    ur = _lingua().compute_language_confidence(" ".join(tokens), Language.URDU)
    return "ur" if ur > 0.5 else "ar"


def _by_script(counts: dict[str, int], tokens: list[str]) -> str | None:
    """The language the script alone settles, if any."""
    cjk = counts["han"] + counts["kana"] + counts["hangul"]
    # A CJK character carries about a word; weigh it against Latin letters.
    if 3 * cjk + counts["deva"] + counts["arab"] + counts["cyr"] < counts["latin"]:
        return None
    if counts["hangul"] >= 2:
        return "ko"
    if counts["kana"] >= 1 and counts["kana"] + counts["han"] >= 2:
        return "ja"
    if counts["han"] >= 2 and counts["kana"] == 0:
        markers = lexicon().zh_markers
        if counts["han"] >= 4 or any(ch in markers for t in tokens for ch in t):
            return "zh"
        return None  # "頭痛": two or three kanji may be Japanese too
    if counts["deva"] >= 3:
        return "hi"
    if counts["cyr"] >= 3:
        return "ru"
    if counts["arab"] >= 3:
        return _arabic_or_urdu([t for t in tokens if any("\u0600" <= c <= "\u06ff" for c in t)])
    return None


def _looks_like_names(raw: list[str]) -> bool:
    """Only capitalized words and name particles ("Maria", "Juan de la Cruz")."""
    words = [t for t in raw if t.lower() not in lexicon().name_particles]
    if not words or len(raw) > 4 or _evidence_of(" ".join(words).lower(), lexicon().evidence):
        return False
    return all(t[:1].isupper() and not _evidence_of(t.lower(), lexicon().evidence) for t in words)


def _is_latin(token: str) -> bool:
    return token.isascii() or any(c.isalpha() and ord(c) < 0x250 for c in token)


def detect(text: str) -> Detection:
    """The language of ``text`` with its confidence and how it was decided.

    Pure and synchronous; the first Latin-script text builds the lingua
    detector (once per process).
    """
    # The opening of a long message decides its language as well as all of it
    # does, and keeps the cost bounded whatever the message's size.
    text = text[:MAX_CHARS]
    tokens, raw = _content_tokens(text)
    if not tokens:
        return Detection(None, 0.0, "empty")
    counts = _script_counts(tokens)
    by_script = _by_script(counts, tokens)
    if by_script is not None:
        return Detection(by_script, 1.0, "script")
    pairs = [(t, r) for t, r in zip(tokens, raw, strict=True) if _is_latin(t)]
    latin = [t for t, _ in pairs]
    # One Latin-script word is not a sentence: "twice", "Ramipril", "Yılmaz".
    if counts["latin"] < 2 or len(latin) < 2:
        return Detection(None, 0.0, "short")
    if _looks_like_names([r for _, r in pairs]):
        return Detection(None, 0.0, "empty")
    if all(t in lexicon().dose_words for t in latin):
        return Detection(None, 0.0, "empty")  # a spelled-out dose: "five hundred milligrams"
    return _latin(latin, text)


def _latin(tokens: list[str], text: str) -> Detection:
    lex = lexicon()
    hits = dict.fromkeys(_LATIN, 0)
    for token in tokens:  # one count per language the token is evidence for
        for lang in _evidence_languages(token, lex.languages_of):
            if lang in hits:
                hits[lang] += 1
    for token in tokens:
        if not token.isascii():  # the telling letters are all outside ASCII
            chars = set(token)
            for lang, letters in lex.letters.items():
                hits[lang] += not chars.isdisjoint(letters)
    if "¿" in text or "¡" in text:
        hits["es"] += 1
    # lingua's cost grows with the text; a dozen words decide a language as
    # well as a paragraph does (the function words still count in full).
    values = _lingua().compute_language_confidence_values(" ".join(tokens[:LINGUA_MAX_WORDS]))
    probability = {v.language.iso_code_639_1.name.lower(): v.value for v in values}
    # Each function word multiplies a language's odds by e: lingua's
    # probability is the prior, the words are the evidence it lacks on a few
    # words. The result is normalized again over the Latin-script languages.
    log_score = {
        lang: math.log(probability.get(lang, 0.0) + 0.01) + EVIDENCE_WEIGHT * hits[lang]
        for lang in _LATIN
    }
    best = max(_LATIN, key=log_score.__getitem__)
    top = log_score[best]  # softmax relative to the best: no overflow on long texts
    confidence = 1.0 / sum(math.exp(value - top) for value in log_score.values())
    long_text = len(tokens) >= LONG_TEXT_WORDS
    if hits[best] == 0 and not (long_text and confidence >= LONG_TEXT_CONFIDENCE):
        return Detection(None, confidence, "short")
    if confidence < MIN_CONFIDENCE:
        return Detection(None, confidence, "unsure")
    roman = sum(t in lex.roman_hindustani for t in tokens)
    if roman >= 2 and roman >= hits[best]:
        return Detection(None, confidence, "romanized")
    return Detection(best, confidence, "lingua")


def detect_language(text: str) -> str | None:
    """ISO 639-1 code of the language ``text`` is written in, or ``None`` when unsure.

    Returns one of :data:`SUPPORTED_LANGUAGES`. ``None`` for empty or very
    short text and for text made only of numbers, doses, drug names, person
    names or interjections ("ok", "hmm", "thanks", "sí", "merci").
    """
    return detect(text).language
