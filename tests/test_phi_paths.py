"""Every path by which text reaches a store, a summary or an LLM is redacted with
``anonymize_phi`` on (the default): one case per path, on every backend; the raw
values reach no exported row, no stored summary and no LLM request."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from fake_llm import FakeChat, fake_chat_server
from server_support import auth, create_app, running_server, settings
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context.llm_client import LLMEndpoint

SID = "phi-paths-1"
USER = "u1"
#: Each path gets text with a name and an identifier no cue introduces.
RAW = ("Desmond Okafor", "212-555-7788")
SAYS = f"spoke with {RAW[0]}, callback {RAW[1]}"


def _clean(dump: Any) -> None:
    text = json.dumps(dump, default=str)
    for value in RAW:
        assert value not in text


async def _everything(service: UnifiedMemoryService) -> dict[str, Any]:
    return await service.export_user_memory(user_id=USER)


async def _entry(service: UnifiedMemoryService, **fields: Any) -> None:
    entry = MemoryEntry(role=fields.pop("role", "user"), content=fields.pop("content", "hi"))
    await service.add_entry(SID, entry.model_copy(update=fields), user_id=USER)


class _ParrotSummarizer:
    """A summarizer that writes a raw value into its summary (as an LLM may)."""

    name = "llm"

    async def summarize(
        self,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        *,
        previous: str | None = None,
        model: str = "gpt-4o",
    ) -> str:
        return f"Thanks {RAW[0]}, we will call {RAW[1]}."


async def _summary(service: UnifiedMemoryService) -> None:
    service = UnifiedMemoryService(
        service.store,
        config=service.config,
        summarizer=_ParrotSummarizer(),  # type: ignore[arg-type]
        privacy=service.privacy,
    )
    for i in range(30):
        await _entry(service, content=f"turn {i} about the knee pain and the exercises " * 4)
    built = await service.build_llm_context(SID, "and now?", max_tokens=300, user_id=USER)
    assert built.summary_used
    _clean(list(built))


async def _llm_context(service: UnifiedMemoryService) -> None:
    await _entry(service, content="hello")
    built = await service.build_llm_context(
        SID, SAYS, rag_results=[{"content": f"Chart: {SAYS}", "source": "chart"}], user_id=USER
    )
    _clean(list(built))


PATHS: dict[str, Callable[[UnifiedMemoryService], Awaitable[None]]] = {
    "content": lambda s: _entry(s, content=SAYS),
    "retrieved_passages": lambda s: _entry(s, retrieved_passages=[f"Chart: {SAYS}"]),
    "sources": lambda s: _entry(s, sources=[{"title": SAYS, "url": "https://example.org/c"}]),
    "metadata": lambda s: _entry(s, metadata={"caller_name": RAW[0], "callback": RAW[1]}),
    "event_data": lambda s: _event(s),
    "fact": lambda s: s.add_fact(
        f"{RAW[0]} is allergic to penicillin, call {RAW[1]}", user_id=USER
    ),
    "pinned_entry": lambda s: _pin(s),
    "interrupted_answer": lambda s: _interrupt(s),
    "summary": _summary,
    "llm_context_query_and_passages": _llm_context,
    "item_value": lambda s: s.put_item(
        ["memories"],
        "call",
        {"note": SAYS, "who": {"name": RAW[0]}, "tags": [RAW[1]]},
        user_id=USER,
    ),
}


async def _event(service: UnifiedMemoryService) -> None:
    await _entry(service)
    await service.add_event(SID, "call_note", {"note": SAYS, "who": RAW[0]}, user_id=USER)


async def _pin(service: UnifiedMemoryService) -> None:
    await _entry(service, content=SAYS)
    [entry] = await service.get_history(SID, 5, user_id=USER)
    await service.pin_entry(SID, entry.id, user_id=USER)


async def _interrupt(service: UnifiedMemoryService) -> None:
    await _entry(service)
    await _entry(service, role="assistant", content="Let me check that for you.")
    history = await service.get_history(SID, 5, user_id=USER)
    await service.mark_interrupted(SID, history[-1].id, SAYS, user_id=USER)


@pytest.mark.parametrize("path", sorted(PATHS))
async def test_no_raw_phi_reaches_a_store_or_the_llm(service: UnifiedMemoryService, path: str):
    await PATHS[path](service)
    dump = await _everything(service)
    assert any(dump[kind] for kind in ("entries", "facts", "events", "items"))
    _clean(dump)


async def test_reply_sends_and_stores_no_raw_phi(tmp_path: Path) -> None:
    """POST .../reply: the caller's query and passages go to the LLM redacted,
    the reply is stored redacted, and POST .../llm-context echoes neither raw."""
    with fake_chat_server() as chat:
        chat.pieces = [f"Thanks {RAW[0]},", f" we will call {RAW[1]}."]
        endpoint = LLMEndpoint(chat.url, model="tiny", api_key="k-1", timeout=3.0)
        app = create_app(settings(tmp_path, llm=endpoint, sweep_interval=0))
        async with running_server(app) as url, httpx.AsyncClient(base_url=url) as client:
            entry = {"role": "user", "content": "hello"}
            r = await client.post(f"/v1/sessions/{SID}/entries", json=entry, headers=auth(USER))
            assert r.status_code == 201, r.text
            body = {"current_query": SAYS, "rag_results": [f"Chart: {SAYS}"]}
            r = await client.post(f"/v1/sessions/{SID}/reply", json=body, headers=auth(USER))
            assert r.status_code == 200, r.text
            _clean(_sent(chat))
            r = await client.post(f"/v1/sessions/{SID}/llm-context", json=body, headers=auth(USER))
            assert r.status_code == 200, r.text
            _clean(r.json())
            r = await client.get("/v1/me/export", headers=auth(USER))
            assert r.status_code == 200 and r.json()["entries"], r.text
            _clean(r.json())


def _sent(chat: FakeChat) -> list[dict[str, Any]]:
    assert chat.requests
    return chat.requests
