"""The service's context side: ``build_llm_context``, pinned facts and
``mark_interrupted`` validate their arguments here and hand the work to
:mod:`unimem.context`."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from ..context import episodic as context_ops
from ..context.builder import LLMContext
from ..context.extractive import ExtractiveSummarizer
from ..context.recall_hook import recall_limit
from ..context.session_context import build_session_context
from ..context.summarize import Summarizer
from ..errors import InvalidInputError, SessionNotFoundError
from ..models import EventType, Fact, MemoryEntry
from ..validation import check_content_size, check_depth, check_id, check_range
from .core import ServiceCore
from .privacy import PrivacyOperations
from .recall import RecallOperations
from .reveal import RevealOperations
from .writes import SessionWrites

__all__ = ["ContextOperations"]


class ContextOperations:
    """The context side of :class:`unimem.UnifiedMemoryService`.

    Args:
        core: the shared state.
        privacy: redaction of facts and spoken text, and PHI events.
        writes: where the interruption event is recorded.
        recall: the recall of other sessions' turns into the context.
        summarizer: summarizer of older turns; ``None``: the offline extractive one.
    """

    def __init__(
        self,
        core: ServiceCore,
        privacy: PrivacyOperations,
        writes: SessionWrites,
        recall: RecallOperations,
        summarizer: Summarizer | None = None,
    ) -> None:
        self._core = core
        self._privacy = privacy
        self._writes = writes
        self._recall = recall
        self._reveal = RevealOperations(core)
        self.summarizer: Summarizer = summarizer or ExtractiveSummarizer()

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
        reveal_phi: bool = False,
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

        ``reveal_phi``: for an LLM the deployment trusts (self-hosted, or under
        a BAA), every PHI token of the context (history, summary, facts,
        recalled turns, the query) is replaced by its value from the owner's
        vault, each with its own session's values; the stored summary keeps
        its tokens. Audited (``reveal``, view ``llm_context``). Without
        encryption keys there is no vault and the context keeps its tokens.
        """
        check_id(session_id, "session_id")
        if not isinstance(reveal_phi, bool):
            raise InvalidInputError("reveal_phi must be true or false", field="reveal_phi")
        if not isinstance(current_query, str):
            raise InvalidInputError("current_query must be a string", field="current_query")
        check_content_size(current_query, self._core.config.max_content_bytes)
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
        store = await self._core.ready_store()
        if user_id is not None:
            # the session and the asking user's settings side by side: the owner
            # is the asking user unless the session says otherwise (then foreign)
            state, asked_settings = await asyncio.gather(
                store.get_session(session_id), self._core.settings_of(self._core.user(user_id))
            )
        else:
            state, asked_settings = await store.get_session(session_id), None
        # another user's session is built as one never used: nothing of theirs,
        # not even the numbering of its PHI tokens
        foreign = state is not None and user_id is not None and state.user_id != user_id
        if foreign:
            state = None
        owner = state.user_id if state is not None else self._core.user(user_id)
        # The caller's query and passages reach the LLM redacted like stored text,
        # under the session's tokens (so the stored query turn still matches).
        settings = (
            asked_settings
            if asked_settings is not None and owner == self._core.user(user_id)
            else await self._core.settings_of(owner)
        )
        language = state.current_language if state else None
        tokens_of = None if foreign else session_id
        current_query = await self._core.privacy.redact_value(
            current_query, settings, store, tokens_of, language
        )
        if settings.enabled and settings.cross_session:
            self._recall.prefetch(owner, current_query)  # embedded while the store is read
        if rag_results is not None:
            rag_results = await self._core.privacy.redact_value(
                list(rag_results), settings, store, tokens_of, language
            )
        reveal = None
        if reveal_phi and not foreign and self._core.keyring is not None:
            reveal = self._reveal.owner(owner)
            if settings.anonymize_phi:  # tokens the query just got, not yet in the vault
                tokens = await self._core.privacy.session_tokens(store, session_id)
                reveal.pending(session_id, tokens.new_values)
        built = await build_session_context(
            store,
            session_id=session_id,
            user_id=owner,
            recall=self._recall.context_recall(
                owner, session_id, recall_limit(max_tokens), settings
            ),
            query=current_query,
            rag_results=rag_results,
            max_tokens=max_tokens,
            model=model,
            budget_ms=budget_ms,
            summarizer=self.summarizer,
            window=self._core.config.max_context_messages,
            unused=foreign,
            reveal=reveal,
        )
        if reveal is not None:
            await self._reveal.audit(reveal, "llm_context", session_id=session_id)
        return built

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
        state = await self._core.owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        store = await self._core.ready_store()
        fact, new = await context_ops.pin_stored_entry(store, session_id, entry_id, state.user_id)
        return await self._store_fact(fact) if new else fact

    async def add_fact(
        self,
        text: str,
        kind: str = "note",
        *,
        user_id: str | None = None,
        session_id: str | None = None,
    ) -> Fact:
        """Add a pinned fact (``kind``: ``allergy``, ``medication``, ``preference``, ...)
        that appears in every context of the user until deleted.

        Raises:
            InvalidInputError: empty text or kind; ContentTooLargeError: text too long.
        """
        if isinstance(text, str):
            check_content_size(text, self._core.config.max_content_bytes)
        if session_id is not None:
            check_id(session_id, "session_id")
        fact = context_ops.new_fact(self._core.user(user_id), text, kind, session_id)
        return await self._store_fact(fact)

    async def _store_fact(self, fact: Fact) -> Fact:
        """Store a fact under the owner's settings: redacted when ``anonymize_phi``
        is on, not stored at all when memory is disabled."""
        settings = await self._core.settings_of(fact.user_id)
        if not settings.enabled:
            return fact
        store = await self._core.ready_store()
        text, _ = await self._core.privacy.redact_text(fact.text, settings, store, fact.session_id)
        if text != fact.text:
            fact = fact.model_copy(update={"text": text})
        return await store.put_fact(fact)

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
        check_content_size(spoken_text, self._core.config.max_content_bytes)
        MemoryEntry(role="assistant", content=spoken_text)  # same text rules as any content
        if not spoken_text.strip():
            # cut off before the first word: the one empty content there is (the
            # context says nothing was heard; the answer stays in metadata)
            spoken_text = ""
        state = await self._core.owned_session(session_id, user_id)
        if state is None:
            raise SessionNotFoundError(f"no session {session_id!r} for this user")
        store = await self._core.ready_store()
        settings = await self._core.settings_of(state.user_id)
        heard, tally = await self._core.privacy.redact_text(
            spoken_text, settings, store, session_id, state.current_language
        )
        entry, data = await context_ops.interrupt_entry(store, session_id, entry_id, heard)
        await self._writes.add_event(
            session_id, EventType.INTERRUPTION, data, user_id=state.user_id
        )
        await self._privacy.record_phi(tally, tally.tokens, entry)
        return entry
