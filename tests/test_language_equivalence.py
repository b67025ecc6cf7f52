"""detect() against a plain reference implementation of the same rules.

The detector takes shortcuts for speed (one lower-casing of the whole text,
set operations instead of a token loop, packed counts, regex scans); this
file keeps the straightforward version of every rule and checks that both give
the same Detection on the labelled sets, the PHI sets and variants of them,
and checks the character facts the shortcuts rest on, for every code point.
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
from pathlib import Path

import pytest

from unimem.language import content_words, detector, lingua_model, script_rules
from unimem.language.detector import Detection, detect
from unimem.language.lexicon import lexicon

DATA = Path(__file__).parent / "data"
_LATIN = ("en", "es", "fr", "de", "it", "pt", "tr")

# -- the reference: every rule spelled out, token by token ----------------------

_TOKEN = re.compile(r"[^\s.,!?;:¿¡()\[\]{}\"“”„«»،؟。、！？，：；…/+=*~|]+")
_DIGIT = re.compile(r"\d")
_DRUG_SUFFIX = re.compile(
    r"(?:pril|sartan|olol|dipine|statin|formin|gliptin|gliflozin|glutide|prazole|tidine"
    r"|cillin|mycin|floxacin|cycline|conazole|vir|mab|tinib|parin|xaban|gatran|afil"
    r"|triptan|lukast|semide|thiazide|zepam|zolam|oxetine|pramine|triptyline|setron"
    r"|olone|terol|tropium|dronate)$"
)
_EDGE = "'’-‐_"
_URDU_LETTERS = frozenset("ٹڈڑںےۓہۂھیکگپچژ")
_ARABIC_LETTERS = frozenset("ةيكهىإأ")


def _is_word_of(token: str, words: frozenset[str]) -> bool:
    if token in words:
        return True
    if "'" in token:
        head, _, tail = token.partition("'")
        return head + "'" in words or tail in words
    return False


def _evidence_of(token: str) -> bool:
    return any(_is_word_of(token, words) for words in lexicon().evidence.values())


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def _content_tokens(text: str) -> tuple[list[str], list[str]]:
    lex = lexicon()
    raw = [t.strip(_EDGE) for t in _TOKEN.findall(text.replace("’", "'"))]
    raw = [t for t in raw if t]
    lower = [t.lower() for t in raw]
    keep: list[tuple[str, str, bool]] = []
    i = 0
    while i < len(lower):
        for size in range(min(lex.max_phrase, len(lower) - i), 0, -1):
            if tuple(lower[i : i + size]) in lex.interjections:
                if size == 1 and _evidence_of(lower[i]):
                    keep.append((lower[i], raw[i], False))
                i += size
                break
        else:
            token = lower[i]
            content_free = (
                _DIGIT.search(token)
                or token in lex.neutral
                or token in lex.drugs
                or (len(token) >= 7 and token.isascii() and _DRUG_SUFFIX.search(token))
            )
            if not content_free:
                changed = _is_cjk(token[0])
                while token and changed:
                    changed = False
                    for size in range(min(len(token), 6), 0, -1):
                        if (token[:size],) in lex.interjections:
                            token, changed = token[size:], True
                            break
                if token:
                    keep.append((token, raw[i], True))
            i += 1
    if not any(content for _, _, content in keep):
        return [], []
    return [low for low, _, _ in keep], [orig for _, orig, _ in keep]


def _script_counts(tokens: list[str]) -> dict[str, int]:
    counts = {"latin": 0, "han": 0, "kana": 0, "hangul": 0, "deva": 0, "arab": 0, "cyr": 0}
    for ch in "".join(tokens):
        code = ord(ch)
        if code < 0x250:
            counts["latin"] += ch.isalpha()
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
    from lingua import Language

    text = "".join(tokens)
    lex = lexicon()
    urdu = sum(ch in _URDU_LETTERS for ch in text) + 3 * sum(t in lex.urdu_words for t in tokens)
    arabic = sum(ch in _ARABIC_LETTERS for ch in text) + 3 * sum(
        t in lex.arabic_words for t in tokens
    )
    if urdu != arabic:
        return "ur" if urdu > arabic else "ar"
    ur = lingua_model.lingua_detector().compute_language_confidence(" ".join(tokens), Language.URDU)
    return "ur" if ur > 0.5 else "ar"


def _by_script(counts: dict[str, int], tokens: list[str]) -> str | None:
    cjk = counts["han"] + counts["kana"] + counts["hangul"]
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
        return None
    if counts["deva"] >= 3:
        return "hi"
    if counts["cyr"] >= 3:
        return "ru"
    if counts["arab"] >= 3:
        return _arabic_or_urdu([t for t in tokens if any("\u0600" <= c <= "\u06ff" for c in t)])
    return None


def _looks_like_names(raw: list[str]) -> bool:
    words = [t for t in raw if t.lower() not in lexicon().name_particles]
    if not words or len(raw) > 4 or _evidence_of(" ".join(words).lower()):
        return False
    return all(t[:1].isupper() and not _evidence_of(t.lower()) for t in words)


def _reference_latin(tokens: list[str], text: str) -> Detection:
    lex = lexicon()
    hits = dict.fromkeys(_LATIN, 0)
    for token in tokens:
        for lang, words in lex.evidence.items():
            hits[lang] += _is_word_of(token, words)
        if not token.isascii():
            for lang, letters in lex.letters.items():
                hits[lang] += not set(token).isdisjoint(letters)
    if "¿" in text or "¡" in text:
        hits["es"] += 1
    values = lingua_model.lingua_detector().compute_language_confidence_values(
        " ".join(tokens[: detector.LINGUA_MAX_WORDS])
    )
    probability = {v.language.iso_code_639_1.name.lower(): v.value for v in values}
    log_score = {
        lang: math.log(probability.get(lang, 0.0) + 0.01) + detector.EVIDENCE_WEIGHT * hits[lang]
        for lang in _LATIN
    }
    best = max(_LATIN, key=log_score.__getitem__)
    top = log_score[best]
    confidence = 1.0 / sum(math.exp(value - top) for value in log_score.values())
    long_text = len(tokens) >= detector.LONG_TEXT_WORDS
    if hits[best] == 0 and not (long_text and confidence >= detector.LONG_TEXT_CONFIDENCE):
        return Detection(None, confidence, "short")
    if confidence < detector.MIN_CONFIDENCE:
        return Detection(None, confidence, "unsure")
    roman = sum(t in lex.roman_hindustani for t in tokens)
    if roman >= 2 and roman >= hits[best]:
        return Detection(None, confidence, "romanized")
    return Detection(best, confidence, "lingua")


def reference_detect(text: str) -> Detection:
    text = text[: detector.MAX_CHARS]
    tokens, raw = _content_tokens(text)
    if not tokens:
        return Detection(None, 0.0, "empty")
    counts = _script_counts(tokens)
    by_script = _by_script(counts, tokens)
    if by_script is not None:
        return Detection(by_script, 1.0, "script")
    pairs = [
        (t, r)
        for t, r in zip(tokens, raw, strict=True)
        if t.isascii() or any(c.isalpha() and ord(c) < 0x250 for c in t)
    ]
    latin = [t for t, _ in pairs]
    if counts["latin"] < 2 or len(latin) < 2:
        return Detection(None, 0.0, "short")
    if _looks_like_names([r for _, r in pairs]):
        return Detection(None, 0.0, "empty")
    if all(t in lexicon().dose_words for t in latin):
        return Detection(None, 0.0, "empty")
    return _reference_latin(latin, text)


# -- the texts -------------------------------------------------------------------


def _data_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((DATA / "language").glob("*.tsv")):
        for line in path.read_text("utf-8").splitlines():
            if line and not line.startswith("#"):
                texts.append(line.split("\t")[-1])
    for path in sorted((DATA / "language").glob("dialogues*.json")):
        for dialogue in json.loads(path.read_text("utf-8"))["dialogues"]:
            texts.extend(text for text, _ in dialogue["turns"])
    for path in sorted((DATA / "phi").glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return texts


_ODD = [
    "",
    "ok",
    "OK thanks",
    "thank you very much",
    "I see, thank you",
    "İstanbul'da İyi misin",
    "ΟΔΟΣ. Σ ΑΣ'Α metformin",
    "l'Aquila Rossi",
    "Juan de la Cruz",
    "Maria Garcia",
    "five hundred milligrams",
    "dos veces al día",
    "はいok hmm",
    "嗯好的我头疼",
    "頭痛",
    "mujhe bukhar hai aur sar dard",
    "mg 500 ٥٠٠ ५०० ５００ kg",
    "ﬁne ﬂow ǅemal",
    "¿qué? ¡hola amigo mío!",
    "—— … ‘quoted’ “double” «guillemets»",
    "j’ai mal à la tête, c’est grave?",
    "ağrım var mı mı mı",
    "Amlodipine 5 mg",
    "Ramipril Metoprolol Lisinopril",
]


def _variants(texts: list[str], count: int, seed: int = 20261130) -> list[str]:
    """Mutations that reach the shortcuts' edge cases: case, cuts, odd characters."""
    rnd = random.Random(seed)
    words = [word for text in texts for word in text.split()]
    odd = (
        "’'-_‐.,!?¿¡()\"“”«»/+=*~|…。、！？，：；\t\n\u00a0\u2009 "
        "0123456789İıßéñçãõœùëïîìòÄΣ한글は漢"
    )
    out: list[str] = []
    for _ in range(count):
        text = rnd.choice(texts)
        kind = rnd.randrange(5)
        if kind == 0:
            out.append(" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 16))))
        elif kind == 1:
            out.append(rnd.choice([text.upper(), text.lower(), text.title()]))
        elif kind == 2 and text:
            start = rnd.randrange(len(text))
            out.append(text[start : rnd.randrange(start, len(text) + 1)])
        else:
            chars = list(text)
            for _ in range(rnd.randint(1, 4)):
                chars.insert(rnd.randrange(len(chars) + 1), rnd.choice(odd))
            out.append("".join(chars))
    return out


_TEXTS = _data_texts()


def _assert_same(texts: list[str]) -> None:
    wrong = []
    for text in texts:
        got, want = detect(text), reference_detect(text)
        if (
            got.language != want.language
            or got.reason != want.reason
            or not math.isclose(got.confidence, want.confidence, rel_tol=0.0, abs_tol=1e-9)
        ):
            wrong.append((text, got, want))
    assert not wrong, wrong[:5]


def test_same_detection_on_the_labelled_and_phi_texts():
    assert len(_TEXTS) > 1000
    _assert_same(_TEXTS + _ODD)


def test_same_detection_on_variants():
    _assert_same(_variants(_TEXTS + _ODD, 3000))


# -- the character facts behind the shortcuts ---------------------------------

_ALL = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF)


