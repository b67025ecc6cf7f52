"""A change said of a current fact binds to it even when the vocabulary lacks the
words it is said in: the bare name of a medicine found by its shape, another
spelling, a typo; a rejected dose no medicine has corrects none; a move to a
day with no month keeps the month; a thousand said in words is a number
(unimem.facts.extract_facts)."""

from __future__ import annotations

import pytest

from facts_support import changes as _changes
from facts_support import fact as _fact
from unimem.facts.vocabulary import one_letter_off, spells
from unimem.facts.when import normalize_numbers


def _med(id: str, name: str, dose: str) -> object:
    return _fact(
        id, "medication", f"medication:{name}", dose, name=name, dose=dose, status="taking"
    )


BACLOFEN = _med("m1", "baclofen", "10 mg")
RANOLAZINE = _med("m2", "ranolazine", "500 mg")
PIOGLITAZONE = _med("m3", "pioglitazone", "15 mg")
OMEPRAZLE = _med("m4", "omeprazle", "20 mg")  # found by its shape, as typed


@pytest.mark.parametrize(
    ("text", "language", "current"),
    [
        ("Le baclofène, le médecin l'a arrêté il y a dix jours.", "fr", BACLOFEN),
        ("la ranolazina ya no la tomo, me la quitaron", "es", RANOLAZINE),
        ("وقفوا البيوغليتازون بسبب التورم", "ar", PIOGLITAZONE),
        ("stopped the omeprazole, didnt need it anymore", "en", OMEPRAZLE),
    ],
)
def test_a_stop_said_in_other_words_closes_the_current_medicine(
    text: str, language: str, current: object
) -> None:
    (stop,) = _changes(text, language=language, current=[current])  # type: ignore[list-item]
    assert (stop.op, stop.replaces, stop.attributes["status"]) == (
        "supersede",
        current.id,
        "stopped",
    )  # type: ignore[attr-defined]


def test_a_raised_dose_in_words_binds_to_the_medicine_named() -> None:
    (up,) = _changes(
        "y me subieron la ranolazina a mil miligramos", language="es", current=[RANOLAZINE]
    )
    assert (up.op, up.replaces, up.attributes["dose"]) == ("supersede", "m2", "1000 mg")


def test_a_word_naming_no_current_fact_binds_to_nothing() -> None:
    assert (
        _changes(
            "la ventana ya no cierra bien, me la quitaron", language="es", current=[RANOLAZINE]
        )
        == []
    )


def test_a_typed_drug_one_letter_off_is_the_drug() -> None:
    (med,) = _changes("and omeprazle 20 mg b4 breakfast")
    assert (med.key, med.attributes["dose"]) == ("medication:omeprazole", "20 mg")
    assert one_letter_off("omeprazle", "omeprazole") and one_letter_off("omerpazole", "omeprazole")
    assert not one_letter_off("omeprazole", "omeprazole") and not one_letter_off("zolof", "zoloft")
    assert spells("ranolazina", "ranolazine") and spells("البيوغليتازون", "pioglitazone")
    assert not spells("ranitidine", "ranolazine")


def test_a_rejected_dose_no_medicine_has_corrects_none() -> None:
    current = [_med("m5", "glimepiride", "2 mg")]
    assert _changes("correction: it's 80 mg not 40", current=current) == []
    (fix,) = _changes("correction: it's 4 mg not 2", current=current)
    assert (fix.replaces, fix.attributes["dose"]) == ("m5", "4 mg")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("oh and the heart doctor's office moved me to the seventeenth same time", "en"),
        ("they moved my cardiology appointment to the 17th", "en"),
        ("me pasaron la cita de cardiología al 17, a la misma hora", "es"),
    ],
)
def test_a_move_to_a_day_with_no_month_keeps_the_month_and_time(text: str, language: str) -> None:
    old = _fact(
        "a1",
        "appointment",
        "appointment:cardiology",
        "2027-06-14 09:45",
        name="cardiology",
        date="2027-06-14",
        time="09:45",
    )
    (moved,) = _changes(text, language=language, current=[old])
    assert (moved.op, moved.replaces, moved.attributes["date"], moved.attributes["time"]) == (
        "supersede",
        "a1",
        "2027-06-17",
        "09:45",
    )


def test_a_time_after_a_move_is_no_day() -> None:
    old = _fact(
        "a1",
        "appointment",
        "appointment:cardiology",
        "2027-06-14 09:45",
        name="cardiology",
        date="2027-06-14",
        time="09:45",
    )
    changes = _changes("they moved my cardiology appointment to 3 pm", current=[old])
    assert [c.attributes.get("date") for c in changes] in ([], ["2027-06-14"])


@pytest.mark.parametrize(
    ("words", "language", "number"),
    [
        ("mil miligramos", "es", "1000"),
        ("mil quinientos miligramos", "es", "1500"),
        ("two thousand five hundred units", "en", "2500"),
        ("mille milligrammes", "fr", "1000"),
        ("deux mille", "fr", "2000"),
    ],
)
def test_a_thousand_in_words_is_a_number(words: str, language: str, number: str) -> None:
    assert normalize_numbers(words.split(), language)[0] == number
