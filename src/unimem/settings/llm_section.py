"""The ``llm`` section: the OpenAI-compatible endpoint that summarizes older
turns and answers in the server, and what it may see of PHI."""

from __future__ import annotations

from typing import Literal

from pydantic import SecretStr, field_validator

from ..context.llm_client import LLMEndpoint
from .section import PositiveSeconds, Section

__all__ = ["LLMSettings"]


class LLMSettings(Section):
    """The OpenAI-compatible endpoint summarizing older turns and answering in the server."""

    base_url: str | None = None
    model: str = "gpt-4o-mini"
    api_key: SecretStr | None = None
    timeout: PositiveSeconds = 5.0
    #: What the server's LLM may see of PHI (``/llm-context``, ``/reply``):
    #: ``tokens`` (never a value) or ``allowed`` (values from the vault).
    phi: Literal["tokens", "allowed"] = "tokens"

    @field_validator("base_url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    def endpoint(self) -> LLMEndpoint | None:
        """The endpoint, or ``None`` when no base URL is set."""
        if self.base_url is None:
            return None
        key = self.api_key.get_secret_value() if self.api_key is not None else None
        return LLMEndpoint(self.base_url, model=self.model, api_key=key, timeout=self.timeout)
