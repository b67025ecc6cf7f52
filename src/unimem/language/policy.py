"""When a user turn switches the session's language: a pure decision.

A switch needs a *confident* detection in another language than the
session's current one. Interjections, names, drug names, doses and numbers
give no detection (see :mod:`unimem.language.detect`), so they never flip the
language; one real sentence in another language does. A language given
explicitly on the entry wins over detection.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..models import SwitchTrigger
from .detect import Detection, detect

__all__ = ["SWITCH_CONFIDENCE", "LanguageDecision", "decide_language"]

#: A Latin-script detection must be at least this probable to switch away from
#: the session's language (script-based detections are certain).
SWITCH_CONFIDENCE: Final = 0.5


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
        trigger = None
        if switched:
            disagree = detected is not None and detected != explicit_language
            trigger = SwitchTrigger.EXPLICIT_SETTING if disagree else SwitchTrigger.AUTO_DETECTED
        return LanguageDecision(explicit_language, detected, switched, trigger, found.confidence)
    if detected is None or detected == current_language:
        return LanguageDecision(current_language, detected, False, None, found.confidence)
    if current_language is None:
        return LanguageDecision(detected, detected, False, None, found.confidence)
    if found.confidence < SWITCH_CONFIDENCE:
        return LanguageDecision(current_language, detected, False, None, found.confidence)
    return LanguageDecision(detected, detected, True, SwitchTrigger.AUTO_DETECTED, found.confidence)