@pytest.fixture(scope="module")
def separators() -> set[str]:
    return {ch for ch in _ALL if not _TOKEN.fullmatch(ch)}


def test_tokens_are_the_reference_tokens(separators: set[str]):
    # Punctuation replaced by spaces and str.split() find the same runs as the regex.
    split_here = set(content_words._PUNCTUATION.findall(_ALL)) | {ch for ch in _ALL if ch.isspace()}
    assert split_here == separators
    sample = "".join(sorted(separators)) + "".join(_EDGE)
    for text in (f"a{ch}b {ch}c{ch} {ch}" for ch in sample):
        want = [t for t in (t.strip(_EDGE) for t in _TOKEN.findall(text)) if t]
        assert content_words.split_tokens(text) == want, text


def test_lower_casing_the_text_lower_cases_its_tokens(separators: set[str]):
    # str.lower maps each character on its own but a capital sigma, and never
    # to or from a separator or edge character, an apostrophe, a digit or a
    # CJK character: tokens of text.lower() are the tokens of text, lowered.
    special = separators | set(_EDGE)
    assert all(ch.lower() == ch for ch in special)
    others = "".join(ch for ch in _ALL if ch not in special)
    lowered = "".join(ch.lower() for ch in others)
    assert not special.intersection(lowered)
    plain = "".join(ch for ch in _ALL if not _DIGIT.match(ch) and not script_rules.CJK.match(ch))
    lowered_plain = "".join(ch.lower() for ch in plain)
    assert _DIGIT.search(lowered_plain) is None
    assert script_rules.CJK.search(lowered_plain) is None
    text = "ΟΔΟΣ. ΑΣ'Α İstanbul ǅemal"
    assert text.lower() != "".join(ch.lower() for ch in text)  # the sigma


def test_below_u0250_the_only_digits_are_ascii():
    assert _DIGIT.findall("".join(map(chr, range(0x250)))) == list("0123456789")
    assert script_rules.NON_LATIN_SCRIPT.search("".join(map(chr, range(0x250)))) is None
    assert script_rules.CJK.search("".join(map(chr, range(0x250)))) is None
