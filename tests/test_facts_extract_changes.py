"""The facts rules on switches, corrections, retractions, hypotheticals and the
date, time and number forms added with the tune2 set (unimem.facts.extract_facts)."""

from __future__ import annotations

import pytest

from facts_support import changes as _changes
from facts_support import fact as _fact

LISINOPRIL = _fact(
    "f1",
    "medication",
    "medication:lisinopril",
    "10 mg",
    name="lisinopril",
    dose="10 mg",
    status="taking",
)
PENICILLIN = _fact("a1", "allergy", "allergy:penicillin", "penicillin", name="penicillin")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("They switched me from lisinopril to losartan.", "en"),
        ("i'm taking losartan now instead of the lisinopril", "en"),
        ("the cardiologist replaced my lisinopril with losartan", "en"),
        ("Me pasaron de lisinopril a losartán.", "es"),
        ("On a remplacé le lisinopril par le losartan.", "fr"),
        ("آخذ لوسارتان بدل ليسينوبريل", "ar"),
    ],
)
def test_a_switch_stops_the_old_medicine_and_adds_the_new(text: str, language: str) -> None:
    changes = {c.key: c for c in _changes(text, language=language, current=[LISINOPRIL])}
    old, new = changes["medication:lisinopril"], changes["medication:losartan"]
    assert (old.op, old.attributes["status"], old.replaces) == ("supersede", "stopped", "f1")
    assert old.attributes["dose"] == "10 mg"  # the history keeps what it was
    assert (new.op, new.attributes["status"]) == ("add", "taking")


def test_a_switch_between_two_medicines_not_on_file_takes_the_first_as_the_old_one() -> None:
    changes = _changes("they swapped my lisinopril for losartan 50 mg")
    assert [(c.key, c.attributes.get("dose")) for c in changes] == [
        ("medication:losartan", "50 mg")
    ]


def test_a_question_about_stopping_or_switching_changes_nothing() -> None:
    for text in ("should I stop the lisinopril", "Can I switch from lisinopril to losartan?"):
        assert _changes(text, current=[LISINOPRIL]) == []


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("no wait, the lisinopril is 20 mg, not 10", "en"),
        ("hold on i got that wrong it's twenty uh like milligrams of the lisinopril", "en"),
        ("no espere me equivoqué el lisinopril es de veinte miligramos", "es"),
    ],
)
def test_a_correction_that_starts_with_no_is_no_negation(text: str, language: str) -> None:
    (change,) = _changes(text, language=language, current=[LISINOPRIL])
    assert (change.op, change.attributes["dose"], change.corrected) == ("supersede", "20 mg", True)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("please remove penicillin from my allergies", "en"),
        ("scratch the penicillin allergy", "en"),
        ("quite la alergia a la penicilina, fue un error", "es"),
        ("enlevez la pénicilline de mes allergies", "fr"),
        ("عملت الفحص وليس عندي حساسية من البنسلين", "ar"),
    ],
)
def test_an_allergy_taken_back_without_a_negation_closes(text: str, language: str) -> None:
    (change,) = _changes(text, language=language, current=[PENICILLIN])
    assert (change.op, change.key, change.replaces) == ("close", "allergy:penicillin", "a1")


@pytest.mark.parametrize(
    ("text", "language", "key", "reaction"),
    [
        ("penicillin gives me hives", "en", "allergy:penicillin", "hives"),
        ("eggs make me break out in welts", "en", "allergy:egg", "welts"),
        ("el huevo me da ronchas", "es", "allergy:egg", "ronchas"),
        ("les œufs me donnent un œdème", "fr", "allergy:egg", "œdème"),
    ],
)
def test_a_reaction_without_the_word_allergy_is_an_allergy(
    text: str, language: str, key: str, reaction: str
) -> None:
    (change,) = _changes(text, language=language)
    assert (change.key, change.attributes["reaction"]) == (key, reaction)


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("what if i'm allergic to latex", "en"),
        ("y si soy alérgica al látex", "es"),
        ("et si j'étais allergique au latex", "fr"),
        ("ma belle-sœur prend du lisinopril 10 mg", "fr"),
        ("my dad stopped taking lisinopril", "en"),
    ],
)
def test_hypotheticals_and_in_laws_are_not_the_patients_facts(text: str, language: str) -> None:
    assert _changes(text, language=language, current=[LISINOPRIL]) == []


