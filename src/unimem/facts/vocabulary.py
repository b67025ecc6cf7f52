"""The words the facts rules look for, loaded once from shipped data files.

Drug names come from the medical lexicon the PHI detector and the summarizer
already use (``unimem/privacy/data/medical_terms.txt``, its "Drugs"
sections); ``facts/data/terms.txt`` adds allergens, conditions, specialties,
procedures, symptoms and languages, each with how it is said in English,
Spanish, French and Arabic. A drug said in another language's spelling
("metformina", "amoxicilline") or in Arabic script ("ميتفورمين") is found by
its spelling skeleton, so the drug list needs no translation.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

from .morphology import condition_by_shape, drug_by_shape

__all__ = [
    "Mention",
    "Vocabulary",
    "find_terms",
    "fold",
    "get_vocabulary",
    "one_letter_off",
    "spells",
    "words_of",
]

SECTIONS = (
    "drugs",
    "allergens",
    "conditions",
    "specialties",
    "procedures",
    "symptoms",
    "languages",
)
_MAX_PHRASE = 5
_WORD = re.compile(r"\d{1,2}h(?:\d{2})?(?!\w)|\d+(?:[.,:]\d+)*|[\w'’-]+")
_AR_PREFIXES = ("وبال", "بال", "وال", "فال", "لل", "ال", "و", "ب", "ل", "ف")
_AR_LETTERS = str.maketrans(
    {
        "ب": "b",
        "ت": "t",
        "ث": "t",
        "ج": "j",
        "خ": "k",
        "د": "d",
        "ذ": "d",
        "ر": "r",
        "ز": "s",
        "س": "s",
        "ش": "s",
        "ص": "s",
        "ض": "d",
        "ط": "t",
        "ظ": "d",
        "غ": "j",
        "ف": "f",
        "ق": "k",
        "ك": "k",
        "ل": "l",
        "م": "m",
        "ن": "n",
    }
)
_AR_DROP = re.compile(r"[^bdfjklmnrst]")
_LATIN_CONSONANTS = str.maketrans({"c": "k", "q": "k", "p": "b", "v": "f", "g": "j", "z": "s"})


def fold(text: str) -> str:
    """Lowercase, Latin letters without accents ("Pénicilline" -> "penicilline"),
    Arabic without its short-vowel marks (its letters are kept)."""
    text = text.lower()
    if text.isascii():
        return text
    out = []
    for char in text:
        if ord(char) < 0x250:
            out.append(
                "".join(
                    c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
                )
            )
        elif not ("\u064b" <= char <= "\u0652" or char == "\u0640"):
            out.append(char)
    return "".join(out).replace("œ", "oe")


def words_of(text: str) -> list[str]:
    """The folded words of ``text``."""
    return _WORD.findall(fold(text))


def said_words(text: str) -> list[str]:
    """The words of ``text`` as written (lowercase, accents kept), one per :func:`words_of` word."""
    return [word for word in _WORD.findall(text.lower())]


def _latin_skeleton(word: str) -> str:
    """A Latin spelling reduced to what survives translation: ph, th, y and
    doubled letters squeezed, a final vowel dropped ("metformina" ->
    "metformin", "amoxicillin" -> "amoxicilin")."""
    out = word.replace("ph", "f").replace("th", "t").replace("y", "i").replace("ch", "sh")
    out = re.sub(r"(.)\1+", r"\1", out)
    return out.rstrip("aeo") if len(out) > 4 else out


def _consonants(word: str) -> str:
    """The consonants an Arabic spelling of ``word`` writes (c before e/i is s)."""
    skeleton = re.sub(r"c(?=[eiy])", "s", _latin_skeleton(word)).replace("sh", "s")
    skeleton = re.sub(r"[aeiouwhy'’-]", "", skeleton)
    return skeleton.replace("x", "ks").translate(_LATIN_CONSONANTS)  # x is written كس


def _arabic_skeleton(word: str) -> str:
    return _AR_DROP.sub("", word.translate(_AR_LETTERS))


@dataclass(frozen=True, slots=True)
class Mention:
    """A term found in a turn: its section, canonical key and word span."""

    section: str
    key: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Phrases (tuples of folded words) to ``(section, key)``, and the drug skeletons."""

    phrases: dict[tuple[str, ...], tuple[str, str]]
    latin_drugs: dict[str, str]
    arabic_drugs: dict[str, str]
    common: frozenset[str]
    #: a drug name of 7 letters or more with one letter left out, to the name
    #: (a typed "omeprazle" is omeprazole)
    one_letter_out: dict[str, str]


