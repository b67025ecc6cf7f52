"""Word lists behind language detection: evidence words, interjections, drugs.

Plain data, turned into sets on first use (:func:`lexicon`), never at import.
The evidence words are the most frequent function words and everyday verbs
of each Latin-script language: a short text has to contain at least one of
them before it is given a language, which is what keeps names, drug names and
stray tokens from being labelled. They were written from general frequency
knowledge of each language, not from the evaluation sets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Final

from .word_lists import (
    ARABIC_WORDS,
    DOSE_WORDS,
    DRUGS,
    EVIDENCE,
    INTERJECTIONS,
    LETTERS,
    NAME_PARTICLES,
    NEUTRAL,
    ROMAN_HINDUSTANI,
    URDU_WORDS,
    ZH_MARKERS,
)

__all__ = [
    "CONTENT_FREE",
    "COUNT_BITS",
    "INTERJECTION",
    "INTERJECTION_EVIDENCE",
    "LATIN_LANGUAGES",
    "ORDINARY",
    "Lexicon",
    "is_word_of",
    "lexicon",
    "pack_languages",
]

#: The Latin-script languages, in the order detection weighs them (the order
#: of ``EVIDENCE``); evidence and letters name them by index into this tuple.
LATIN_LANGUAGES: Final = ("en", "es", "fr", "de", "it", "pt", "tr")


#: What a token that :attr:`Lexicon.rules` lists is, when it stands alone.
ORDINARY: Final = 0  # only the first word of a longer interjection ("thank")


INTERJECTION: Final = 1  # an interjection: dropped


INTERJECTION_EVIDENCE: Final = 2  # an interjection that is also a function word ("no", "sí")


CONTENT_FREE: Final = 3  # a title, unit or known drug name: dropped


_DROPPED: Final = (INTERJECTION, CONTENT_FREE)


@dataclass(frozen=True)
class Lexicon:
    """The word lists, as sets. Multi-word interjections are tuples of words."""

    evidence: dict[str, frozenset[str]]
    #: The languages each evidence word is evidence for (``evidence`` inverted),
    #: so a token is looked up once instead of once per language.
    languages_of: dict[str, frozenset[str]]
    letters: dict[str, frozenset[str]]
    interjections: frozenset[tuple[str, ...]]
    neutral: frozenset[str]
    dose_words: frozenset[str]
    urdu_words: frozenset[str]
    arabic_words: frozenset[str]
    name_particles: frozenset[str]
    zh_markers: frozenset[str]
    roman_hindustani: frozenset[str]
    drugs: frozenset[str]
    max_phrase: int
    # Derived, for the detector's passes over the tokens:
    #: Every evidence word of any language (the keys of ``languages_of``), and
    #: those that are no name particle.
    evidence_words: frozenset[str]
    evidence_beyond_particles: frozenset[str]
    #: ``languages_of`` as :func:`pack_languages` counts.
    evidence_counts: dict[str, int]
    #: ``letters`` as (index into :data:`LATIN_LANGUAGES`, letters), and every
    #: telling letter.
    letter_indices: tuple[tuple[int, frozenset[str]], ...]
    any_letter: frozenset[str]
    #: The one-word interjections (CJK runs lose them as prefixes), and their
    #: first characters (a run starting otherwise has none to lose).
    single_interjections: frozenset[str]
    interjection_initials: frozenset[str]
    #: The first two words of every longer interjection.
    phrase_openings: frozenset[tuple[str, str]]
    #: Dropped when alone: interjections that are not function words, titles,
    #: units and drugs. Kept (but not content): the other interjections.
    dropped_alone: frozenset[str]
    evidence_interjections: frozenset[str]
    #: Every token with a rule of its own, as (sizes of the multi-word
    #: interjections it starts, longest first; what it is alone: ORDINARY,
    #: INTERJECTION, INTERJECTION_EVIDENCE or CONTENT_FREE). A token not here
    #: is content unless it has a digit or a drug suffix.
    rules: dict[str, tuple[tuple[int, ...], int]]


#: Bits of one language's count in a packed count: seven languages fit a
#: machine word, which keeps ``sum`` of packed counts on its fast path. A
#: count must stay below 2**COUNT_BITS (the detector counts at most one a
#: token, of at most 200 tokens).
COUNT_BITS: Final = 8


def pack_languages(languages: Iterable[str]) -> int:
    """One count for each of ``languages``, packed in an int: COUNT_BITS bits a
    language, in :data:`LATIN_LANGUAGES` order, so that summing packed counts
    counts every language at once."""
    return sum(1 << (COUNT_BITS * LATIN_LANGUAGES.index(lang)) for lang in set(languages))


def is_word_of(token: str, words: frozenset[str]) -> bool:
    """``token`` is one of ``words``, or an elided form of them ("j'ai", "dov'è")."""
    if token in words:
        return True
    if "'" in token:
        head, _, tail = token.partition("'")
        return head + "'" in words or tail in words
    return False


@cache
def lexicon() -> Lexicon:
    """The lexicon, built once per process on first use."""
    phrases = frozenset(tuple(item.split("_")) for item in INTERJECTIONS.split())
    evidence = {lang: frozenset(words.split()) for lang, words in EVIDENCE.items()}
    assert tuple(evidence) == LATIN_LANGUAGES
    languages_of: dict[str, set[str]] = {}
    for lang, words in evidence.items():
        for word in words:
            languages_of.setdefault(word, set()).add(lang)
    evidence_words = frozenset(languages_of)
    letters = {lang: frozenset(chars) for lang, chars in LETTERS.items()}
    neutral = frozenset(NEUTRAL.split())
    drugs = frozenset(DRUGS.split())
    name_particles = frozenset(NAME_PARTICLES.split())
    singles = frozenset(phrase[0] for phrase in phrases if len(phrase) == 1)

    rules: dict[str, tuple[tuple[int, ...], int]] = {}
    sizes: dict[str, set[int]] = {}
    for phrase in phrases:
        if len(phrase) > 1:
            sizes.setdefault(phrase[0], set()).add(len(phrase))
    # Alone, a token is first an interjection (kept as evidence when it is a
    # function word too), then a title, unit or drug: the detector's order.
    for word in singles | neutral | drugs | sizes.keys():
        if word in singles:
            alone = INTERJECTION_EVIDENCE if is_word_of(word, evidence_words) else INTERJECTION
        elif word in neutral or word in drugs:
            alone = CONTENT_FREE
        else:
            alone = ORDINARY
        rules[word] = (tuple(sorted(sizes.get(word, ()), reverse=True)), alone)

    return Lexicon(
        evidence=evidence,
        languages_of={word: frozenset(langs) for word, langs in languages_of.items()},
        letters=letters,
        interjections=phrases,
        neutral=neutral,
        dose_words=frozenset(DOSE_WORDS.split()),
        urdu_words=frozenset(URDU_WORDS.split()),
        arabic_words=frozenset(ARABIC_WORDS.split()),
        name_particles=name_particles,
        zh_markers=frozenset(ZH_MARKERS),
        roman_hindustani=frozenset(ROMAN_HINDUSTANI.split()),
        drugs=drugs,
        max_phrase=max(len(p) for p in phrases),
        evidence_words=evidence_words,
        evidence_beyond_particles=evidence_words - name_particles,
        evidence_counts={word: pack_languages(langs) for word, langs in languages_of.items()},
        letter_indices=tuple(
            (LATIN_LANGUAGES.index(lang), chars) for lang, chars in letters.items()
        ),
        any_letter=frozenset().union(*letters.values()),
        single_interjections=singles,
        interjection_initials=frozenset(word[0] for word in singles),
        phrase_openings=frozenset((p[0], p[1]) for p in phrases if len(p) > 1),
        dropped_alone=frozenset(w for w, (_, alone) in rules.items() if alone in _DROPPED),
        evidence_interjections=frozenset(
            w for w, (_, alone) in rules.items() if alone == INTERJECTION_EVIDENCE
        ),
        rules=rules,
    )
