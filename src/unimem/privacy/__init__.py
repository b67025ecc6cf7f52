"""Privacy: PHI detection and redaction, the privacy pipeline, deletion, audit, encryption.

``detect_phi`` finds protected health information in one utterance and
``redact`` replaces it with readable, session-consistent tokens
(``[PERSON_1]``, ``[PHONE_1]``); a :class:`PhiTokenMap` carries the numbering
across calls and serializes to JSON. Both are pure and synchronous.
"""

from __future__ import annotations

from .operations import SYSTEM_USER
from .phi import PhiFinding, PhiType, detect_phi
from .phi_redact import PhiTokenMap, RedactionResult, redact

__all__ = [
    "SYSTEM_USER",
    "PhiFinding",
    "PhiTokenMap",
    "PhiType",
    "RedactionResult",
    "detect_phi",
    "redact",
]
