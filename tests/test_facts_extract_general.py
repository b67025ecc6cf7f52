"""The facts rules on forms none of the tune banks first had: French elided
articles, "they have me on", an intolerance said with a negation, a reaction
after other words, Arabic spellings of x, a name preferred to the current one,
and onsets kept in the patient's spelling (unimem.facts.extract_facts)."""

from __future__ import annotations

import pytest

from facts_support import changes as _changes
from facts_support import fact as _fact
from unimem.facts import FactChange


def _by_key(changes: list[FactChange]) -> dict[str, FactChange]:
    return {c.key: c for c in changes}


CODEINE = _fact("a1", "allergy", "allergy:codeine", "codeine", name="codeine")


def test_a_french_elided_article_does_not_hide_the_drug() -> None:
    (close,) = _changes(
        "En fin de compte je ne suis pas allergique à l'codéine.", language="fr", current=[CODEINE]
    )
    assert (close.op, close.replaces) == ("close", "a1")
    (add,) = _changes("Je ne supporte pas l'amoxicilline, j'y suis allergique.", language="fr")
    assert (add.op, add.key) == ("add", "allergy:amoxicillin")


def test_they_have_me_on_is_the_patient_taking_it() -> None:
    (med,) = _changes("um they have me on montelukast ten milligrams every evening")
    assert (med.key, med.attributes["dose"], med.attributes["status"]) == (
        "medication:montelukast",
        "10 mg",
        "taking",
    )
    assert _changes("they have montelukast at the pharmacy downstairs") == []


@pytest.mark.parametrize(
    ("text", "language", "key"),
    [
        ("No puedo tomar ibuprofeno, soy alérgico.", "es", "allergy:ibuprofen"),
        ("I can't take codeine, I'm allergic.", "en", "allergy:codeine"),
        ("لا أستطيع تناول الإيبوبروفين لأن عندي حساسية.", "ar", "allergy:ibuprofen"),
    ],
)
def test_an_allergy_said_with_cant_take_is_no_denial(text: str, language: str, key: str) -> None:
    (add,) = _changes(text, language=language)
    assert (add.op, add.key) == ("add", key)


@pytest.mark.parametrize(
    ("text", "language", "key", "reaction"),
    [
        ("bee stings makes me sick, my throat closes up.", "en", "allergy:bee-stings", "throat"),
        (
            "L'ibuprofène ne me réussit pas, ça me gratte partout.",
            "fr",
            "allergy:ibuprofen",
            "gratte",
        ),
        (
            "pues la amoxicilina me hace daño se me hincha la cara",
            "es",
            "allergy:amoxicillin",
            "hincha",
        ),
        ("الأموكسيسيلين يسبب لي تورم في الوجه", "ar", "allergy:amoxicillin", "تورم"),
    ],
)
def test_the_reaction_is_the_part_that_names_one(
    text: str, language: str, key: str, reaction: str
) -> None:
    (add,) = _changes(text, language=language)
    assert add.key == key and reaction in add.attributes["reaction"]


def test_the_medication_rule_still_ignores_a_plain_negation() -> None:
    assert _changes("I can't take my lunch break until two.") == []
    assert _changes("I'm not allergic to anything that I know of, I don't take codeine.") == []


NAME = _fact("n1", "preferred_name", "preferred_name", "Fanfan")


@pytest.mark.parametrize(
    ("text", "language", "old", "new"),
    [
        ("Je préfère Franck plutôt que Fanfan.", "fr", "Fanfan", "Franck"),
        ("I'd prefer Chuck over Charlie now.", "en", "Charlie", "Chuck"),
        ("أفضل أبو رامي بدلا من أبو عمر", "ar", "أبو عمر", "أبو رامي"),
    ],
)
def test_a_name_preferred_to_the_current_one_replaces_it(
    text: str, language: str, old: str, new: str
) -> None:
    current = [_fact("n1", "preferred_name", "preferred_name", old)]
    (change,) = _changes(text, language=language, current=current)
    assert (change.op, change.value, change.replaces) == ("supersede", new, "n1")


def test_a_preference_that_names_no_current_name_stays_a_preference() -> None:
    (change,) = _changes("Je préfère le matin plutôt que le soir.", language="fr", current=[NAME])
    assert change.kind == "preference"


def test_call_me_in_the_afternoon_is_a_preference_not_a_name() -> None:
    (change,) = _changes("je préfère qu'on m'appelle l'après-midi.", language="fr")
    assert change.kind == "preference" and "après-midi" in change.value


def test_an_onset_keeps_the_patients_spelling() -> None:
    (change,) = _changes(
        "j'ai les chevilles qui gonflent depuis la semaine dernière", language="fr"
    )
    assert change.key == "symptom:swelling" and "semaine dernière" in change.attributes["onset"]


def test_a_name_preferred_to_an_anonymized_one_replaces_it() -> None:
    current = [_fact("n1", "preferred_name", "preferred_name", "[PERSON_2]")]
    (change,) = _changes("Je préfère Franck plutôt que Fanfan.", language="fr", current=current)
    assert (change.op, change.value, change.replaces) == ("supersede", "Franck", "n1")
    (pref,) = _changes("Je préfère matin plutôt que soir.", language="fr", current=current)
    assert pref.kind == "preference"


@pytest.mark.parametrize(
    ("language", "relative", "own"),
    [
        ("de", "Meine Mutter nimmt Metformin 500 mg.", "Ich nehme Metformin 500 mg."),
        ("it", "Mia madre prende metformina 500 mg.", "Prendo metformina 500 mg."),
        ("pt", "Minha mãe toma metformina 500 mg.", "Tomo metformina 500 mg."),
        (None, "Meine Mutter nimmt Metformin 500 mg.", "I take metformin 500 mg."),
    ],
)
def test_a_relatives_medicine_in_german_italian_or_portuguese_is_not_the_patients(
    language: str | None, relative: str, own: str
) -> None:
    assert _changes(relative, language=language) == []
    (med,) = _changes(own, language=language)
    assert med.key == "medication:metformin"
