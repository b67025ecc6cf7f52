"""The ``unimem`` command, through click's CliRunner and one real ``unimem serve``."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from server_support import SECRET, free_port
from unimem import MemoryEntry, UnifiedMemoryService
from unimem.cli import main
from unimem.server.auth import Authenticator

DELETE_BOB_S1 = ["delete", "--user", "bob", "--scope", "session", "--session-id", "s1", "-y"]
COMMANDS = ["serve", "migrate", "sweep", "export", "search", "delete", "token", "mcp"]


def _db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'cli.db'}"


def _seed(url: str) -> None:
    async def go() -> None:
        async with UnifiedMemoryService.from_url(url) as service:
            for sid, user in (("s1", "alice"), ("s2", "alice"), ("s3", "bob")):
                await service.add_entry(
                    sid, MemoryEntry(role="user", content=f"hi {sid}"), user_id=user
                )

    asyncio.run(go())


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_everywhere(command: str | None) -> None:
    args = [command, "--help"] if command else ["--help"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    if command is None:
        for name in COMMANDS:
            assert name in result.output


def test_token_prints_a_token_the_server_accepts() -> None:
    result = CliRunner().invoke(
        main, ["token", "--user", "alice", "--ttl", "1h"], env={"UNIMEM_JWT_SECRET": SECRET}
    )
    assert result.exit_code == 0, result.output
    assert Authenticator(SECRET, "local").user_from_token(result.output.strip()) == "alice"


def test_token_without_secret_or_with_bad_ttl_fails_clearly() -> None:
    result = CliRunner().invoke(main, ["token", "--user", "alice"], env={"UNIMEM_JWT_SECRET": ""})
    assert result.exit_code == 2 and "UNIMEM_JWT_SECRET" in result.output
    result = CliRunner().invoke(
        main, ["token", "--user", "alice", "--ttl", "forever"], env={"UNIMEM_JWT_SECRET": SECRET}
    )
    assert result.exit_code == 1 and "ttl" in result.output


def test_migrate_creates_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'dir' / 'u.db'}"
    result = CliRunner().invoke(main, ["migrate", "--database-url", url])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "new" / "dir" / "u.db").exists()
    again = CliRunner().invoke(main, ["migrate", "--database-url", url])
    assert again.exit_code == 0 and "up to date" in again.output


def test_export_writes_only_that_users_data(tmp_path: Path) -> None:
    url = _db(tmp_path)
    _seed(url)
    out = tmp_path / "alice.json"
    result = CliRunner().invoke(
        main, ["export", "--user", "alice", "--database-url", url, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["user_id"] == "alice"
    assert sorted(e["session_id"] for e in data["entries"]) == ["s1", "s2"]
    printed = CliRunner().invoke(main, ["export", "--user", "bob", "--database-url", url])
    assert json.loads(printed.output)["entries"][0]["content"] == "hi s3"


def test_delete_asks_then_deletes(tmp_path: Path) -> None:
    url = _db(tmp_path)
    _seed(url)
    args = ["delete", "--user", "alice", "--scope", "session", "--session-id", "s1"]
    declined = CliRunner().invoke(main, [*args, "--database-url", url], input="n\n")
    assert declined.exit_code == 1 and "Aborted" in declined.output
    done = CliRunner().invoke(main, [*args, "--database-url", url, "--yes"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["counts"]["entries"] == 1
    everything = CliRunner().invoke(
        main, ["delete", "--user", "alice", "--scope", "all", "--database-url", url, "-y"]
    )
    assert json.loads(everything.output)["counts"]["entries"] == 1


def test_delete_another_users_session_deletes_nothing(tmp_path: Path) -> None:
    url = _db(tmp_path)
    _seed(url)
    result = CliRunner().invoke(
        main,
        [*DELETE_BOB_S1, "--database-url", url],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["counts"]["entries"] == 0
    assert "Traceback" not in result.output


def test_delete_scope_session_needs_a_session_id(tmp_path: Path) -> None:
    url = _db(tmp_path)
    _seed(url)
    result = CliRunner().invoke(
        main, ["delete", "--user", "alice", "--scope", "session", "-y", "--database-url", url]
    )
    assert result.exit_code == 2 and "--session-id" in result.output

    async def sessions() -> list[str]:
        async with UnifiedMemoryService.from_url(url) as service:
            return sorted(s.session_id for s in await service.list_sessions(user_id="alice"))

    assert asyncio.run(sessions()) == ["s1", "s2"]


def test_sweep_reports_what_it_deleted(tmp_path: Path) -> None:
    url = _db(tmp_path)
    _seed(url)
    result = CliRunner().invoke(main, ["sweep", "--database-url", url])
    assert result.exit_code == 0, result.output
    assert "deleted 0 expired entries and events" in result.output
    assert "30 days for users who set none" in result.output

    async def add_old() -> None:
        async with UnifiedMemoryService.from_url(url) as service:
            old = datetime.now(UTC) - timedelta(days=45)
            for sid in ("old1", "old2"):
                entry = MemoryEntry(role="user", content="long ago", timestamp=old)
                await service.add_entry(sid, entry, user_id="alice")

    asyncio.run(add_old())
    result = CliRunner().invoke(
        main, ["sweep", "--database-url", url, "--default-retention-days", "40"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    # one line: where, what and how many; no progress bar
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"store {url} (") or lines[0].startswith(f"store {url}:")
    deleted = re.search(r": deleted (\d+) expired entries and events \(", lines[0])
    assert deleted is not None and int(deleted.group(1)) >= 2  # the two entries, their events
    assert "40 days for users who set none" in lines[0]

    async def left() -> list[int]:
        async with UnifiedMemoryService.from_url(url) as service:
            return [len(await service.get_history(sid, user_id="alice")) for sid in ("old1", "s1")]

    assert asyncio.run(left()) == [0, 1]


def test_serve_refuses_a_public_address_in_local_mode(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["serve", "--host", "0.0.0.0", "--database-url", _db(tmp_path)],
        env={"UNIMEM_JWT_SECRET": ""},
    )
    assert result.exit_code == 2
    assert "local mode" in result.output and "UNIMEM_JWT_SECRET" in result.output


@pytest.mark.slow
def test_unimem_serve_runs_a_real_server(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "UNIMEM_JWT_SECRET": SECRET,
        "UNIMEM_DATA_DIR": str(tmp_path / "data"),
    }
    env.pop("UNIMEM_DATABASE_URL", None)
    for name in [n for n in env if n.startswith(("OTEL_", "FASTAPI_OTEL_"))]:
        del env[name]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "unimem.cli",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "info",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "unimem serve did not start"
            time.sleep(0.2)
        tok = CliRunner().invoke(
            main, ["token", "--user", "dana"], env={"UNIMEM_JWT_SECRET": SECRET}
        )
        headers = {"Authorization": f"Bearer {tok.output.strip()}"}
        r = httpx.post(
            f"{base}/v1/sessions/x/entries", json={"role": "user", "content": "hi"}, headers=headers
        )
        assert r.status_code == 201 and r.json()["user_id"] == "dana"
        assert httpx.get(f"{base}/v1/sessions").status_code == 401
        assert (tmp_path / "data" / "unimem.db").exists()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert "bearer tokens" in err and f"http://127.0.0.1:{port}" in err
    assert "LOCAL MODE" not in err
    # no line per request unless asked (--access-log): paths name sessions
    assert "access    not logged" in err
    # nothing set OpenTelemetry up: FastAPI's per-request telemetry is off, and said so
    assert "telemetry OpenTelemetry off" in err
    assert "/v1/sessions/x/entries" not in out + err and "Uvicorn running" in out + err


def test_export_and_delete_open_the_store_like_the_server(tmp_path: Path) -> None:
    # Content encrypted at rest (UNIMEM_ENCRYPTION_KEYS) reads back through the CLI.
    from unimem.privacy.crypto import generate_key

    url = _db(tmp_path)
    keys = generate_key("k1")

    async def seed() -> None:
        service = UnifiedMemoryService.from_url(url)
        service.use_encryption(keys)
        async with service:
            await service.add_entry(
                "s1", MemoryEntry(role="user", content="secret dose"), user_id="alice"
            )

    asyncio.run(seed())
    assert b"secret dose" not in (tmp_path / "cli.db").read_bytes()
    env = {"UNIMEM_ENCRYPTION_KEYS": keys}
    printed = CliRunner().invoke(
        main, ["export", "--user", "alice", "--database-url", url], env=env
    )
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.output)["entries"][0]["content"] == "secret dose"
    deleted = CliRunner().invoke(
        main, ["delete", "--user", "alice", "--scope", "all", "--database-url", url, "-y"], env=env
    )
    assert json.loads(deleted.output)["counts"]["entries"] == 1
