"""validate_proposal keeps only what the rules accept of an LLM's proposal;
fact_line renders one line per fact."""

from __future__ import annotations

from datetime import UTC, datetime

from facts_support import fact
from unimem.facts import FactChange, fact_line, validate_proposal
from unimem.models import Fact


def _fact(id: str, kind: str, key: str, value: str, **attributes: str) -> Fact:
    return fact(id, kind, key, value, valid_from=datetime(2026, 1, 1, tzinfo=UTC), **attributes)


LISINOPRIL = _fact(
    "f1", "medication", "medication:lisinopril", "10 mg", name="lisinopril", dose="10 mg"
)


def test_fact_line_leads_with_the_name_and_does_not_repeat_the_value() -> None:
    attrs = {"name": "lisinopril", "dose": "20 mg", "frequency": "once daily", "status": "taking"}
    assert (
        fact_line("medication", "20 mg once daily", attrs)
        == "Medication: lisinopril 20 mg once daily (taking)"
    )
    assert fact_line("allergy", "hives", {"name": "sulfa", "reaction": "hives"}) == (
        "Allergy: sulfa (reaction: hives)"
    )
    assert fact_line("preferred_name", "Bea", {}) == "Preferred name: Bea"


def test_an_add_of_a_new_key_is_kept() -> None:
    proposal = [{"op": "add", "kind": "allergy", "key": "allergy:sulfa", "value": "hives"}]
    [change] = validate_proposal(proposal, current=[])
    assert (change.op, change.key, change.value, change.replaces) == (
        "add",
        "allergy:sulfa",
        "hives",
        None,
    )


def test_an_add_of_a_current_key_supersedes_it_or_says_nothing() -> None:
    same = {"op": "add", "kind": "medication", "key": "medication:lisinopril", "value": "10 mg"}
    assert validate_proposal([same], current=[LISINOPRIL]) == []
    new = {**same, "value": "20 mg", "attributes": {"dose": "20 mg"}}
    [change] = validate_proposal({"facts": [new]}, current=[LISINOPRIL])
    assert (change.op, change.replaces, change.attributes["dose"]) == ("supersede", "f1", "20 mg")
    assert change.attributes["name"] == "lisinopril"  # kept from the old fact


def test_update_and_delete_need_a_current_fact_of_the_same_kind() -> None:
    update = {"op": "update", "kind": "medication", "value": "20 mg", "replaces": "nope"}
    assert validate_proposal([update], current=[LISINOPRIL]) == []
    wrong_kind = {"op": "delete", "kind": "allergy", "replaces": "f1"}
    assert validate_proposal([wrong_kind], current=[LISINOPRIL]) == []
    [closed] = validate_proposal(
        [{"op": "delete", "kind": "medication", "replaces": "f1"}], current=[LISINOPRIL]
    )
    assert isinstance(closed, FactChange) and (closed.op, closed.replaces) == ("close", "f1")


def test_unknown_kinds_empty_values_and_junk_are_dropped() -> None:
    proposal: object = [
        {"op": "add", "kind": "horoscope", "value": "leo"},
        {"op": "add", "kind": "allergy", "value": "  "},
        {"op": "add", "kind": "allergy", "value": ["sulfa"]},
        {"op": "explode", "kind": "allergy", "value": "sulfa"},
        "sulfa",
        None,
        {
            "op": "add",
            "kind": "preferred_name",
            "key": "whatever",
            "value": "Bea",
            "attributes": {"Bad Name": "x", "ok": 3, "nested": {"a": 1}},
        },
    ]
    [change] = validate_proposal(proposal, current=[])
    assert (change.key, change.value, dict(change.attributes)) == (
        "preferred_name",
        "Bea",
        {"ok": "3"},
    )
    assert validate_proposal("not json", current=[]) == []
    assert validate_proposal({"facts": "x"}, current=[]) == []


def test_one_fact_is_changed_once_per_proposal() -> None:
    a = {"op": "update", "kind": "medication", "value": "20 mg", "replaces": "f1"}
    b = {"op": "delete", "kind": "medication", "replaces": "f1"}
    changes = validate_proposal([a, b, a], current=[LISINOPRIL])
    assert [c.op for c in changes] == ["supersede"]
