"""unimem as LiveKit Agents' conversation memory: durable turns, memory in every reply.

::

    memory = AgentMemory(unimem, "visit-42", user_id="alice")
    session = AgentSession(llm=..., stt=..., tts=...)
    memory.attach(session)                       # stores every turn as it is added
    agent = UnimemAgent(memory=memory, instructions="You are a nurse.",
                        chat_ctx=await memory.chat_ctx())   # the conversation it left
    await session.start(agent, room=ctx.room)
    session.input.set_audio_enabled(False)                  # user switched to typing

- ``UnimemAgent.on_user_turn_completed`` puts unimem's context for the turn
  (system prompt with language and mode, pinned facts, summary of older turns,
  recalled passages where the service has them), within ``max_tokens``, into
  the turn's chat context as one system message before the user's message.
- ``conversation_item_added``: each user and assistant message becomes an
  entry in the current mode (``voice`` while audio input is on, else
  ``text``), the user's in the language of the last final transcript
  (``user_input_transcribed``). An assistant message that carries
  ``interrupted`` holds what was spoken before the cut; it is stored and marked
  interrupted (``mark_interrupted``) with that text.
- Turning the session's audio input off or on (``session.input.set_audio_enabled``,
  by the application or by LiveKit's remote session) is a mode switch
  (``handle_mode_switch``): LiveKit announces no event for it, so it is noticed
  at the session's next event (a state change, a transcript, a message) and
  recorded before that message is stored. ``AgentMemory.set_audio_enabled``
  does the same and records the switch at once.
- ``chat_ctx()`` rebuilds a ``ChatContext`` from unimem's history, so a new
  ``AgentSession`` for the same user (a reconnect, another device, a handoff)
  starts with the conversation it left.

The context of a spoken turn is built ahead of the reply
(:mod:`unimem.integrations.prepared`): each final transcript
(``user_input_transcribed``) starts the build for the turn's text so far
(joined as LiveKit joins it), while LiveKit's endpointing waits to be sure the
user has finished; ``on_user_turn_completed`` takes it, waiting at most
``wait_ms``. Past that the reply goes on with what is ready, and the user's
entry records the degradation. A typed turn (``generate_reply``, text input)
has no earlier signal: its reply waits for its context, built once its user
message is stored.

Writes run as background tasks, one after another, so a reply never waits for
them; a failed write is logged and the session goes on. ``flush()`` waits for
them (``aclose()`` too, and it stops builds still running).

Needs the ``livekit`` extra: ``pip install 'unimem[livekit]'``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, Awaitable
from typing import Any

from livekit.agents import (
    Agent,
    AgentSession,
    ConversationItemAddedEvent,
    FlushSentinel,
    ModelSettings,
    UserInputTranscribedEvent,
    llm,
)

from ..errors import SessionNotFoundError
from ..models import MemoryEntry
from .memory_api import Memory
from .prepared import DEFAULT_WAIT_MS, ContextPreparer

__all__ = ["CONTEXT_MARK", "AgentMemory", "UnimemAgent"]

#: The ``extra`` key that marks the system message holding unimem's context.
CONTEXT_MARK = "unimem_context"
#: How many answered user messages are remembered (their reply may still run).
ANSWERED_KEPT = 64

log = logging.getLogger(__name__)


def _language_code(language: object) -> str | None:
    """unimem's language code for a LiveKit language (``en-US`` -> ``en``)."""
    if not language:
        return None
    primary = str(language).split("-")[0].strip().lower()
    return primary if primary.isalpha() and 2 <= len(primary) <= 3 else None