def _read(package: str, name: str) -> str:
    return resources.files(package).joinpath("data", name).read_text("utf-8")


def _drug_names() -> set[str]:
    names: set[str] = set()
    take = False
    for line in _read("unimem.privacy", "medical_terms.txt").splitlines():
        line = line.strip()
        if line.startswith("#"):
            take = "drugs" in line.lower() or "brand names" in line.lower()
        elif line and take:
            names.add(fold(line))
    return names


@functools.cache
def get_vocabulary() -> Vocabulary:
    """The vocabulary, read on first use and kept for the process."""
    drugs = _drug_names()
    extra: list[tuple[str, str, str]] = []
    section = ""
    for raw in _read("unimem.facts", "terms.txt").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, _, said = line.partition(":")
        key = key.strip()
        if section == "drugs":
            drugs.add(key)
        # a language's code is no word of its own ("en", "es" are words)
        forms = (
            said.split("|") if section == "languages" else [key.replace("-", " "), *said.split("|")]
        )
        for form in forms:
            extra.append((section, key, form))
    # one name per spelling skeleton: the shortest ("metformin" for "metformina")
    latin: dict[str, str] = {}
    for name in sorted(drugs, key=lambda n: (len(n), n)):
        if " " not in name:
            latin.setdefault(_latin_skeleton(name), name)
    canonical = set(latin.values())
    arabic: dict[str, list[str]] = {}
    for name in sorted(canonical):
        arabic.setdefault(_consonants(name), []).append(name)
    phrases: dict[tuple[str, ...], tuple[str, str]] = {}
    for name in sorted(drugs):
        key = latin.get(_latin_skeleton(name), name) if " " not in name else name
        phrases[tuple(words_of(name))] = ("drugs", key)
    for section, key, form in extra:
        words = tuple(words_of(form))
        if words:
            if section == "drugs":
                phrases[words] = ("drugs", key)
            else:
                phrases.setdefault(words, (section, key))
    common = frozenset(_read("unimem.privacy", "english_words.txt").split())
    return Vocabulary(
        phrases=phrases,
        latin_drugs=latin,
        arabic_drugs={k: v[0] for k, v in arabic.items() if len(v) == 1 and len(k) >= 4},
        common=common,
        one_letter_out=_one_letter_out(canonical),
    )


