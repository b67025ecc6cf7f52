"""unimem's context for a voice turn, built while the framework waits for the end of the turn.

A voice pipeline has the user's words (the final transcript) some time before
it calls the LLM: Pipecat's user aggregator and LiveKit's endpointing wait to
be sure the user has finished (a few hundred milliseconds). The Pipecat and
LiveKit adapters start the context build (pinned facts, recall, summary) at
the final transcript, after the writes handed to the background before it (so
every earlier turn, and the facts found in it, is in), and the LLM call takes
the result:

- prepared for the turn's text and ready: it goes in, and the turn waits for
  nothing;
- prepared for another text (the transcript changed after the build started)
  or for none: a build for the turn's text starts now;
- not ready within ``wait_ms``: the call goes on with what is ready, the parts
  of the last context built for the session that do not depend on the text
  (system prompt, pinned facts, summary; no recalled passages), and the turn
  records :data:`DEGRADATION_CONTEXT_NOT_READY`. The late build is stopped, so
  that it does not hold the event loop while the reply is being requested,
  and built again :data:`REFRESH_AFTER_S` later, while the LLM answers: that
  is what is ready for the next turn.

A build is CPU work the event loop cannot interrupt between its awaits (in
this process, nearly all of it): a step that is running when the wait ends
holds the call until it is done. That is why the build starts at the
transcript, in the gap before the end of the turn, and not at the LLM call.

A prepared context is bound to its session, user and text; it is used once.
A build started for a session stops the ones still running for it (an older
text of the turn, a late turn's refresh): their result would not be used, and
they would hold the event loop the new one needs.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from ..recall.block import RECALL_HEADER
from .memory_api import Memory, context_messages

__all__ = [
    "DEFAULT_WAIT_MS",
    "DEGRADATION_CONTEXT_NOT_READY",
    "REFRESH_AFTER_S",
    "ContextPreparer",
    "TurnContext",
]

#: Milliseconds an LLM call waits for a context that is not ready yet: with the
#: adapter's own work it keeps what memory adds to a turn within 5 ms.
DEFAULT_WAIT_MS = 3.0
#: Recorded on the user's turn when its context was not ready in time.
DEGRADATION_CONTEXT_NOT_READY = "memory_context_not_ready"
#: Seconds after a late turn's LLM call that its context is built again.
REFRESH_AFTER_S = 0.25

_RECALL_START = RECALL_HEADER.split("(", 1)[0]

#: (session id, user id, text)
_Key = tuple[str, str | None, str]
Spawn = Callable[[Coroutine[Any, Any, Any]], "asyncio.Task[Any]"]


class _Default:
    """The preparer's own ``wait_ms``."""


_DEFAULT = _Default()


@dataclasses.dataclass(slots=True)
class TurnContext:
    """What goes into one LLM call: unimem's block (``None``: nothing) and the
    degradations the turn records."""

    block: str | None
    degradations: list[str]


def _join(messages: Sequence[str] | None) -> str | None:
    return "\n\n".join(messages) or None if messages else None