class AgentMemory:
    """One LiveKit conversation bound to a unimem session.

    Args:
        memory: a :class:`~unimem.UnifiedMemoryService` or a
            :class:`~unimem.client.MemoryClient`.
        session_id: the unimem session (one conversation, across voice and text).
        user_id: the owner (``None``: the service's default user, or the
            client's token's user).
        mode: the mode turns are stored in until the audio input goes off or on.
        max_tokens: the token budget of unimem's block in each reply's context.
        model: the model the budget is counted for.
        budget_ms: milliseconds the context build may take (``None``: no limit).
        wait_ms: milliseconds a spoken turn's reply waits for a context that
            is not ready (``None``: until it is); past it the reply goes on
            with what is ready.
    """

    def __init__(
        self,
        memory: Memory,
        session_id: str,
        *,
        user_id: str | None = None,
        mode: str = "voice",
        max_tokens: int = 1000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        wait_ms: float | None = DEFAULT_WAIT_MS,
    ) -> None:
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.mode = mode
        #: Builds each turn's context ahead of its reply (its ``max_tokens``,
        #: ``model``, ``budget_ms`` and ``wait_ms`` are the arguments above).
        self.memory_context = ContextPreparer(
            memory,
            max_tokens=max_tokens,
            model=model,
            budget_ms=budget_ms,
            wait_ms=wait_ms,
            spawn=lambda work: asyncio.get_running_loop().create_task(work),
        )
        self.language: str | None = None
        #: the final transcripts of the user's turn so far, joined as LiveKit does
        self._transcript = ""
        #: user messages whose reply has had its context (the latest
        #: :data:`ANSWERED_KEPT`), with the degradations their entry records
        self._answered: dict[str, list[str]] = {}
        self._last_write: asyncio.Task[None] | None = None
        self._stored: set[str] = set()
        self._session: AgentSession[Any] | None = None
        #: the session's audio input switch as last seen
        self._audio_on = True

    # ------------------------------------------------------------------ session

    def attach(self, session: AgentSession[Any]) -> None:
        """Store the session's turns as they are added to its history, and its
        audio input going off or on as mode switches."""
        self._session = session
        self._audio_on = session.input.audio_enabled
        session.on("conversation_item_added", self.on_conversation_item_added)
        session.on("user_input_transcribed", self.on_user_input_transcribed)
        session.on("user_state_changed", self.on_state_changed)
        session.on("agent_state_changed", self.on_state_changed)

    def on_state_changed(self, event: object) -> None:
        """A user or agent state change: record a switch of the audio input since."""
        self._follow_audio()

    def on_user_input_transcribed(self, event: UserInputTranscribedEvent) -> None:
        """Note the language of a final transcript, for the user turn it ends."""
        self._follow_audio()
        if event.is_final:
            self.language = _language_code(event.language)
            if event.transcript.strip():
                self._transcript = f"{self._transcript} {event.transcript}".lstrip()
                self.prepare(self._transcript)

    def prepare(self, text: str) -> None:
        """Start building the context for a user turn whose text is ``text``
        (each final transcript does, with the turn's text so far)."""
        self.memory_context.start(self.session_id, self.user_id, text, self._last_write)

    def on_conversation_item_added(self, event: ConversationItemAddedEvent) -> None:
        """Store a user or assistant message in the background (once per item id)."""
        self._follow_audio()  # a typed turn after audio went off is a text turn
        item = event.item
        if not isinstance(item, llm.ChatMessage) or item.role not in ("user", "assistant"):
            return
        if item.id in self._stored:
            return
        self._stored.add(item.id)
        text = item.text_content or ""
        language = self.language if item.role == "user" else None
        degradations = self._answered.get(item.id, []) if item.role == "user" else []
        self._write(
            self._store(item.role, text, item.interrupted, self.mode, language, degradations)
        )

    async def set_audio_enabled(self, session: AgentSession[Any], enabled: bool) -> None:
        """Turn the session's audio input on or off and record the mode switch now."""
        session.input.set_audio_enabled(enabled)
        if session is self._session:
            self._audio_on = session.input.audio_enabled
        self._switch_to("voice" if enabled else "text")

    def _follow_audio(self) -> None:
        """Record a switch when the attached session's audio input went off or on."""
        if self._session is None:
            return
        audio_on = self._session.input.audio_enabled
        if audio_on != self._audio_on:
            self._audio_on = audio_on
            self._switch_to("voice" if audio_on else "text")

    def _switch_to(self, to_mode: str) -> None:
        if to_mode == self.mode:
            return
        from_mode, self.mode = self.mode, to_mode
        self._write(self._switch(from_mode, to_mode))

    async def flush(self) -> None:
        """Wait until every write handed to the background so far is done."""
        if self._last_write is not None:
            await asyncio.wait({self._last_write})

    async def aclose(self) -> None:
        """Finish the pending writes and stop the context builds still running."""
        await self.flush()
        await self.memory_context.aclose()

    # ------------------------------------------------------------------ reads

    async def chat_ctx(self, max_messages: int = 50) -> llm.ChatContext:
        """The session's last turns as a ``ChatContext`` for ``Agent(chat_ctx=...)``:
        what the user heard of an interrupted answer, marked ``interrupted``."""
        ctx = llm.ChatContext()
        try:
            entries = await self.memory.get_history(
                self.session_id, max_messages, user_id=self.user_id
            )
        except SessionNotFoundError:
            return ctx
        for entry in entries:
            role = entry.role.value
            if role not in ("user", "assistant") or not entry.content.strip():
                continue
            interrupted = bool(entry.metadata.get("interrupted"))
            ctx.add_message(
                role="user" if role == "user" else "assistant",
                content=entry.content,
                interrupted=interrupted,
            )
        return ctx

    async def inject(
        self, chat_ctx: llm.ChatContext, query: str, *, before: llm.ChatMessage | None = None
    ) -> None:
        """Add unimem's context for the turn whose user text is ``query`` to
        ``chat_ctx``: one system message, marked in ``extra`` so it is added once.

        With ``before`` (the spoken turn's user message, in
        ``on_user_turn_completed``), the context prepared from the transcript
        is used, waiting at most ``wait_ms``; the message's entry records the
        turn's degradations. Without it (a typed turn) the context is built
        after the writes so far and waited for.

        It goes right before ``before``: a spoken turn's message is not in the
        context yet when ``on_user_turn_completed`` runs (LiveKit inserts it
        afterwards by its ``created_at``), so the block takes that time and
        ends up just ahead of it. Without ``before``, or with it already in the
        context, the block goes before the last user message (at the end when
        there is none)."""
        if any(_is_block(item) for item in chat_ctx.items):
            return
        if before is not None:
            if before.id in self._answered:
                return
            self._transcript = ""  # the next final transcript starts the next turn
            turn = await self.memory_context.take(
                self.session_id, self.user_id, query, self._last_write
            )
            self._answered[before.id] = turn.degradations
            while len(self._answered) > ANSWERED_KEPT:
                del self._answered[next(iter(self._answered))]
        else:
            turn = await self.memory_context.take(
                self.session_id, self.user_id, query, self._last_write, wait_ms=None
            )
        if turn.block is None:
            return
        unimem_block = llm.ChatMessage(
            role="system", content=[turn.block], extra={CONTEXT_MARK: True}
        )
        if before is not None and chat_ctx.get_by_id(before.id) is None:
            unimem_block.created_at = before.created_at
            chat_ctx.insert(unimem_block)
            return
        at = len(chat_ctx.items)
        for index in range(len(chat_ctx.items) - 1, -1, -1):
            if _role(chat_ctx.items[index]) == "user":
                at = index
                break
        chat_ctx.items.insert(at, unimem_block)

    def answered(self, message_id: str) -> bool:
        """Whether the reply to this user message has had unimem's context
        (``on_user_turn_completed`` ran for it)."""
        return message_id in self._answered

    # ------------------------------------------------------------------ writes

    def _write(self, write: Awaitable[None]) -> None:
        self._last_write = asyncio.get_running_loop().create_task(
            self._after(self._last_write, write)
        )

    async def _after(self, previous: asyncio.Task[None] | None, write: Awaitable[None]) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        try:
            await write
        except Exception:
            log.exception("unimem: could not store a turn")  # no ids or content in logs

    async def _store(
        self,
        role: str,
        text: str,
        interrupted: bool,
        mode: str,
        language: str | None,
        degradations: list[str],
    ) -> None:
        if not text.strip():
            return
        entry = MemoryEntry(
            role=role, content=text, mode=mode, language=language, degradations=degradations
        )
        stored = await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)
        if interrupted and role == "assistant":
            await self.memory.mark_interrupted(
                self.session_id, stored.id, text, user_id=self.user_id
            )

    async def _switch(self, from_mode: str, to_mode: str) -> None:
        await self.memory.handle_mode_switch(
            self.session_id, from_mode, to_mode, user_id=self.user_id
        )


