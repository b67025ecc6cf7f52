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

The context is built ahead of the LLM call (:mod:`unimem.integrations.prepared`):
``transcription_observer`` sees each final ``TranscriptionFrame`` as the STT
pushes it, before the user aggregator has decided the turn is over, and starts
the build for the turn's text so far (joined as the aggregator joins it). The
``LLMContextFrame`` takes it, waiting at most ``wait_ms``; past that the call
goes on with what is ready and the user's entry records the degradation.

At the ``StartFrame`` an in-process service loads the models its first turn
would load (:func:`~unimem.integrations.prewarm`), so the pipeline is ready
only once they are.

Writes run as background tasks (``create_task``), one after another, so the
reply never waits for them; a failed write is logged and the pipeline goes on.
The user's entry is handed over once its LLM call has its context (so it
carries that turn's degradations). Pending writes finish before the processor
passes an ``EndFrame`` and when the pipeline cleans it up.

Needs the ``pipecat`` extra: ``pip install 'unimem[pipecat]'``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from pipecat.frames.frames import (
    EndFrame,
    Frame,
    InterruptionFrame,
    LLMContextAssistantTurnFrame,
    LLMContextFrame,
    LLMContextUserTurnFrame,
    StartFrame,
    TranscriptionFrame,
)
from pipecat.observers.base_observer import BaseObserver, FramePushed
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.utils.string import TextPartForConcatenation, concatenate_aggregated_text

from ..errors import SessionNotFoundError
from ..models import MemoryEntry
from ..service import UnifiedMemoryService
from .memory_api import Memory, prewarm
from .prepared import DEFAULT_WAIT_MS, ContextPreparer

__all__ = ["TranscriptionLanguageObserver", "UnimemMemoryProcessor", "restore_messages"]

log = logging.getLogger(__name__)


def _language_code(language: object) -> str | None:
    """unimem's language code for Pipecat's ``Language`` (``en-US`` -> ``en``)."""
    if language is None:
        return None
    primary = str(getattr(language, "value", language)).split("-")[0].strip().lower()
    return primary if primary.isalpha() and 2 <= len(primary) <= 3 else None


