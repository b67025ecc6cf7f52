"""unimem as the OpenAI Agents SDK's session memory, for text and realtime (voice) agents.

``UnimemSession`` implements the SDK's ``Session`` protocol, so it is used as
``Runner.run(agent, input, session=UnimemSession(memory, "visit-42", user_id="alice"))``.
Every item the runner stores becomes one unimem entry (a user or assistant
message, or a tool call and its output), so the conversation is durable, shared
with every other surface (the web UI, the HTTP API, a voice pipeline) and
covered by unimem's privacy settings. Items round-trip exactly: the item is
kept in the entry's ``metadata["openai_agents_item"]``, its text in ``content``.
An assistant answer that was cut off (``mark_interrupted``) comes back as what
the user heard, not the whole generated text.

The realtime runner keeps no session; ``RealtimeHistoryRecorder`` listens to
its ``history_added`` / ``history_updated`` events and stores each completed
user transcript and assistant answer as a voice entry, once.

Needs the ``openai-agents`` extra: ``pip install 'unimem[openai-agents]'``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from ..errors import SessionNotFoundError
from ..models import MemoryEntry
from .memory_api import HISTORY_LIMIT, Memory

if TYPE_CHECKING:
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings
    from agents.realtime import RealtimeSessionEvent

__all__ = ["ITEM_KEY", "RealtimeHistoryRecorder", "UnimemSession", "entry_from_item"]

#: The metadata key that holds the SDK's item, so it comes back exactly.
ITEM_KEY = "openai_agents_item"

_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}


def _text_of(content: Any) -> str:
    """The text of a message's ``content``: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping):
                text = part.get("text") or part.get("transcript") or part.get("refusal")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return ""


def _describe(item: Mapping[str, Any]) -> str:
    """A readable line for an item without message text (tool calls, outputs, ...)."""
    kind = str(item.get("type", "item"))
    if kind == "function_call":
        return f"[tool call {item.get('name', '?')}({item.get('arguments', '')})]"
    if kind.endswith("_output"):
        output = item.get("output")
        text = output if isinstance(output, str) else json.dumps(output, default=str)
        return f"[tool output {item.get('call_id', '')}: {text}]"
    return f"[{kind}]"


def entry_from_item(item: Mapping[str, Any], *, mode: str = "text") -> MemoryEntry:
    """The unimem entry that stores one SDK input item.

    Messages keep their role (``developer`` is stored as ``system``); any other
    item (tool call, tool output, reasoning, ...) is an assistant entry whose
    content is a readable line. The item itself goes into the metadata, but for
    a plain ``{"role", "content": text}`` message, which the entry is already.
    """
    role = _ROLES.get(str(item.get("role", "")), "assistant")
    content = item.get("content")
    text = _text_of(content) if "role" in item else ""
    if len(item) == 2 and role == item.get("role") and isinstance(content, str) and content.strip():
        # a plain message is its entry (item_from_entry rebuilds it exactly): no
        # copy in the metadata, whose text the privacy pipeline would read again
        return MemoryEntry(role=role, content=content, mode=mode)
    return MemoryEntry(
        role=role,
        content=(text.strip() and text) or _describe(item),
        mode=mode,
        metadata={ITEM_KEY: dict(item)},
    )


def item_from_entry(entry: MemoryEntry) -> dict[str, Any]:
    """The SDK item an entry stands for: the stored item, else a plain message.

    An interrupted answer is what the user heard; entries written by other
    surfaces (a voice pipeline, the web UI) become plain messages.
    """
    stored = entry.metadata.get(ITEM_KEY)
    if isinstance(stored, dict) and not entry.metadata.get("interrupted"):
        return dict(stored)
    return {"role": entry.role.value, "content": entry.content}