def test_a_condition_told_by_the_doctor_is_not_also_a_care_instruction() -> None:
    changes = _changes("me dijeron que tengo gota", language="es")
    assert [c.key for c in changes] == ["condition:gout"]


@pytest.mark.parametrize(
    ("text", "language", "date", "time"),
    [
        (
            "i see the cardiologist on the 3rd of january at three fifteen pm",
            "en",
            "2027-01-03",
            "15:15",
        ),
        ("my dermatology appointment is on 1/14 at ten thirty", "en", "2027-01-14", "10:30"),
        ("tengo cita en cardiología el 14/1 al mediodía", "es", "2027-01-14", "12:00"),
        ("je vois le cardiologue le 14/1 à 9h15", "fr", "2027-01-14", "09:15"),
        ("موعد القلب بعد أسبوعين الساعة 11:00", "ar", "2026-12-18", "11:00"),
    ],
)
def test_dates_and_times_said_other_ways(text: str, language: str, date: str, time: str) -> None:
    (change,) = _changes(text, language=language)
    assert change.kind == "appointment"
    assert (change.attributes["date"], change.attributes["time"]) == (date, time)


def test_este_is_a_filler_unless_it_names_a_time() -> None:
    (symptom,) = _changes("me falta el este aire desde ayer", language="es")
    assert (symptom.key, symptom.attributes["onset_date"]) == (
        "symptom:shortness-of-breath",
        "2026-12-03",
    )
    (visit,) = _changes("tengo cita en cardiología este jueves", language="es")
    assert visit.attributes["date"] == "2026-12-10"


METFORMIN = _fact(
    "f2",
    "medication",
    "medication:metformin",
    "500 mg",
    name="metformin",
    dose="500 mg",
    status="taking",
)


def test_a_stop_belongs_to_the_medicine_it_is_said_with() -> None:
    changes = _changes(
        "the doctor discontinued lisinopril and started me on losartan 25 mg",
        current=[LISINOPRIL],
    )
    assert [(c.key, c.attributes["status"]) for c in changes] == [
        ("medication:lisinopril", "stopped"),
        ("medication:losartan", "taking"),
    ]
    changes = _changes(
        "i stopped lisinopril but still take metformin", current=[LISINOPRIL, METFORMIN]
    )
    assert [(c.key, c.attributes["status"]) for c in changes] == [
        ("medication:lisinopril", "stopped")
    ]


@pytest.mark.parametrize(
    "text", ["i used to take lisinopril", "ran out of lisinopril and never refilled it"]
)
def test_a_medicine_no_longer_taken_said_another_way_stops(text: str) -> None:
    (change,) = _changes(text, current=[LISINOPRIL])
    assert (change.op, change.attributes["status"]) == ("supersede", "stopped")


def test_a_correction_with_bare_numbers_fixes_the_medicine_whose_dose_it_rejects() -> None:
    (change,) = _changes("sorry it's 250, not 500", current=[LISINOPRIL, METFORMIN])
    assert (change.key, change.attributes["dose"], change.corrected) == (
        "medication:metformin",
        "250 mg",
        True,
    )
    # no current dose is rejected: nothing to correct
    assert _changes("it was 25 not 50", current=[LISINOPRIL, METFORMIN]) == []


@pytest.mark.parametrize(
    ("text", "dose"),
    [("they cut my lisinopril in half", "5 mg"), ("they doubled the lisinopril", "20 mg")],
)
def test_a_dose_halved_or_doubled(text: str, dose: str) -> None:
    (change,) = _changes(text, current=[LISINOPRIL])
    assert (change.op, change.attributes["dose"]) == ("supersede", dose)


def test_a_negative_allergy_test_closes_the_allergy() -> None:
    (change,) = _changes("the penicillin allergy test came back negative", current=[PENICILLIN])
    assert change.op == "close"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("they bumped it up to 20 mg", "en"),
        ("me subieron la dosis a 20 mg", "es"),
        ("on m'a augmenté la dose à 20 mg", "fr"),
    ],
)
def test_a_new_dose_with_no_drug_named_changes_the_latest_medicine(
    text: str, language: str
) -> None:
    (change,) = _changes(text, language=language, current=[METFORMIN, LISINOPRIL])
    assert (change.key, change.attributes["dose"], change.corrected) == (
        "medication:lisinopril",
        "20 mg",
        False,
    )
    assert _changes("i don't think the dose changed to 20 mg", current=[LISINOPRIL]) == []
