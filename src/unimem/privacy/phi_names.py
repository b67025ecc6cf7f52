"""Person names, typed or spoken, in English, Spanish, French and Arabic.

Names are found these ways, most trusted first:

1. after an introduction ("my name is", "me llamo", "je m'appelle", "اسمي"), a
   title ("dr", "doctora", "madame", "الدكتور") or a relation ("my wife", "mi hijo");
   a given name that is a common word too ("grace", "will") counts after a strong
   cue ("my name is grace") or, after a weak one ("this is", "it's"), with a
   surname next ("this is grace halloran");
2. a known given name ("john", "maría", "sophie"), with the surname after it, in
   any sentence ("spoke with Desmond Okafor", "Wilhelmina Drake is allergic"); a
   given name that is a common word too only with a surname;
3. a name spelled out letter by letter ("o k o n k w o") after a spelling or name
   cue or right after a name;
4. other mentions of a name found in the same text;
5. never from capital letters alone, and never for a medical term: "Parkinson's
   disease", "Hodgkin lymphoma", "Bell's palsy" and drug names are in the lexicon.
"""

from __future__ import annotations

from .phi_doc import SENTENCE_END, Doc
from .phi_lexicon import fold
from .phi_name_cues import (
    _AFTER_INTRO,
    _ARTICLES,
    _CUE_FIRST,
    _DETERMINERS,
    _INTRO_CUES,
    _KINDS,
    _LONGEST,
    _PARTICLES,
    _PLACE_AFTER,
    _PLACE_BEFORE,
    _SCORES,
    _SECOND,
    _SKIP_AFTER_CUE,
    _SPELL_CUES,
    _TITLE_WORDS,
    _WORKPLACES,
)
from .phi_name_words import (
    _accept_first,
    _arabic,
    _extend,
    _given,
    _given_at,
    _letters_end,
    _local,
    _medical,
    _name_cased,
    _plain,
    _word_surname,
)

__all__ = ["find_names"]


def _find_spelled(doc: Doc, names: set[str]) -> None:
    """Claim names spelled out after a spelling or name cue, right after a name,
    or spelling a name found in the text."""
    lows = doc.lows
    k = 0
    while k < len(lows):
        end = _letters_end(doc, k) if len(lows[k]) == 1 else -1
        if end < 0:
            k += 1
            continue
        spelled = "".join(lows[k : end + 1])
        if k > 0 and lows[k - 1] == spelled and _plain(doc, k - 1):
            # "that's thorncroft t h o r n c r o f t": a word and its own spelling
            doc.claim("PERSON", k - 1, k - 1, _SCORES["strong"])
            doc.claim("PERSON", k, end, _SCORES["strong"])
            k = end + 1
            continue
        before = range(max(0, k - 3), k)
        if (
            any(doc.low(b) in _SPELL_CUES for b in before)
            or (k > 0 and doc.used[k - 1] and doc.low(k - 1).isalpha())
            or spelled in names
        ):
            doc.claim("PERSON", k, end, _SCORES["strong"])
        k = end + 1


