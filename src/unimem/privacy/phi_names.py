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
    "my name is,name is,my name's,name's,call me,calls me,named,name :,first name,last name,"
    "surname,family name,given name,goes by,go by,me llamo,mi nombre es,"
    "nombre es,se llama,je m'appelle,m'appelle,mon nom est,nom est,s'appelle,nombre :,nom :,"
    "اسمي,إسمي,اسمه,اسمها,إسمه",
)
# weak: only a known given name (or a capitalized word in typed text) follows.
# patient: a known name follows ("Patient Nguyen Van An", not "Patient Portal").
_phrases("patient", "patient,pt,paciente,patiente,المريض,المريضة")
_phrases(
    "weak",
    "يا,i'm,i am,im,this is,it's,soy,je suis,c'est,ici,أنا,انا,hi,hello,hey,hola,bonjour,"
    "thanks,thank you,dear,spoke with,spoke to,talked to,talked with,talking to,"
    "talking with,speak with,speak to",
)
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
#: Words before a name spelled out letter by letter ("spelled o k o n k w o").
_SPELL_CUES = frozenset(
    words("spelled spelt spell spelling spells name surname name's letters deletreo s'écrit")
)
_VOWELS = frozenset("aeiouy")


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
    return low not in doc.lex.common and low not in doc.lex.words and not _medical(doc, k)


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


def _accept_first(doc: Doc, k: int, kind: str) -> bool:
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
        # a given name alone, no cue: a frequent one ("ask james about the refill")
        return fold(_stem(low)) in doc.lex.frequent_first_names
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
        before = range(max(0, k - 3), k)
        if (
            any(doc.low(b) in _SPELL_CUES for b in before)
            or (k > 0 and doc.used[k - 1] and doc.low(k - 1).isalpha())
            or "".join(lows[k : end + 1]) in names
        ):
            doc.claim("PERSON", k, end, _SCORES["strong"])
        k = end + 1


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
        else:
            i += size
    for k in _given_at(doc):
        if not doc.free(k) or _arabic(lows[k]) or k in cue_tokens:
            continue  # "mon mari" is a cue, not a given name
        if _accept_first(doc, k, "bare"):
            end = _extend(doc, k, True)
            if doc.low(k - 1) in _PLACE_BEFORE or doc.low(end + 1) in _PLACE_AFTER:
                continue
            doc.claim("PERSON", k, end, _SCORES["bare"])
    _find_before_surnames(doc)
    if doc.cased or (doc.language == "en" and doc.norm.isascii()):
        _find_unlisted_pairs(doc)
    found = _name_parts(doc)
    if found:
        _find_spelled(doc, {"".join(part.split()) for part in found})
        _find_mentions(doc, found)


def _name_cased(text: str) -> bool:
    """``text`` is written as a name is: "Okoro", "McAllister", "O'Neill", not
    "FlexTouch" or "COPD"."""
    for prefix in ("Mc", "Mac", "O'", "O’", "D'", "D’"):
        if text.startswith(prefix) and text[len(prefix) : len(prefix) + 1].isupper():
            text = text[len(prefix) :]
            break
    return text[:1].isupper() and text[1:].islower()


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
        ):
            doc.claim("PERSON", k, _extend(doc, k + 1, True), _SCORES["bare"])


def _find_before_surnames(doc: Doc) -> None:
    """Claim a word that is no common word, no medical term and no known given
    name right before a known surname that is no common word either ("Percival
    Osei called", "so percival pierce told me"): an unlisted given name. In typed
    text both are capitalized."""
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
        if len(p) > 2 and p.isalpha() and p not in lex.common and p not in lex.words
    }
    if not parts or parts.isdisjoint(doc.vocab):
        return
    for k, low in enumerate(doc.lows):
        if low in parts and doc.free(k) and not _medical(doc, k):
            doc.claim("PERSON", k, k, _SCORES["bare"])
