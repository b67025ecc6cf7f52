"""Word tests of the name rules: which token can be part of a name (no common
word, no medical term), a known given name or surname, and how far a name
starting at a token extends."""

from __future__ import annotations

from .phi_doc import SENTENCE_END, Doc
from .phi_lexicon import fold
from .phi_name_cues import (
    _ARABIC_RE,
    _MEDICAL_NEXT,
    _NOT_AFTER_RELATION,
    _NOT_NICKNAMES,
    _PARTICLES,
    _TITLE_WORDS,
    _VOWELS,
)

__all__: list[str] = []


def _stem(low: str) -> str:
    return low.removesuffix("'s").removesuffix("’s")


def _medical(doc: Doc, k: int) -> bool:
    low = _stem(doc.low(k))
    med = doc.lex.medical
    if low in med or (low.endswith("s") and low[:-1] in med) or doc.low(k + 1) in _MEDICAL_NEXT:
        return True
    for phrase in doc.lex.medical_phrases.get(low, ()):
        if all(_stem(doc.low(k + m)).rstrip("s") == p.rstrip("s") for m, p in enumerate(phrase)):
            return True
    # the second word of a phrase ("epstein barr", "lou gehrig")
    prev = _stem(doc.low(k - 1))
    return any(len(p) > 1 and p[1] == low for p in doc.lex.medical_phrases.get(prev, ()))


def _local_at(doc: Doc, k: int) -> bool:
    """Token ``k`` is an ordinary word of the text's language ("la mesa", "vestido
    blanco"), and not capitalized inside a typed sentence ("habló con Ana Blanco"),
    which in German, where every noun is, tells nothing."""
    if not 0 <= k < len(doc.lows) or fold(doc.lows[k]) not in doc.local:
        return False
    return not (
        doc.cased
        and doc.language != "de"
        and doc.capitalized(k)
        and k > 0
        and doc.lows[k - 1] not in SENTENCE_END
    )


def _local(doc: Doc, i: int, j: int) -> bool:
    """A token of ``i``..``j`` is an ordinary word of the text's language: no name
    unless a cue says so."""
    return bool(doc.local) and any(_local_at(doc, k) for k in range(i, j + 1))


def _arabic(low: str) -> bool:
    return not low.isascii() and _ARABIC_RE.search(low) is not None


def _plain(doc: Doc, k: int) -> bool:
    """Token ``k`` is a free word that could be part of a name (not common, not medical)."""
    if not doc.free(k):
        return False
    low = doc.lows[k]
    if doc.nums[k] is not None or not doc.is_alpha(k) or (len(low) < 2 and not _arabic(low)):
        return False
    if low in _TITLE_WORDS:
        return False  # "Bonjour Monsieur Dupont": the title is no part of the name
    stem = _stem(low)  # "my computer's ip": a word's possessive is a word
    lex = doc.lex
    if low in lex.common or low in lex.words or stem in lex.words or _medical(doc, k):
        return False
    # "je suis essoufflé quand": an ordinary word of the text's language is no name
    # part, unless it is a listed name ("me llamo maría lópez")
    return not doc.local or not _local_at(doc, k) or _known(doc, k)


def _surname_next(doc: Doc, k: int, known: bool) -> bool:
    """Token ``k + 1`` can be the surname of the given name ``k``: no common word, capitalized
    in typed text, and a known surname when ``known``."""
    j = k + 1
    if doc.cased and not (doc.free(j) and doc.capitalized(j)):
        return False
    if not _plain(doc, j):
        # "Wilhelmina Drake": a capitalized surname that is a common word too
        return doc.cased and _word_surname(doc, j)
    return not _arabic(doc.low(j)) and (_known(doc, j) or not known)


def _word_surname(doc: Doc, k: int) -> bool:
    """Token ``k`` is a known surname that is a common word too ("white", "drake")."""
    low = doc.low(k)
    return (
        doc.free(k)
        and doc.is_alpha(k)
        and low in doc.lex.words
        and low not in doc.lex.common
        and low not in _TITLE_WORDS
        and fold(_stem(low)) in doc.lex.surnames
        and not _medical(doc, k)
    )


def _given(doc: Doc, k: int) -> bool:
    """Token ``k`` is a known given name ("maría", "Maria", "john's")."""
    return fold(_stem(doc.low(k))) in doc.lex.first_names


def _known(doc: Doc, k: int) -> bool:
    low = fold(_stem(doc.low(k)))
    bare = low.replace("'", "").replace("’", "")  # "o'connell" is listed as "oconnell"
    names = doc.lex.first_names
    return low in names or low in doc.lex.surnames or bare in names or bare in doc.lex.surnames


