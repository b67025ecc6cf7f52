"""A regional language code (es-MX, fr-CA, en-US) reads a turn as its language,
in the rules and on the service's write path; an Arabic word is a drug only
when the whole word spells one (unimem.facts.extract_facts)."""

from __future__ import annotations

import pytest

from facts_support import changes as _changes
from facts_support import fact as _fact
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.facts.cues import base_language, cues_for
from unimem.facts.when import normalize_numbers


@pytest.mark.parametrize(
    ("code", "base"),
    [("es-MX", "es"), ("fr_CA", "fr"), ("PT-br", "pt"), ("en", "en"), (None, None), ("", None)],
)
def test_a_regional_code_reduces_to_its_language(code: str | None, base: str | None) -> None:
    assert base_language(code) == base


def test_regional_cues_and_numbers_are_the_languages() -> None:
    assert cues_for("es-MX") is cues_for("es")
    assert cues_for("fr-CA") is cues_for("fr")
    assert normalize_numbers(["quinientos", "miligramos"], "es-MX") == ["500", "miligramos"]
    assert normalize_numbers(["quatre-vingt-dix"], "fr-CA") == ["90"]


@pytest.mark.parametrize("language", ["es", "es-MX"])
def test_a_mexican_spanish_spoken_dose_is_found(language: str) -> None:
    (med,) = _changes("pues tomo metformina quinientos miligramos", language=language)
    assert (med.key, med.attributes["dose"], med.attributes["status"]) == (
        "medication:metformin",
        "500 mg",
        "taking",
    )


@pytest.mark.parametrize("language", ["fr", "fr-CA"])
def test_a_canadian_french_dose_and_stop_are_found(language: str) -> None:
    (med,) = _changes("je prends la metformine cinq cents milligrammes", language=language)
    assert (med.key, med.attributes["dose"]) == ("medication:metformin", "500 mg")
    current = [_fact("m1", "medication", "medication:metformin", "500 mg", status="taking")]
    (stop,) = _changes("j'ai arrêté la metformine", language=language, current=current)
    assert (stop.op, stop.replaces, stop.attributes["status"]) == ("supersede", "m1", "stopped")


def test_a_regional_spanish_date_is_read_day_first_and_us_english_month_first() -> None:
    (es,) = _changes("mi cita de cardiología es el 4/3", language="es-MX")
    (en,) = _changes("my cardiology appointment is on 4/3", language="en-US")
    assert (es.attributes["date"], en.attributes["date"]) == ("2027-03-04", "2027-04-03")


@pytest.mark.parametrize("language", ["es-MX", "fr-CA"])
async def test_the_write_path_reads_a_regional_turn_in_its_language(language: str) -> None:
    text = {
        "es-MX": "este pues tomo metformina quinientos miligramos",
        "fr-CA": "euh je prends la metformine cinq cents milligrammes",
    }[language]
    async with UnifiedMemoryService() as svc:
        entry = MemoryEntry(role="user", content=text, language=language)
        await svc.add_entry("s1", entry, user_id="u1")
        facts = await svc.list_facts(user_id="u1")
    found = [(f.key, f.attributes.get("dose")) for f in facts]
    assert found == [("medication:metformin", "500 mg")]


@pytest.mark.parametrize(
    "text",
    [
        "أستعمله كل يوم الصبح",  # I use it every morning
        "وأستعمله مع الأكل",
        "يستعملها أخوي",
        "أستعمل البخاخ",
    ],
)
def test_an_arabic_verb_with_a_drugs_consonants_is_no_drug(text: str) -> None:
    assert [c.key for c in _changes(text, language="ar") if c.kind == "medication"] == []


def test_an_arabic_drug_spelled_whole_is_still_found() -> None:
    (med,) = _changes("آخذ أملوديبين ٥ ملغ كل يوم", language="ar")
    assert (med.key, med.attributes["dose"]) == ("medication:amlodipine", "5 mg")