def find_names(doc: Doc) -> None:
    """Claim person names.

    The cue scan only visits tokens that begin a cue (a key of ``_LONGEST``),
    and the scan for bare given names only the tokens :func:`_given_at` lists:
    every other token is skipped by both scans as it stands.
    """
    lows = doc.lows
    n = len(lows)
    i = 0
    cue_tokens: set[int] = set()
    cues = (
        [k for k, low in enumerate(lows) if low in _LONGEST]
        if not _CUE_FIRST.isdisjoint(doc.vocab)
        else []
    )
    for at in cues:
        if at < i:
            continue  # inside a cue or a name just claimed
        i = at
        kind = None
        size = 0
        top = min(_LONGEST[lows[i]], n - i)
        if top > 1 and lows[i + 1] not in _SECOND[lows[i]]:
            top = 1  # no longer cue starts with these two words
        for size in range(top, 0, -1):
            kind = _KINDS.get(tuple(lows[i : i + size]))
            if kind is not None:
                break
        if kind is None or not doc.free(i, i + size - 1):
            i += 1
            continue
        cue_tokens.update(range(i, i + size))
        start = i + size
        while doc.low(start) in _SKIP_AFTER_CUE and start - (i + size) < 2:
            start += 1
        if doc.low(start) == "name" and doc.low(start + 1) in {"is", "'s"}:
            i = start  # "my wife's name is karen": the introduction decides
            continue
        if kind in ("strong", "weak") and (spelled := _letters_end(doc, start)) >= 0:
            doc.claim("PERSON", start, spelled, _SCORES[kind])  # "my name is o k o n k w o"
            i = spelled + 1
            continue
        if (
            kind == "title"
            and not doc.cased
            and doc.low(i - 1) in _ARTICLES
            and doc.low(start) in doc.lex.words
        ):
            i += size  # "the nurse drew blood": a role, and a word after it
            continue
        named = start
        while doc.low(named) in _PARTICLES and named - start < 3:
            named += 1
        if (
            doc.cased
            and kind in ("strong", "title", "weak", "patient")
            and named > start
            and doc.free(start, named)
            and doc.capitalized(named)
            and _plain(doc, named)
        ):
            end = _extend(doc, start, False)  # "Dr. van der Berg"
            doc.claim("PERSON", start, end, _SCORES[kind])
            i = end + 1
        elif _accept_first(doc, start, kind):
            end = _extend(doc, start, kind == "relation")
            doc.claim("PERSON", start, end, _SCORES[kind])
            i = end + 1
        elif (
            tuple(lows[i : i + size]) in _INTRO_CUES
            and not doc.cased
            and _plain(doc, start)
            and lows[start].isascii()
            and len(lows[start]) > 2
            and (start + 1 == n or lows[start + 1] in _AFTER_INTRO)
        ):
            doc.claim("PERSON", start, start, _SCORES["weak"])  # "this is chidi from ..."
            i = start + 1
        else:
            i += size
    for k in _given_at(doc):
        if not doc.free(k) or _arabic(lows[k]) or k in cue_tokens:
            continue  # "mon mari" is a cue, not a given name
        if not (lows[k].isascii() or lows[k] in doc.lex.first_names or doc.capitalized(k)):
            continue  # "la leña" is no "lena" (unless written as a name: "María")
        if _accept_first(doc, k, "bare"):
            end = _extend(doc, k, True)
            if doc.low(k - 1) in _PLACE_BEFORE or doc.low(end + 1) in _PLACE_AFTER:
                continue
            if _local(doc, k, end) or (doc.local and doc.low(k - 1) in _DETERMINERS):
                continue  # "el vestido blanco", "le petit chat", "une belle fontaine"
            doc.claim("PERSON", k, end, _SCORES["bare"])
    _find_before_surnames(doc)
    if doc.cased or (doc.language == "en" and doc.norm.isascii()):
        _find_unlisted_pairs(doc)
    _find_at_work(doc)
    found = _name_parts(doc)
    if found or any(len(low) == 1 for low in doc.vocab):
        _find_spelled(doc, {"".join(part.split()) for part in found})
    if found:
        _find_mentions(doc, found)


def _find_at_work(doc: Doc) -> None:
    """Claim a given name, even one that is a common word, opening a clause and followed
    by where the person works: "Mark from billing called", "April at reception"."""
    lows = doc.lows
    for k in _given_at(doc):
        if not (k == 0 or lows[k - 1] in SENTENCE_END or lows[k - 1] == ","):
            continue
        if not doc.free(k) or (doc.cased and not doc.capitalized(k)):
            continue
        if lows[k] in {"will", "may", "can"} or doc.low(k + 1) not in {"from", "at"}:
            continue
        place = k + 2 + (doc.low(k + 2) in {"the", "our", "your"})
        if doc.low(place) in _WORKPLACES and not _medical(doc, k) and not _local(doc, k, k):
            doc.claim("PERSON", k, k, _SCORES["bare"])


