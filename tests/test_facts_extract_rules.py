"""The offline facts rules, one behaviour per test (unimem.facts.extract_facts)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from facts_support import NOW
from facts_support import fact as _fact
from unimem.facts import FactChange, extract_facts
from unimem.models import Fact


def _one(
    text: str, *, language: str | None = "en", current: list[Fact] | None = None, role: str = "user"
) -> FactChange:
    changes = extract_facts(text, role=role, language=language, current=current or [], now=NOW)
    assert len(changes) == 1, changes
    return changes[0]


def _none(
    text: str, *, language: str | None = "en", current: list[Fact] | None = None, role: str = "user"
) -> None:
    assert extract_facts(text, role=role, language=language, current=current or [], now=NOW) == []


LISINOPRIL = _fact(
    "f1",
    "medication",
    "medication:lisinopril",
    "10 mg once daily",
    name="lisinopril",
    dose="10 mg",
    frequency="once daily",
    status="taking",
)


def test_a_medication_with_dose_and_frequency_is_added_as_taking() -> None:
    change = _one("I take lisinopril 10 mg once a day.")
    assert (change.op, change.kind, change.key) == ("add", "medication", "medication:lisinopril")
    assert change.attributes["dose"] == "10 mg" and change.attributes["status"] == "taking"
    assert change.text == "Medication: lisinopril 10 mg once a day (taking)"


def test_spoken_numbers_and_fillers_in_a_voice_transcript() -> None:
    change = _one("um so i'm on uh metformin five hundred milligrams twice a day")
    assert change.key == "medication:metformin" and change.attributes["dose"] == "500 mg"
    assert _one("i take sertraline twelve point five milligrams").attributes["dose"] == "12.5 mg"


def test_a_changed_dose_supersedes_the_current_fact() -> None:
    change = _one("The doctor bumped my lisinopril up to 20 mg.", current=[LISINOPRIL])
    assert (change.op, change.replaces, change.attributes["dose"]) == ("supersede", "f1", "20 mg")
    assert change.attributes["frequency"] == "once daily"  # kept from the old fact


def test_a_stopped_medicine_supersedes_with_status_stopped() -> None:
    change = _one("they stopped the lisinopril", current=[LISINOPRIL])
    assert (change.op, change.replaces, change.attributes["status"]) == (
        "supersede",
        "f1",
        "stopped",
    )
    assert "stopped" in change.text


def test_a_correction_without_the_drug_name_fixes_the_dose_it_names() -> None:
    other = _fact(
        "f2", "medication", "medication:metformin", "500 mg", name="metformin", dose="500 mg"
    )
    change = _one("actually it's 20 mg, not 10", current=[LISINOPRIL, other])
    assert (change.replaces, change.attributes["dose"], change.corrected) == ("f1", "20 mg", True)


def test_saying_the_same_again_changes_nothing() -> None:
    _none("I take lisinopril 10 mg.", current=[LISINOPRIL])


@pytest.mark.parametrize(
    "text",
    [
        "My neighbor takes 20 mg of that.",
        "my mom is allergic to penicillin",
        "My husband is on metformin 500 mg.",
        "mi esposo toma losartán de 50 mg",
        "ma mère est allergique à la pénicilline",
        "أمي عندها حساسية من البنسلين",
    ],
)
def test_other_peoples_facts_are_not_the_patients(text: str) -> None:
    _none(text, language=None)


@pytest.mark.parametrize(
    "text",
    [
        "Where do I park when I come in?",
        "Does my insurance cover this visit?",
        "Should I take ibuprofen for the pain?",
        "you know is it okay to take warfarin with my other pills",
        "I've never taken warfarin.",
        "I don't think I'm allergic to latex, but I'm not sure.",
        "It's so cold out today.",
    ],
)
def test_chatter_questions_and_negations_give_nothing(text: str) -> None:
    _none(text)


def test_an_allergy_with_its_reaction() -> None:
    change = _one("I'm allergic to sulfa, it gives me hives.")
    assert (change.key, change.value, change.attributes["reaction"]) == (
        "allergy:sulfa",
        "hives",
        "hives",
    )
    assert change.text == "Allergy: sulfa (reaction: hives)"


def test_an_allergy_retracted_closes_the_fact() -> None:
    sulfa = _fact("a1", "allergy", "allergy:sulfa", "sulfa", name="sulfa")
    change = _one("Turns out I'm not allergic to sulfa after all.", current=[sulfa])
    assert (change.op, change.replaces) == ("close", "a1")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Soy alérgica a la penicilina, me da urticaria.", "es"),
        ("Je suis allergique à la pénicilline.", "fr"),
        ("عندي حساسية من البنسلين", "ar"),
    ],
)
def test_allergies_in_spanish_french_and_arabic_share_one_key(text: str, language: str) -> None:
    assert _one(text, language=language).key == "allergy:penicillin"


@pytest.mark.parametrize(
    ("text", "language", "key"),
    [
        ("Tomo metformina de 500 mg una vez al día.", "es", "medication:metformin"),
        ("Je prends du lévothyrox 50 mg le matin.", "fr", "medication:levothyroxine"),
        ("آخذ ميتفورمين 500 ملغ مرتين في اليوم", "ar", "medication:metformin"),
    ],
)
def test_medications_in_other_languages(text: str, language: str, key: str) -> None:
    change = _one(text, language=language)
    assert change.key == key and change.attributes["dose"].endswith("mg")


def test_the_assistants_confirmation_counts_and_its_chatter_does_not() -> None:
    assert _one("I've noted a latex allergy.", role="assistant").key == "allergy:latex"
    _none("Penicillin is a common allergy.", role="assistant")
    _none("I take lisinopril 10 mg", role="system")


def test_a_condition() -> None:
    assert _one("I was diagnosed with type 2 diabetes a few years ago.").key == (
        "condition:type-2-diabetes"
    )
    assert _one("I have high blood pressure.").key == "condition:hypertension"


def test_an_appointment_relative_date_resolved_and_kept_as_said() -> None:
    change = _one("my cardiology appointment is next thursday at two pm")
    assert change.key == "appointment:cardiology"
    assert change.attributes["date"] == "2026-12-10" and change.attributes["time"] == "14:00"
    assert change.attributes["when"] == "next thursday"


def test_a_moved_appointment_supersedes_and_keeps_the_time() -> None:
    old = _fact(
        "p1",
        "appointment",
        "appointment:cardiology",
        "2026-12-10 14:00",
        name="cardiology",
        date="2026-12-10",
        time="14:00",
    )
    change = _one("They moved my cardiology appointment to December 18.", current=[old])
    assert (change.op, change.replaces) == ("supersede", "p1")
    assert (change.attributes["date"], change.attributes["time"]) == ("2026-12-18", "14:00")


def test_a_procedure_with_its_date() -> None:
    change = _one("I'm scheduled for a colonoscopy on January 9.")
    assert change.key == "procedure:colonoscopy" and change.attributes["date"] == "2027-01-09"


def test_a_late_symptom_with_its_onset() -> None:
    change = _one("my ankles have been swelling since the weekend after thanksgiving")
    assert change.key == "symptom:swelling"
    assert change.attributes["onset_date"] == "2026-11-28"


def test_the_preferred_name_and_its_change() -> None:
    change = _one("Nobody's called me Margaret since the navy, call me Peggy.")
    assert (change.key, change.value) == ("preferred_name", "Peggy")
    peggy = _fact("n1", "preferred_name", "preferred_name", "Peggy")
    change = _one("actually, call me maggie, not peggy", current=[peggy])
    assert (change.op, change.value, change.replaces) == ("supersede", "Maggie", "n1")
    _none("please call me back tomorrow")


def test_the_preferred_language() -> None:
    change = _one("I'd prefer to speak Spanish.")
    assert (change.key, change.value, change.attributes["code"]) == (
        "preferred_language",
        "Spanish",
        "es",
    )
    _none("en fait est-ce que ma mutuelle rembourse", language="fr")


def test_care_instructions_and_preferences() -> None:
    assert _one("the doctor said no driving for 24 hours").kind == "care_instruction"
    assert _one("I prefer morning appointments.").kind == "preference"


def test_one_change_per_key_in_a_turn() -> None:
    changes = extract_facts(
        "I take lisinopril 10 mg. Sorry, the lisinopril is 20 mg, not 10.",
        role="user",
        language="en",
        current=[],
        now=NOW,
    )
    assert [(c.op, c.attributes["dose"]) for c in changes] == [("add", "20 mg")]


def test_a_turn_in_an_unlisted_language_still_finds_drug_names_and_doses() -> None:
    change = _one("Ich nehme Metformin 500 mg.", language="de")
    assert change.key == "medication:metformin" and change.attributes["dose"] == "500 mg"


def test_empty_and_huge_turns() -> None:
    _none("")
    _none("   ")
    assert extract_facts("la " * 100_000, role="user", language="es", current=[]) == []


def test_thanksgiving_is_the_last_one_for_an_onset_and_the_next_one_for_a_visit() -> None:
    january = datetime(2027, 1, 13, tzinfo=UTC)
    [onset] = extract_facts(
        "i've had a cough since the weekend after thanksgiving",
        role="user",
        language="en",
        current=[],
        now=january,
    )
    assert onset.attributes["onset_date"] == "2026-11-28"
    assert onset.attributes["onset"] == "since the weekend after thanksgiving"
    [visit] = extract_facts(
        "my dermatology appointment is the weekend after thanksgiving",
        role="user",
        language="en",
        current=[],
        now=january,
    )
    assert visit.attributes["date"] == "2027-11-27"


def test_a_proposal_without_a_name_takes_it_from_its_key() -> None:
    from unimem.facts import validate_proposal

    [change] = validate_proposal(
        [{"op": "add", "kind": "medication", "key": "medication:lisinopril", "value": "20 mg"}],
        current=[],
    )
    assert change.text == "Medication: lisinopril 20 mg"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("dejé de tomar el lisinopril", "es"),
        ("j'ai arrêté le lisinopril", "fr"),
        ("توقفت عن ليسينوبريل", "ar"),
        ("i got off the lisinopril in march", "en"),
    ],
)
def test_a_stop_in_each_language(text: str, language: str) -> None:
    change = _one(text, language=language, current=[LISINOPRIL])
    assert (change.op, change.replaces, change.attributes["status"]) == (
        "supersede",
        "f1",
        "stopped",
    )


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("me subieron el lisinopril a veinte miligramos", "es"),
        ("le médecin a augmenté le lisinopril à vingt milligrammes", "fr"),
        ("الطبيب رفع جرعة ليسينوبريل إلى 20 ملغ", "ar"),
    ],
)
def test_a_dose_change_in_each_language(text: str, language: str) -> None:
    change = _one(text, language=language, current=[LISINOPRIL])
    assert (change.op, change.replaces, change.attributes["dose"]) == ("supersede", "f1", "20 mg")
    assert change.attributes["status"] == "taking"


def test_a_preferred_name_said_another_way() -> None:
    assert _one("My preferred name is Bea.").value == "Bea"
    assert _one("I'd like to be called Sam.").value == "Sam"
