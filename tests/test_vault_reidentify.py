"""Re-identification's pure parts and its session bookkeeping: each text is
re-identified with the values of its own session; streamed text token by token."""

from datetime import UTC, datetime

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context.reidentify import reidentify
from unimem.models import Fact
from unimem.privacy.crypto import generate_key
from unimem.privacy.vault import StreamReveal, reveal_text, reveal_value
from unimem.recall.hits import MemoryHit
from unimem.service.reveal import OwnerValues


def test_reveal_text_replaces_known_tokens_only():
    values = {"[PERSON_1]": "Ada", "[DATE_1]": "May 1"}
    assert reveal_text("[PERSON_1] on [DATE_1], [PERSON_2]", values) == (
        "Ada on May 1, [PERSON_2]",
        2,
    )
    assert reveal_text("no tokens [here]", values) == ("no tokens [here]", 0)
    assert reveal_value({"a": ["[PERSON_1]"], "n": 3}, values) == ({"a": ["Ada"], "n": 3}, 1)


def test_a_stream_holds_back_a_token_split_across_pieces():
    stream = StreamReveal({"[PERSON_1]": "Ada Lovelace"})
    pieces = ["Hello [PER", "SON_", "1], how", " are you? [", "x] ok"]
    shown = "".join(stream.feed(p) for p in pieces) + stream.flush()
    assert shown == "Hello Ada Lovelace, how are you? [x] ok"
    assert stream.count == 1
    assert stream.feed("a lone [ bracket and more text than any token could hold") != ""


async def test_each_part_of_a_context_is_revealed_with_its_own_sessions_values():
    service = UnifiedMemoryService()
    service.use_encryption(generate_key("k1"))
    await service.update_settings({"anonymize_phi": True}, user_id="u1")
    old = await service.add_entry(
        "old", MemoryEntry(role="user", content="my brother is Bartholomew Finch"), user_id="u1"
    )
    await service.add_entry(
        "s1", MemoryEntry(role="user", content="my name is Johanna Quist"), user_id="u1"
    )
    assert "[PERSON_1]" in old.content
    values = OwnerValues(service._core, "u1")
    hit = MemoryHit(
        kind="entry", entry=old, id=old.id, session_id="old", score=1.0, snippet=old.content
    )
    fact = Fact(
        id="f1",
        user_id="u1",
        text="[PERSON_1] is my brother",
        session_id="old",
        created_at=datetime.now(UTC),
    )
    facts, hits = await reidentify(values, "s1", [fact], [hit])
    assert hits[0].snippet == "my brother is Bartholomew Finch"
    assert hits[0].entry is not None and hits[0].entry.content == hits[0].snippet
    assert facts[0].text == "Bartholomew Finch is my brother"
    assert values.text("s1", "[PERSON_1]") == "Johanna Quist"
    assert values.count == 4
