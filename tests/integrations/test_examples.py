"""The adapters' examples run as written (an OpenAI-compatible fake on loopback for the model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fake_llm import fake_chat_server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(script: str, tmp_path: Path, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)],
        env={**os.environ, "UNIMEM_DATABASE_URL": f"sqlite:///{tmp_path / 'ex.db'}", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_openai_agents_example(tmp_path: Path) -> None:
    with fake_chat_server() as chat:
        chat.pieces = ["Take it", " with meals."]
        out = _run(
            "openai_agents_session.py", tmp_path, OPENAI_BASE_URL=chat.url, OPENAI_API_KEY="x"
        )
    assert "assistant: Take it with meals." in out
    assert "unimem holds 4 entries" in out
    # the second run's request carried the first exchange
    second = chat.requests[1]["messages"]
    assert any(m.get("content") == "How should I take metformin?" for m in second)


def test_langchain_example(tmp_path: Path) -> None:
    out = _run("langchain_history.py", tmp_path)
    assert "assistant: You asked about metformin." in out
    assert "unimem holds 4 messages" in out


def test_langgraph_example(tmp_path: Path) -> None:
    out = _run("langgraph_store.py", tmp_path)
    assert "alice, later: ['I take metformin with breakfast']" in out
    assert "alice, allergy: ['allergic to penicillin']" in out
    assert "bob: []" in out


def test_pipecat_example(tmp_path: Path) -> None:
    with fake_chat_server() as chat:
        chat.pieces = ["Take it", " with meals."]
        out = _run(
            "pipecat_voice_memory.py", tmp_path, OPENAI_BASE_URL=chat.url, OPENAI_API_KEY="x"
        )
    assert "assistant: Take it with meals." in out
    assert "unimem holds 4 entries" in out
    assert "user (voice, en): How should I take metformin?" in out
    # unimem's block (the pinned fact) reached the model on each call
    for request in chat.requests:
        assert any("allergic to penicillin" in str(m["content"]) for m in request["messages"])


def test_livekit_example(tmp_path: Path) -> None:
    with fake_chat_server() as chat:
        chat.pieces = ["Take it", " with meals."]
        out = _run(
            "livekit_agent_memory.py", tmp_path, OPENAI_BASE_URL=chat.url, OPENAI_API_KEY="x"
        )
    assert "assistant: Take it with meals." in out
    assert "unimem holds 4 entries" in out
    # the second AgentSession started with the first one's conversation
    second = chat.requests[1]["messages"]
    assert any(m.get("content") == "How should I take metformin?" for m in second)
