"""The LLM fact extractor against a real OpenAI-compatible endpoint on loopback:
its proposals are kept when the rules accept them, and the rules decide alone
when it fails, answers nonsense or is too slow. It runs off the write path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from fake_llm import FakeChat, fake_chat_server
from unimem import Fact, MemoryEntry, UnifiedMemoryService
from unimem.context.llm_client import LLMEndpoint
from unimem.facts import FactChange
from unimem.service.fact_extractors import FactTurn, LLMFactExtractor, RuleFactExtractor

TURN = "I'm allergic to penicillin"


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    with fake_chat_server() as state:
        yield state


def service(chat: FakeChat, timeout: float = 2.0) -> UnifiedMemoryService:
    endpoint = LLMEndpoint(chat.url, model="tiny", timeout=5.0)
    svc = UnifiedMemoryService(fact_extractor=LLMFactExtractor(endpoint, timeout=timeout))
    return svc


async def facts_of(svc: UnifiedMemoryService, count: int) -> list[Fact]:
    for _ in range(200):  # the facts follow the write, off its path
        facts = await svc.list_facts(user_id="u1", include_history=True)
        if len(facts) >= count:
            return facts
        await asyncio.sleep(0.02)
    return await svc.list_facts(user_id="u1", include_history=True)


def proposal(*facts: dict[str, object]) -> list[str]:
    return [json.dumps({"facts": list(facts)})]


async def test_proposals_the_rules_accept_are_stored(chat: FakeChat):
    chat.pieces = proposal(
        {
            "op": "add",
            "kind": "allergy",
            "key": "allergy:penicillin",
            "value": "penicillin",
            "attributes": {"reaction": "hives"},
            "replaces": None,
        },
        {"op": "add", "kind": "horoscope", "value": "virgo"},  # no such kind: refused
    )
    svc = service(chat)
    await svc.update_settings({"anonymize_phi": False}, user_id="u1")
    entry = await svc.add_entry("s1", MemoryEntry(role="user", content=TURN), user_id="u1")
    [fact] = await facts_of(svc, 1)
    assert (fact.kind, fact.value, fact.attributes) == (
        "allergy",
        "penicillin",
        {"reaction": "hives"},
    )
    assert fact.source_entry_ids == [entry.id]
    [request] = chat.requests
    sent = json.loads(request["messages"][-1]["content"])
    assert sent == {"current_facts": [], "turn": {"role": "user", "text": TURN}}
    await svc.aclose()


async def test_the_llm_is_sent_the_turn_as_stored(chat: FakeChat):
    chat.pieces = proposal()
    svc = service(chat)  # anonymize_phi on by default
    text = "My name is Grace Halloran and I'm allergic to penicillin"
    await svc.add_entry("s1", MemoryEntry(role="user", content=text), user_id="u1")
    await svc.aclose()  # waits for the facts
    sent = chat.requests[0]["messages"][-1]["content"]
    assert "Halloran" not in sent and "[PERSON_1]" in sent


class Rules:
    """Stands in for the rules: the fallback's answer is known."""

    background = False

    def __init__(self) -> None:
        self.turns: list[FactTurn] = []

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        self.turns.append(turn)
        return [
            FactChange(
                op="add",
                kind="allergy",
                key="allergy:penicillin",
                value="penicillin",
                text="Allergy: penicillin",
            )
        ]


@pytest.mark.parametrize("failure", ["nonsense", "http", "timeout"])
async def test_a_failure_falls_back_to_the_rules(chat: FakeChat, failure: str):
    chat.pieces = ["this is not JSON"]
    if failure == "http":
        chat.status = 500
    if failure == "timeout":
        chat.first_delay = 1.0
    rules = Rules()
    endpoint = LLMEndpoint(chat.url, model="tiny", timeout=5.0)
    extractor = LLMFactExtractor(endpoint, timeout=0.3, fallback=rules)
    svc = UnifiedMemoryService(fact_extractor=extractor)
    await svc.update_settings({"anonymize_phi": False}, user_id="u1")
    await svc.add_entry("s1", MemoryEntry(role="user", content=TURN), user_id="u1")
    facts = await facts_of(svc, 1)
    assert [f.text for f in facts] == ["Allergy: penicillin"]  # what the fallback found
    assert [t.text for t in rules.turns] == [TURN]  # given the turn as written
    await svc.aclose()


def test_without_a_fallback_the_rules_decide():
    extractor = LLMFactExtractor(LLMEndpoint("http://127.0.0.1:9/v1"))
    assert isinstance(extractor.fallback, RuleFactExtractor) and extractor.background
