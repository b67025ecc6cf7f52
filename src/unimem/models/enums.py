"""The vocabularies of the models: who spoke, in which mode, what happened,
what caused a switch."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["EventType", "Mode", "Role", "SwitchTrigger"]


class Role(StrEnum):
    """Who spoke: the user, the assistant, or the system."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class Mode(StrEnum):
    """How the turn was made: spoken (voice) or typed (text)."""

    VOICE = "voice"
    TEXT = "text"


class EventType(StrEnum):
    """Event types unimem itself records. Any other ``snake_case`` name is accepted too."""

    MODE_SWITCH = "mode_switch"
    LANGUAGE_SWITCH = "language_switch"
    TOPIC_CHANGE = "topic_change"
    PHI_DETECTED = "phi_detected"
    RAG_RETRIEVAL = "rag_retrieval"
    INTERRUPTION = "interruption"
    SESSION_CLOSED = "session_closed"


class SwitchTrigger(StrEnum):
    """What caused a language switch."""

    USER_REQUEST = "user_request"
    AUTO_DETECTED = "auto_detected"
    EXPLICIT_SETTING = "explicit_setting"
