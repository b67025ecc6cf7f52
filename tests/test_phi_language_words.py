"""PHI name rules around other languages' ordinary words and new cues: in text of a
language with a word list, its ordinary words (many of them surnames too) are no name
without a cue; names after cues, titles and "with"/"for" are still found; a word
after a strong cue is a name when a surname follows it; a word and its own spelling
are a name; drug names are never names."""

from __future__ import annotations

import pytest

from unimem.privacy import detect_phi
from unimem.privacy.phi_lexicon import local_words


def found(text: str, language: str | None) -> list[tuple[str, str]]:
    return [(f.type.value, f.text) for f in detect_phi(text, language)]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("compré una mesa blanca y dos sillas para el comedor", "es"),
        ("el perro blanco duerme en el campo", "es"),
        ("mi tío vive cerca de las fuentes del pueblo", "es"),
        ("le petit garçon mange du pain blanc", "fr"),
        ("une belle fontaine coule devant la mairie", "fr"),
        ("je suis essoufflé quand je monte la côte", "fr"),
        ("Im Herbst backt der Koch einen Kuchen.", "de"),
        ("la pressione è alta stamattina", "it"),
    ],
)
def test_ordinary_words_of_the_language_are_no_names(text, language):
    assert [t for t, _ in found(text, language) if t == "PERSON"] == []


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("me llamo dolores fuentes", "es", [("PERSON", "dolores fuentes")]),
        ("Hablé con Ana Blanco en la farmacia.", "es", [("PERSON", "Ana Blanco")]),
        ("La enfermera Consuelo me tomó la presión.", "es", [("PERSON", "Consuelo")]),
        ("Ich heiße Wiebke Ostendorf.", "de", [("PERSON", "Wiebke Ostendorf")]),
        ("Frau Hülsmann hat angerufen.", "de", [("PERSON", "Hülsmann")]),
        ("Mi chiamo Ludovica Sartori.", "it", [("PERSON", "Ludovica Sartori")]),
        ("Meu nome é Iolanda Brandão.", "pt", [("PERSON", "Iolanda Brandão")]),
    ],
)
def test_names_after_cues_in_other_languages(text, language, expected):
    assert found(text, language) == expected


def test_word_lists_are_read_per_language_only():
    assert "mesa" in local_words("es")
    assert "juan" not in local_words("es")
    assert "pierre" not in local_words("fr")
    assert local_words("en") == frozenset()
    assert local_words(None) == frozenset()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my name is river oyelowo and i need a refill", [("PERSON", "river oyelowo")]),
        ("all my friends call me tank", [("PERSON", "tank")]),
        (
            "it's featherly f e a t h e r l y",
            [("PERSON", "featherly"), ("PERSON", "f e a t h e r l y")],
        ),
        ("i have a video visit with anjali mehrotra", [("PERSON", "anjali mehrotra")]),
        ("the refill is for marisela quintanilla", [("PERSON", "marisela quintanilla")]),
        ("Caller Thaddeus Pemberton asked for a nurse.", [("PERSON", "Thaddeus Pemberton")]),
        ("Kind regards, Prudence Okafor", [("PERSON", "Prudence Okafor")]),
        ("Scheduled Minjoo Park for Monday.", [("PERSON", "Minjoo Park")]),
    ],
)
def test_names_after_strong_cues_with_and_for_and_spelled(text, expected):
    assert found(text, "en") == expected


@pytest.mark.parametrize(
    "text",
    [
        "please call me back tomorrow",
        "she calls me every day",
        "i have an appointment with the cardiologist",
        "this is for my blood pressure",
        "my laptop's camera is not working",
        "I walked around Hyde Park.",
        "Started Qulipta 60 mg and stopped Nexletol.",
        "i take lyrica and cymbalta for the fibromyalgia",
    ],
)
def test_words_drugs_and_places_are_no_names(text):
    assert [t for t, _ in found(text, "en") if t == "PERSON"] == []
