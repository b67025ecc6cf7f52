"""Build the PHI detector's name and word lists from the US Census lists, Faker's
per-locale name lists and word frequencies.

Writes these files under ``src/unimem/privacy/data/`` (shipped with the package,
read at run time by ``unimem.privacy.phi_lexicon``; nothing here is needed at
run time):

- ``census_first_names.txt``: every given name of the 1990 US Census lists
  (male and female);
- ``census_surnames.txt``: every surname of the 1990 US Census list;
- ``english_words.txt``: English words with a Zipf frequency of at least
  ``MIN_ZIPF`` (``wordfreq``) that are no Census name, and the Census names that
  are common words too;
- ``world_first_names.txt`` and ``world_surnames.txt``: the given names and
  surnames of Faker's person providers (one per locale: Nigerian, Kenyan, Irish,
  Indian, Polish, Turkish, Vietnamese, Japanese and Chinese romanized ...) in
  Latin letters, each word of a name on its own, that no Census list has
  (accents aside), that are no word of English, Spanish, French, German,
  Italian, Portuguese or Dutch (a Zipf frequency of ``MIN_ZIPF`` or more) and
  at least three letters long;
- ``words_<lang>.txt`` for the languages of ``LOCAL_LANGUAGES``: the ordinary words of
  that language (used in it far more than in the others: "mesa", "blanco", "petit",
  "koch"), which in text of that language are no name without a cue.

A Census name is a common word too when (1) the system dictionary
(``/usr/share/dict/words``, Debian's ``wamerican``) lists it in lowercase, (2) its
Zipf frequency is at least ``MIN_ZIPF``, and (3) it is used in text more than its
share of the population explains: for each list, ``expected = a + log10(share)``
where ``a`` is the median of ``zipf - log10(share)`` over the list's 60 most
frequent names (names first: "james", "smith"), and the name's Zipf frequency
exceeds that by more than the list's ``EXCESS``; all three in every list that
has it. So "grace", "hope", "will", "white" and "young" are common words too,
and "john", "mary", "smith" and "brown" are not.

The rules use the lists so: a common word is a name only after a strong cue
("my name is grace ...") or, after a weak one, with a surname next.

Usage (build time only): ``pip install names wordfreq faker``, ``apt-get install
wamerican``, then ``python scripts/build_phi_names.py``.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
import statistics
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import faker.providers.person
import names  # type: ignore[import-untyped]
import wordfreq

DATA = Path(__file__).resolve().parent.parent / "src" / "unimem" / "privacy" / "data"
MIN_ZIPF = 3.0
#: How much more often than its share explains a name is used when it is a word too.
EXCESS = {"first": 0.5, "last": 0.3}
DICTIONARY = Path("/usr/share/dict/words")
#: Share (percent) given to names the Census list rounds to 0.000.
FLOOR = 0.0005
_WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _census(*files: str) -> dict[str, float]:
    folder = Path(names.__file__).parent
    shares: dict[str, float] = {}
    for file in files:
        for line in (folder / file).read_text("ascii").splitlines():
            parts = line.split()
            if parts:
                name = parts[0].lower()
                shares[name] = max(shares.get(name, 0.0), float(parts[1]), FLOOR)
    return shares


def _zipf(word: str) -> float:
    return float(wordfreq.zipf_frequency(word, "en"))


def _word_names(shares: dict[str, float], excess: float, lowercase: set[str]) -> set[str]:
    """The names of one list that are common words too (see the module's docstring)."""
    top = sorted(shares, key=shares.__getitem__, reverse=True)[:60]
    a = statistics.median(_zipf(w) - math.log10(shares[w]) for w in top)
    return {
        w
        for w, share in shares.items()
        if w in lowercase and _zipf(w) >= MIN_ZIPF and _zipf(w) - (a + math.log10(share)) > excess
    }


#: A name word in Latin letters (accents included), as Faker writes them.
_LATIN_RE = re.compile(r"[a-zà-ɏ]+(?:'[a-zà-ɏ]+)?")


def _faker_names(kind: str) -> dict[str, int]:
    """Each word of the ``kind`` ("first" or "last") names of Faker's person
    providers, with how many locales list it."""
    locales: dict[str, set[str]] = {}
    for module in pkgutil.iter_modules(faker.providers.person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{module.name}").Provider
        for attr, value in vars(provider).items():
            if not (attr.startswith(kind) and "name" in attr) or "kana" in attr:
                continue
            if not isinstance(value, (tuple, list, set, frozenset, dict)):
                continue
            for name in _name_words(value):
                locales.setdefault(name, set()).add(module.name)
    return {name: len(found) for name, found in locales.items()}


def _name_words(value: Iterable[object]) -> set[str]:
    out: set[str] = set()
    for name in value:
        if not isinstance(name, str):
            continue
        text = unicodedata.normalize("NFC", name).lower().replace("-", " ").replace("’", "'")
        out.update(w for w in text.split() if _LATIN_RE.fullmatch(w))
    return out


#: A world name that is a word of one of these languages is left out ("vino", "hasta").
WORD_LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl")


def _fold(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _world(kind: str, census: dict[str, float], common: set[str]) -> list[str]:
    """Faker's names of ``kind`` that no Census list has (accents aside) and that are
    no word of ``WORD_LANGUAGES``."""
    return sorted(
        w
        for w in _faker_names(kind)
        if len(w) >= 3
        and _fold(w) not in census
        and w.replace("'", "") not in census
        and w not in common
        # English words are ``common`` (dictionary words, not "hamish"); the others by frequency
        and all(wordfreq.zipf_frequency(w, lang) < MIN_ZIPF for lang in WORD_LANGUAGES[1:])
    )


#: Languages given a list of their ordinary words, which in text of that language are
#: no name without a cue ("la mesa", "le petit chat", "der Koch").
LOCAL_LANGUAGES = ("es", "fr", "de", "it", "pt", "nl")
LOCAL_ZIPF = 3.3
#: How much more often than in the other languages (median of their Zipf frequencies)
#: ``lang`` uses one of its words, one that is a surname too ("blanco", not "lópez")
#: and one that is a given name too ("jürgen").
LOCAL_EXCESS = 1.0
LOCAL_EXCESS_SURNAME = 1.5
LOCAL_EXCESS_GIVEN = 2.0


def _local_words(lang: str, given: set[str], surnames: set[str]) -> list[str]:
    """Words of ``lang`` used in it far more than in English and the other languages of
    ``LOCAL_LANGUAGES``: its own words, where a name is about as frequent everywhere
    ("juan" and "pierre" are frequent in every language). Elsewhere a word counts with
    or without its accents ("garcía" is "garcia" in English)."""
    others = [o for o in ("en", *LOCAL_LANGUAGES) if o != lang]

    def seen(w: str, o: str) -> float:
        return max(wordfreq.zipf_frequency(w, o), wordfreq.zipf_frequency(_fold(w), o))

    found: list[str] = []
    for w in wordfreq.top_n_list(lang, 60_000):
        if not _LATIN_RE.fullmatch(w) or len(w) < 3:
            continue
        zipf = wordfreq.zipf_frequency(w, lang)
        if zipf < LOCAL_ZIPF:
            break
        elsewhere = statistics.median(seen(w, o) for o in others)
        folded = _fold(w)
        if folded in given:
            excess = LOCAL_EXCESS_GIVEN
        elif folded in surnames:
            excess = LOCAL_EXCESS_SURNAME
        else:
            excess = LOCAL_EXCESS
        if zipf - elsewhere >= excess:
            found.append(w)
    return found


def _write(name: str, header: str, words: list[str]) -> None:
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    # ten words a line keeps the files short and diffs readable
    lines += [" ".join(words[i : i + 10]) for i in range(0, len(words), 10)]
    (DATA / name).write_text("\n".join(lines) + "\n", "utf-8")
    print(f"{name}: {len(words)} words")


def main() -> None:
    """Write the five lists."""
    first = _census("dist.male.first", "dist.female.first")
    last = _census("dist.all.last")
    lowercase = {w for w in DICTIONARY.read_text("utf-8").split() if w.islower()}
    word_first = _word_names(first, EXCESS["first"], lowercase)
    word_last = _word_names(last, EXCESS["last"], lowercase)

    def is_word(w: str) -> bool:
        w = w.replace("'", "")  # "o'connell" is listed as "oconnell"
        return (w not in first or w in word_first) and (w not in last or w in word_last)

    faker_given = set(_faker_names("first"))
    dictionary = {w.lower() for w in DICTIONARY.read_text("utf-8").split()}
    common = [
        w
        for w in wordfreq.top_n_list("en", 100_000)
        if _WORD_RE.fullmatch(w)
        and _zipf(w) >= MIN_ZIPF
        and is_word(w)
        # "hamish", "gunnar": frequent, but a given name of Faker's lists that the
        # dictionary does not have ("Texas", "African" and "de" stay words)
        and (w in dictionary or len(w) < 4 or w not in faker_given)
    ]
    made = "Made by scripts/build_phi_names.py; do not edit by hand."
    common_set = set(common)
    census = {**first, **last}
    _write(
        "world_first_names.txt",
        "Given names of Faker's person providers (all locales, Latin letters) that no\n"
        f"Census list has and that are no English word.\n{made}",
        _world("first", census, common_set),
    )
    _write(
        "world_surnames.txt",
        "Surnames of Faker's person providers (all locales, Latin letters) that no\n"
        f"Census list has and that are no English word.\n{made}",
        _world("last", census, common_set),
    )
    _write(
        "census_first_names.txt",
        f"Given names of the 1990 US Census lists (male and female).\n{made}",
        sorted(first, key=lambda w: (-first[w], w)),
    )
    _write(
        "census_surnames.txt",
        f"Surnames of the 1990 US Census list, most frequent first.\n{made}",
        sorted(last, key=lambda w: (-last[w], w)),
    )
    given = set(first) | {_fold(w) for w in _faker_names("first")}
    surnames = set(last) | {_fold(w) for w in _faker_names("last")}
    for lang in LOCAL_LANGUAGES:
        _write(
            f"words_{lang}.txt",
            f"Ordinary {lang} words: a Zipf frequency in {lang} of at least {LOCAL_ZIPF} and\n"
            f"{LOCAL_EXCESS} above the median of the other languages of the script\n"
            f"({LOCAL_EXCESS_SURNAME} for a surname, {LOCAL_EXCESS_GIVEN} for a given name), "
            "so that\n"
            f"mesa, blanco and petit are words, and juan, rosa, lópez and pierre are not.\n" + made,
            _local_words(lang, given, surnames),
        )
    _write(
        "english_words.txt",
        "English words with a Zipf frequency of at least "
        f"{MIN_ZIPF} (wordfreq), most frequent\nfirst: no Census name, unless it is "
        "a common word too (see the script).\n" + made,
        sorted(common, key=lambda w: (-_zipf(w), w)),
    )


if __name__ == "__main__":
    main()
