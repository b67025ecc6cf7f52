"""When a user turn switches the session's language: a pure decision.

A switch needs a *confident* detection (one :func:`~unimem.language.detect`
does not answer ``None`` for) in another language than the session's
current one. Interjections, names, drug names, doses and numbers
give no detection (see :mod:`unimem.language.detector`), so they never flip the
language; one real sentence in another language does. A language given
explicitly on the entry wins over detection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..models import MemoryEntry, Role, SessionInfo, SwitchTrigger
from .detector import Detection, detect

__all__ = [
    "LanguageDecision",
    "SessionReader",
    "apply_language_policy",
    "decide_entry_language",
    "decide_language",
    "detection_needed",
    "explicit_trigger",
    "same_language",
]


@dataclass(frozen=True, slots=True)
class LanguageDecision:
    """The language of one turn and whether it switches the session.

    Attributes:
        language: the turn's language (``None`` while the session has none).
        detected_language: what the text itself is in, ``None`` when unsure.
        switched: the turn moves the session to ``language``.
        trigger: why it switched (``auto_detected`` or ``explicit_setting``),
            ``None`` when it did not.
        confidence: the detection's confidence, 0..1.
    """

    language: str | None
    detected_language: str | None
    switched: bool
    trigger: SwitchTrigger | None
    confidence: float


def decide_language(
    text: str,
    current_language: str | None,
    explicit_language: str | None = None,
    *,
    detection: Detection | None = None,
) -> LanguageDecision:
    """Decide the language of a user turn given the session's current language.

    Args:
        text: the turn's content.
        current_language: the session's language before this turn (``None`` for
            a new session).
        explicit_language: the language the caller set on the entry, if any;
            it always wins. The trigger is ``explicit_setting`` when it
            disagrees with a confident detection of the text, otherwise
            ``auto_detected``.
        detection: a detection of ``text`` already made (saves detecting twice).
    """
    found = detection if detection is not None else detect(text)
    detected = found.language
    if explicit_language:
        switched = current_language is not None and explicit_language != current_language
        trigger = explicit_trigger(explicit_language, found) if switched else None
        return LanguageDecision(explicit_language, detected, switched, trigger, found.confidence)
    # detect() already returns None below its confidence floor, so any
    # detection is a confident one.
    if detected is None or same_language(detected, current_language):
        return LanguageDecision(current_language, detected, False, None, found.confidence)
    switched = current_language is not None
    trigger = SwitchTrigger.AUTO_DETECTED if switched else None
    return LanguageDecision(detected, detected, switched, trigger, found.confidence)


def explicit_trigger(explicit_language: str, detection: Detection) -> SwitchTrigger:
    """Why a turn with an explicitly set language switches: ``explicit_setting`` when
    the text is confidently in another language (the setting overrode detection),
    ``auto_detected`` otherwise."""
    if detection.language is not None and not same_language(detection.language, explicit_language):
        return SwitchTrigger.EXPLICIT_SETTING
    return SwitchTrigger.AUTO_DETECTED


def _given_detection(entry: MemoryEntry) -> Detection | None:
    """The caller's own detection, when the caller also set the language explicitly
    (then unimem's detection could change nothing but the switch trigger's label)."""
    if not (entry.language and entry.detected_language):
        return None
    return Detection(entry.detected_language.partition("-")[0].lower(), 1.0, "given")


def detection_needed(entry: MemoryEntry) -> bool:
    """Whether :func:`apply_language_policy` will detect the entry's language."""
    return bool(entry.content) and _given_detection(entry) is None


def same_language(detected: str, current: str | None) -> bool:
    """Whether a detected language is the session's: ``pt`` is the session's
    ``pt-BR``, since detection names no regions."""
    return current is not None and detected == current.partition("-")[0].lower()


class SessionReader(Protocol):
    """What :func:`apply_language_policy` reads: the store's session state."""

    async def get_session(self, session_id: str) -> SessionInfo | None: ...


def decide_entry_language(
    entry: MemoryEntry, trigger: str | None
) -> tuple[MemoryEntry, str | None, bool]:
    """Fill an entry's ``detected_language`` and decide its language, reading nothing.

    ``detected_language``: what the caller gave, else the detection, else the
    entry's declared ``language`` (the detector abstains on "hello" or "ok").
    A user turn with an explicit ``language`` keeps it; its switch trigger is
    ``explicit_setting`` when the text is confidently another language.
    A user turn without one that gets a confident detection is given the
    detected language, and the third value is ``True``: the store then
    decides against the session's current language at commit
    (``append_entry(..., language_detected=True)``, see
    :func:`unimem.stores.timeline.plan_entry`): the session's spelling
    (``pt-BR``) when they agree, else a switch, ``auto_detected`` unless
    ``trigger`` says otherwise. Any other turn is stored with no language, so
    that it inherits the session's. ``trigger``, when the caller gave one,
    always wins.

    A turn that arrives with both ``language`` and ``detected_language`` (a
    voice pipeline whose speech-to-text already identified the language, as in
    the spec's example) is not detected again: the explicit language decides
    and the given detection only labels a switch's trigger.
    """
    found = _given_detection(entry)
    if found is None and entry.content:
        # Only the detection's language is read below (the decision's
        # confidence is not stored): lingua may be skipped when the function
        # words alone settle the language (same language, lower-bound confidence).
        found = detect(entry.content, exact_confidence=False)
    elif found is None:
        found = Detection(None, 0.0, "empty")
    update: dict[str, Any] = {
        "detected_language": entry.detected_language or found.language or entry.language
    }
    detected = False
    if entry.role is Role.USER:
        if entry.language:
            trigger = trigger or explicit_trigger(entry.language, found).value
        elif found.language is not None:
            update["language"] = found.language
            detected = True
    return entry.model_copy(update=update), trigger, detected


async def apply_language_policy(
    entry: MemoryEntry, trigger: str | None, store: SessionReader
) -> tuple[MemoryEntry, str | None]:
    """:func:`decide_entry_language`, with the session's current language read
    first (``store.get_session``, only for a confidently detected turn) and
    applied as :func:`decide_language` does, for a store told nothing of
    the detection.

    Race: the language is read before the store's transaction, so another
    writer's switch in between is not seen (a store given
    ``language_detected=True`` decides at commit instead, and has no race).

    Raises whatever ``store.get_session`` raises (``StoreUnavailableError``).
    """
    decided, trigger, detected = decide_entry_language(entry, trigger)
    if detected and decided.language is not None:
        state = await store.get_session(entry.session_id)
        current = state.current_language if state is not None else None
        if same_language(decided.language, current):
            decided = decided.model_copy(update={"language": current})
        elif current is not None and trigger is None:
            trigger = SwitchTrigger.AUTO_DETECTED.value
    return decided, trigger