def _object_name(doc: Doc, k: int) -> bool:
    """Token ``k``, after "tell", "ask", "under" ..., is a name: a free word no word
    list has, capitalized in typed text ("tell bartholomew", "Ask Siobhan")."""
    if not _plain(doc, k) or _arabic(doc.low(k)):
        return False
    if doc.cased:
        return doc.capitalized(k)
    return _known(doc, k) or len(doc.low(k)) > 2


def _cue_word_then_surname(doc: Doc, k: int) -> bool:
    """Typed text: a capitalized word that is no function word nor medical term, then a
    capitalized known surname that is no word ("From: Temperance Aldridge")."""
    low = doc.low(k)
    return (
        doc.cased
        and doc.free(k)
        and doc.is_alpha(k)
        and doc.capitalized(k)
        and low not in doc.lex.common
        and low not in _TITLE_WORDS
        and not _medical(doc, k)
        and doc.free(k + 1)
        and doc.capitalized(k + 1)
        and _plain(doc, k + 1)
        and _known(doc, k + 1)
    )


def _word_then_surname(doc: Doc, k: int) -> bool:
    """Token ``k`` is a word that is no function word nor medical term ("sky", "temperance")
    and a surname follows it: a listed one that is no word, or a word no list has."""
    low = doc.low(k)
    j = k + 1
    return (
        doc.free(k)
        and doc.is_alpha(k)
        and len(low) > 2
        and low not in doc.lex.common
        and low not in _TITLE_WORDS
        and not _medical(doc, k)
        and doc.free(j)
        and (not doc.cased or (doc.capitalized(k) and doc.capitalized(j)))
        and _plain(doc, j)
        and not _arabic(doc.low(j))
        and (_known(doc, j) or len(doc.low(j)) > 3)
    )


def _nickname(doc: Doc, k: int) -> bool:
    """Token ``k`` ends a "call me ..." clause and is a word that can be a nickname
    ("everyone calls me chip", not "call me back")."""
    low = doc.low(k)
    after = doc.low(k + 1)
    return (
        doc.free(k)
        and doc.is_alpha(k)
        and len(low) > 2
        and low not in doc.lex.common
        and low not in _NOT_NICKNAMES
        and not _medical(doc, k)
        and (not doc.cased or doc.capitalized(k))
        and (after in ("", ".", ",", "!", "?", "and", "but", "because", "since"))
    )


def _with_name(doc: Doc, k: int) -> bool:
    """After "with", "for" ...: a known given name that is no word, then a surname."""
    return (
        _plain(doc, k)
        and _given(doc, k)
        and not _arabic(doc.low(k))
        and (not doc.cased or doc.capitalized(k))
        and _surname_next(doc, k, False)
    )


def _accept_first(doc: Doc, k: int, kind: str) -> bool:
    if _local(doc, k, k) and not _given(doc, k):
        # "mi hermana vive", "Im Herbst": an ordinary word of the text's language,
        # unless a title and a capital say otherwise ("el doctor Blanco")
        return kind == "title" and doc.cased and doc.capitalized(k)
    if kind == "object":
        return _object_name(doc, k)
    if kind == "with":
        return _with_name(doc, k)
    if kind == "strong" and (_word_then_surname(doc, k) or _nickname(doc, k)):
        return True  # "my name is sky whitcombe", "everyone calls me chip"
    if kind != "bare" and _cue_word_then_surname(doc, k):
        return True
    if (
        kind == "relation"
        and not doc.cased
        and doc.free(k)
        and doc.is_alpha(k)
        and _given(doc, k)
        and doc.low(k) not in _NOT_AFTER_RELATION
        # "mi abuelo está" is no "esta": an accented word is listed as written
        and (doc.low(k).isascii() or doc.low(k) in doc.lex.first_names)
        and not _medical(doc, k)
    ):
        return True  # "my grandma pearl turned ninety six", not "my son will drive"
    if (
        kind != "bare"
        and doc.cased
        and doc.free(k)
        and doc.capitalized(k)
        and (
            _given(doc, k)
            or (kind == "title" and _known(doc, k))
            or (kind == "patient" and _known(doc, k) and doc.low(k) not in doc.lex.words)
        )
        and not _medical(doc, k)
    ):
        return True  # "my son Will", "Dr. Le", "Dr. Young": the cue and the capital decide
    if (
        kind == "strong"
        and doc.free(k)
        and doc.is_alpha(k)
        and (_given(doc, k) or (_known(doc, k) and doc.low(k) not in doc.lex.common))
        and not _medical(doc, k)
    ):
        return True  # "call me bill", "my name is will", "the name's bond"
    if (
        kind != "strong"
        and doc.free(k)
        and doc.is_alpha(k)
        and (not doc.cased or doc.capitalized(k))
        and (_given(doc, k) or (kind == "weak" and _plain(doc, k)))
        # "my ip", "My Fitbit": a function word is no given name here
        and (
            doc.low(k) not in doc.lex.common
            or (len(doc.low(k)) > 2 and (doc.cased or kind != "bare"))
        )
        and not _medical(doc, k)
        and _surname_next(doc, k, kind == "bare" and not doc.cased)
    ):
        # "this is grace halloran", "Will Baker called", "it's percival castellano"
        return True
    if kind == "title" and not doc.cased and _word_surname(doc, k):
        return True  # "doctor young"
    if not _plain(doc, k):
        return False
    low = doc.low(k)
    given = _given(doc, k)
    if kind == "strong":
        return True
    if kind == "title":
        return not doc.cased or doc.capitalized(k) or _arabic(low)
    if kind == "patient":
        return _known(doc, k) and (not doc.cased or doc.capitalized(k))
    if doc.cased and not doc.capitalized(k):
        return kind == "relation" and given
    if _arabic(low):
        return given
    if kind == "bare":
        # a given name alone, no cue: a frequent one ("ask james about the refill"), in
        # English (in French "je monte", in Italian "è alta" are no names)
        # unless capitalized inside a typed sentence ("La enfermera Carmen me tomó")
        return fold(_stem(low)) in doc.lex.frequent_first_names and (
            doc.language in (None, "en")
            or (doc.cased and k > 0 and doc.lows[k - 1] not in SENTENCE_END)
        )
    if kind == "weak":
        return given or (doc.cased and doc.capitalized(k))
    # relation in a transcript: a known name, or an unknown word that is not a verb
    return given or (len(low) > 2 and not low.endswith(("ed", "ing", "s")))


