"""Redaction: readable tokens, consistent within a session, a map that stores no raw value."""

from __future__ import annotations

import json

import pytest

from unimem.errors import InvalidInputError
from unimem.privacy import PhiTokenMap, PhiType, RedactionResult, redact


def test_redaction_keeps_the_sentence_readable():
    result = redact("my name is john carter and my number is five five five one two one two")
    assert isinstance(result, RedactionResult)
    assert result.text == "my name is [PERSON_1] and my number is [PHONE_1]"
    assert result.replacements == ("[PERSON_1]", "[PHONE_1]")
    assert result.phi_detected
    assert result.counts() == {"PERSON": 1, "PHONE": 1}


def test_text_without_phi_comes_back_unchanged():
    text = "I have Parkinson's disease and take 5 mg of amlodipine."
    result = redact(text)
    assert result.text == text
    assert not result.phi_detected
    assert result.counts() == {}


def test_same_value_gets_the_same_token_across_calls_and_forms():
    session = PhiTokenMap()
    first = redact("my name is john carter, call me at 555-1212", mapping=session)
    second = redact(
        "John Carter again: five five five one two one two. Ask Mr. Carter.", mapping=session
    )
    third = redact("my wife mary has my number 555 867 5309", mapping=session)
    assert first.text == "my name is [PERSON_1], call me at [PHONE_1]"
    assert second.text == "[PERSON_1] again: [PHONE_1]. Ask Mr. [PERSON_1]."
    assert third.text == "my wife [PERSON_2] has my number [PHONE_2]"


def test_sessions_number_independently():
    a, b = PhiTokenMap(), PhiTokenMap()
    assert redact("my name is ann lee", mapping=a).text == "my name is [PERSON_1]"
    redact("my name is bob stone", mapping=b)
    assert redact("my name is ann lee", mapping=b).text == "my name is [PERSON_2]"


def test_map_round_trips_through_json_without_raw_values():
    session = PhiTokenMap()
    redact("my name is john carter and my ssn is 123-45-6789", mapping=session)
    saved = session.to_json()
    assert "john" not in saved.lower() and "carter" not in saved.lower()
    assert "6789" not in saved
    restored = PhiTokenMap.from_json(saved)
    result = redact("john carter, ssn 123-45-6789, phone 555-1212", mapping=restored)
    assert result.text == "[PERSON_1], ssn [SSN_1], phone [PHONE_1]"
    assert json.loads(restored.to_json())["counters"] == {"PERSON": 1, "SSN": 1, "PHONE": 1}


def test_a_server_key_stays_out_of_the_json():
    key = b"k" * 32
    session = PhiTokenMap(key=key)
    redact("my name is john carter", mapping=session)
    saved = session.to_json()
    assert "key" not in json.loads(saved)
    with pytest.raises(InvalidInputError):
        PhiTokenMap.from_json(saved)
    restored = PhiTokenMap.from_json(saved, key=key)
    assert restored.token_for(PhiType.PERSON, "John Carter") == "[PERSON_1]"


@pytest.mark.parametrize("raw", ["not json", "[]", '{"version": 99}', '{"version": 1}'])
def test_malformed_saved_maps_are_rejected(raw):
    with pytest.raises(InvalidInputError):
        PhiTokenMap.from_json(raw)


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidInputError):
        PhiTokenMap(key=b"short")
    with pytest.raises(InvalidInputError):
        redact("my name is john", mapping={})  # type: ignore[arg-type]


def test_token_map_new_entries_are_what_the_map_gained_since_saved():
    """new_entries() equals the difference of the whole map before and after
    (what a phi_detected event must keep), without walking the whole map."""
    mapping = PhiTokenMap(key=b"k" * 32)
    before = mapping.to_dict()["tokens"]
    mapping.token_for("PERSON", "John Carter")
    mapping.token_for("PHONE", "555-1212")
    after = mapping.to_dict()["tokens"]
    assert mapping.new_entries() == {h: t for h, t in after.items() if h not in before}
    assert len(mapping.new_entries()) == 4  # full name, "john", "carter", phone
    mapping.mark_saved()
    assert mapping.new_entries() == {}
    mapping.token_for("PERSON", "Carter")  # known through the full name: nothing new
    mapping.token_for("PHONE", "555 1212")  # the same number spelled differently
    assert mapping.new_entries() == {}
    mapping.token_for("PERSON", "Mary Carter")  # "carter" is taken: only two new
    assert sorted(mapping.new_entries().values()) == ["[PERSON_2]", "[PERSON_2]"]
    restored = PhiTokenMap.from_dict(mapping.to_dict(), key=b"k" * 32)
    assert restored.new_entries() == {}  # loaded entries were saved already
