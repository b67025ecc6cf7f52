"""Summarizers: the offline extractive one, and the LLM one against a real local
OpenAI-compatible server (``http.server`` on 127.0.0.1, started by the test)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context import (
    ExtractiveSummarizer,
    LLMSummarizer,
    SummarizerError,
    count_tokens,
    summarize_with_fallback,
    summarizer_from_env,
)
from unimem.context.extractive import apply_corrections, digits
from unimem.errors import ConfigurationError

# ---------------------------------------------------------------- extractive


def test_extractive_keeps_facts_and_drops_chatter():
    messages = [
        {"role": "user", "content": "Hi there! The weather is lovely today."},
        {"role": "user", "content": "I'm allergic to penicillin. I get hives."},
        {"role": "assistant", "content": "Thanks for telling me."},
        {"role": "user", "content": "I take lisinopril 10 mg every morning."},
        {"role": "user", "content": "ok"},
    ]
    summary = ExtractiveSummarizer().summarize_sync(messages, 200)
    assert "penicillin" in summary
    assert "lisinopril 10 mg" in summary
    assert "weather" not in summary
    assert summary.splitlines()[0].startswith("- user: ")


def test_a_correction_replaces_what_it_corrects():
    messages = [
        {"role": "user", "content": "I take lisinopril 10 mg every morning."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "My daughter plays soccer."},
        {"role": "user", "content": "Actually it's 20 mg, not 10."},
    ]
    summary = ExtractiveSummarizer().summarize_sync(messages, 200)
    lines = [line for line in summary.splitlines() if "lisinopril" in line]
    assert len(lines) == 1  # the stale statement is not left standing alone
    assert "20 mg" in lines[0]


def test_spoken_correction_matches_a_typed_dose():
    messages = [
        {"role": "user", "content": "I take sertraline 100 mg at night."},
        {"role": "user", "content": "actually its fifty milligrams not one hundred"},
    ]
    summary = ExtractiveSummarizer().summarize_sync(messages, 200)
    assert any("sertraline" in x and "fifty" in x for x in summary.splitlines())
    assert digits("seventy five milligrams") == "75 milligrams"


def test_corrections_in_recent_history_mark_the_summary():
    summary = "- user: I take warfarin 5 mg at night.\n- user: I have asthma."
    marked = apply_corrections(summary, [{"role": "user", "content": "Sorry, it's 2 mg, not 5."}])
    assert "warfarin 5 mg at night. → later: Sorry, it's 2 mg, not 5." in marked
    assert "asthma" in marked


def test_incremental_summary_extends_the_previous_one():
    summarizer = ExtractiveSummarizer()
    first = summarizer.summarize_sync([{"role": "user", "content": "I'm allergic to latex."}], 200)
    second = summarizer.summarize_sync(
        [{"role": "user", "content": "My colonoscopy is on May 3."}], 200, previous=first
    )
    assert "latex" in second and "May 3" in second


def test_extractive_respects_the_budget():
    messages = [
        {"role": "user", "content": f"I take drug{i} {i * 10} mg twice a day."} for i in range(80)
    ]
    for limit in (0, 5, 30, 120):
        assert count_tokens(ExtractiveSummarizer().summarize_sync(messages, limit)) <= limit


# ---------------------------------------------------------------- a real endpoint


@dataclass
class FakeLLM:
    """A real HTTP server on loopback speaking ``POST /v1/chat/completions``."""

    reply: str = "- user: allergic to penicillin\n- user: takes lisinopril 20 mg"
    status: int = 200
    delay: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    state = FakeLLM()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            state.headers.append(dict(self.headers))
            time.sleep(state.delay)
            if self.path != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            payload = json.dumps(
                {
                    "id": "cmpl-1",
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": state.reply},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # the client gave up on a slow reply (the timeout test): expected

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


MESSAGES = [
    {"role": "user", "content": "I'm allergic to penicillin."},
    {"role": "user", "content": "I take lisinopril 20 mg."},
]


async def test_llm_summarizer_calls_the_endpoint(llm):
    summarizer = LLMSummarizer(base_url=llm.url, model="tiny", api_key="k-123", timeout=5)
    text = await summarizer.summarize(MESSAGES, 200, previous="- user: likes tea")
    assert text == "- user: allergic to penicillin\n- user: takes lisinopril 20 mg"
    request = llm.requests[0]
    assert request["model"] == "tiny"
    assert "likes tea" in request["messages"][1]["content"]
    assert "penicillin" in request["messages"][1]["content"]
    assert llm.headers[0]["Authorization"] == "Bearer k-123"


async def test_llm_summarizer_redacts_what_it_sends(llm):
    summarizer = LLMSummarizer(base_url=llm.url, redact=lambda t: t.replace("555-0199", "[PHONE]"))
    await summarizer.summarize([{"role": "user", "content": "call me at 555-0199"}], 100)
    sent = json.dumps(llm.requests[0])
    assert "555-0199" not in sent and "[PHONE]" in sent


@pytest.mark.parametrize("failure", ["timeout", "http_500", "not_json_shape", "refused"])
async def test_llm_failure_falls_back_to_extractive(llm, failure):
    url = llm.url
    if failure == "timeout":
        llm.delay = 1.0
    elif failure == "http_500":
        llm.status = 500
    elif failure == "not_json_shape":
        llm.reply = ""
    else:
        url = "http://127.0.0.1:9/v1"  # discard port: connection refused
    summarizer = LLMSummarizer(base_url=url, timeout=0.3)
    with pytest.raises(SummarizerError) as info:
        await summarizer.summarize(MESSAGES, 100)
    assert "penicillin" not in str(info.value)  # errors never carry content
    started = time.perf_counter()
    text, method, degradations = await summarize_with_fallback(summarizer, MESSAGES, 100)
    assert time.perf_counter() - started < 2
    assert method == "extractive" and degradations == ["summarizer_fallback"]
    assert "penicillin" in text


def test_summarizer_from_env():
    assert isinstance(summarizer_from_env({}), ExtractiveSummarizer)
    llm = summarizer_from_env(
        {
            "UNIMEM_LLM_BASE_URL": "http://127.0.0.1:8000/v1",
            "UNIMEM_LLM_MODEL": "m",
            "UNIMEM_LLM_API_KEY": "secret",
            "UNIMEM_LLM_TIMEOUT": "2.5",
        }
    )
    assert isinstance(llm, LLMSummarizer)
    assert (llm.base_url, llm.model, llm.api_key, llm.timeout) == (
        "http://127.0.0.1:8000/v1",
        "m",
        "secret",
        2.5,
    )
    with pytest.raises(ConfigurationError):
        summarizer_from_env({"UNIMEM_LLM_BASE_URL": "ftp://x"})
    with pytest.raises(ConfigurationError):
        summarizer_from_env({"UNIMEM_LLM_BASE_URL": "http://x", "UNIMEM_LLM_TIMEOUT": "-1"})


# ---------------------------------------------------------------- through the service


async def _long_session(memory: UnifiedMemoryService, session_id: str, turns: int = 60) -> None:
    for i in range(turns):
        content = (
            "I'm allergic to penicillin and my number is 555-867-5309."
            if i == 2
            else f"Turn {i}: we talked about the garden and the neighbours again today."
        )
        await memory.add_entry(
            session_id, MemoryEntry(role="user" if i % 2 == 0 else "assistant", content=content)
        )


async def test_service_uses_the_llm_summary_and_stores_it(service, llm):
    await service.update_settings({"anonymize_phi": False}, user_id=None)
    service = UnifiedMemoryService(
        service.store, config=service.config, summarizer=LLMSummarizer(base_url=llm.url, timeout=5)
    )
    await _long_session(service, "s-llm")
    context = await service.build_llm_context("s-llm", "what do you know?", max_tokens=400)
    assert context.summary_used
    # after the facts the turns stated (an allergy here), the summary
    summary = next(m["content"] for m in context if m["content"].startswith("[Previous"))
    assert "takes lisinopril 20 mg" in summary
    stored = await service.store.get_summary("s-llm")
    assert stored is not None and stored.method == "llm" and stored.from_seq == 1
    assert len(llm.requests) == 1


async def test_service_redacts_phi_sent_to_the_llm(service, llm):
    # The stored entry keeps the number (as when it was written before the
    # privacy pipeline ran); what leaves the process must not.
    await service.update_settings({"anonymize_phi": False}, user_id=None)
    await _long_session(service, "s-phi")
    await service.update_settings({"anonymize_phi": True}, user_id=None)
    service = UnifiedMemoryService(
        service.store, config=service.config, summarizer=LLMSummarizer(base_url=llm.url, timeout=5)
    )
    await service.build_llm_context("s-phi", "hello", max_tokens=400)
    sent = json.dumps(llm.requests[0])
    assert "867-5309" not in sent and "867" not in sent
    assert "penicillin" in sent


async def test_service_falls_back_and_records_the_degradation(service, llm):
    llm.status = 503
    service = UnifiedMemoryService(
        service.store, config=service.config, summarizer=LLMSummarizer(base_url=llm.url, timeout=5)
    )
    await _long_session(service, "s-down")
    context = await service.build_llm_context("s-down", "hello", max_tokens=400)
    assert "summarizer_fallback" in context.degradations
    assert "penicillin" in context[1]["content"]
    stored = await service.store.get_summary("s-down")
    assert stored is not None and stored.method == "extractive"
    last_user = [e for e in await service.get_history("s-down") if e.role == "user"][-1]
    assert "summarizer_fallback" in last_user.degradations


async def test_within_a_voice_budget_the_llm_is_not_called(service, llm):
    service = UnifiedMemoryService(
        service.store, config=service.config, summarizer=LLMSummarizer(base_url=llm.url, timeout=5)
    )
    await _long_session(service, "s-voice")
    context = await service.build_llm_context("s-voice", "hello", max_tokens=400, budget_ms=650)
    assert llm.requests == []
    assert "summary_cached" in context.degradations
    assert context.token_count <= 400