def _accept_next(doc: Doc, k: int, strict: bool) -> bool:
    if _plain(doc, k):
        low = doc.low(k)
        if _arabic(low):
            return _known(doc, k) or low.startswith("ال")
        if doc.cased:
            return doc.capitalized(k)
        if strict:
            return _known(doc, k)
        return _known(doc, k) or not low.endswith(("ed", "ing"))
    # a known surname that is a common word too: "John White", "grace hill"
    return (doc.capitalized(k) if doc.cased else not strict) and _word_surname(doc, k)


def _letters_end(doc: Doc, k: int) -> int:
    """Last token of a name spelled out from token ``k`` ("o k o n k w o"), or -1.

    At least three single letters with a vowel among them, and no number after
    them (a spelled identifier: "x j h four four one two").
    """
    lows = doc.lows
    j = k
    while doc.free(j) and len(lows[j]) == 1 and lows[j].isalpha():
        j += 1
    if j - k < 3 or _VOWELS.isdisjoint(lows[k:j]) or (j < len(lows) and doc.nums[j] is not None):
        return -1
    return j - 1


def _extend(doc: Doc, k: int, strict: bool) -> int:
    """Last token of the name whose first token is ``k`` (up to three parts).

    ``strict``: only known names extend it, for a name found without an
    introduction in a transcript ("my son julien viendra" ends at "julien").
    """
    end = k
    j = k + 1
    while j < len(doc.lows) and j - k < 4 and _stem(doc.low(end)) == doc.low(end):
        if doc.low(j) in _PARTICLES and _accept_next(doc, j + 1, strict) and doc.cased:
            end = j = j + 1
        elif (
            doc.low(j) == "-"
            and doc.ends[j - 1] == doc.starts[j]
            and j + 1 < len(doc.lows)
            and doc.ends[j] == doc.starts[j + 1]
            and doc.free(j)
            and _accept_next(doc, j + 1, False)
        ):
            end = j = j + 1  # "ruiz-diaz"
        elif _accept_next(doc, j, strict):
            end = j
        else:
            break
        j += 1
    return end


def _given_at(doc: Doc) -> list[int]:
    """The indices of the tokens :func:`_given` accepts, in order.

    An ASCII token not ending in "'s" is its own lookup key (``fold`` and
    ``_stem`` leave it alone): a set intersection answers for those, and only
    the other distinct words are folded and stemmed.
    """
    names = doc.lex.first_names
    vocab = doc.vocab
    norm = doc.norm
    hits: set[str] | frozenset[str] = names.intersection(vocab)
    odd = [] if norm.isascii() else [low for low in vocab if not low.isascii()]
    if "'s" in norm:
        odd += [low for low in vocab if low.endswith("'s") and low.isascii()]
    if odd:
        found = set(hits)
        for low in odd:
            if fold(_stem(low)) in names:
                found.add(low)
            else:
                found.discard(low)
        hits = found
    if not hits:
        return []
    return [k for k, low in enumerate(doc.lows) if low in hits]


def _name_cased(text: str) -> bool:
    """``text`` is written as a name is: "Okoro", "McAllister", "O'Neill", not
    "FlexTouch" or "COPD"."""
    for prefix in ("Mc", "Mac", "O'", "O’", "D'", "D’"):
        if text.startswith(prefix) and text[len(prefix) : len(prefix) + 1].isupper():
            text = text[len(prefix) :]
            break
    return text[:1].isupper() and text[1:].islower()
