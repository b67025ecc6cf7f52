"""What a language detection answers: :class:`Detection`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Detection"]


@dataclass(frozen=True, slots=True)
class Detection:
    """What :func:`detect` found.

    Attributes:
        language: ISO 639-1 code, or ``None`` when unsure.
        confidence: 0..1; 1.0 when the script settled it, 0.0 when nothing to judge.
        reason: how it was decided: ``script``, ``lingua``, ``evidence`` (the
            function words alone settled it and lingua was not asked; only with
            ``exact_confidence=False``), ``empty`` (nothing but numbers, drugs,
            interjections or names), ``short`` (too little text or no function
            word), ``unsure`` (below the confidence floor) or ``romanized``
            (Hindi/Urdu in Latin letters).
    """

    language: str | None
    confidence: float
    reason: str