def _find_unlisted_pairs(doc: Doc) -> None:
    """Claim two words in a row of which neither is a common word, a medical term
    or a title: a name neither list has. In typed text both are capitalized
    ("Ottoline Featherstone reports"); in an English transcript both are no
    English word and ASCII letters ("i told ottoline featherstone"), as a
    transcriber writes dictionary words but for names."""
    lows = doc.lows
    cased = doc.cased
    # A pair's words are each longer than two letters and neither a common
    # word, a frequent English word nor a title (what ``_plain`` refuses):
    # decided once per distinct word, so that most texts skip the pair scan.
    lex = doc.lex
    open_words = {
        low
        for low in doc.vocab
        if len(low) > 2
        and low not in lex.common
        and low not in lex.words
        and low not in _TITLE_WORDS
    }
    if len(open_words) == 0:
        return
    for k in range(len(lows) - 1):
        if (
            lows[k] in open_words
            and lows[k + 1] in open_words
            and doc.free(k, k + 1)
            and (
                (_name_cased(doc.token_text(k)) and _name_cased(doc.token_text(k + 1)))
                if cased
                else (lows[k].isascii() and lows[k + 1].isascii())
            )
            and _plain(doc, k)
            and _plain(doc, k + 1)
            and doc.low(k - 1) not in _PLACE_BEFORE
            and doc.low(k + 2) not in _PLACE_AFTER
            and not _local(doc, k, k + 1)
        ):
            doc.claim("PERSON", k, _extend(doc, k + 1, True), _SCORES["bare"])
        elif (
            cased
            and lows[k] in open_words
            and doc.free(k, k + 1)
            and _name_cased(doc.token_text(k))
            and _name_cased(doc.token_text(k + 1))
            and _plain(doc, k)
            and (_given(doc, k) or fold(lows[k]) not in doc.lex.surnames)  # "Hyde Park"
            and _word_surname(doc, k + 1)
            and doc.low(k - 1) not in _PLACE_BEFORE
            and doc.low(k + 2) not in _PLACE_AFTER
            and not _local(doc, k, k + 1)
        ):
            doc.claim("PERSON", k, k + 1, _SCORES["bare"])  # "Booked Jiho Park"


def _find_before_surnames(doc: Doc) -> None:
    """Claim a word that is no common word, no medical term and no known given
    name right before a known surname that is no common word either ("Percival
    Osei called", "so percival pierce told me"): an unlisted given name. In typed
    text both are capitalized."""
    if not doc.cased and doc.language not in (None, "en"):
        return  # "la glicemia prima", "dışkıda kan": in other languages only typed names
    hits = doc.lex.surnames.intersection(doc.vocab)
    if not hits:
        return
    for j in [k for k, low in enumerate(doc.lows) if low in hits and k > 0]:
        k = j - 1
        if (
            doc.free(k, j)
            and (not doc.cased or (doc.capitalized(k) and doc.capitalized(j)))
            and len(doc.lows[k]) > 2
            and _plain(doc, k)
            and _plain(doc, j)
            and not _given(doc, k)
            and doc.low(k - 1) not in _PLACE_BEFORE
            and doc.low(j + 1) not in _PLACE_AFTER
            and not _local(doc, k, j)
        ):
            doc.claim("PERSON", k, _extend(doc, j, True), _SCORES["bare"])


def _name_parts(doc: Doc) -> set[str]:
    """The words of the person names claimed so far ("gertrude", "hoffman")."""
    parts: set[str] = set()
    for span in doc.spans:
        if span.type == "PERSON":
            parts.update(doc.norm[span.start : span.end].split())
    return parts


def _find_mentions(doc: Doc, parts: set[str]) -> None:
    """Claim other mentions of a name part found in the text ("... Okafor said").

    Only parts that are no common word and at least three letters long count.
    """
    lex = doc.lex
    parts = {
        p
        for p in parts
        if len(p) > 2
        and p.isalpha()
        and p not in lex.common
        and p not in lex.words
        and fold(p) not in doc.local
    }
    if not parts or parts.isdisjoint(doc.vocab):
        return
    for k, low in enumerate(doc.lows):
        if low in parts and doc.free(k) and not _medical(doc, k):
            doc.claim("PERSON", k, k, _SCORES["bare"])
