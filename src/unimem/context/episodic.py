"""Pinned facts and barge-in handling: the store work behind the service methods.

Pinned facts live in the episodic layer (``put_fact``/``list_facts``), keyed by
user, not session: they appear in every context of the user, survive
truncation (they are never summarized) and session close, until deleted.

An interrupted voice answer keeps what the user heard as its ``content``; the
full generated text moves to ``metadata["generated_text"]`` with
``metadata["interrupted"] = True``. A running summary that already covered
the entry is rebuilt, so it cannot quote what was never heard.
"""

from __future__ import annotations

from ..errors import EntryNotFoundError, InvalidInputError
from ..ids import new_id
from ..models import Fact, MemoryEntry, Role, Summary, utcnow
from ..stores.contracts import DurableStore
from .extractive import ExtractiveSummarizer
from .session_context import CATCH_UP_LIMIT, SUMMARY_STORE_TOKENS

__all__ = ["interrupt_entry", "new_fact", "pin_stored_entry"]


def new_fact(
    user_id: str, text: str, kind: str, session_id: str | None = None, entry_id: str | None = None
) -> Fact:
    """A validated fact with a fresh id and creation time.

    Raises:
        InvalidInputError: empty text or kind, or a field too long.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("fact text must be a non-empty string", field="text")
    return Fact(
        id=new_id(),
        user_id=user_id,
        kind=kind,
        text=text.strip(),
        session_id=session_id,
        entry_id=entry_id,
        created_at=utcnow(),
    )


async def pin_stored_entry(
    store: DurableStore, session_id: str, entry_id: str, owner: str
) -> tuple[Fact, bool]:
    """The fact pinning an entry's content for ``owner``, and whether it is new
    (still to be stored); pinning twice returns the first fact.

    Raises:
        EntryNotFoundError: no such entry in the session.
        InvalidInputError: the entry has no content.
    """
    entry = await store.get_entry(session_id, entry_id)
    if entry is None:
        raise EntryNotFoundError(f"no entry {entry_id!r} in session {session_id!r}")
    for fact in await store.list_facts(owner):
        if fact.entry_id == entry_id and fact.session_id == session_id:
            return fact, False
    if not entry.content.strip():
        raise InvalidInputError("the entry has no content to pin", field="entry_id")
    return new_fact(owner, entry.content, "pinned_entry", session_id, entry_id), True


async def _rebuild_summary(store: DurableStore, summary: Summary) -> None:
    """Re-summarize the summary's range from the entries as now stored."""
    span = summary.to_seq - summary.from_seq + 1
    entries = await store.get_entries(
        summary.session_id, limit=min(span, CATCH_UP_LIMIT), before_seq=summary.to_seq + 1
    )
    messages = [{"role": e.role.value, "content": e.content} for e in entries]
    text = ExtractiveSummarizer().summarize_sync(messages, SUMMARY_STORE_TOKENS)
    await store.put_summary(
        summary.model_copy(update={"text": text, "created_at": utcnow(), "method": "extractive"})
    )


async def interrupt_entry(
    store: DurableStore, session_id: str, entry_id: str, spoken_text: str
) -> tuple[MemoryEntry, dict[str, int | str]]:
    """Make ``spoken_text`` the stored content of an assistant entry.

    Returns the entry as stored and the data of the ``interruption`` event to
    record (ids and lengths, never text).

    Raises:
        EntryNotFoundError: no such entry in the session.
        InvalidInputError: the entry is not an assistant entry.
    """
    entry = await store.get_entry(session_id, entry_id)
    if entry is None:
        raise EntryNotFoundError(f"no entry {entry_id!r} in session {session_id!r}")
    if entry.role is not Role.ASSISTANT:
        raise InvalidInputError(
            "only an assistant entry can be interrupted; "
            "pass the id of the answer that was cut off",
            field="entry_id",
        )
    # Interrupting twice keeps the text first generated, not the first cut.
    generated = entry.metadata.get("generated_text", entry.content)
    metadata = {**entry.metadata, "generated_text": generated, "interrupted": True}
    updated = await store.update_entry(
        session_id, entry_id, {"content": spoken_text, "metadata": metadata}
    )
    if updated is None:  # deleted between the read and the write
        raise EntryNotFoundError(f"no entry {entry_id!r} in session {session_id!r}")
    summary = await store.get_summary(session_id)
    if (
        summary is not None
        and entry.seq is not None
        and summary.from_seq <= entry.seq <= summary.to_seq
    ):
        await _rebuild_summary(store, summary)
    data: dict[str, int | str] = {
        "entry_id": entry_id,
        "entry_seq": entry.seq or 0,
        "spoken_chars": len(spoken_text),
        "generated_chars": len(str(generated)),
    }
    return updated, data
