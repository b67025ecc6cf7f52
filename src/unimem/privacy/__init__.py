"""Privacy: PHI detection and redaction, the privacy pipeline, deletion, audit, encryption.

``detect_phi`` finds protected health information in one utterance and
``redact`` replaces it with readable, session-consistent tokens
(``[PERSON_1]``, ``[PHONE_1]``); a :class:`PhiTokenMap` carries the numbering
across calls and serializes to JSON. Both are pure and synchronous.

:class:`PrivacyPipeline` applies a user's settings to every write before a
store sees it; :class:`EncryptedStore` (keys in a :class:`Keyring`) encrypts
content fields at rest.
"""

from __future__ import annotations

from .crypto import Keyring
from .deletion import SYSTEM_USER
from .encrypted_store import EncryptedStore
from .phi import PhiFinding, PhiType, detect_phi
from .phi_redact import PhiTokenMap, RedactionResult, redact
from .pipeline import PrivacyPipeline

__all__ = [
    "SYSTEM_USER",
    "EncryptedStore",
    "Keyring",
    "PhiFinding",
    "PhiTokenMap",
    "PhiType",
    "PrivacyPipeline",
    "RedactionResult",
    "detect_phi",
    "redact",
]
