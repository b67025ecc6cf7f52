"""The lingua detector behind Latin-script detection: built on first use, once
per process, in high-accuracy mode with lazily loaded models; :func:`preload`
loads the Latin-script models ahead of the first user turn."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from lingua import LanguageDetector

__all__ = [
    "SUPPORTED_LANGUAGES",
    "build_lingua_detector",
    "is_warm",
    "lingua_detector",
    "preload",
]

#: The languages unimem detects (ISO 639-1).
SUPPORTED_LANGUAGES: Final = (
    "en", "es", "fr", "de", "it", "pt", "ar", "zh", "hi", "ur", "ja", "ko", "ru", "tr",
)  # fmt: skip


_lock = threading.Lock()
_detector: LanguageDetector | None = None
#: whether the Latin-script models are loaded (see :func:`is_warm`)
_warm = False


def build_lingua_detector(*, low_accuracy: bool = False, preload: bool = False) -> LanguageDetector:
    """A new lingua detector for the 14 supported languages (no caching).

    Args:
        low_accuracy: trigram-only models (~20 MB, much worse on short texts).
        preload: load every model now instead of on first use.
    """
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, code.upper()) for code in SUPPORTED_LANGUAGES]
    builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
    if low_accuracy:
        builder = builder.with_low_accuracy_mode()
    if preload:
        builder = builder.with_preloaded_language_models()
    return builder.build()


def lingua_detector() -> LanguageDetector:
    """The process's one lingua detector, built on first use (thread-safe)."""
    global _detector
    if _detector is None:
        with _lock:
            if _detector is None:
                _detector = build_lingua_detector()
    return _detector


#: Texts that make lingua load every model a detection can need: its n-gram
#: models of orders 1 to 5 load on first use, so words of five letters and more.
_PRELOAD_SAMPLES = (
    "the", "el", "le", "der", "il", "o", "ve",
    "would appointment tomorrow morning medicine",
    "quisiera reservar consulta mañana",
    "voudrais prendre rendez-vous demain",
)  # fmt: skip


def preload() -> None:
    """Build the detector and load every Latin-script model now (about a second,
    once per process), so that no user turn pays for it (``unimem serve`` calls
    it at start-up; the service calls it before the first detection)."""
    global _warm
    detector = lingua_detector()
    for sample in _PRELOAD_SAMPLES:
        detector.compute_language_confidence_values(sample)
    _warm = True


def is_warm() -> bool:
    """Whether :func:`preload` ran. Until then a detection may hold the thread
    for up to a second, which callers keep apart from timed I/O."""
    return _warm
