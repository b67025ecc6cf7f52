"""add_entry fills detected_language and applies the switch policy, on every backend."""

from __future__ import annotations

import asyncio

from unimem import MemoryEntry, UnifiedMemoryService


def user(content: str, **kw) -> MemoryEntry:
    return MemoryEntry(role="user", content=content, **kw)


async def _switches(service: UnifiedMemoryService, session_id: str) -> list[tuple]:
    events = await service.get_events(session_id, "language_switch")
    return [(e["from_language"], e["to_language"], e["trigger"]) for e in events]


async def test_every_entry_gets_a_detected_language(service: UnifiedMemoryService):
    first = await service.add_entry("s1", user("I have had a headache since Monday"))
    reply = await service.add_entry(
        "s1", MemoryEntry(role="assistant", content="Tome una pastilla con la comida, por favor.")
    )
    assert (first.detected_language, first.language) == ("en", "en")
    assert reply.detected_language == "es"
    assert reply.language == "en"  # assistant turns follow the session
    assert await _switches(service, "s1") == []


async def test_a_real_sentence_switches_but_confusers_do_not(service: UnifiedMemoryService):
    await service.add_entry("s1", user("My blood pressure pills make me dizzy"))
    for confuser in ("ok", "hmm", "gracias", "Amlodipine", "metformin 500 mg", "Maria Gonzalez"):
        stored = await service.add_entry("s1", user(confuser))
        assert (stored.language, stored.language_switched) == ("en", False), confuser
    switched = await service.add_entry(
        "s1", user("¿Puedo tomarlas por la noche en vez de la mañana?")
    )
    assert (switched.language, switched.detected_language, switched.language_switched) == (
        "es",
        "es",
        True,
    )
    after = await service.add_entry("s1", user("thanks"))
    assert (after.language, after.language_switched) == ("es", False)
    assert await _switches(service, "s1") == [("en", "es", "auto_detected")]
    assert (await service.get_context("s1")).current_language == "es"


async def test_explicit_language_wins_and_is_the_trigger_when_text_disagrees(
    service: UnifiedMemoryService,
):
    await service.add_entry("s1", user("I need a new appointment", language="en"))
    stored = await service.add_entry(
        "s1", user("I would rather continue this in Arabic please", language="ar")
    )
    assert (stored.language, stored.detected_language, stored.language_switched) == (
        "ar",
        "en",
        True,
    )
    assert await _switches(service, "s1") == [("en", "ar", "explicit_setting")]


async def test_a_detection_given_with_the_language_is_trusted(
    service: UnifiedMemoryService, monkeypatch
):
    """A voice pipeline that identified the language in speech-to-text passes both
    fields (the spec's example): unimem does not detect again, and the given
    detection labels the switch."""
    import unimem.language.policy as policy

    def no_detection(text: str) -> None:
        raise AssertionError(f"detected again: {text!r}")

    await service.add_entry("s1", user("I need a new appointment", language="en"))
    monkeypatch.setattr(policy, "detect", no_detection)
    stored = await service.add_entry(
        "s1", user("Necesito una cita nueva", language="es", detected_language="es")
    )
    assert (stored.language, stored.detected_language, stored.language_switched) == (
        "es",
        "es",
        True,
    )
    overridden = await service.add_entry(
        "s1", user("Let us go on in French", language="fr", detected_language="en")
    )
    assert overridden.detected_language == "en"
    assert await _switches(service, "s1") == [
        ("en", "es", "auto_detected"),
        ("es", "fr", "explicit_setting"),
    ]


async def test_caller_trigger_wins_over_the_policy(service: UnifiedMemoryService):
    await service.add_entry("s1", user("I need a new appointment"))
    await service.add_entry("s1", user("Je voudrais un rendez-vous demain"), trigger="user_request")
    assert await _switches(service, "s1") == [("en", "fr", "user_request")]


async def test_concurrent_switching_turns_record_one_switch(service: UnifiedMemoryService):
    """The comparison with the session's language happens in the store's
    transaction, so two writers racing to switch record one switch, not two."""
    await service.add_entry("s1", user("Can I take ibuprofen with my blood pressure medicine?"))
    await asyncio.gather(
        service.add_entry("s1", user("Mi madre solo habla español, ¿puede explicárselo?")),
        service.add_entry("s1", user("Ella toma la pastilla todas las mañanas con el desayuno")),
    )
    assert await _switches(service, "s1") == [("en", "es", "auto_detected")]
    history = await service.get_history("s1")
    assert [e.language for e in history] == ["en", "es", "es"]
    assert sum(e.language_switched for e in history) == 1


async def test_a_region_tagged_session_language_is_kept(service: UnifiedMemoryService):
    await service.add_entry("s1", user("Olá, preciso remarcar minha consulta", language="pt-BR"))
    later = await service.add_entry("s1", user("Posso ir na próxima terça-feira à tarde?"))
    assert (later.language, later.detected_language, later.language_switched) == (
        "pt-BR",
        "pt",
        False,
    )
    assert await _switches(service, "s1") == []
