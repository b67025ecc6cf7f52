"""Person names, typed or spoken, in English, Spanish, French and Arabic.

Names are found three ways, most trusted first:

1. after an introduction ("my name is", "me llamo", "je m'appelle", "اسمي"), a
   title ("dr", "doctora", "madame", "الدكتور") or a relation ("my wife", "mi hijo");
2. a known given name ("john", "maría", "sophie") followed by a surname;
3. never from capital letters alone, and never for a medical term: "Parkinson's
   disease", "Hodgkin lymphoma", "Bell's palsy" and drug names are in the lexicon.
"""

from __future__ import annotations

import re

from .phi_doc import Doc, words
from .phi_lexicon import fold

__all__ = ["find_names"]

_KINDS: dict[tuple[str, ...], str] = {}


def _phrases(kind: str, phrases: str) -> None:
    for phrase in phrases.split(","):
        _KINDS[tuple(phrase.split())] = kind


# strong: whatever follows is a name unless it is a common word.
_phrases(
    "strong",
    "my name is,name is,my name's,name's,call me,named,name :,me llamo,mi nombre es,"
    "nombre es,se llama,je m'appelle,m'appelle,mon nom est,nom est,s'appelle,nombre :,nom :,"
    "اسمي,إسمي,اسمه,اسمها,إسمه",
)
# weak: only a known given name (or a capitalized word in typed text) follows.
# patient: a known name follows ("Patient Nguyen Van An", not "Patient Portal").
_phrases("patient", "patient,pt,paciente,patiente,المريض,المريضة")
_phrases("weak", "يا,i'm,i am,im,this is,it's,soy,je suis,c'est,ici,أنا,انا,hi,hello,hola,bonjour")
_phrases(
    "title",
    "dr,dr .,doctor,doctora,nurse practitioner,physician assistant,dra,dra .,docteur,"
    "mr,mr .,mrs,mrs .,ms,ms .,miss,mx,nurse,prof,"
    "professor,sr,sr .,sra,sra .,srta,señor,señora,señorita,don,doña,monsieur,madame,mme,"
    "mlle,الدكتور,الدكتورة,د .,السيد,السيدة,الأستاذ,الاستاذ,dr",
)
_RELATIONS = words(
    "wife husband son daughter mother mom mum father dad brother sister friend neighbor "
    "neighbour caregiver grandson granddaughter grandmother grandfather grandma grandpa "
    "partner cousin aunt uncle nephew niece boyfriend girlfriend hijo hija esposa esposo "
    "marido mujer madre padre mamá papá hermano hermana abuela abuelo vecino vecina amigo "
    "amiga nieto nieta fille fils femme mari mère père frère sœur soeur voisin voisine ami "
    "amie"
)
for _rel in _RELATIONS:
    for _owner in ("my", "mi", "ma", "mon"):
        _KINDS[(_owner, _rel)] = "relation"
for _rel in words("زوجتي زوجي ابني ابنتي بنتي أمي امي أبي ابي أخي اخي أختي اختي جاري صديقي"):
    _KINDS[(_rel,)] = "relation"
#: Longest cue starting with each word, so most tokens are skipped at once.
_LONGEST: dict[str, int] = {}
for _key in _KINDS:
    _LONGEST[_key[0]] = max(_LONGEST.get(_key[0], 0), len(_key))
_CUE_FIRST = frozenset(_LONGEST)
#: The second words of the cues of two words or more, by first word.
_SECOND: dict[str, frozenset[str]] = {
    first: frozenset(k[1] for k in _KINDS if len(k) > 1 and k[0] == first) for first in _LONGEST
}
_ARABIC_RE = re.compile("[\u0600-\u06ff]")
_TITLE_WORDS = frozenset(k[0] for k, kind in _KINDS.items() if kind == "title")
_PARTICLES = frozenset(words("de del la van von der bin ben al el da di du le"))
_MEDICAL_NEXT = frozenset(
    words(
        "disease diseases syndrome palsy lymphoma sign test procedure disorder's disorder "
        "maladie enfermedad síndrome syndrome's tumor tumour"
    )
)
_SKIP_AFTER_CUE = frozenset({",", ":", "is", "es", "est", "was", "'s", "."})
# A given name after these is a place or an institution ("in virginia",
# "saint mary's hospital"), not a person, unless a cue says otherwise.
_PLACE_BEFORE = frozenset(words("in near saint st san santa mount mt fort port"))
_PLACE_AFTER = frozenset(
    words("hospital clinic medical center centre street avenue road county city university")
)
_SCORES = {"patient": 0.8, "strong": 0.9, "title": 0.85, "relation": 0.8, "weak": 0.8, "bare": 0.7}


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
    return low not in doc.lex.common and not _medical(doc, k)


def _given(doc: Doc, k: int) -> bool:
    """Token ``k`` is a known given name ("maría", "Maria", "john's")."""
    return fold(_stem(doc.low(k))) in doc.lex.first_names


def _known(doc: Doc, k: int) -> bool:
    low = fold(_stem(doc.low(k)))
    bare = low.replace("'", "").replace("’", "")  # "o'connell" is listed as "oconnell"
    names = doc.lex.first_names
    return low in names or low in doc.lex.surnames or bare in names or bare in doc.lex.surnames


def _accept_first(doc: Doc, k: int, kind: str) -> bool:
    if (
        kind != "bare"
        and doc.cased
        and doc.free(k)
        and doc.capitalized(k)
        and (_given(doc, k) or (kind in ("title", "patient") and _known(doc, k)))
        and not _medical(doc, k)
    ):
        return True  # "my son Will", "Dr. Le", "Dr. Young": the cue and the capital decide
    if kind == "strong" and doc.free(k) and _given(doc, k) and not _medical(doc, k):
        return True  # "call me bill", "my name is will"
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
    if kind in ("weak", "bare"):
        return given or (kind == "weak" and doc.cased and doc.capitalized(k))
    # relation in a transcript: a known name, or an unknown word that is not a verb
    return given or (len(low) > 2 and not low.endswith(("ed", "ing", "s")))


def _accept_next(doc: Doc, k: int, strict: bool) -> bool:
    if not _plain(doc, k):
        return False
    low = doc.low(k)
    if _arabic(low):
        return _known(doc, k) or low.startswith("ال")
    if doc.cased:
        return doc.capitalized(k)
    if strict:
        return _known(doc, k)
    return _known(doc, k) or not low.endswith(("ed", "ing"))


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


def find_names(doc: Doc) -> None:
    """Claim person names.

    The cue scan only visits tokens that begin a cue (a key of ``_LONGEST``),
    and the scan for bare given names only the tokens :func:`_given_at` lists:
    every other token is skipped by both scans as it stands.
    """
    lows = doc.lows
    n = len(lows)
    i = 0
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
        start = i + size
        while doc.low(start) in _SKIP_AFTER_CUE and start - (i + size) < 2:
            start += 1
        if doc.low(start) == "name" and doc.low(start + 1) in {"is", "'s"}:
            i = start  # "my wife's name is karen": the introduction decides
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
            end = _extend(doc, start, kind in ("relation", "weak"))
            doc.claim("PERSON", start, end, _SCORES[kind])
            i = end + 1
        else:
            i += size
    for k in _given_at(doc):
        if not doc.free(k) or _arabic(lows[k]):
            continue
        if _accept_first(doc, k, "bare"):
            end = _extend(doc, k, True)
            if doc.low(k - 1) in _PLACE_BEFORE or doc.low(end + 1) in _PLACE_AFTER:
                continue
            doc.claim("PERSON", k, end, _SCORES["bare"])
