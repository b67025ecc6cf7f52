"""Drug names and conditions the shipped vocabulary lacks, found by their shape.

A medicine's international name is built from a stem that says its class
("-sartan", "-olol", "-gliflozin", "-mab"), and a medicine is said with a dose
("X 20 mg", "la X de 40 mg", "X twenty milligrams"). A word with such a stem,
or a word right before a dose that is no common word, is taken for a drug
name. Its key is its English spelling: a Spanish, Portuguese or French
ending is put back ("glimepirida" -> "glimepiride", "baclofene" ->
"baclofen"), so the key does not depend on the language. A condition is found
the same way by its suffix ("sarcoidosis", "neuropathy", "colitis").
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["condition_by_shape", "drug_by_shape"]

# Stems of international nonproprietary names (WHO INN / USAN stems), English spelling.
_STEMS = (
    "pril",
    "sartan",
    "olol",
    "alol",
    "ilol",
    "statin",
    "prazole",
    "conazole",
    "tidine",
    "dipine",
    "semide",
    "thiazide",
    "etanide",
    "xaban",
    "gatran",
    "parin",
    "gliptin",
    "gliflozin",
    "glitazone",
    "glinide",
    "glutide",
    "mab",
    "cycline",
    "mycin",
    "micin",
    "cillin",
    "floxacin",
    "penem",
    "azepam",
    "azolam",
    "oxetine",
    "triptan",
    "triptyline",
    "pramine",
    "apine",
    "peridone",
    "lukast",
    "afil",
    "dronate",
    "setron",
    "profen",
    "fenac",
    "olone",
    "asone",
    "terol",
    "tropium",
    "sonide",
    "zosin",
    "ostat",
    "milast",
    "tinib",
    "ciclib",
    "vudine",
    "navir",
    "previr",
    "asvir",
    "tadine",
    "lamide",
    "zepine",
    "barbital",
    "vastatin",
    "renone",
    "olamine",
    "dronine",
    "afine",
    "oxacin",
)
# a Spanish, Portuguese or French ending put back to English ("-ina" -> "-ine")
_ENDINGS = (
    ("ina", "ine"),
    ("ida", "ide"),
    ("ona", "one"),
    ("ato", "ate"),
    ("ana", "an"),
    ("ene", "en"),
    ("olo", "ol"),
    ("ilo", "il"),
    ("ino", "in"),
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_UNITS = _words(
    "mg mcg µg ug g ml units unit unidades unites milligrams milligram miligramos "
    "milligrammes micrograms microgramos microgrammes ملغ ملغم مغ وحدة"
)
_LINKS = frozenset(["de", "of", "du", "da", "do", "a", "at", "en"])
# words often said right before a dose that name no drug, in the four languages
_NOT_DRUGS = _words(
    """
    dose doses dosage dosis dosage taking takes take took tomo toma tomar tomando prends prend
    prendre pris about around only just like unos unas como comme environ seulement solo solamente
    juste upped raised lowered increased decreased reduced bumped changed switched moved down
    subieron bajaron aumentaron redujeron cambiaron augmente augmentee diminue diminuee baisse
    baissee passe passee dosis pastilla pastillas tableta tabletas comprimido comprimidos capsula
    capsulas comprime comprimes gelule gelules cachet cachets sobre sobres pill pills tablet
    tablets capsule capsules shot shots injection injections inyeccion piqure piqures now ahora
    maintenant todavia encore still also tambien aussi otra otro autre more mas plus menos moins
    less hasta jusqu para pour avec con sans sin cada chaque every morning evening night noche
    manana matin soir desayuno cena diner dejeuner almuerzo lunch breakfast dinner twice once
    vez veces fois daily diario diaria usually normally siempre toujours always never nunca jamais
    dosage posologie entonces alors then after before despues antes apres avant mientras pendant
    pesa peso poids weigh weighs weight contains contiene contient whole entera entero half mitad
    moitie medicine medicina medicament medicaments medicamento medicamentos remedio remedios
    drug drugs droga farmaco farmacos dosis unidad etait etaient estaba estaban eran seria sera
    serait serais avait avaient tenia tenian tiene tienen quedo queda quedan reste restent devient
    donc pues bueno voila exactly exactamente exactement quizas probably probablemente
    probablement actually realmente vraiment right total totale maximo maximum minimo minimum
        """
)
_CONDITION_SUFFIXES = ("itis", "osis", "emia", "aemia", "pathy", "patia", "algia", "iasis")
_CONDITION_JOINED = ("ive", "al", "ic", "ous", "oid", "ary", "ar", "osa", "oso", "ica", "ico")


def _english(word: str) -> str:
    for said, english in _ENDINGS:
        if word.endswith(said) and len(word) > len(said) + 3:
            return word[: -len(said)] + english
    return word


def _has_stem(word: str) -> bool:
    return any(word.endswith(stem) and len(word) > len(stem) + 2 for stem in _STEMS)


def _dose_after(words: Sequence[str], at: int) -> bool:
    """A dose ("20 mg", "de 40 mg") starts right after word ``at``."""
    i = at + 1
    if i < len(words) and words[i] in _LINKS:
        i += 1
    return (
        i + 1 < len(words)
        and words[i].replace(".", "", 1).replace(",", "", 1).isdigit()
        and words[i + 1] in _UNITS
    )


def drug_by_shape(words: Sequence[str], at: int, common: frozenset[str]) -> str | None:
    """The drug name (English spelling) that word ``at`` of ``words`` is by its
    shape, or None: a Latin word of 5+ letters, no common word, with a drug
    stem or said right before a dose."""
    word = words[at]
    if len(word) < 5 or not word.isascii() or not word.isalpha() or word in common:
        return None
    if word in _NOT_DRUGS:
        return None
    english = _english(word)
    if english in common:
        return None
    if len(word) >= 7 and (_has_stem(english) or _has_stem(word)):
        return english
    if _dose_after(words, at):
        return english
    return None


def condition_by_shape(words: Sequence[str], at: int, common: frozenset[str]) -> tuple[str, int]:
    """A condition word at ``at`` by its suffix ("sarcoidosis", "neuropathy"), as
    ``(key, start)`` with an adjective said just before it ("ulcerative colitis"),
    or ``("", at)``."""
    word = words[at]
    if len(word) < 7 or not word.isascii() or not word.isalpha() or word in common:
        return "", at
    if not word.endswith(_CONDITION_SUFFIXES):
        return "", at
    key, start = word, at
    before = words[at - 1] if at else ""
    if before.isalpha() and len(before) > 4 and before.endswith(_CONDITION_JOINED):
        key, start = f"{before}-{word}", at - 1
    return key, start
