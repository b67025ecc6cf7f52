"""Search terms of a text, for every script unimem meets (pure: no I/O).

Latin, Cyrillic, Arabic, Devanagari and other scripts written with spaces
are split into words, case-folded, Latin letters without their accents,
Arabic without its short-vowel marks; a light plural rule joins "headache"
and "headaches". Chinese, Japanese and Korean, written without spaces, are
cut into overlapping character pairs (bigrams: "头痛了" → "头痛", "痛了"), the
usual way to search them without a dictionary; a lone character stays a
term. Very common words of the fourteen supported languages are dropped.

Every backend indexes the same terms (SQLite stores them in FTS5,
PostgreSQL in a ``simple`` tsvector, the in-process store in memory), so a
query finds the same entries everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["STOPWORDS", "is_cjk", "terms", "terms_text"]

# Han, kana, Hangul (syllables and jamo), CJK symbols excluded
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\u1100-\u11ff"
_CJK_RUN = re.compile(f"[{_CJK}]+")
# combining marks that belong inside a word: Latin accents, Arabic marks,
# the vowel signs of Indic scripts and Thai (the dandas ।॥ excluded)
_MARKS = (
    "\u0300-\u036f\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
    "\u0900-\u0963\u0966-\u0dff\u0e00-\u0e7f"
)
_LETTER = rf"(?:(?![{_CJK}])[^\W_]|[{_MARKS}])"
_WORD = re.compile(rf"[{_CJK}]+|\d+(?:[.,:]\d+)+|{_LETTER}+(?:['’]{_LETTER}+)?")
_ARABIC_LETTER = re.compile("[\u0620-\u064a]")
_ARABIC_MARKS = re.compile("[\u064b-\u065f\u0670\u0640]")  # harakat, dagger alif, tatweel

#: Words too common to find anything by (lower-case, accents kept as the
#: tokenizer leaves them: Latin without accents).
_STOPWORD_TEXT = """
    a an and are as at be been but by can could did do does for from had has have he her
    him his how i i'm i've if in into is it it's its me my of on or our she so than that
    the their them then there they this to too up us was we were what when where which
    who why will with would you your am im ive about just also let's lets
    um uh oh ok okay yeah yes no not
    el la los las un una unos unas y o de del al en con por para que se su sus mi mis me
    te tu lo le les es son esta estoy fue como mas pero muy ya hay eh pues este esa eso
    le la les un une des et ou de du au aux en dans avec pour par que qui se sa son ses
    mon ma mes je tu il elle nous vous ils elles est suis etait pas ne ce cette euh alors
    bon ai a
    der die das und oder ein eine ist bin mit fur von zu im den dem des ich du er sie es
    il lo gli le un una e o di da con per che mi ti si non
    o os as um uma e ou do da dos das com para que eu
    и в во не что он я с со как а то все она так его но да ты к у же вы за бы по
    في من على إلى عن مع هذا هذه ذلك التي الذي أن إن كان ما لا و أو ثم قد
    और का की के है हैं में से को पर यह वह था थी थे भी नहीं तो ही मैं मेरी मेरा मेरे
    क्या हो कि एक
    ve bir bu da de ile mi ne için çok
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def is_cjk(char: str) -> bool:
    """Whether ``char`` is a Han, kana or Hangul character (searched by bigrams)."""
    return _CJK_RUN.fullmatch(char) is not None


@lru_cache(maxsize=65536)
def _fold(word: str) -> str:
    """Case-folded, Latin accents and Arabic vowel marks removed, a plural ``s`` cut."""
    word = word.casefold().replace("’", "'")
    if word in STOPWORDS:
        return ""
    if word.isascii():
        folded = word
    else:
        parts: list[str] = []
        for char in unicodedata.normalize("NFD", word):
            if unicodedata.combining(char) and parts and parts[-1] < "\u0250":
                continue  # an accent on a Latin letter
            parts.append(char)
        folded = unicodedata.normalize("NFC", "".join(parts))
        folded = _ARABIC_MARKS.sub("", folded)
    if "'" in folded:
        head, _, tail = folded.partition("'")
        # French and Italian elision (l'oncologue, d'aspirine), English clitics
        if len(head) <= 2 or head in ("qu", "jusqu", "lorsqu", "puisqu"):
            folded = tail
        elif tail in ("s", "t", "ll", "re", "ve", "d", "m"):
            folded = head
    if _ARABIC_LETTER.match(folded):
        if len(folded) > 4 and folded.startswith("و"):  # "and" joined to the word
            folded = folded[1:]
        if len(folded) > 4 and folded.startswith("ال"):  # the article
            folded = folded[2:]
    if len(folded) > 4 and folded.endswith("s") and not folded.endswith("ss") and folded.isascii():
        folded = folded[:-1]
    return folded


# ASCII text holds no CJK run, combining mark or non-ASCII digit, and its
# letters and digits ([^\W_]) are A-Z, a-z and 0-9: this finds the words _WORD
# finds, at a fraction of its cost (tests/test_recall_terms.py checks both agree).
_ASCII_WORD = re.compile(r"\d+(?:[.,:]\d+)+|[A-Za-z0-9]+(?:'[A-Za-z0-9]+)?")


def terms(text: str) -> list[str]:
    """The search terms of ``text`` in order (repeats kept, stopwords dropped)."""
    if text.isascii():
        folded = map(_fold, _ASCII_WORD.findall(text))
        return [term for term in folded if term and term not in STOPWORDS]
    return _terms_of_any_script(text)


def _terms_of_any_script(text: str) -> list[str]:
    """:func:`terms` of any text."""
    found: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        if _CJK_RUN.match(word):
            if len(word) == 1:
                found.append(word)
            else:
                found.extend(word[i : i + 2] for i in range(len(word) - 1))
            continue
        folded = _fold(word)
        if folded and folded not in STOPWORDS:
            found.append(folded)
    return found


def terms_text(text: str) -> str:
    """The terms of ``text`` joined by spaces: what a store's text index holds."""
    return " ".join(terms(text))