_TYPO_MIN = 7  # a shorter name is too close to other words for one letter to be a typo


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_letter_out(names: set[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in sorted(names):
        if len(name) < _TYPO_MIN or not name.isalpha():
            continue
        for short in _deletions(name):
            if short in out and out[short] != name:
                taken.add(short)  # two names one letter away: no guess
            out[short] = name
    return {k: v for k, v in out.items() if k not in taken and k not in names}


def one_letter_off(word: str, name: str) -> bool:
    """Whether ``word`` is ``name`` (7 letters or more) typed with one letter left
    out, added, changed or two swapped ("omeprazle", "omeprazolle", "omeprasole")."""
    if len(name) < _TYPO_MIN or abs(len(word) - len(name)) > 1 or word == name:
        return False
    if len(word) == len(name):
        diff = [i for i, (a, b) in enumerate(zip(word, name, strict=True)) if a != b]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == name[diff[1]]
        return len(diff) == 1 or (swapped and word[diff[1]] == name[diff[0]])
    short, long = (word, name) if len(word) < len(name) else (name, word)
    return short in _deletions(long)


def _typed_drug(word: str, vocabulary: Vocabulary) -> str | None:
    """A known drug typed with one letter off, or None."""
    if len(word) < _TYPO_MIN - 1 or not word.isalpha():
        return None
    found = vocabulary.one_letter_out.get(word)  # a letter left out
    if found is None:
        near = {vocabulary.latin_drugs.get(_latin_skeleton(s)) for s in _deletions(word)}
        near |= {vocabulary.one_letter_out.get(s) for s in _deletions(word)}
        near.discard(None)
        found = near.pop() if len(near) == 1 else None
    return found if found is not None and one_letter_off(word, found) else None


def spells(word: str, name: str) -> bool:
    """Whether ``word`` (folded, from :func:`words_of`) spells the one-word
    ``name`` the way the vocabulary compares spellings: the same, its Spanish or
    French spelling ("ranolazina", "baclofene"), one letter off ("omeprazole"
    for "omeprazle"), or its consonants in Arabic script ("البيوغليتازون")."""
    word = _bare(word)
    if word == name:
        return True
    if word.isascii():
        if len(word) < 5:
            return False
        return _latin_skeleton(word) == _latin_skeleton(name) or one_letter_off(word, name)
    want = _consonants(name)
    if len(want) < 4 or len(word) < 5 or not _whole_drug_token(word):
        return False
    return any(
        _arabic_skeleton(word[len(prefix) :]) == want
        for prefix in ("", *_AR_PREFIXES)
        if word.startswith(prefix)
    )


# Letters no Arabic spelling of a Latin drug name writes (ع ح have no Latin
# sound, ة ends Arabic nouns): a word holding one is not a drug.
_AR_NOT_IN_DRUGS = frozenset("عحة")
# verbs of using that share a drug's consonants ("أستخدم", I use)
_AR_NOT_DRUGS = frozenset(["أستخدم", "استخدم"])


def _whole_drug_token(word: str) -> bool:
    """Whether every letter of ``word`` can be part of a drug's Arabic spelling:
    its consonants are compared with a drug's, so a letter the comparison
    drops must be a vowel letter, never ع, ح, ة or a pronoun ending ("أستعمله",
    I use it, is s-t-m-l as cytomel but is no drug)."""
    if word in _AR_NOT_DRUGS or _AR_NOT_IN_DRUGS.intersection(word):
        return False
    return not word.endswith(("ه", "ها", "هم", "ني"))


def _arabic_drug(word: str, vocabulary: Vocabulary) -> str | None:
    if len(word) < 6 or not _whole_drug_token(word):
        return None
    for prefix in ("", *_AR_PREFIXES):
        if word.startswith(prefix):
            found = vocabulary.arabic_drugs.get(_arabic_skeleton(word[len(prefix) :]))
            if found:
                return found
    return None


def _strip_arabic(word: str) -> list[str]:
    out = [word[len(p) :] for p in _AR_PREFIXES if word.startswith(p) and len(word) - len(p) >= 2]
    if word.startswith(("لل", "ولل")) and len(word) > 4:  # لل is ل + ال: "للفول" is "ل" + "الفول"
        out.append("ال" + word[word.index("لل") + 2 :])
    return out


# an elided article or pronoun glued to the word ("l'ibuprofene", "d'amoxicilline")
_ELIDED = re.compile(r"^(?:l|d|qu|j|m|t|s|n|c|jusqu|lorsqu|puisqu)['’](?=\w{2})")


_POSSESSIVE = re.compile(r"['’]s$")


def _bare(word: str) -> str:
    """``word`` without an elided French article before it ("l'ibuprofene" -> "ibuprofene")
    or an English possessive after it ("the heart doctor's office")."""
    if "'" not in word and "’" not in word:
        return word
    return _POSSESSIVE.sub("", _ELIDED.sub("", word))


def find_terms(words: list[str], vocabulary: Vocabulary | None = None) -> list[Mention]:
    """Every vocabulary term in ``words`` (from :func:`words_of`), longest first, left to right."""
    vocab = vocabulary or get_vocabulary()
    words = [_bare(w) for w in words]
    found: list[Mention] = []
    i = 0
    while i < len(words):
        hit: Mention | None = None
        for size in range(min(_MAX_PHRASE, len(words) - i), 0, -1):
            span = tuple(words[i : i + size])
            entry = vocab.phrases.get(span)
            if entry is None and not span[0].isascii():
                for bare in _strip_arabic(span[0]):
                    entry = vocab.phrases.get((bare, *span[1:]))
                    if entry:
                        break
            if entry:
                hit = Mention(entry[0], entry[1], i, i + size)
                break
        if hit is None:
            word = words[i]
            drug: str | None = None
            if word.isascii() and len(word) >= 6 and word not in vocab.common:
                drug = vocab.latin_drugs.get(_latin_skeleton(word))
            elif not word.isascii():
                drug = _arabic_drug(word, vocab)
            if drug is None and word.isascii() and word not in vocab.common:
                drug = _typed_drug(word, vocab)
            if drug is None and word.isascii():
                drug = drug_by_shape(words, i, vocab.common)
                condition, start = ("", i) if drug else condition_by_shape(words, i, vocab.common)
                if condition:
                    hit = Mention("conditions", condition, start, i + 1)
            if drug:
                hit = Mention("drugs", drug, i, i + 1)
        if hit is not None:
            found.append(hit)
            i = hit.end
        else:
            i += 1
    return found
