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
from typing import Any

from ..models import MemoryEntry, Role, SwitchTrigger
from .detector import Detection, detect

__all__ = ["LanguageDecision", "apply_language_policy", "decide_language", "explicit_trigger"]


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
    if detected is None or detected == current_language:
        return LanguageDecision(current_language, detected, False, None, found.confidence)
    switched = current_language is not None
    trigger = SwitchTrigger.AUTO_DETECTED if switched else None
    return LanguageDecision(detected, detected, switched, trigger, found.confidence)


def explicit_trigger(explicit_language: str, detection: Detection) -> SwitchTrigger:
    """Why a turn with an explicitly set language switches: ``explicit_setting`` when
    the text is confidently in another language (the setting overrode detection),
    ``auto_detected`` otherwise."""
    if detection.language is not None and detection.language != explicit_language:
        return SwitchTrigger.EXPLICIT_SETTING
    return SwitchTrigger.AUTO_DETECTED


def apply_language_policy(
    entry: MemoryEntry, trigger: str | None
) -> tuple[MemoryEntry, str | None]:
    """Fill an entry's ``detected_language`` and decide its language before storing.

    ``detected_language``: what the caller gave, else the detection, else the
    entry's declared ``language`` (the detector abstains on "hello" or "ok").
    A user turn without a ``language`` gets the confident detection as its
    language (the store then compares it with the session's current language
    and records the switch); without one it keeps the session's language. A
    user turn with an explicit ``language`` keeps it; the switch trigger is
    ``explicit_setting`` when the text is confidently another language.
    ``trigger``, when the caller gave one, always wins.

    The comparison with the session's language happens inside the store's
    transaction (:func:`unimem.stores.base.plan_entry`), not on a copy read
    beforehand, so two concurrent writers cannot both switch from a stale
    language: the second one sees the first one's language. This equals
    :func:`decide_language` given the language current at commit time, because
    the language set here is only ever a confident detection.

    Returns the updated entry and the trigger to pass to the store.
    """
    found = detect(entry.content) if entry.content else Detection(None, 0.0, "empty")
    update: dict[str, Any] = {
        "detected_language": entry.detected_language or found.language or entry.language
    }
    if entry.role is Role.USER:
        if entry.language:
            trigger = trigger or explicit_trigger(entry.language, found).value
        elif found.language is not None:
            update["language"] = decide_language(entry.content, None, detection=found).language
    return entry.model_copy(update=update), trigger
