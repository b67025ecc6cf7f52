"""Namespaced items (an agent's long-term memory), on every backend: one user's
items only, replace keeps ``created_at``, prefix search with LangGraph's
filters and keyword ranking, namespaces, PHI redaction, deletion, retention
and export."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from unimem import InvalidInputError, UnifiedMemoryService
from unimem.models import utcnow

FOOD = ["memories", "food"]


async def _fill(svc: UnifiedMemoryService, uid: str = "alice") -> None:
    await svc.put_item(FOOD, "ramen", {"text": "loves spicy ramen", "stars": 5}, user_id=uid)
    await svc.put_item(FOOD, "kale", {"text": "dislikes kale salad", "stars": 1}, user_id=uid)
    await svc.put_item(["memories", "travel"], "lisbon", {"text": "flew to Lisbon"}, user_id=uid)
    await svc.put_item(["profile"], "name", {"text": "prefers Ali", "stars": 3}, user_id=uid)


async def test_an_item_reads_back_and_a_replace_keeps_created_at(service: UnifiedMemoryService):
    first = await service.put_item(FOOD, "k", {"text": "a", "n": [1, {"x": None}]}, user_id="u1")
    assert first is not None and first.namespace == FOOD
    await asyncio.sleep(0.002)
    again = await service.put_item(FOOD, "k", {"text": "b"}, user_id="u1")
    assert again is not None
    got = await service.get_item(FOOD, "k", user_id="u1")
    assert got is not None and got.value == {"text": "b"}
    assert got.created_at == first.created_at == again.created_at
    assert got.updated_at > first.updated_at
    assert await service.get_item(FOOD, "other", user_id="u1") is None
    assert await service.delete_item(FOOD, "k", user_id="u1") is True
    assert await service.delete_item(FOOD, "k", user_id="u1") is False
    assert await service.get_item(FOOD, "k", user_id="u1") is None


async def test_another_users_items_are_never_seen(service: UnifiedMemoryService):
    await _fill(service, "alice")
    assert await service.get_item(FOOD, "ramen", user_id="bob") is None
    assert await service.search_items([], user_id="bob") == []
    assert await service.search_items(FOOD, query="ramen", user_id="bob") == []
    assert await service.list_item_namespaces(user_id="bob") == []
    assert await service.delete_item(FOOD, "ramen", user_id="bob") is False
    assert await service.get_item(FOOD, "ramen", user_id="alice") is not None


async def test_search_by_prefix_filter_and_query(service: UnifiedMemoryService):
    await _fill(service)
    under = await service.search_items(["memories"], user_id="alice")
    assert [i.key for i in under] == ["lisbon", "kale", "ramen"]  # newest first
    # "memo" is no prefix of a label: labels match whole
    assert await service.search_items(["memo"], user_id="alice") == []
    assert len(await service.search_items([], user_id="alice")) == 4
    good = await service.search_items([], filter={"stars": {"$gte": 3}}, user_id="alice")
    assert sorted(i.key for i in good) == ["name", "ramen"]
    one = await service.search_items([], filter={"stars": 1}, user_id="alice")
    assert [i.key for i in one] == ["kale"]
    ne = await service.search_items(FOOD, filter={"stars": {"$ne": 5}}, user_id="alice")
    assert [i.key for i in ne] == ["kale"]
    ranked = await service.search_items(["memories"], query="spicy ramen", user_id="alice")
    assert ranked[0].key == "ramen" and ranked[0].score is not None and ranked[0].score > 0
    assert all(i.score is None for i in ranked[1:])  # the query orders; the rest follow
    page = await service.search_items(["memories"], limit=1, offset=1, user_id="alice")
    assert [i.key for i in page] == ["kale"]


async def test_facts_take_part_in_a_search_of_their_namespace(service: UnifiedMemoryService):
    await _fill(service)
    fact = await service.add_fact("allergic to penicillin", "allergy", user_id="alice")
    found = await service.search_items(
        ["memories"], query="penicillin", facts_namespace=["memories", "facts"], user_id="alice"
    )
    assert found[0].key == fact.id and found[0].namespace == ["memories", "facts"]
    assert found[0].value["text"] == "allergic to penicillin"
    elsewhere = await service.search_items(
        ["profile"], query="penicillin", facts_namespace=["memories", "facts"], user_id="alice"
    )
    assert all(i.key != fact.id for i in elsewhere)


async def test_namespaces_list_with_prefix_suffix_and_depth(service: UnifiedMemoryService):
    await _fill(service)
    assert await service.list_item_namespaces(user_id="alice") == [
        ["memories", "food"],
        ["memories", "travel"],
        ["profile"],
    ]
    assert await service.list_item_namespaces(max_depth=1, user_id="alice") == [
        ["memories"],
        ["profile"],
    ]
    assert await service.list_item_namespaces(suffix=["food"], user_id="alice") == [FOOD]
    assert await service.list_item_namespaces(prefix=["*", "travel"], user_id="alice") == [
        ["memories", "travel"]
    ]
    assert await service.list_item_namespaces(limit=1, offset=2, user_id="alice") == [["profile"]]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.put_item([], "k", {"a": 1}), "namespace"),
        (lambda s: s.put_item(["a.b"], "k", {"a": 1}), "namespace"),
        (lambda s: s.put_item("memories", "k", {"a": 1}), "namespace"),
        (lambda s: s.put_item(["m"], "", {"a": 1}), "key"),
        (lambda s: s.put_item(["m"], "k", ["not", "an", "object"]), "value"),
        (lambda s: s.put_item(["m"], "k", {"n": float("nan")}), "value"),
        (lambda s: s.search_items(["m"], filter={"n": {"$like": 1}}), "filter"),
        (lambda s: s.search_items(["m"], filter={"n": {"$gt": "x"}}), "filter"),
        (lambda s: s.search_items(["m"], limit=0), "limit"),
        (lambda s: s.list_item_namespaces(max_depth=0), "max_depth"),
    ],
)
async def test_bad_input_is_refused_naming_the_field(service: UnifiedMemoryService, call, field):
    with pytest.raises(InvalidInputError) as caught:
        await call(service)
    assert caught.value.field == field
    assert await service.list_item_namespaces() == []  # nothing half-written


async def test_items_follow_the_privacy_settings(service: UnifiedMemoryService):
    await service.update_settings({"anonymize_phi": True}, user_id="pat")
    stored = await service.put_item(
        ["notes"],
        "n1",
        {"text": "Call John Smith at 555-123-4567", "topic_id": "t-1", "n": 3},
        user_id="pat",
    )
    assert stored is not None
    got = await service.get_item(["notes"], "n1", user_id="pat")
    assert got is not None and "555-123-4567" not in got.value["text"]
    assert "John Smith" not in got.value["text"]
    assert got.value["topic_id"] == "t-1" and got.value["n"] == 3
    await service.update_settings({"enabled": False}, user_id="off")
    assert await service.put_item(["notes"], "n1", {"text": "x"}, user_id="off") is None
    await service.update_settings({"enabled": True}, user_id="off")
    assert await service.get_item(["notes"], "n1", user_id="off") is None


async def test_deletion_export_and_retention_cover_items(service: UnifiedMemoryService):
    await _fill(service, "alice")
    await _fill(service, "bob")
    exported = await service.export_user_memory(user_id="alice")
    assert sorted(i["key"] for i in exported["items"]) == ["kale", "lisbon", "name", "ramen"]
    receipt = await service.delete_user_memory("day", user_id="alice")
    assert receipt.counts["items"] == 4
    assert await service.search_items([], user_id="alice") == []
    await _fill(service, "alice")
    receipt = await service.delete_user_memory("all", user_id="alice")
    assert receipt.counts["items"] == 4
    assert (await service.export_user_memory(user_id="alice"))["items"] == []
    assert len(await service.search_items([], user_id="bob")) == 4
    await service.update_settings({"retention_days": 1}, user_id="bob")
    assert await service.sweep_retention(utcnow() + timedelta(hours=1)) == 0
    assert await service.sweep_retention(utcnow() + timedelta(days=2)) >= 4
    assert await service.search_items([], user_id="bob") == []


async def test_a_read_items_value_is_the_readers_own(service: UnifiedMemoryService):
    value = {"text": "likes tea", "tags": ["drink"]}
    await service.put_item(["m"], "k", value, user_id="u1")
    value["tags"].append("changed after the put")
    got = await service.get_item(["m"], "k", user_id="u1")
    assert got is not None and got.value == {"text": "likes tea", "tags": ["drink"]}
    got.value["tags"].append("changed after the read")
    [again] = await service.search_items(["m"], user_id="u1")
    assert again.value == {"text": "likes tea", "tags": ["drink"]}