class ContextPreparer:
    """Builds a turn's context ahead of its LLM call (see the module doc).

    Args:
        memory: the service or a client.
        max_tokens: the token budget of unimem's block.
        model: the model the budget is counted for.
        budget_ms: milliseconds the build itself may take (``None``: no limit).
        wait_ms: milliseconds the LLM call waits for a build that is not done
            (``None``: until it is).
        spawn: starts a background task (the framework's own task helper).
    """

    def __init__(
        self,
        memory: Memory,
        *,
        max_tokens: int,
        model: str,
        budget_ms: float | None,
        wait_ms: float | None,
        spawn: Spawn,
    ) -> None:
        self.memory = memory
        self.max_tokens = max_tokens
        self.model = model
        self.budget_ms = budget_ms
        self.wait_ms = wait_ms
        self._spawn = spawn
        self._key: _Key | None = None
        self._task: asyncio.Task[list[str] | None] | None = None
        #: the text-independent part of the last context built, by (session, user)
        self._ready: tuple[tuple[str, str | None], list[str]] | None = None
        #: the builds still running: the key each is for, and whether its turn
        #: may use it (``False``: a late turn's refresh, for what is ready next)
        self._running: dict[asyncio.Task[list[str] | None], tuple[_Key, bool]] = {}

    def start(
        self,
        session_id: str,
        user_id: str | None,
        text: str,
        after: asyncio.Task[None] | None = None,
    ) -> None:
        """Start building the context for ``text`` once ``after`` (the writes
        handed to the background so far) is done; a build for the same text
        already started is kept, and any other build for the session stops."""
        key = (session_id, user_id, text)
        if self._key == key and self._task is not None:
            return
        if self._underway(key) is not None:
            return  # its turn's LLM call has it already, and waits for it
        self._supersede(key[:2])
        self._key = key
        self._task = self._track(key, True, self._spawn(self._build(key, after)))

    def _underway(self, key: _Key) -> asyncio.Task[list[str] | None] | None:
        """The build for ``key`` still running for its turn, if any."""
        for task, (of, usable) in self._running.items():
            if usable and of == key and not task.done():
                return task
        return None

    def _supersede(self, owner: tuple[str, str | None]) -> None:
        """Stop the builds still running for ``owner``'s session: a newer text
        (or a late turn's refresh) replaces them, and their result would not be
        used."""
        for task, (of, _) in list(self._running.items()):
            if of[:2] == owner:
                task.cancel()
        if self._key is not None and self._key[:2] == owner:
            self._key, self._task = None, None

    def _track(
        self, key: _Key, usable: bool, task: asyncio.Task[list[str] | None]
    ) -> asyncio.Task[list[str] | None]:
        self._running[task] = (key, usable)
        task.add_done_callback(self._forget)
        return task

    def _forget(self, task: asyncio.Task[Any]) -> None:
        self._running.pop(task, None)

    async def take(
        self,
        session_id: str,
        user_id: str | None,
        text: str,
        after: asyncio.Task[None] | None = None,
        *,
        wait_ms: float | _Default | None = _DEFAULT,
    ) -> TurnContext:
        """The context for the turn whose user text is ``text``, within ``wait_ms``
        (by default the preparer's)."""
        key = (session_id, user_id, text)
        task = self._task if self._key == key else self._underway(key)
        if task is None:
            self.start(session_id, user_id, text, after)
            task = self._task
        assert task is not None  # started just above
        if self._task is task:
            self._key, self._task = None, None  # used once
        if not task.done():
            wait = self.wait_ms if isinstance(wait_ms, _Default) else wait_ms
            timeout = None if wait is None else wait / 1000
            await asyncio.wait({task}, timeout=timeout)
        if task.done() and not task.cancelled():
            return TurnContext(_join(task.result()), [])
        task.cancel()
        self._supersede(key[:2])
        self._track(key, False, self._spawn(self._build(key, None, delay=REFRESH_AFTER_S)))
        ready = self._ready
        fallback = ready[1] if ready is not None and ready[0] == key[:2] else None
        return TurnContext(_join(fallback), [DEGRADATION_CONTEXT_NOT_READY])

    async def aclose(self) -> None:
        """Stop the builds still running."""
        for task in list(self._running):
            task.cancel()
        if self._running:
            await asyncio.wait(list(self._running))
        self._key, self._task = None, None

    async def _build(
        self, key: _Key, after: asyncio.Task[None] | None, *, delay: float = 0.0
    ) -> list[str] | None:
        if delay:
            await asyncio.sleep(delay)
        if after is not None:
            await asyncio.wait({after})
        session_id, user_id, text = key
        messages = await context_messages(
            self.memory,
            session_id,
            text,
            max_tokens=self.max_tokens,
            model=self.model,
            budget_ms=self.budget_ms,
            user_id=user_id,
        )
        if messages is not None:
            stable = [m for m in messages if not m.startswith(_RECALL_START)]
            self._ready = ((session_id, user_id), stable)
        return messages
