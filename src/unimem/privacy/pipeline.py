"""The privacy pipeline: a user's settings applied to a write before any store sees it.

A write passes a chain of small steps (structlog-style processors), each
taking and returning an :class:`EntryWrite`:

1. :func:`skip_when_disabled` (``enabled=False``): nothing is stored; the entry
   comes back unstored (``seq`` is ``None``) with the degradation
   ``not_stored_memory_disabled``.
2. :func:`drop_rag_context` (``save_rag_context=False``): passages and sources
   are removed.
3. PHI redaction (``anonymize_phi=True``): content, passages, source texts and
   the string values of ``metadata`` (but for keys that hold ids, codes and
   times, see :func:`structural_key`) are redacted with the PHI detector; tokens
   (``[PERSON_1]``) are consistent within the session
   (:mod:`unimem.privacy.pseudonyms`); the entry gets ``phi_detected=True``
   and the service records a ``phi_detected`` event with types and counts only.
4. :func:`drop_voice_transcript` (``save_voice_transcripts=False``): a voice
   user entry is stored with empty content and the degradation
   ``voice_transcript_not_saved``; live listeners still get the (redacted)
   transcript, which is never stored.

Event data goes through the same redaction (:meth:`PrivacyPipeline.redact_data`),
as do facts and heard text (:meth:`PrivacyPipeline.redact_text`) and what a turn
sends the LLM (:meth:`PrivacyPipeline.redact_value`).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..models import MemoryEntry, MemorySettings
from ..stores.contracts import DurableStore, PhiGuard
from .phi_spans import UNKNOWN_TYPE, Detector, _replace, _spans, structural_key
from .pseudonyms import SessionTokens
from .write_steps import (
    DEGRADATION_NO_DETECTOR,
    DEGRADATION_NOT_STORED,
    DEGRADATION_VOICE_NOT_SAVED,
    EntryWrite,
    PhiTally,
    _degrade,
    drop_rag_context,
    drop_voice_transcript,
    skip_when_disabled,
)

__all__ = [
    "DEGRADATION_NOT_STORED",
    "DEGRADATION_NO_DETECTOR",
    "DEGRADATION_VOICE_NOT_SAVED",
    "Detector",
    "EntryWrite",
    "PhiTally",
    "PrivacyPipeline",
    "drop_rag_context",
    "drop_voice_transcript",
    "skip_when_disabled",
    "structural_key",
]

#: Sessions whose token maps a pipeline keeps between writes.
TOKEN_CACHE_SESSIONS = 4096


#: Most ``phi_detected`` events read to rebuild a session's tokens.
PHI_EVENT_LIMIT = 100_000


class PrivacyPipeline:
    """Applies a user's settings to entries and event data before they are stored.

    Args:
        detector: ``detect_phi(text, language)``; by default
            ``unimem.privacy.detect_phi``, loaded on first use. Without one,
            redaction is skipped and entries carry ``phi_detector_unavailable``.
        token_key: key of the token digests (see :mod:`unimem.privacy.pseudonyms`);
            random per pipeline when not given.
    """

    def __init__(self, *, detector: Detector | None = None, token_key: bytes | None = None):
        self._detector = detector
        self._looked_up = detector is not None
        # session id -> (seq of its last phi_detected event, its tokens): a write
        # with PHI then costs one indexed read instead of reading every event
        self._tokens: OrderedDict[str, tuple[int | None, SessionTokens]] = OrderedDict()
        self._token_key = token_key or os.urandom(32)

    @property
    def token_key(self) -> bytes:
        """Key of the token hashes (see :mod:`unimem.privacy.pseudonyms`)."""
        return self._token_key

    @token_key.setter
    def token_key(self, key: bytes) -> None:
        self._token_key = key
        self._tokens.clear()  # maps made under the old key no longer match

    def detector(self) -> Detector | None:
        """The PHI detector, or ``None`` when none is installed."""
        if not self._looked_up:
            self._looked_up = True
            found: Detector | None
            try:
                from .phi import detect_phi  # type: ignore[import-not-found,unused-ignore]
            except ImportError:  # the detector is an optional part of the installation
                found = None
            else:
                found = detect_phi
            self._detector = found
        return self._detector

    async def session_tokens(self, store: DurableStore, session_id: str) -> SessionTokens:
        """The session's tokens, rebuilt from its ``phi_detected`` events unless the
        copy kept from this process's last write is still current."""
        last = await store.get_events(session_id, event_type="phi_detected", limit=1)
        last_seq = last[-1].seq if last else None
        cached = self._tokens.get(session_id)
        if cached is not None and cached[0] == last_seq:
            self._tokens.move_to_end(session_id)
            return cached[1]
        events = await store.get_events(
            session_id, event_type="phi_detected", limit=PHI_EVENT_LIMIT
        )
        tokens = SessionTokens.from_events(self.token_key, session_id, (e.data for e in events))
        self._keep(session_id, last_seq, tokens)
        return tokens

    async def _entry_tokens(
        self, store: DurableStore, session_id: str
    ) -> tuple[SessionTokens, PhiGuard]:
        """The session's tokens for a new entry: the map this process kept, unread
        (the store confirms it with the guard when the entry is written, see
        :class:`~unimem.stores.contracts.PhiGuard`), else the map read from the store."""
        cached = self._tokens.get(session_id)
        if cached is not None:
            self._tokens.move_to_end(session_id)
            return cached[1], PhiGuard(cached[0])
        tokens = await self.session_tokens(store, session_id)
        return tokens, PhiGuard(self._tokens[session_id][0])

    def _keep(self, session_id: str, seq: int | None, tokens: SessionTokens) -> None:
        self._tokens[session_id] = (seq, tokens)
        self._tokens.move_to_end(session_id)
        while len(self._tokens) > TOKEN_CACHE_SESSIONS:
            self._tokens.popitem(last=False)

    def recorded(self, session_id: str, tokens: SessionTokens, event_seq: int | None) -> None:
        """The ``phi_detected`` event carrying ``tokens.added`` was stored as ``event_seq``."""
        tokens.commit()
        self._keep(session_id, event_seq, tokens)

    def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None:
        """Drop kept token maps (after a deletion: nothing of a deleted session stays)."""
        if everything:
            self._tokens.clear()
        for session_id in session_ids:
            self._tokens.pop(session_id, None)

    async def entry(
        self, entry: MemoryEntry, settings: MemorySettings, store: DurableStore
    ) -> EntryWrite:
        """Run the pipeline on ``entry`` (validated, ids filled) for a user with ``settings``."""
        write = EntryWrite(entry, settings)
        for step in (skip_when_disabled, drop_rag_context):
            write = step(write)
            if not write.store:
                return write
        if settings.anonymize_phi:
            write = await self._redact_entry(write, store)
        return drop_voice_transcript(write)

    async def _redact_entry(self, write: EntryWrite, store: DurableStore) -> EntryWrite:
        detect = self.detector()
        entry = write.entry
        if detect is None:
            write.entry = _degrade(entry, DEGRADATION_NO_DETECTOR)
            return write
        language = entry.language or entry.detected_language
        content_spans = _spans(entry.content, detect(entry.content, language))
        passage_spans = [_spans(p, detect(p, language)) for p in entry.retrieved_passages]
        sources_found = self._scan(entry.sources, detect, language)
        metadata_found = self._scan(
            {k: v for k, v in entry.metadata.items() if not structural_key(str(k))},
            detect,
            language,
        )
        if not (content_spans or any(passage_spans) or sources_found or metadata_found):
            return write
        tokens, write.phi_guard = await self._entry_tokens(store, entry.session_id)
        tally = write.phi
        for _, _, kind in content_spans:
            tally.add(kind, "content")
        for spans in passage_spans:
            for _, _, kind in spans:
                tally.add(kind, "retrieved_passages")
        update: dict[str, Any] = {
            "phi_detected": True,
            "content": _replace(entry.content, content_spans, tokens),
            "retrieved_passages": [
                _replace(p, s, tokens)
                for p, s in zip(entry.retrieved_passages, passage_spans, strict=True)
            ],
        }
        if sources_found:
            update["sources"] = self._redact_json(
                entry.sources, detect, language, tokens, tally, "sources"
            )
        if metadata_found:
            update["metadata"] = self._redact_json(
                entry.metadata, detect, language, tokens, tally, "metadata", skip_structural=True
            )
        write.entry = entry.model_copy(update=update)
        write.tokens = tokens
        return write

    def _scan(self, value: Any, detect: Detector, language: str | None) -> bool:
        if isinstance(value, str):
            return bool(detect(value, language))
        if isinstance(value, Mapping):
            return any(self._scan(v, detect, language) for v in value.values())
        if isinstance(value, list):
            return any(self._scan(v, detect, language) for v in value)
        return False

    def _redact_json(
        self,
        value: Any,
        detect: Detector,
        language: str | None,
        tokens: SessionTokens,
        tally: PhiTally,
        where: str,
        *,
        skip_structural: bool = False,
    ) -> Any:
        if isinstance(value, str):
            spans = _spans(value, detect(value, language))
            for _, _, kind in spans:
                tally.add(kind, where)
            return _replace(value, spans, tokens)
        if isinstance(value, Mapping):
            return {
                k: v
                if skip_structural and structural_key(str(k))
                else self._redact_json(
                    v, detect, language, tokens, tally, where, skip_structural=skip_structural
                )
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [
                self._redact_json(
                    v, detect, language, tokens, tally, where, skip_structural=skip_structural
                )
                for v in value
            ]
        return value

    async def redact_data(
        self,
        data: dict[str, Any],
        settings: MemorySettings,
        store: DurableStore,
        session_id: str,
        language: str | None = None,
    ) -> tuple[dict[str, Any], PhiTally, SessionTokens | None]:
        """Event ``data`` with PHI in its free-text values redacted (when the user's
        ``anonymize_phi`` is on); ids, codes and times are left alone."""
        tally = PhiTally()
        detect = self.detector() if settings.anonymize_phi else None
        if detect is None or not self._scan(
            {k: v for k, v in data.items() if not structural_key(k)}, detect, language
        ):
            return data, tally, None
        tokens = await self.session_tokens(store, session_id)
        redacted = self._redact_json(
            data, detect, language, tokens, tally, "data", skip_structural=True
        )
        return redacted, tally, tokens

    async def redact_value(
        self,
        value: Any,
        settings: MemorySettings,
        store: DurableStore,
        session_id: str | None,
        language: str | None = None,
    ) -> Any:
        """``value`` (a string, or lists and dicts of them) with the PHI in every
        string redacted under the session's tokens (fresh ones without
        ``session_id``), when the user's ``anonymize_phi`` is on: what a turn
        sends the LLM (the query, retrieved passages). New tokens are not
        recorded: the value is not stored."""
        detect = self.detector() if settings.anonymize_phi else None
        if detect is None or not self._scan(value, detect, language):
            return value
        if session_id is None:
            tokens = SessionTokens(self.token_key, "")
        else:
            tokens = await self.session_tokens(store, session_id)
        return self._redact_json(value, detect, language, tokens, PhiTally(), "value")

    async def redact_text(
        self,
        text: str,
        settings: MemorySettings,
        store: DurableStore,
        session_id: str | None,
        language: str | None = None,
    ) -> tuple[str, PhiTally]:
        """``text`` redacted for storage outside a new entry (a fact, an interrupted
        answer) when the user's ``anonymize_phi`` is on, and what was found. With
        ``session_id`` the session's tokens are used; ``tally.tokens`` then holds
        them (pass it to the service's ``_record_phi`` to keep new tokens)."""
        tally = PhiTally()
        detect = self.detector() if settings.anonymize_phi else None
        if detect is None:
            return text, tally
        spans = _spans(text, detect(text, language))
        if not spans:
            return text, tally
        if session_id is not None:
            tokens = await self.session_tokens(store, session_id)
        else:
            tokens = SessionTokens(self.token_key, "")
        for _, _, kind in spans:
            tally.add(kind, "text")
        tally.tokens = tokens
        return _replace(text, spans, tokens), tally

    async def redact_derived(
        self,
        texts: Sequence[str],
        source: str,
        settings: MemorySettings,
        store: DurableStore,
        session_id: str,
        language: str | None = None,
        keep: Collection[str] = (),
    ) -> tuple[list[str], PhiTally]:
        """``texts`` made from ``source`` (a turn's text as written: the facts
        found in it) redacted for storage like the turn, when ``anonymize_phi``
        is on: every PHI value found in ``source`` becomes the session's token
        wherever it appears in them (whatever its case), as does PHI found in
        a text itself, except what lies within one of the ``keep`` values (a
        fact's own content the caller keeps, such as an appointment's date).
        ``tally.tokens`` holds the tokens (new ones are kept with the
        service's ``record_phi``)."""
        tally = PhiTally()
        detect = self.detector() if settings.anonymize_phi else None
        if detect is None or not texts:
            return list(texts), tally
        found = {source[s:e]: kind for s, e, kind in _spans(source, detect(source, language))}
        wanted: list[list[tuple[int, int, str, str]]] = []
        for text in texts:
            spans = [(s, e, k, text[s:e]) for s, e, k in _spans(text, detect(text, language))]
            for value, kind in found.items():
                # whole words only: a name "Al" is not the start of "allergy"
                for match in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.I):
                    spans.append((match.start(), match.end(), kind, value))
            spans.sort(key=lambda s: (s[0], s[0] - s[1]))
            kept: list[tuple[int, int, str, str]] = []
            for span in spans:
                inside = any(text[span[0] : span[1]].lower() in k.lower() for k in keep)
                if not inside and (not kept or span[0] >= kept[-1][1]):
                    kept.append(span)
            wanted.append(kept)
        if not any(wanted):
            return list(texts), tally
        tokens = await self.session_tokens(store, session_id)
        tally.tokens = tokens
        out: list[str] = []
        for text, spans in zip(texts, wanted, strict=True):
            parts: list[str] = []
            last = 0
            for start, end, kind, value in spans:
                tally.add(kind, "facts")
                parts.append(text[last:start])
                try:
                    parts.append(tokens.token(kind, value))
                except ValueError:  # a type the token map does not number
                    parts.append(f"[{UNKNOWN_TYPE}]")
                last = end
            parts.append(text[last:])
            out.append("".join(parts))
        return out, tally
