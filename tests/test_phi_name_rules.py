"""PHI name and age rules: the person a request is about, names alone after an
introduction, names with where the person works, spelled names with no other
name, relations named by a word-name, and ages at the end of a sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unimem.privacy import detect_phi


def found(text: str, language: str | None = "en") -> list[tuple[str, str]]:
    return [(f.type.value, f.text) for f in detect_phi(text, language)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("please tell leopoldine the forms are signed", [("PERSON", "leopoldine")]),
        ("can you ask ingeborg to call me back", [("PERSON", "ingeborg")]),
        ("let bronisław know i'm running late", [("PERSON", "bronisław")]),
        ("the refill is under yoshimura", [("PERSON", "yoshimura")]),
        ("Please remind Oyinkansola about her labs.", [("PERSON", "Oyinkansola")]),
    ],
)
def test_the_person_a_request_is_about_is_a_name(text, expected):
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "tell me if the dose is too high",
        "ask about the side effects",
        "let them know i called",
        "i was under anesthesia for two hours",
        "it's under control now",
        "Tell the pharmacy I'm on my way.",
    ],
)
def test_a_request_about_no_one_has_no_name(text):
    assert found(text) == []


def test_a_weak_introduction_and_one_unlisted_word_then_a_clause_is_a_name():
    assert found("this is tadeusz from the front desk") == [("PERSON", "tadeusz")]
    assert found("hi it's oyelowo calling about the bill") == [("PERSON", "oyelowo")]
    # an ordinary word after it is no name
    assert found("this is ridiculous from start to end") == []
    assert found("it's unbearable again") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mark from radiology left a message.", [("PERSON", "Mark")]),
        ("Hi. June at the front desk gave me this number.", [("PERSON", "June")]),
        ("grace from billing called", [("PERSON", "grace")]),
    ],
)
def test_a_given_name_and_where_the_person_works(text, expected):
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "May at the latest, please.",
        "Will from the office be open?",
        "My appointment is in April at the clinic.",
        "Mark the date in the office calendar.",
    ],
)
def test_a_month_modal_or_verb_before_a_workplace_is_no_name(text):
    assert [t for t, _ in found(text) if t == "PERSON"] == []


def test_a_spelled_name_is_found_without_another_name():
    assert found("the spelling is s z c z e p a n s k i") == [("PERSON", "s z c z e p a n s k i")]
    # letters with no cue, and letters without a vowel, stay
    assert found("the w w w part of the address") == []


def test_a_typed_cue_word_and_a_known_surname_is_a_name():
    assert found("From: Prudence Whitlock") == [("PERSON", "Prudence Whitlock")]
    assert found("Signed: Verity Ashworth") == [("PERSON", "Verity Ashworth")]
    assert found("From: Billing Department") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "my aunt hazel turned ninety eight",
            [("PERSON", "hazel"), ("AGE_OVER_89", "ninety eight")],
        ),
        ("my husband frank takes my pills", [("PERSON", "frank")]),
        ("my son will drive me there", []),
        ("my wife rose early and drove me in", []),
    ],
)
def test_a_relation_named_by_a_word_name_in_a_transcript(text, expected):
    assert found(text) == expected


def test_a_title_after_an_article_is_a_role_not_a_form_of_address():
    assert found("the nurse drew blood and the doctor young said it was fine") == []
    assert found("i saw doctor young today") == [("PERSON", "young")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My grandmother is 96.", [("AGE_OVER_89", "96")]),
        ("He is 101. He lives alone.", [("AGE_OVER_89", "101")]),
        ("My father, Anselm Brody, is 92.", [("PERSON", "Anselm Brody"), ("AGE_OVER_89", "92")]),
        ("My temperature is 99.4 today.", []),
    ],
)
def test_ages_at_the_end_of_a_sentence(text, expected):
    assert found(text) == expected


def test_a_cue_with_nothing_after_it_is_no_error():
    """A cue or a word-name at the very end of a text finds what it can and never fails."""
    assert found("Hi its Alexander but pls call me Xander") == [
        ("PERSON", "Alexander"),
        ("PERSON", "Xander"),
    ]
    for text in ("my name is", "Call me", "this is Grace", "Ask for", "i'm sky"):
        assert all(0 <= f.start < f.end <= len(text) for f in detect_phi(text, "en"))


_CUES = [
    "my name is",
    "call me",
    "calls me",
    "this is",
    "it's",
    "its",
    "i'm",
    "ask for",
    "tell",
    "mrs",
    "dr",
    "patient",
    "caller",
    "me llamo",
    "je m'appelle",
    "ich heiße",
]
_NAMES = ["grace", "sky", "will", "hope", "xander", "alexander", "halloran", "vance", "o k w"]
_FILLERS = [",", ".", ":", "'s", "the", "and", "but pls", "20 mg", "hi"]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_CUES) | st.sampled_from(_NAMES) | st.sampled_from(_FILLERS),
            st.sampled_from([str.lower, str.title, str.upper]),
        ),
        max_size=8,
    ),
    st.sampled_from(["en", "es", "fr", "de", None]),
)
def test_any_run_of_cue_words_and_names_is_no_error(words, language):
    """Cues, names and punctuation in any order, case and language: spans lie in the text."""
    text = " ".join(case(word) for word, case in words)
    for finding in detect_phi(text, language):
        assert 0 <= finding.start < finding.end <= len(text)
        assert text[finding.start : finding.end] == finding.text
