"""One small client for OpenAI-compatible ``/chat/completions`` endpoints (OpenAI,
vLLM, llama.cpp, Ollama, LiteLLM), shared by the LLM summarizer and the
server's assistant replies.

Configuration: the ``llm`` section of :class:`unimem.settings.Settings`
(``UNIMEM_LLM_BASE_URL``, ``UNIMEM_LLM_MODEL``, ``UNIMEM_LLM_API_KEY``,
``UNIMEM_LLM_TIMEOUT``).

Errors name the failure (timeout, HTTP status, shape), never the text sent or received.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import UnimemError

__all__ = ["LLMEndpoint", "LLMError", "complete", "endpoint_from_env", "stream_chat"]


class LLMError(UnimemError):
    """The LLM endpoint failed: unreachable, too slow, non-2xx, or a reply of the wrong shape.

    ``timeout`` tells a deadline miss (HTTP 504) from the other failures (502).
    """

    code = "llm_error"

    def __init__(self, message: str, *, timeout: bool = False) -> None:
        super().__init__(message)
        self.timeout = timeout


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """Where and how to call the model.

    Args:
        base_url: endpoint base; ``/chat/completions`` is appended.
        model: model name sent to the endpoint.
        api_key: bearer token, or ``None``.
        timeout: seconds for a whole call; for a stream, for its first byte and
            for each chunk after it.
    """

    base_url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout: float = 5.0

    @property
    def url(self) -> str:
        """The chat completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def headers(self) -> dict[str, str]:
        """Request headers (the bearer token when there is one)."""
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}


def endpoint_from_env(env: Mapping[str, str] | None = None) -> LLMEndpoint | None:
    """The endpoint ``UNIMEM_LLM_*`` names (``os.environ`` by default), or ``None``
    when no base URL is set: ``Settings.from_env(env).llm.endpoint()``.

    Raises:
        ConfigurationError: the base URL is not http(s), or ``UNIMEM_LLM_TIMEOUT``
            is not a positive number.
    """
    from ..settings import Settings

    return Settings.from_env(env).llm.endpoint()


async def complete(endpoint: LLMEndpoint, body: dict[str, Any], *, what: str = "LLM") -> str:
    """POST ``body`` (``model`` is filled in) and return the reply's text.

    Raises:
        LLMError: timeout, connection failure, non-2xx status, or a reply that is
            not a chat completion with text.
    """
    import httpx  # deferred: only deployments with an LLM pay for it

    payload = {"model": endpoint.model, **body}
    try:
        # httpx timeouts apply per phase; asyncio.timeout bounds the whole call.
        async with asyncio.timeout(endpoint.timeout):
            async with httpx.AsyncClient(timeout=endpoint.timeout) as client:
                response = await client.post(endpoint.url, json=payload, headers=endpoint.headers())
    except TimeoutError:
        raise LLMError(
            f"{what} endpoint did not answer in {endpoint.timeout} s", timeout=True
        ) from None
    except httpx.HTTPError as exc:
        raise LLMError(
            f"{what} endpoint unreachable ({type(exc).__name__}); check UNIMEM_LLM_BASE_URL"
        ) from None
    if response.status_code >= 300:
        raise LLMError(f"{what} endpoint answered HTTP {response.status_code}")
    try:
        text = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError(f"{what} endpoint reply is not a chat completion") from None
    if not isinstance(text, str) or not text.strip():
        raise LLMError(f"{what} endpoint returned an empty reply")
    return text


async def stream_chat(
    endpoint: LLMEndpoint, messages: list[dict[str, Any]], *, max_tokens: int | None = None
) -> AsyncGenerator[str, None]:
    """Stream a reply to ``messages`` (``stream: true``); yields text deltas.

    The endpoint speaks Server-Sent Events: ``data: {chunk}`` lines ending with
    ``data: [DONE]``. Closing the iterator early closes the connection.

    Raises:
        LLMError: as :func:`complete`, also mid-stream (a chunk not arriving
            within ``endpoint.timeout``, a malformed chunk, the stream cut off).
    """
    import httpx

    body: dict[str, Any] = {"model": endpoint.model, "messages": messages, "stream": True}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    try:
        async with (
            httpx.AsyncClient(timeout=endpoint.timeout) as client,
            client.stream("POST", endpoint.url, json=body, headers=endpoint.headers()) as response,
        ):
            if response.status_code >= 300:
                raise LLMError(f"LLM endpoint answered HTTP {response.status_code}")
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators, comments, event names
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                delta = _delta(data)
                if delta:
                    yield delta
    except httpx.TimeoutException:
        raise LLMError(
            f"LLM endpoint stalled for more than {endpoint.timeout} s", timeout=True
        ) from None
    except httpx.HTTPError as exc:
        raise LLMError(
            f"LLM endpoint unreachable or stream cut off ({type(exc).__name__}); "
            "check UNIMEM_LLM_BASE_URL"
        ) from None
    raise LLMError("LLM stream ended without [DONE]")


def _delta(data: str) -> str:
    """The text of one streamed chunk (empty for role-only or final chunks).

    Raises:
        LLMError: the chunk is not a chat completion chunk, or reports an error.
    """
    try:
        chunk = orjson.loads(data)
        if "error" in chunk:
            raise LLMError("LLM endpoint reported an error mid-stream")
        choices = chunk["choices"]
        if not choices:
            return ""
        content = choices[0].get("delta", {}).get("content")
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise LLMError("LLM stream chunk is not a chat completion chunk") from None
    return content if isinstance(content, str) else ""
