"""The patient's preferred name and language, from one clause of a turn.

A name is taken after a cue of the name ("call me ...") or when said against
the current one ("I prefer Franck over Fanfan"); a language when a cue of
language and a language's name are both in the clause.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from .changes import CurrentFact, FactChange
from .reconcile import add_or_supersede
from .vocabulary import get_vocabulary, words_of

if TYPE_CHECKING:
    from .extract import Clause

__all__ = ["preferred_language_changes", "preferred_name_changes"]

_LANGUAGE_NAMES = {
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "ar": "Arabic",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "zh": "Chinese",
    "hi": "Hindi",
    "ur": "Urdu",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "tr": "Turkish",
}
_NOT_A_NAME = frozenset(
    [
        "me",
        "a",
        "an",
        "the",
        "by",
        "back",
        "at",
        "later",
        "tomorrow",
        "when",
        "if",
        "on",
        "in",
        "again",
        "anytime",
        "any",
        "please",
        "instead",
        "not",
        "now",
        "so",
        "and",
        "or",
        "but",
        "to",
        "from",
        "with",
        "for",
        "just",
        "please",
        "that",
        "this",
        "de",
        "la",
        "el",
        "le",
        "por",
        "favor",
        "s'il",
        "vous",
        "au",
        "aux",
        "les",
        "des",
        "du",
        "ce",
        "demain",
        "apres",
        "avant",
        "vers",
        "entre",
        "plus",
        "pas",
        "jamais",
        "cuando",
        "manana",
        "luego",
        "plait",
        "من",
        "فضلك",
        "هكذا",
        "كذا",
        "كذلك",
        "بذلك",
    ]
)
_ARTICLE = re.compile(r"(?:l|d|qu)['’]")
_TOKEN = re.compile(r"\[[A-Z_]+_\d+\]")  # a PHI token of an anonymized fact
_BEFORE_NAME = frozenset(
    ["rather", "just", "simply", "only", "plutot", "juste", "simplement", "mejor", "solo", "nomas"]
)
_KUNYA = ("أم", "أبو", "ابو", "ام")
# "I prefer Franck over Fanfan", "je préfère Franck plutôt que Fanfan",
# "أفضل أبو رامي بدلا من أبو عمر": a name said against the current one
_INSTEAD = re.compile(
    r"\s+(?:over|instead of|rather than|not|plutot que|au lieu de|et pas|en vez de|en lugar de|"
    r"y no|بدلا من|بدلاً من|بدل|وليس)\s+(.+)"
)


def _name_swap(clause: Clause, current: Mapping[str, CurrentFact]) -> int | None:
    """Where the new name starts when the clause prefers a name to the current one."""
    old = current.get("preferred_name")
    prefer = clause.cues.preference.search(clause.text)
    if old is None or not old.value or prefer is None:
        return None
    instead = _INSTEAD.search(clause.text, prefer.end())
    if instead is None:
        return None
    if _TOKEN.fullmatch(old.value.strip()):
        # stored anonymized: the old name is a token, so the name said against
        # it is taken when it is no common word ("mornings instead of evenings")
        rest = instead.group(1).split()
        if not rest or rest[0] in get_vocabulary().common:
            return None
        typed = [w.strip(",.!?;:") for w in clause.raw.split()]
        cased = any(c.isupper() for c in clause.raw)  # typed, not a lowercase transcript
        if (
            cased
            and rest[0].isascii()
            and not any(w[:1].isupper() and words_of(w)[:1] == rest[:1] for w in typed)
        ):
            return None  # "je préfère matin plutôt que soir": a typed name is capitalized
        return prefer.end()
    said = " ".join(words_of(old.value))
    return prefer.end() if instead.group(1).startswith(said) else None


def preferred_name_changes(
    clause: Clause, current: Mapping[str, CurrentFact], corrected: bool
) -> Iterator[FactChange]:
    matches = list(clause.cues.name.finditer(clause.text))
    swap = _name_swap(clause, current) if not matches else None
    starts = [m.end() for m in reversed(matches)] or ([swap] if swap is not None else [])
    words: list[str] = []
    for start in starts:  # the last cue followed by a name ("call me nani, use that")
        words = clause.text[start:].split()
        while words and words[0] in _BEFORE_NAME:
            words = words[1:]
        # "qu'on m'appelle l'après-midi" (call me in the afternoon): an article is no name
        if words and not (
            words[0] in _NOT_A_NAME or words[0].isdigit() or _ARTICLE.match(words[0])
        ):
            break
    else:
        return
    raw_words = clause.raw.split()
    size = 2 if words[0] in _KUNYA and len(words) > 1 else 1
    name = " ".join(words[:size])
    for raw in raw_words:  # the case the patient typed ("Bea"), else capitalized
        if raw.strip(",.!?;:'\"").lower() == words[0] and raw[:1].isupper():
            name = raw.strip(",.!?;:'\"")
            break
    else:
        name = name.title() if name.isascii() else name
    change = add_or_supersede(
        "preferred_name", "preferred_name", name, {}, current, corrected=corrected, keep_old=False
    )
    old = current.get("preferred_name")
    if change is not None and (old is None or (old.value or "").lower() != name.lower()):
        yield change


def preferred_language_changes(
    clause: Clause, current: Mapping[str, CurrentFact]
) -> Iterator[FactChange]:
    languages = [m.key for m in clause.mentions if m.section == "languages"]
    if not languages or not clause.cues.language.search(clause.text):
        return
    code = languages[-1]
    name = _LANGUAGE_NAMES.get(code, code)
    change = add_or_supersede(
        "preferred_language", "preferred_language", name, {"code": code}, current, keep_old=False
    )
    if change is not None:
        yield change
