"""An embedder behind an OpenAI-compatible ``/v1/embeddings`` endpoint.

Ollama, vLLM, Hugging Face TEI and OpenAI itself answer
``POST {base_url}/embeddings`` with ``{"model": ..., "input": [...]}`` by
``{"data": [{"index": i, "embedding": [...]}, ...]}``. The kind of text is
sent as the E5-style prefix only when ``prefixes`` is on (for an E5 model
served as is); other models take the text alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from .base import EmbeddingError, EmbedKind, normalized

__all__ = ["OpenAICompatibleEmbedder"]

#: Texts sent in one request.
BATCH = 64


class OpenAICompatibleEmbedder:
    """Embeds through ``{base_url}/embeddings``.

    Args:
        base_url: the API base, e.g. ``http://127.0.0.1:11434/v1``.
        model: the model name sent in each request (and stored with the vectors).
        api_key: bearer token, if the endpoint wants one.
        timeout: seconds for each request.
        dim: the vectors' length, when known (else learnt from the first answer).
        prefixes: send ``query: `` / ``passage: `` before each text (E5 models).
        transport: an ``httpx`` transport (tests).
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: str | None = None,
        timeout: float = 10.0,
        dim: int = 0,
        prefixes: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model = model
        self.dim = dim
        self._prefixes = prefixes
        self._base_url = base_url.rstrip("/") + "/"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:  # made on first use, again after aclose()
            self._client = httpx.AsyncClient(
                base_url=self._base_url,
                headers=self._headers,
                timeout=self._timeout,
                transport=self._transport,
            )
        return self._client

    async def _request(self, texts: list[str]) -> list[list[float]]:
        try:
            response = await self._http().post(
                "embeddings", json={"model": self.model, "input": texts}
            )
            response.raise_for_status()
            body: Any = response.json()
            rows = sorted(body["data"], key=lambda row: row["index"])
            vectors = [row["embedding"] for row in rows]
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"the embeddings endpoint failed: {exc}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(
                "the embeddings endpoint's answer is not an OpenAI embeddings response"
            ) from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(
                f"the embeddings endpoint returned {len(vectors)} vectors for {len(texts)} texts"
            )
        return vectors

    async def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> npt.NDArray[np.float32]:
        """Unit vectors of ``texts``, in batches of :data:`BATCH`."""
        prefix = f"{kind}: " if self._prefixes else ""
        sent = [prefix + (" ".join(t.split()) or ".") for t in texts]
        rows: list[list[float]] = []
        for start in range(0, len(sent), BATCH):
            rows.extend(await self._request(sent[start : start + BATCH]))
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            out = normalized(rows)
        except ValueError as exc:  # ragged rows
            raise EmbeddingError(
                "the embeddings endpoint returned vectors of unequal length"
            ) from exc
        if self.dim and out.shape[1] != self.dim:
            raise EmbeddingError(
                f"the embeddings endpoint returned vectors of length {out.shape[1]}, "
                f"expected {self.dim}"
            )
        self.dim = out.shape[1]
        return out

    async def aclose(self) -> None:
        """Close the connection pool."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
