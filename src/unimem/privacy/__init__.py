"""Privacy: PHI detection and redaction, the privacy pipeline, deletion, audit, encryption."""

from __future__ import annotations

from .operations import SYSTEM_USER

__all__ = ["SYSTEM_USER"]
