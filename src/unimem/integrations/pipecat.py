"""unimem as a Pipecat frame processor: durable voice turns and memory in every LLM call.

Place ``UnimemMemoryProcessor`` between the user context aggregator and the
LLM, where Pipecat's own memory services go::

    memory_processor = UnimemMemoryProcessor(memory, "visit-42", user_id="alice")
    pipeline = Pipeline([transport.input(), stt, aggregators.user(), memory_processor,
                         llm, tts, transport.output(), aggregators.assistant()])
    task = PipelineWorker(pipeline, observers=[memory_processor.transcription_observer])

What it does with the frames that pass it:

- ``LLMContextUserTurnFrame`` (the user aggregator's final text of a turn): a
  user voice entry, in the language of the turn's last final
  ``TranscriptionFrame`` (seen by ``transcription_observer``; without it,
  unimem detects the language).
- ``LLMContextAssistantTurnFrame`` (the assistant aggregator's text of a
  finished turn, sent upstream, which is what reached the output): an
  assistant voice entry. After an ``InterruptionFrame`` it is stored as
  interrupted (``mark_interrupted``) with what was spoken before it.
- ``LLMContextFrame`` (the LLM call): unimem's context for the turn (system
  prompt with language and mode, pinned facts, summary of older turns,
  recalled passages where the service has them), within ``max_tokens``, goes
  into the ``LLMContext`` as one ``developer`` message (as Pipecat's memory
  services add theirs; Pipecat's adapters convert it for providers without
  that role) after any leading system or developer messages, replacing the
  one of the previous turn.

Writes run as background tasks (``create_task``), one after another, so the
reply never waits for them; a failed write is logged and the pipeline goes on.
Pending writes finish before the processor passes an ``EndFrame`` and when
the pipeline cleans it up.

Needs the ``pipecat`` extra: ``pip install 'unimem[pipecat]'``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMContextAssistantTurnFrame,
    LLMContextFrame,
    LLMContextUserTurnFrame,
    TranscriptionFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from ..errors import SessionNotFoundError
from ..models import MemoryEntry
from .memory_api import Memory, context_block

__all__ = ["TranscriptionLanguageObserver", "UnimemMemoryProcessor", "restore_messages"]

log = logging.getLogger(__name__)


def _language_code(language: object) -> str | None:
    """unimem's language code for Pipecat's ``Language`` (``en-US`` -> ``en``)."""
    if language is None:
        return None
    primary = str(getattr(language, "value", language)).split("-")[0].strip().lower()
    return primary if primary.isalpha() and 2 <= len(primary) <= 3 else None


class TranscriptionLanguageObserver(BaseObserver):
    """Notes the language of each final ``TranscriptionFrame`` the STT pushes.

    The user aggregator consumes transcriptions before the memory processor
    sees the turn, so the language reaches it through this observer.
    """

    def __init__(self) -> None:
        super().__init__()
        #: The language code of the latest final transcription (``None``: unknown).
        self.language: str | None = None

    async def on_push_frame(self, data: FramePushed) -> None:
        """Record the language of a final transcription (first push only)."""
        frame = data.frame
        if isinstance(frame, TranscriptionFrame) and data.direction == FrameDirection.DOWNSTREAM:
            self.language = _language_code(frame.language)


class UnimemMemoryProcessor(FrameProcessor):
    """Stores a Pipecat conversation in unimem and feeds unimem's context to the LLM.

    Args:
        memory: a :class:`~unimem.UnifiedMemoryService` or a
            :class:`~unimem.client.MemoryClient`.
        session_id: the unimem session (one conversation, across voice and text).
        user_id: the owner (``None``: the service's default user, or the
            client's token's user).
        max_tokens: the token budget of unimem's block in the LLM context.
        model: the model the budget is counted for.
        budget_ms: milliseconds the context read may take (``None``: no limit);
            past it unimem returns what it has.
        inject_context: whether to put unimem's context into each LLM call.
    """

    def __init__(
        self,
        memory: Memory,
        session_id: str,
        *,
        user_id: str | None = None,
        max_tokens: int = 1000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        inject_context: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.max_tokens = max_tokens
        self.model = model
        self.budget_ms = budget_ms
        self.inject_context = inject_context
        #: Pass to ``PipelineWorker(observers=[...])`` to store each turn's language.
        self.transcription_observer = TranscriptionLanguageObserver()
        self._injected: dict[str, Any] | None = None
        self._interrupted = False
        self._last_write: asyncio.Task[None] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Store turns, inject unimem's context into LLM calls, pass every frame on."""
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextUserTurnFrame):
            self._interrupted = False
            self._write(self._store_user(frame.text, self.transcription_observer.language))
        elif isinstance(frame, InterruptionFrame):
            self._interrupted = True
        elif isinstance(frame, LLMContextAssistantTurnFrame):
            interrupted, self._interrupted = self._interrupted, False
            self._write(self._store_assistant(frame.text, interrupted=interrupted))
        elif isinstance(frame, LLMContextFrame) and self.inject_context:
            await self._inject(frame.context)
        elif isinstance(frame, EndFrame):
            await self.flush()
        await self.push_frame(frame, direction)

    async def cleanup(self) -> None:
        """Finish the pending writes, then release the processor."""
        await self.flush()
        await super().cleanup()  # type: ignore[no-untyped-call]  # untyped in pipecat-ai

    async def flush(self) -> None:
        """Wait until every write handed to the background so far is done."""
        if self._last_write is not None:
            await asyncio.wait({self._last_write})

    # ------------------------------------------------------------------ writes

    def _write(self, write: Awaitable[None]) -> None:
        """Run ``write`` in the background after the writes before it."""
        self._last_write = self.create_task(
            self._after(self._last_write, write), name="unimem_write"
        )

    async def _after(self, previous: asyncio.Task[None] | None, write: Awaitable[None]) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        try:
            await write
        except Exception:
            log.exception("unimem: could not store a turn of session %s", self.session_id)

    async def _store_user(self, text: str, language: str | None) -> None:
        if not text.strip():
            return
        entry = MemoryEntry(role="user", content=text, mode="voice", language=language)
        await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)

    async def _store_assistant(self, text: str, *, interrupted: bool) -> None:
        if not text.strip():
            return
        entry = MemoryEntry(role="assistant", content=text, mode="voice")
        stored = await self.memory.add_entry(self.session_id, entry, user_id=self.user_id)
        if interrupted:
            await self.memory.mark_interrupted(
                self.session_id, stored.id, text, user_id=self.user_id
            )

    # ------------------------------------------------------------------ context

    async def _inject(self, context: LLMContext) -> None:
        """Put unimem's block into ``context``, replacing last turn's."""
        messages = [m for m in context.get_messages() if m is not self._injected]
        query = next(
            (
                m["content"]
                for m in reversed(messages)
                if isinstance(m, dict) and m.get("role") == "user" and isinstance(m["content"], str)
            ),
            "",
        )
        block = await context_block(
            self.memory,
            self.session_id,
            query,
            max_tokens=self.max_tokens,
            model=self.model,
            budget_ms=self.budget_ms,
            user_id=self.user_id,
        )
        if block is None:
            context.set_messages(messages)
            return
        self._injected = {"role": "developer", "content": block}
        at = 0
        while at < len(messages) and _role(messages[at]) in ("system", "developer"):
            at += 1
        messages.insert(at, self._injected)  # type: ignore[arg-type]
        context.set_messages(messages)


def _role(message: object) -> object:
    return message.get("role") if isinstance(message, dict) else None


async def restore_messages(
    memory: Memory, session_id: str, *, user_id: str | None = None, max_messages: int = 50
) -> list[dict[str, str]]:
    """The session's last turns as ``LLMContext`` messages, to start a new pipeline
    where the conversation left off (``LLMContext(messages=...)``); what the user
    heard of an interrupted answer, not the whole generated text."""
    try:
        entries = await memory.get_history(session_id, max_messages, user_id=user_id)
    except SessionNotFoundError:
        return []
    return [
        {"role": e.role.value, "content": e.content}
        for e in entries
        if e.role.value in ("user", "assistant") and e.content.strip()
    ]
