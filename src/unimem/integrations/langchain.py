"""unimem as a LangChain chat message history.

``UnimemChatMessageHistory`` implements ``BaseChatMessageHistory``, so it plugs
into ``RunnableWithMessageHistory`` or any code that keeps a LangChain
conversation. Each message becomes one unimem entry (human: ``user``, AI and
tool messages: ``assistant``, system: ``system``); the message itself is kept in
the entry's ``metadata["langchain_message"]`` (``message_to_dict``), so tool
calls, ids and additional fields come back exactly. Entries written by other
surfaces (a voice pipeline, the web UI) come back as plain messages, and an
interrupted answer as what the user heard.

The async methods (``aget_messages``, ``aadd_messages``, ``aclear``) work with
any memory. The sync ones (``messages``, ``add_messages``, ``clear``) run the
call on ``loop`` when given (the event loop the memory was opened on, running
in another thread); without it they run it to completion here, which suits
memory that holds no connection bound to a loop (the in-process store,
SQLite). Inside a running event loop use the async methods.

Needs the ``langchain`` extra: ``pip install 'unimem[langchain]'``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    message_to_dict,
    messages_from_dict,
)

from ..errors import ConfigurationError, SessionNotFoundError
from ..models import MemoryEntry
from .memory_api import HISTORY_LIMIT, Memory

__all__ = ["MESSAGE_KEY", "UnimemChatMessageHistory"]

#: The metadata key that holds the LangChain message, so it comes back exactly.
MESSAGE_KEY = "langchain_message"

_T = TypeVar("_T")
_ROLES = {"human": "user", "system": "system"}


def entry_from_message(message: BaseMessage, *, mode: str = "text") -> MemoryEntry:
    """The unimem entry that stores one LangChain message."""
    text = message.text.strip() or f"[{message.type} message]"
    return MemoryEntry(
        role=_ROLES.get(message.type, "assistant"),
        content=text,
        mode=mode,
        metadata={MESSAGE_KEY: message_to_dict(message)},
    )


def message_from_entry(entry: MemoryEntry) -> BaseMessage:
    """The LangChain message an entry stands for."""
    stored = entry.metadata.get(MESSAGE_KEY)
    if isinstance(stored, dict) and not entry.metadata.get("interrupted"):
        return messages_from_dict([stored])[0]
    if entry.role.value == "user":
        return HumanMessage(content=entry.content, id=entry.id)
    if entry.role.value == "system":
        return SystemMessage(content=entry.content, id=entry.id)
    return AIMessage(content=entry.content, id=entry.id)


class UnimemChatMessageHistory(BaseChatMessageHistory):
    """A LangChain chat history kept in one unimem session.

    Args:
        memory: a :class:`~unimem.UnifiedMemoryService` or a
            :class:`~unimem.client.MemoryClient`.
        session_id: the unimem session.
        user_id: the owner (``None``: the service's default user, or the token's).
        mode: the mode new entries are stored with.
        loop: the event loop ``memory`` runs on, for the sync methods (see the module).
    """

    def __init__(
        self,
        memory: Memory,
        session_id: str,
        *,
        user_id: str | None = None,
        mode: str = "text",
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.mode = mode
        self.loop = loop

    def _run(self, call: Coroutine[Any, Any, _T]) -> _T:
        if self.loop is not None:
            return asyncio.run_coroutine_threadsafe(call, self.loop).result()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(call)
        call.close()
        raise ConfigurationError(
            "UnimemChatMessageHistory's sync methods cannot run inside a running event "
            "loop: use aget_messages / aadd_messages / aclear, or pass loop="
        )

    async def aget_messages(self) -> list[BaseMessage]:
        """The session's messages, oldest first."""
        try:
            entries = await self.memory.get_history(
                self.session_id, max_messages=HISTORY_LIMIT, user_id=self.user_id
            )
        except SessionNotFoundError:
            return []
        return [message_from_entry(entry) for entry in entries]

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages in order, one entry each."""
        for message in messages:
            entry = entry_from_message(message, mode=self.mode)
            await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)

    async def aclear(self) -> None:
        """Delete the session from unimem."""
        await self.memory.delete_user_memory(
            user_id=self.user_id, scope="session", session_id=self.session_id
        )

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first (sync; see the module)."""
        return self._run(self.aget_messages())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Store the messages (sync; see the module)."""
        self._run(self.aadd_messages(messages))

    def clear(self) -> None:
        """Delete the session (sync; see the module)."""
        self._run(self.aclear())
