"""Word lists of the PHI detector, loaded once, lazily, from the package.

``medical_terms.txt`` (eponyms, conditions, drugs) is shipped in
``unimem/privacy/data/`` and extended by ``<data dir>/lexicons/medical_terms.txt``
when a deployment provides one (the data directory of the settings:
:func:`unimem.settings.data_dir_from_env`).
Terms found there are never taken for person names.

The name lists are the hand-written ``first_names.txt`` and ``surnames.txt``
(several languages) with the US Census lists ``census_first_names.txt`` and
``census_surnames.txt``; ``english_words.txt`` lists frequent English words,
among them the names that are common words too ("grace", "will", "white").
``world_first_names.txt`` and ``world_surnames.txt`` add the names of other
origins (Faker's per-locale lists) that no Census list has and that are no word.
``words_<lang>.txt`` (Spanish, French, German, Italian, Portuguese, Dutch) list the
ordinary words of that language ("mesa", "blanco", "petit", "koch"), read only for
text in that language: there they are no name without a cue.
The Census, world, English and per-language lists are made by
``scripts/build_phi_names.py``.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..config import resolve_data_dir
from ..errors import ConfigurationError

__all__ = [
    "Lexicon",
    "clear_lexicon_cache",
    "fold",
    "get_lexicon",
    "local_words",
    "medical_terms_path",
]


def _words(text: str) -> set[str]:
    words: set[str] = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words.update(line.lower().split())
    return words


def _first_words(text: str, count: int) -> set[str]:
    """The first ``count`` words of a list file, in file order."""
    found: list[str] = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            found += line.lower().split()
            if len(found) >= count:
                break
    return set(found[:count])


#: The most frequent Census given names: one of them alone is a name in a transcript.
FREQUENT_FIRST_NAMES = 1500


def _terms(text: str) -> set[str]:
    return {
        " ".join(line.lower().split())
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    }


class _Marks(dict[int, int | None]):
    """A ``str.translate`` table deleting combining marks, filled as characters turn up.

    Each code point maps to None when ``unicodedata.combining`` says it is a
    combining mark and to itself otherwise; the answer is stored on first sight
    (at most one entry per code point).
    """

    def __missing__(self, code: int) -> int | None:
        value = None if unicodedata.combining(chr(code)) else code
        self[code] = value
        return value


_MARKS = _Marks()


def fold(word: str) -> str:
    """``word`` without accents ("maría" -> "maria"), for name-list lookups."""
    if word.isascii():
        return word
    return unicodedata.normalize("NFKD", word).translate(_MARKS)


def _with_folded(words: set[str]) -> frozenset[str]:
    return frozenset(words | {fold(w) for w in words})


def _packaged(name: str) -> str:
    return resources.files("unimem.privacy").joinpath("data", name).read_text("utf-8")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The word lists, all lowercase."""

    #: Single-word medical terms ("parkinson", "metformin").
    medical: frozenset[str]
    #: Multi-word medical terms as token tuples, keyed by their first token.
    medical_phrases: dict[str, tuple[tuple[str, ...], ...]]
    #: Function words and frequent verbs of every supported language (hand-written).
    common: frozenset[str]
    first_names: frozenset[str]
    #: The hand-written given names and the most frequent Census ones.
    frequent_first_names: frozenset[str]
    surnames: frozenset[str]
    #: Frequent English words, the names that are common words too among them.
    words: frozenset[str]


def medical_terms_path(data_dir: Path | None = None) -> Path:
    """Where a deployment's extra medical terms live: ``<data dir>/lexicons/medical_terms.txt``."""
    return (resolve_data_dir() if data_dir is None else data_dir) / "lexicons" / "medical_terms.txt"


def get_lexicon() -> Lexicon:
    """The lexicon for the current data directory, built on first use and cached.

    The data directory is the settings' (``UNIMEM_DATA_DIR``, see
    :func:`unimem.settings.data_dir_from_env`). It is read once per data
    directory and process: restart (or call :func:`clear_lexicon_cache`) after
    changing the deployment's file.

    Raises:
        ConfigurationError: the deployment's medical terms file exists but cannot be read.
    """
    # (unimem.settings imports unimem.privacy: imported here, not at module level)
    from ..settings import data_dir_from_env

    return _load(_extra_path(data_dir_from_env()))


@functools.lru_cache(maxsize=8)
def _extra_path(data_dir: Path) -> Path:
    # memoized per data directory instead of building the same Path on every detection
    return medical_terms_path(data_dir)


@functools.lru_cache(maxsize=8)
def _load(extra: Path) -> Lexicon:
    terms = _terms(_packaged("medical_terms.txt"))
    if extra.is_file():
        try:
            terms |= _terms(extra.read_text("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigurationError(
                f"cannot read the medical terms lexicon at {extra}: {type(exc).__name__};"
                " make it a readable UTF-8 text file with one term per line"
            ) from exc
    single: set[str] = set()
    phrases: dict[str, list[tuple[str, ...]]] = {}
    for term in terms:
        parts = tuple(
            p.removesuffix("'s").removesuffix("’s") for p in term.replace("-", " ").split()
        )
        if len(parts) == 1:
            single.add(parts[0].removesuffix("'s").removesuffix("’s"))
        else:
            phrases.setdefault(parts[0], []).append(parts)
    hand_first = _words(_packaged("first_names.txt"))
    census_first = _packaged("census_first_names.txt")
    return Lexicon(
        medical=frozenset(single),
        medical_phrases={k: tuple(v) for k, v in phrases.items()},
        common=frozenset(_words(_packaged("common_words.txt"))),
        first_names=_with_folded(
            hand_first | _words(census_first) | _words(_packaged("world_first_names.txt"))
        ),
        frequent_first_names=_with_folded(
            hand_first | _first_words(census_first, FREQUENT_FIRST_NAMES)
        ),
        surnames=_with_folded(
            _words(_packaged("surnames.txt"))
            | _words(_packaged("census_surnames.txt"))
            | _words(_packaged("world_surnames.txt"))
        ),
        words=frozenset(_words(_packaged("english_words.txt"))),
    )


#: The languages with a list of their ordinary words (``words_<lang>.txt``).
LOCAL_LANGUAGES = frozenset({"es", "fr", "de", "it", "pt", "nl"})
_NO_WORDS: frozenset[str] = frozenset()


def local_words(language: str | None) -> frozenset[str]:
    """The ordinary words of ``language`` (ISO 639-1, lowercase), with and without
    accents; empty for English, None and the languages without a list."""
    if language not in LOCAL_LANGUAGES:
        return _NO_WORDS
    return _load_local(language)


@functools.lru_cache(maxsize=len(LOCAL_LANGUAGES))
def _load_local(language: str) -> frozenset[str]:
    return _with_folded(_words(_packaged(f"words_{language}.txt")))


def clear_lexicon_cache() -> None:
    """Forget the loaded lexicons, so the next detection reads the files again."""
    _load.cache_clear()
    _extra_path.cache_clear()
    _load_local.cache_clear()
