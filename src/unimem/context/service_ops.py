"""The context methods of :class:`unimem.UnifiedMemoryService` (a mixin).

``build_llm_context``, pinned facts and ``mark_interrupted`` validate their
arguments here and hand the work to the rest of :mod:`unimem.context`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..config import MemoryConfig
from ..errors import InvalidInputError, SessionNotFoundError
from ..models import EventType, Fact, MemoryEntry, MemoryEvent, MemorySettings, SessionInfo
from ..privacy.pipeline import PrivacyPipeline
from ..stores import DurableStore
from ..validation import check_content_size, check_depth, check_id, check_range
from . import operations as context_ops
from .builder import LLMContext
from .extractive import ExtractiveSummarizer
from .pipeline import RecallHook, build_session_context, recall_limit
from .summarize import Summarizer

if TYPE_CHECKING:
    from ..privacy.pipeline import PhiTally
    from ..privacy.pseudonyms import SessionTokens

__all__ = ["ContextOperations"]


class ContextOperations:
    """Mixin of :class:`unimem.UnifiedMemoryService` (which provides the members below)."""

    config: MemoryConfig
    privacy: PrivacyPipeline
    #: Summarizer of older turns for ``build_llm_context``; ``None`` means the
    #: offline extractive one (``build_service`` sets the LLM one of the settings).
    summarizer: Summarizer | None = None

    if TYPE_CHECKING:  # provided by UnifiedMemoryService

        async def _store(self) -> DurableStore: ...

        def _user(self, user_id: str | None) -> str: ...

        async def _owned_session(
            self, session_id: str, user_id: str | None
        ) -> SessionInfo | None: ...

        async def _settings_of(self, user_id: str) -> MemorySettings: ...

        # provided by RecallOperations
        def _context_recall(self, user_id: str, session_id: str, limit: int) -> RecallHook: ...

        # provided by PrivacyOperations
        async def _record_phi(
            self, tally: PhiTally, tokens: SessionTokens | None, item: MemoryEntry | MemoryEvent
        ) -> None: ...

        async def add_event(
            self,
            session_id: str,
            event_type: EventType | str,
            data: Mapping[str, Any] | None = None,
            *,
            user_id: str | None = None,
        ) -> MemoryEvent: ...

    async def build_llm_context(
        self,
        session_id: str,
        current_query: str,
        rag_results: Sequence[Any] | None = None,
        max_tokens: int = 4000,
        model: str = "gpt-4o",
        budget_ms: float | None = None,
        *,
        user_id: str | None = None,
    ) -> LLMContext:
        """The messages to send the LLM for this turn, within ``max_tokens``.

        System prompt (language and switches, mode, numbered passages with
        sources), pinned facts, a summary of older turns, the history ordered by
        turn start, then ``current_query`` (see :mod:`unimem.context.builder`).
        The result is a list of ``{"role", "content"}`` dicts with
        ``token_count``, ``degradations`` and ``summary_used`` attributes.
        With ``budget_ms`` (ms left of the voice turn) it never waits past it
        and cuts passages to 5/3/1; degradations are also recorded on the last
        user entry.

        Raises:
            InvalidInputError: bad ``max_tokens`` (1..1,000,000), ``budget_ms``,
                ``model`` or ``rag_results``.

        Another user's session is built as a session never used.
        """
        check_id(session_id, "session_id")
        if not isinstance(current_query, str):
            raise InvalidInputError("current_query must be a string", field="current_query")
        check_content_size(current_query, self.config.max_content_bytes)
        check_range(max_tokens, "max_tokens", 1, 1_000_000)
        if not isinstance(model, str) or not model.strip():
            raise InvalidInputError("model must be a model name such as 'gpt-4o'", field="model")
        if budget_ms is not None and (
            isinstance(budget_ms, bool)
            or not isinstance(budget_ms, int | float)
            or not math.isfinite(budget_ms)
            or budget_ms < 0
        ):
            raise InvalidInputError(
                "budget_ms must be a finite number of milliseconds >= 0", field="budget_ms"
            )
        if rag_results is not None:
            if isinstance(rag_results, str | bytes) or not isinstance(rag_results, Sequence):
                raise InvalidInputError("rag_results must be a list", field="rag_results")
            check_depth(list(rag_results), "rag_results")
        state = await (await self._store()).get_session(session_id)
        # another user's session is built as one never used: nothing of theirs,
        # not even the numbering of its PHI tokens
        foreign = state is not None and user_id is not None and state.user_id != user_id
        if foreign:
            state = None
        owner = state.user_id if state is not None else self._user(user_id)
        if self.summarizer is None:
            self.summarizer = ExtractiveSummarizer()
        store = await self._store()
        # The caller's query and passages reach the LLM redacted like stored text,
        # under the session's tokens (so the stored query turn still matches).
        settings = await self._settings_of(state.user_id if state else self._user(user_id))
        language = state.current_language if state else None
        tokens_of = None if foreign else session_id
        current_query = await self.privacy.redact_value(
            current_query, settings, store, tokens_of, language
        )
        if rag_results is not None:
            rag_results = await self.privacy.redact_value(
                list(rag_results), settings, store, tokens_of, language
            )
        return await build_session_context(
            store,
            session_id=session_id,
            user_id=self._user(user_id),
            recall=self._context_recall(owner, session_id, recall_limit(max_tokens)),
            query=current_query,
            rag_results=rag_results,
            max_tokens=max_tokens,
            model=model,
            budget_ms=budget_ms,
            summarizer=self.summarizer,
            window=self.config.max_context_messages,
            unused=foreign,
        )

    async def pin_entry(
        self, session_id: str, entry_id: str, *, user_id: str | None = None
    ) -> Fact:
        """Pin an entry's content as a fact of the session's owner: it appears in
        every context of that user until deleted (pinning twice returns the same fact).

        Raises:
            SessionNotFoundError: unknown session, or another user's.
            EntryNotFoundError: no such entry in the session.
        """
        check_id(session_id, "session_id")
        check_id(entry_id, "entry_id")
        state = await self._owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        store = await self._store()
        fact, new = await context_ops.pin_stored_entry(store, session_id, entry_id, state.user_id)
        return await self._store_fact(fact) if new else fact

    async def add_fact(
        self, user_id: str | None, text: str, kind: str = "note", *, session_id: str | None = None
    ) -> Fact:
        """Add a pinned fact (``kind``: ``allergy``, ``medication``, ``preference``, ...)
        that appears in every context of the user until deleted.

        Raises:
            InvalidInputError: empty text or kind; ContentTooLargeError: text too long.
        """
        if isinstance(text, str):
            check_content_size(text, self.config.max_content_bytes)
        if session_id is not None:
            check_id(session_id, "session_id")
        fact = context_ops.new_fact(self._user(user_id), text, kind, session_id)
        return await self._store_fact(fact)

    async def _store_fact(self, fact: Fact) -> Fact:
        """Store a fact under the owner's settings: redacted when ``anonymize_phi``
        is on, not stored at all when memory is disabled."""
        settings = await self._settings_of(fact.user_id)
        if not settings.enabled:
            return fact
        store = await self._store()
        text, _ = await self.privacy.redact_text(fact.text, settings, store, fact.session_id)
        if text != fact.text:
            fact = fact.model_copy(update={"text": text})
        return await store.put_fact(fact)

    async def list_facts(self, user_id: str | None = None) -> list[Fact]:
        """The user's pinned facts, oldest first."""
        return await (await self._store()).list_facts(self._user(user_id))

    async def delete_fact(self, user_id: str | None, fact_id: str) -> bool:
        """Delete one pinned fact of the user; whether it existed."""
        check_id(fact_id, "fact_id")
        return await (await self._store()).delete_fact(self._user(user_id), fact_id)

    async def mark_interrupted(
        self, session_id: str, entry_id: str, spoken_text: str, *, user_id: str | None = None
    ) -> MemoryEntry:
        """Record that the user cut a voice answer off after hearing ``spoken_text``.

        The entry's content becomes ``spoken_text`` (so the next context holds
        what was heard; empty, or only whitespace, when the user heard nothing:
        the only entry whose content may be empty); the full answer stays in
        ``metadata["generated_text"]`` with ``metadata["interrupted"] = True``.
        Records an ``interruption`` event.

        Raises:
            SessionNotFoundError: unknown session, or another user's.
            EntryNotFoundError: no such entry; InvalidInputError: not an assistant entry.
        """
        check_id(session_id, "session_id")
        check_id(entry_id, "entry_id")
        if not isinstance(spoken_text, str):
            raise InvalidInputError("spoken_text must be a string", field="spoken_text")
        check_content_size(spoken_text, self.config.max_content_bytes)
        MemoryEntry(role="assistant", content=spoken_text)  # same text rules as any content
        if not spoken_text.strip():
            # cut off before the first word: the one empty content there is (the
            # context says nothing was heard; the answer stays in metadata)
            spoken_text = ""
        state = await self._owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        store = await self._store()
        settings = await self._settings_of(state.user_id)
        heard, tally = await self.privacy.redact_text(
            spoken_text, settings, store, session_id, state.current_language
        )
        entry, data = await context_ops.interrupt_entry(store, session_id, entry_id, heard)
        await self.add_event(session_id, EventType.INTERRUPTION, data, user_id=state.user_id)
        await self._record_phi(tally, tally.tokens, entry)
        return entry
