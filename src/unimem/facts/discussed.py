"""The current facts a clause speaks of, named in words the vocabulary lacks.

A medicine found once (in the vocabulary, or by its shape next to a dose) is
later spoken of without what made it found: its bare name ("Le baclofène, le
médecin l'a arrêté"), another spelling ("ranolazina", "البيوغليتازون"), or a
typo ("omeprazole" for a current "omeprazle"). A word of a clause that spells
the one-word name of a current medication, allergy or condition
(:func:`~unimem.facts.vocabulary.spells`) is a mention of that fact, so a
change, a stop or a correction said of it binds to it; a drug the vocabulary
names one letter away from a current one's name is that current one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .changes import CurrentFact
from .vocabulary import Mention, one_letter_off, spells

if TYPE_CHECKING:
    from .extract import Clause

__all__ = ["bind_current"]

_SECTIONS = {"medication": "drugs", "allergy": "allergens", "condition": "conditions"}


def _names(current: Mapping[str, CurrentFact]) -> list[tuple[str, str]]:
    """``(section, name)`` of the current facts named in one word."""
    out: list[tuple[str, str]] = []
    for key, fact in current.items():
        section = _SECTIONS.get(fact.kind)
        name = key.partition(":")[2]
        if section and name and "-" not in name and len(name) >= 5:
            out.append((section, name))
    return out


def bind_current(clause: Clause, current: Mapping[str, CurrentFact]) -> Clause:
    """``clause`` with a mention for each word naming a current fact (and a drug
    mention one letter off a current medicine's name taken for that medicine)."""
    names = _names(current)
    if not names:
        return clause
    mentions = list(clause.mentions)
    changed = False
    for number, mention in enumerate(mentions):
        if mention.section != "drugs" or f"medication:{mention.key}" in current:
            continue
        near = [n for s, n in names if s == "drugs" and one_letter_off(mention.key, n)]
        if len(near) == 1:
            mentions[number] = dataclasses.replace(mention, key=near[0])
            changed = True
    covered = {i for m in mentions for i in range(m.start, m.end)}
    for at, word in enumerate(clause.words):
        if at in covered or len(word) < 5 or word.isdigit():
            continue
        found = [(s, n) for s, n in names if spells(word, n)]
        if len(found) == 1:
            mentions.append(Mention(found[0][0], found[0][1], at, at + 1))
            changed = True
    if not changed:
        return clause
    mentions.sort(key=lambda m: m.start)
    return dataclasses.replace(clause, mentions=tuple(mentions))