class TranscriptionLanguageObserver(BaseObserver):
    """Notes the language of each final ``TranscriptionFrame`` the STT pushes, and
    the user's text of the turn so far.

    The user aggregator consumes transcriptions before the memory processor
    sees the turn, so the language reaches it through this observer, and so
    does the early signal of the turn's text.

    Args:
        on_text: called with the turn's text so far (the final transcriptions
            since the last ``LLMContextUserTurnFrame``, joined as the user
            aggregator joins them) at each final transcription.
    """

    def __init__(self, on_text: Callable[[str], None] | None = None) -> None:
        super().__init__()
        #: The language code of the latest final transcription (``None``: unknown).
        self.language: str | None = None
        self._on_text = on_text
        self._parts: list[TextPartForConcatenation] = []
        self._seen: set[int] = set()

    async def on_push_frame(self, data: FramePushed) -> None:
        """Record a final transcription (first push only); a user turn frame ends the turn."""
        frame = data.frame
        if isinstance(frame, LLMContextUserTurnFrame):
            self._parts, self._seen = [], set()
            return
        if not isinstance(frame, TranscriptionFrame) or data.direction != FrameDirection.DOWNSTREAM:
            return
        if frame.id in self._seen:  # the same frame passing the next processor
            return
        self._seen.add(frame.id)
        self.language = _language_code(frame.language)
        if not frame.text.strip():
            return
        self._parts.append(
            TextPartForConcatenation(
                frame.text, includes_inter_part_spaces=frame.includes_inter_frame_spaces
            )
        )
        if self._on_text is not None:
            self._on_text(concatenate_aggregated_text(self._parts))


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
        budget_ms: milliseconds the context build may take (``None``: no
            limit); past it unimem returns what it has.
        wait_ms: milliseconds an LLM call waits for a context that is not
            ready (``None``: until it is); past it the call goes on with what
            is ready.
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
        wait_ms: float | None = DEFAULT_WAIT_MS,
        inject_context: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.memory = memory
        self.session_id = session_id
        self.user_id = user_id
        self.inject_context = inject_context
        #: Pass to ``PipelineWorker(observers=[...])``: it stores each turn's
        #: language and starts the turn's context at its final transcription.
        self.transcription_observer = TranscriptionLanguageObserver(on_text=self.prepare)
        #: Builds each turn's context ahead of its LLM call (its ``max_tokens``,
        #: ``model``, ``budget_ms`` and ``wait_ms`` are the arguments above).
        self.memory_context = ContextPreparer(
            memory,
            max_tokens=max_tokens,
            model=model,
            budget_ms=budget_ms,
            wait_ms=wait_ms,
            spawn=self._spawn,
        )
        self._injected: dict[str, Any] | None = None
        self._interrupted = False
        self._last_write: asyncio.Task[None] | None = None
        #: the user turn whose entry waits for its LLM call's degradations
        self._user_turn: tuple[str, str | None] | None = None

    def prepare(self, text: str) -> None:
        """Start building the context for a user turn whose text is ``text``
        (the transcription observer calls it at each final transcription)."""
        if self.inject_context and text.strip():
            self.memory_context.start(self.session_id, self.user_id, text, self._last_write)

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        """Store turns, inject unimem's context into LLM calls, pass every frame on."""
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextUserTurnFrame):
            self._interrupted = False
            self._store_user_turn()
            self._user_turn = (frame.text, self.transcription_observer.language)
            if not self.inject_context:
                self._store_user_turn()
        elif isinstance(frame, InterruptionFrame):
            self._interrupted = True
        elif isinstance(frame, LLMContextAssistantTurnFrame):
            self._store_user_turn()
            interrupted, self._interrupted = self._interrupted, False
            self._write(self._store_assistant(frame.text, interrupted=interrupted))
        elif isinstance(frame, LLMContextFrame) and self.inject_context:
            degradations = await self._inject(frame.context)
            self._store_user_turn(degradations)
        elif isinstance(frame, EndFrame):
            await self.flush()
        elif isinstance(frame, StartFrame) and isinstance(self.memory, UnifiedMemoryService):
            # the models the first turn would load (seconds): before the pipeline is ready
            await asyncio.to_thread(prewarm, (self.memory_context.model,))
        await self.push_frame(frame, direction)

    async def cleanup(self) -> None:
        """Finish the pending writes, stop context builds, then release the processor."""
        await self.flush()
        await self.memory_context.aclose()
        await super().cleanup()  # type: ignore[no-untyped-call]  # untyped in pipecat-ai

    async def flush(self) -> None:
        """Wait until every write handed to the background so far is done."""
        self._store_user_turn()
        if self._last_write is not None:
            await asyncio.wait({self._last_write})

    # ------------------------------------------------------------------ writes

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return self.create_task(work, name="unimem_context")

    def _store_user_turn(self, degradations: list[str] | None = None) -> None:
        """Hand the held user turn to the background, with its degradations."""
        if self._user_turn is not None:
            (text, language), self._user_turn = self._user_turn, None
            self._write(self._store_user(text, language, degradations or []))

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

    async def _store_user(self, text: str, language: str | None, degradations: list[str]) -> None:
        if not text.strip():
            return
        entry = MemoryEntry(
            role="user", content=text, mode="voice", language=language, degradations=degradations
        )
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

    async def _inject(self, context: LLMContext) -> list[str]:
        """Put unimem's block into ``context``, replacing last turn's; the turn's
        degradations."""
        messages = [m for m in context.get_messages() if m is not self._injected]
        # the turn's text as the aggregator sent it, else the context's last user text
        query = self._user_turn[0] if self._user_turn is not None else None
        if query is None:
            query = next(
                (
                    m["content"]
                    for m in reversed(messages)
                    if isinstance(m, dict)
                    and m.get("role") == "user"
                    and isinstance(m["content"], str)
                ),
                "",
            )
        turn = await self.memory_context.take(
            self.session_id, self.user_id, query, self._last_write
        )
        if turn.block is None:
            context.set_messages(messages)
            return turn.degradations
        self._injected = {"role": "developer", "content": turn.block}
        at = 0
        while at < len(messages) and _role(messages[at]) in ("system", "developer"):
            at += 1
        messages.insert(at, self._injected)  # type: ignore[arg-type]
        context.set_messages(messages)
        return turn.degradations


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