class UnimemSession:
    """The OpenAI Agents SDK ``Session`` protocol over unimem.

    Args:
        memory: a :class:`~unimem.UnifiedMemoryService` or a
            :class:`~unimem.client.MemoryClient`.
        session_id: the unimem session (one conversation, across voice and text).
        user_id: the owner (``None``: the service's default user, or the
            client's token's user).
        mode: the mode new entries are stored with (``text`` for ``Runner.run``).
        session_settings: the SDK's settings (``limit``: items ``get_items`` returns
            when called without one).
    """

    def __init__(
        self,
        memory: Memory,
        session_id: str,
        *,
        user_id: str | None = None,
        mode: str = "text",
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.mode = mode
        self.session_settings = session_settings

    async def _entries(self, limit: int) -> list[MemoryEntry]:
        try:
            return await self.memory.get_history(
                self.session_id, max_messages=limit, user_id=self.user_id
            )
        except SessionNotFoundError:
            return []

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first: the latest ``limit`` when given."""
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None and limit <= 0:
            return []
        entries = await self._entries(min(limit or HISTORY_LIMIT, HISTORY_LIMIT))
        return [cast("TResponseInputItem", item_from_entry(entry)) for entry in entries]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Store the items in order, one entry each."""
        for item in items:
            entry = entry_from_item(cast(Mapping[str, Any], item), mode=self.mode)
            await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the most recent item and return it (``None`` when there is none)."""
        entries = await self._entries(1)
        if not entries:
            return None
        last = entries[-1]
        await self.memory.delete_entry(self.session_id, last.id, user_id=self.user_id)
        return cast("TResponseInputItem", item_from_entry(last))

    async def clear_session(self) -> None:
        """Delete the whole session from unimem (entries, events, summary)."""
        await self.memory.delete_user_memory(
            user_id=self.user_id, scope="session", session_id=self.session_id
        )


class RealtimeHistoryRecorder:
    """Stores a realtime (voice) agent's conversation in unimem as it happens.

    Feed it the realtime session's events::

        async with await runner.run() as session:
            recorder = RealtimeHistoryRecorder(memory, "visit-42", user_id="alice")
            async for event in session:
                await recorder.on_event(event)

    A user item is stored when its transcript is complete, an assistant item
    when its audio transcript is; each item once (by the SDK's item id, which
    becomes the entry id, so a replay stores nothing twice). An assistant item
    that ends ``incomplete`` (the user talked over it) is stored as interrupted
    with what was said so far.
    """

    def __init__(self, memory: Memory, session_id: str, *, user_id: str | None = None) -> None:
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self._stored: set[str] = set()

    async def on_event(self, event: RealtimeSessionEvent) -> None:
        """Handle one realtime session event (others than history events are ignored)."""
        kind = getattr(event, "type", "")
        if kind == "history_added":
            await self.on_item(event.item)  # type: ignore[union-attr]
        elif kind == "history_updated":
            for item in event.history:  # type: ignore[union-attr]
                await self.on_item(item)

    async def on_item(self, item: Any) -> None:
        """Store one realtime history item if it is a finished message not yet stored."""
        item_id = str(getattr(item, "item_id", "") or "")
        role = getattr(item, "role", None)
        if not item_id or item_id in self._stored or role not in ("user", "assistant"):
            return
        status = getattr(item, "status", None)
        text = _text_of([_part(p) for p in getattr(item, "content", None) or []]).strip()
        if not text or (role == "assistant" and status not in ("completed", "incomplete")):
            return  # a transcript still arriving
        entry = MemoryEntry(
            id=_entry_id(item_id),
            role=role,
            content=text,
            mode="voice",
            metadata={ITEM_KEY: item.model_dump(mode="json")},
        )
        stored = await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)
        self._stored.add(item_id)
        if role == "assistant" and status == "incomplete":
            await self.memory.mark_interrupted(
                self.session_id, stored.id, text, user_id=self.user_id
            )


def _part(part: Any) -> dict[str, Any]:
    """A realtime content part (a pydantic model) as a plain dict."""
    dump = getattr(part, "model_dump", None)
    return cast(dict[str, Any], dump()) if callable(dump) else {}


def _entry_id(item_id: str) -> str:
    """An entry id from the SDK's item id (ids allow ``A-Za-z0-9._:@-``)."""
    cleaned = "".join(c if c.isalnum() or c in "._:@-" else "-" for c in item_id)
    return f"rt-{cleaned}"[:128]
