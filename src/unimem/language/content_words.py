"""The tokens of a text that may carry language: numbers and doses, units and
titles, drug names (list plus suffix rules), interjections and name-only texts
dropped."""

from __future__ import annotations

import re
from itertools import islice, repeat
from typing import Final

from .lexicon import INTERJECTION_EVIDENCE, ORDINARY, Lexicon, is_word_of

__all__ = [
    "ASCII_DIGIT",
    "BEYOND_LATIN",
    "DIGIT",
    "content_tokens",
    "only_names",
    "split_tokens",
]

# A token is a run of characters between separators (white space and the
# punctuation below), without the apostrophes, hyphens and underscores at its
# edges; a run of those alone is no token. Replacing the punctuation by spaces
# and splitting on white space finds the runs: str.split() splits on exactly
# the characters the regex class \s matches.
_PUNCTUATION = re.compile(r"[.,!?;:¿¡()\[\]{}\"“”„«»،؟。、！？，：；…/+=*~|]")
_EDGE = "'’-‐_"
DIGIT = re.compile(r"\d")
ASCII_DIGIT = re.compile("[0-9]")
#: A character from U+0250 on. Below it the only digits (\d) are 0-9, and
#: there is no letter of a script but Latin, nor a CJK character.
BEYOND_LATIN = re.compile("[^\x00-\u024f]")
#: Drug-name endings (tested with ``str.endswith``).
_DRUG_SUFFIXES: Final = (
    "pril", "sartan", "olol", "dipine", "statin", "formin", "gliptin", "gliflozin", "glutide",
    "prazole", "tidine", "cillin", "mycin", "floxacin", "cycline", "conazole", "vir", "mab",
    "tinib", "parin", "xaban", "gatran", "afil", "triptan", "lukast", "semide", "thiazide",
    "zepam", "zolam", "oxetine", "pramine", "triptyline", "setron", "olone", "terol",
    "tropium", "dronate",
)  # fmt: skip
_DRUG_SUFFIX_ENDINGS: Final = frozenset(suffix[-3:] for suffix in _DRUG_SUFFIXES)


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


def split_tokens(text: str) -> list[str]:
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
    return bool(may_have_digit and DIGIT.search(token)) or _is_drug_by_suffix(token)


def content_tokens(
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
        dropped.update(filter(DIGIT.search, tokens))
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
    """:func:`content_tokens`, token by token."""
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


def only_names(
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
    spelled = split_tokens(source)
    if positions is None:
        wanted = set(latin)
        return [word for token, word in zip(tokens, spelled, strict=True) if token in wanted]
    return [spelled[i] for i in positions]
