"""Re-identification on every backend: the owner's history and export, and the
LLM context with ``reveal_phi``, give the values back; nobody else gets them."""

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context.builder import SUMMARY_PREFIX
from unimem.privacy.crypto import generate_key

NAME = "Johanna Quist"
SAID = f"my name is {NAME}, born March 3, 1950"


def user(content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def anonymized(svc: UnifiedMemoryService, *users: str) -> None:
    svc.use_encryption(generate_key("k1"))
    for uid in users:
        await svc.update_settings({"anonymize_phi": True}, user_id=uid)


async def test_the_owner_reads_their_own_words_back(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(SAID), user_id="u1")
    (stored,) = await service.get_history("s1", user_id="u1")
    assert NAME not in stored.content and "[PERSON_1]" in stored.content
    (shown,) = await service.get_history("s1", user_id="u1", reveal=True)
    assert shown.content == SAID
    audit = [r for r in await service.list_audit(user_id="u1") if r.action == "reveal"]
    assert [r.details for r in audit] == [{"view": "history", "values": 2}]
    assert NAME not in str(audit[0].model_dump())


async def test_another_user_reveals_nothing(service: UnifiedMemoryService):
    await anonymized(service, "u1", "u2")
    await service.add_entry("s1", user(SAID), user_id="u1")
    assert await service.get_history("s1", user_id="u2", reveal=True) == []
    await service.add_entry("t1", user("[PERSON_1] said hello"), user_id="u2")
    (theirs,) = await service.get_history("t1", user_id="u2", reveal=True)
    assert theirs.content == "[PERSON_1] said hello"  # u1's token does not open for u2
    export = await service.export_user_memory(user_id="u2", reveal=True)
    assert NAME not in str(export)


async def test_the_owners_export_is_revealed_on_request_only(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(SAID), user_id="u1")
    await service.add_event("s1", "topic_change", {"note": f"asked about {NAME}"}, user_id="u1")
    await service.add_fact(f"preferred name {NAME}", "preference", user_id="u1", session_id="s1")
    plain = await service.export_user_memory(user_id="u1")
    assert NAME not in str(plain)
    shown = await service.export_user_memory(user_id="u1", reveal=True)
    assert [e["content"] for e in shown["entries"]] == [SAID]
    assert any(NAME in str(e["data"]) for e in shown["events"])
    assert [f["text"] for f in shown["facts"]] == [f"preferred name {NAME}"]
    assert "vault" not in shown


async def test_the_llm_context_reveals_only_when_asked(service: UnifiedMemoryService):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(SAID), user_id="u1")
    await service.add_entry("s1", MemoryEntry(role="assistant", content="Noted."), user_id="u1")
    await service.add_fact(f"preferred name {NAME}", "preference", user_id="u1", session_id="s1")
    tokens = await service.build_llm_context("s1", "what is my name?", user_id="u1")
    assert NAME not in str(list(tokens))
    shown = await service.build_llm_context("s1", "what is my name?", user_id="u1", reveal_phi=True)
    text = str(list(shown))
    assert SAID in text and f"preferred name {NAME}" in text
    assert "[PERSON_1]" not in text and "[DATE_1]" not in text
    # the running summary stored meanwhile, if any, keeps its tokens
    summary = await service.store.get_summary("s1")
    assert summary is None or NAME not in summary.text
    other = await service.build_llm_context("s1", "hi", user_id="u2", reveal_phi=True)
    assert NAME not in str(list(other))


async def test_the_summary_of_older_turns_is_revealed_and_stored_with_tokens(
    service: UnifiedMemoryService,
):
    await anonymized(service, "u1")
    await service.add_entry("s1", user(f"{SAID}. I am allergic to penicillin."), user_id="u1")
    for i in range(30):
        await service.add_entry(
            "s1", user(f"the parking garage was full again, day {i}"), user_id="u1"
        )
    built = await service.build_llm_context(
        "s1", "what do you know about me?", max_tokens=300, user_id="u1", reveal_phi=True
    )
    assert built.summary_used
    summary = next(m["content"] for m in built if m["content"].startswith(SUMMARY_PREFIX))
    assert NAME in summary and "[PERSON_1]" not in summary
    stored = await service.store.get_summary("s1")
    assert stored is not None and NAME not in stored.text and "[PERSON_1]" in stored.text


async def test_the_owners_facts_are_revealed_on_request_only(service: UnifiedMemoryService):
    await anonymized(service, "u1", "u2")
    await service.add_entry("s1", user(SAID), user_id="u1")
    await service.add_fact(f"preferred name {NAME}", "preference", user_id="u1", session_id="s1")
    assert NAME not in str(await service.list_facts(user_id="u1"))
    shown = await service.list_facts(user_id="u1", reveal=True)
    assert f"preferred name {NAME}" in [f.text for f in shown]
    assert NAME not in str(await service.list_facts(user_id="u2", reveal=True))
    audit = [r for r in await service.list_audit(user_id="u1") if r.action == "reveal"]
    assert [r.details["view"] for r in audit] == ["facts"]
