"""Each stored user or assistant turn updates the owner's facts: found in the
turn as written, stored as the turn is (redacted with its tokens when
``anonymize_phi`` is on, nothing when memory is off), never failing the write."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.config import MemoryConfig
from unimem.facts import FactChange
from unimem.service.fact_extractors import FactTurn

SENTENCE = "I'm allergic to penicillin, it gives me hives. My name is Grace Halloran."


class Planted:
    """An extractor answering with what the test plants (the service's work is
    under test here, not the rules)."""

    background = False

    def __init__(self, plan: Callable[[FactTurn], list[FactChange]]) -> None:
        self.plan = plan
        self.turns: list[FactTurn] = []

    async def extract(self, turn: FactTurn) -> list[FactChange]:
        self.turns.append(turn)
        return self.plan(turn)


def allergy(turn: FactTurn) -> list[FactChange]:
    if "penicillin" not in turn.text:
        return []
    return [
        FactChange(
            op="add",
            kind="allergy",
            key="allergy:penicillin",
            value="penicillin",
            attributes={"reaction": "hives"},
            text="Allergic to penicillin (reaction: hives)",
            corrected=False,
            replaces=None,
        )
    ]


def name(turn: FactTurn) -> list[FactChange]:
    return [
        FactChange(
            op="add",
            kind="preferred_name",
            key="preferred_name",
            value="Grace Halloran",
            attributes={},
            text="Preferred name: Grace Halloran",
            corrected=False,
            replaces=None,
        )
    ]


def dose(value: str) -> Callable[[FactTurn], list[FactChange]]:
    def plan(turn: FactTurn) -> list[FactChange]:
        old = next((f for f in turn.current if f.key == "medication:lisinopril"), None)
        return [
            FactChange(
                op="supersede" if old else "add",
                kind="medication",
                key="medication:lisinopril",
                value="lisinopril",
                attributes={"dose": value},
                text=f"Takes lisinopril {value}",
                corrected=old is not None,
                replaces=old.id if old else None,
            )
        ]

    return plan


def service(plan: Callable[[FactTurn], list[FactChange]], **config: bool) -> UnifiedMemoryService:
    return UnifiedMemoryService(config=MemoryConfig(**config), fact_extractor=Planted(plan))


async def say(svc: UnifiedMemoryService, text: str, uid: str = "u1", sid: str = "s1"):
    return await svc.add_entry(sid, MemoryEntry(role="user", content=text), user_id=uid)


async def test_a_user_turn_adds_its_facts_with_their_source():
    svc = service(allergy)
    await svc.update_settings({"anonymize_phi": False}, user_id="u1")
    entry = await say(svc, SENTENCE)
    [fact] = await svc.list_facts(user_id="u1")
    assert (fact.kind, fact.key, fact.value, fact.attributes) == (
        "allergy",
        "allergy:penicillin",
        "penicillin",
        {"reaction": "hives"},
    )
    assert fact.source_entry_ids == [entry.id] and fact.session_id == "s1"
    assert fact.status == "reported" and fact.current and fact.valid_from == entry.timestamp
    assert await svc.list_facts(user_id="u2") == []


async def test_a_change_closes_the_old_fact_and_keeps_it_as_history():
    def plan(turn: FactTurn) -> list[FactChange]:
        return dose("20 mg" if "20 mg" in turn.text else "10 mg")(turn)

    svc = UnifiedMemoryService(fact_extractor=Planted(plan))
    first = await say(svc, "I take lisinopril 10 mg")
    second = await say(svc, "actually it's 20 mg, not 10")
    [now] = await svc.list_facts(user_id="u1")
    assert now.attributes == {"dose": "20 mg"} and now.status == "corrected"
    assert now.source_entry_ids == [second.id]
    old, new = await svc.list_facts(user_id="u1", include_history=True)
    assert old.attributes == {"dose": "10 mg"} and old.valid_to == second.timestamp
    assert old.source_entry_ids == [first.id] and new.id == now.id


async def test_the_extractor_sees_the_current_facts_and_the_turn_as_written():
    planted = Planted(allergy)
    svc = UnifiedMemoryService(fact_extractor=planted)  # anonymize_phi on by default
    await say(svc, SENTENCE)
    await say(svc, "penicillin again")
    first, second = planted.turns
    assert first.text == SENTENCE and first.current == [] and first.role == "user"
    assert "Halloran" not in first.stored_text  # what storage holds
    assert [f.key for f in second.current] == ["allergy:penicillin"]


async def test_with_anonymization_on_facts_carry_the_turns_tokens():
    svc = service(name)
    entry = await say(svc, SENTENCE)
    [fact] = await svc.list_facts(user_id="u1")
    token = next(t for t in ("[PERSON_1]",) if t in entry.content)
    assert "Grace" not in fact.value and "Halloran" not in fact.text
    assert token in fact.value and token in fact.text


async def test_memory_off_stores_no_fact():
    svc = service(allergy)
    await svc.update_settings({"enabled": False}, user_id="u1")
    await say(svc, SENTENCE)
    assert await svc.list_facts(user_id="u1", include_history=True) == []


async def test_auto_facts_off_stores_no_fact():
    svc = service(allergy, auto_facts=False)
    await say(svc, SENTENCE)
    assert await svc.list_facts(user_id="u1", include_history=True) == []


async def test_a_system_turn_and_a_retried_turn_add_nothing():
    planted = Planted(allergy)
    svc = UnifiedMemoryService(fact_extractor=planted)
    await svc.add_entry("s1", MemoryEntry(role="system", content=SENTENCE), user_id="u1")
    entry = await say(svc, SENTENCE)
    await svc.add_entry("s1", MemoryEntry(id=entry.id, role="user", content=SENTENCE), user_id="u1")
    assert len(planted.turns) == 1 and len(await svc.list_facts(user_id="u1")) == 1


async def test_an_extractor_error_is_logged_without_text_and_the_turn_stored(
    caplog: pytest.LogCaptureFixture,
):
    def broken(turn: FactTurn) -> list[FactChange]:
        raise RuntimeError(turn.text)

    svc = service(broken)
    with caplog.at_level(logging.WARNING, logger="unimem.facts"):
        entry = await say(svc, SENTENCE)
    assert [e.id for e in await svc.get_history("s1", user_id="u1")] == [entry.id]
    assert "RuntimeError" in caplog.text and "penicillin" not in caplog.text
    assert await svc.list_facts(user_id="u1") == []


async def test_deleting_the_session_deletes_its_facts_and_export_has_them():
    svc = service(allergy)
    await say(svc, SENTENCE)
    pinned = await svc.add_fact("prefers mornings", "preference", user_id="u1", session_id="s1")
    exported = await svc.export_user_memory(user_id="u1")
    assert {f["key"] for f in exported["facts"]} == {"allergy:penicillin", None}
    await svc.delete_user_memory("session", user_id="u1", session_id="s1")
    assert [f.id for f in await svc.list_facts(user_id="u1")] == [pinned.id]


async def test_with_anonymization_on_a_facts_own_date_is_kept_and_names_are_not():
    def appointment(turn: FactTurn) -> list[FactChange]:
        return [
            FactChange(
                op="add",
                kind="appointment",
                key="appointment:cardiology",
                value="cardiology with Dr. Halloran",
                attributes={"date": "2026-12-05", "time": "14:00"},
                text="Appointment: cardiology with Dr. Halloran (date: 2026-12-05, time: 14:00)",
            )
        ]

    svc = service(appointment)
    entry = await say(svc, "My cardiology appointment with Dr. Halloran is on 2026-12-05 at 14:00.")
    [fact] = await svc.list_facts(user_id="u1")
    assert "Halloran" not in entry.content and "Halloran" not in fact.text
    assert "Halloran" not in (fact.value or "")
    assert fact.attributes == {"date": "2026-12-05", "time": "14:00"}
    assert "2026-12-05" in fact.text and "14:00" in fact.text


def test_unimem_auto_facts_reaches_the_server_and_the_service():
    from unimem.server.server_settings import ServerSettings
    from unimem.settings import Settings

    env = {"UNIMEM_AUTO_FACTS": "false", "UNIMEM_FACTS_LLM_TIMEOUT": "0.5"}
    assert Settings.from_env(env).facts.auto is False
    server = ServerSettings.from_env(env)
    assert server.memory.auto_facts is False
    back = server.to_settings()
    assert (back.facts.auto, back.facts.llm_timeout) == (False, 0.5)
    assert ServerSettings.from_env({}).to_settings().facts.auto is True


def test_a_stored_fact_reads_back_whether_written_before_its_history_fields_or_after():
    from unimem.models import Fact
    from unimem.stores.rows import fact_from_json

    new = Fact(id="f1", user_id="u", text="Allergy: sulfa", key="allergy:sulfa", value="sulfa")
    assert fact_from_json(new.model_dump_json()) == new
    old = '{"id": "f0", "user_id": "u", "kind": "allergy", "text": "sulfa", "session_id": null, '
    old += '"entry_id": null, "created_at": "2026-01-02T03:04:05Z"}'
    read = fact_from_json(old)
    assert read.current and read.status == "reported" and read.source_entry_ids == []
    assert read.created_at is not None and read.created_at.tzinfo is not None


async def test_one_users_turns_in_many_sessions_at_once_store_a_fact_once():
    """Turns of one user read their facts without queueing on one another; a turn
    whose read an earlier stored change made stale reads again before storing."""
    import asyncio

    from unimem.stores import InMemoryStore

    class SlowReads(InMemoryStore):
        async def list_facts(self, user_id: str):  # read, then a round trip's wait
            facts = await super().list_facts(user_id)
            await asyncio.sleep(0.001)
            return facts

    async with UnifiedMemoryService(SlowReads()) as svc:
        await svc.update_settings({"anonymize_phi": False}, user_id="u1")
        said = [say(svc, "I take lisinopril 10 mg daily", sid=f"s{i}") for i in range(16)]
        await asyncio.gather(*said)
        facts = await svc.list_facts(user_id="u1", include_history=True)
        assert [(f.key, f.attributes.get("dose"), f.current) for f in facts] == [
            ("medication:lisinopril", "10 mg", True)
        ]
        await asyncio.gather(*(say(svc, "they raised it to 20 mg", sid=f"s{i}") for i in range(4)))
        current = await svc.list_facts(user_id="u1")
        assert [(f.key, f.attributes.get("dose")) for f in current] == [
            ("medication:lisinopril", "20 mg")
        ]


async def test_one_users_updates_never_overlap_when_a_turn_arrives_as_the_lock_passes_on():
    """The owner's lock stays while an update still waits for it: a turn arriving
    after the first update ends and before the waiting one runs queues behind it."""
    import asyncio

    class Ordered:
        background = True  # updates are tasks, each taking the owner's lock first

        def __init__(self) -> None:
            self.active = 0
            self.most = 0
            self.texts: list[str] = []
            self.second_started = asyncio.Event()
            self.release_second = asyncio.Event()

        async def extract(self, turn: FactTurn) -> list[FactChange]:
            self.active += 1
            self.most = max(self.most, self.active)
            self.texts.append(turn.text)
            if turn.text == "two":
                self.second_started.set()
                await self.release_second.wait()
            await asyncio.sleep(0)
            self.active -= 1
            return []

    ordered = Ordered()
    async with UnifiedMemoryService(fact_extractor=ordered) as svc:
        await say(svc, "one")
        await say(svc, "two")
        await asyncio.wait_for(ordered.second_started.wait(), 5)
        await say(svc, "three")
        for _ in range(20):  # give "three" every chance to start beside "two"
            await asyncio.sleep(0)
        ordered.release_second.set()
    # closing the service waits for the facts of every turn handed to the background
    assert ordered.texts == ["one", "two", "three"]
    assert ordered.most == 1


async def test_a_turn_that_takes_the_sessions_language_is_read_in_it():
    """A turn no detection is sure of ("metformin 500 mg") takes the session's
    language at commit; its facts, found beside the commit before that was
    known, are found again in the stored language, and stored."""
    from unimem.service.fact_extractors import RuleFactExtractor

    class Recording(RuleFactExtractor):
        def __init__(self) -> None:
            self.languages: list[str | None] = []

        async def extract(self, turn: FactTurn) -> list[FactChange]:
            self.languages.append(turn.language)
            return await super().extract(turn)

    recording = Recording()
    async with UnifiedMemoryService(fact_extractor=recording) as svc:
        await say(svc, "good morning, I would like to ask about my pills")
        stored = await say(svc, "metformin 500 mg")
        assert (stored.language, stored.detected_language) == ("en", None)
        assert recording.languages[-1] == "en"
        assert [(f.key, f.value) for f in await svc.list_facts(user_id="u1")] == [
            ("medication:metformin", "500 mg")
        ]
