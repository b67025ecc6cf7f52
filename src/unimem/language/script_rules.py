"""Languages the script alone settles: Hangul, Kana, Han, Devanagari, Cyrillic,
and Arabic against Urdu by the letters and words only one of them uses."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from .lexicon import Lexicon
from .lingua_model import lingua_detector

__all__ = [
    "CJK",
    "LATIN_LETTER",
    "NON_LATIN_SCRIPT",
    "TWO_LATIN_LETTERS",
    "char_class",
    "script_counts",
    "script_language",
]


def char_class(chars: Iterable[str]) -> str:
    """A regular-expression character class matching exactly ``chars``."""
    return "[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]"


# Letters of each script, by code point (the ranges are disjoint). A Latin
# letter is an alphabetic character below U+0250.
_LATIN_CLASS = char_class(ch for ch in map(chr, range(0x250)) if ch.isalpha())
LATIN_LETTER = re.compile(_LATIN_CLASS)
TWO_LATIN_LETTERS = re.compile(f"{_LATIN_CLASS}[^{_LATIN_CLASS[1:]}*{_LATIN_CLASS}")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff]")
_DEVANAGARI = re.compile("[\u0900-\u097f]")
_ARABIC_SCRIPT = re.compile("[\u0600-\u06ff\u0750-\u077f\ufb50-\ufeff]")
_CYRILLIC = re.compile("[\u0400-\u04ff]")
#: A character of one of the scripts other than Latin that :func:`script_language` counts.
NON_LATIN_SCRIPT = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u4e00-\u9fff\u3400-\u4dbf\uac00-\ud7af\u1100-\u11ff"
    "\u0900-\u097f\u0600-\u06ff\u0750-\u077f\ufb50-\ufeff\u0400-\u04ff]"
)
_ARABIC_BLOCK = re.compile("[\u0600-\u06ff]")
#: The characters :func:`_is_cjk` is true of.
CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")

# Letters only one of the two Arabic-script languages uses.
_URDU_LETTERS: Final = frozenset("ٹڈڑںےۓہۂھیکگپچژ")
_ARABIC_LETTERS: Final = frozenset("ةيكهىإأ")
_URDU_LETTER = re.compile(char_class(_URDU_LETTERS))
_ARABIC_LETTER = re.compile(char_class(_ARABIC_LETTERS))


def script_counts(joined: str) -> dict[str, int]:
    """Letters of each script in ``joined`` (the content tokens, concatenated)."""
    return {
        "latin": len(LATIN_LETTER.findall(joined)),
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

    ur = lingua_detector().compute_language_confidence(" ".join(tokens), Language.URDU)
    return "ur" if ur > 0.5 else "ar"


def script_language(
    counts: dict[str, int], tokens: list[str], joined: str, lex: Lexicon
) -> str | None:
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
