"""The ``embeddings`` section: dense recall's embedder (the built-in model, an
OpenAI-compatible endpoint, or none)."""

from __future__ import annotations

from pydantic import SecretStr, field_validator

from ..embeddings import (
    Embedder,
    EmbeddingError,
    LocalEmbedder,
    OpenAICompatibleEmbedder,
    local_available,
)
from ..errors import ConfigurationError
from .section import PositiveSeconds, Section

__all__ = ["EmbeddingSettings"]


class EmbeddingSettings(Section):
    """Dense recall's embedder: the built-in model, an endpoint, or none."""

    #: ``auto``, ``local``, ``off`` or an ``http(s)://`` OpenAI-compatible base URL.
    mode: str = "auto"
    #: The model an endpoint is asked for (the built-in model has its own name).
    model: str = "nomic-embed-text"
    api_key: SecretStr | None = None
    timeout: PositiveSeconds = 10.0

    @field_validator("mode")
    @classmethod
    def _known(cls, value: str) -> str:
        if value.lower() in ("auto", "local", "off"):
            return value.lower()
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be auto, local, off or an http(s):// base URL")
        return value

    def embedder(self) -> Embedder | None:
        """The embedder named, or ``None`` (keyword recall only).

        Raises:
            ConfigurationError: ``local`` is asked for and the model is not installed.
        """
        if self.mode == "off" or (self.mode == "auto" and not local_available()):
            return None
        if self.mode in ("auto", "local"):
            try:
                return LocalEmbedder()
            except EmbeddingError as exc:
                raise ConfigurationError(f"UNIMEM_EMBEDDINGS=local: {exc}") from None
        key = self.api_key.get_secret_value() if self.api_key is not None else None
        return OpenAICompatibleEmbedder(
            self.mode, model=self.model, api_key=key, timeout=self.timeout
        )