class UnimemAgent(Agent):
    """A LiveKit ``Agent`` that gets unimem's context before each reply.

    Takes the :class:`AgentMemory` as ``memory=`` and every ``Agent`` argument.
    Subclass it like ``Agent``; an override of ``on_user_turn_completed``
    should call ``super()`` to keep the memory.
    """

    def __init__(self, *, memory: AgentMemory, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory = memory

    async def on_user_turn_completed(
        self, turn_ctx: llm.ChatContext, new_message: llm.ChatMessage
    ) -> None:
        """Put unimem's context for the user's turn into ``turn_ctx`` (this reply only)."""
        await self.memory.inject(turn_ctx, new_message.text_content or "", before=new_message)

    async def llm_node(
        self,
        chat_ctx: llm.ChatContext,
        tools: list[llm.Tool],
        model_settings: ModelSettings,
    ) -> AsyncIterable[llm.ChatChunk | str | FlushSentinel]:
        """The default LLM node, with unimem's context added when the turn did
        not come through ``on_user_turn_completed`` (typed input, ``generate_reply``)."""
        last = _last_user(chat_ctx)
        answered = last is not None and self.memory.answered(last.id)
        if not answered and not any(_is_block(item) for item in chat_ctx.items):
            chat_ctx = chat_ctx.copy()
            await self.memory.inject(chat_ctx, (last.text_content or "") if last else "")
        async for chunk in Agent.default.llm_node(self, chat_ctx, tools, model_settings):
            yield chunk


def _role(item: object) -> str | None:
    return item.role if isinstance(item, llm.ChatMessage) else None


def _is_block(item: object) -> bool:
    return isinstance(item, llm.ChatMessage) and bool(item.extra.get(CONTEXT_MARK))


def _last_user(chat_ctx: llm.ChatContext) -> llm.ChatMessage | None:
    for item in reversed(chat_ctx.items):
        if isinstance(item, llm.ChatMessage) and item.role == "user":
            return item
    return None
