"""Language of each turn and the switch policy.

``detect_language(text)`` names the language of an utterance (one of the 14
supported, or ``None`` when unsure); ``decide_language`` says whether a user
turn switches the session's language. Both are pure and synchronous; the
lingua detector behind them is built on first use, once per process.
"""

from .detector import (
    SUPPORTED_LANGUAGES,
    Detection,
    detect,
    detect_language,
    is_warm,
    preload,
)
from .policy import (
    LanguageDecision,
    apply_language_policy,
    decide_entry_language,
    decide_language,
    detection_needed,
    explicit_trigger,
)

__all__ = [
    "SUPPORTED_LANGUAGES",
    "Detection",
    "LanguageDecision",
    "apply_language_policy",
    "decide_entry_language",
    "decide_language",
    "detect",
    "detect_language",
    "detection_needed",
    "explicit_trigger",
    "is_warm",
    "preload",
]
