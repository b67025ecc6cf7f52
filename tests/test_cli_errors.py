"""What people see from the ``unimem`` command: one clean line per store failure
at start-up, what ``migrate`` applied, where the data lives, the start-up banner."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
from click.testing import CliRunner

from backends import PG_URL, drop_schema, fresh_name
from server_support import free_port
from unimem.cli import main

ROOT = Path(__file__).resolve().parent.parent


def _pg(*, user: str | None = None, database: str | None = None, query: str = "") -> str:
    parts = urlsplit(PG_URL)
    netloc = parts.netloc
    if user is not None:
        netloc = f"{user}@{netloc.rpartition('@')[2]}"
    path = f"/{database}" if database is not None else parts.path
    return urlunsplit(parts._replace(netloc=netloc, path=path, query=query))


MISSING_DB = _pg(database="unimem_no_such_database")
MISSING_ROLE = _pg(user="unimem_no_such_role")
MISSING_SEARCH_PATH = _pg(query="search_path=unimem_no_such_schema")

COMMANDS = {
    "migrate": ["migrate"],
    "sweep": ["sweep"],
    "export": ["export", "--user", "alice"],
    "delete": ["delete", "--user", "alice", "--scope", "all", "-y"],
    "serve": ["serve", "--port", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    ("url", "said"),
    [
        (MISSING_DB, 'database "unimem_no_such_database" does not exist; create the database'),
        (MISSING_ROLE, 'role "unimem_no_such_role" does not exist; create the role'),
        (MISSING_SEARCH_PATH, "no schema has been selected to create in; create the schema"),
    ],
)
def test_a_database_or_role_that_does_not_exist_is_one_clean_line(
    command: str, url: str, said: str
) -> None:
    result = CliRunner().invoke(main, [*COMMANDS[command], "--database-url", url])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # not an exception out of the command
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and said in errors[0], result.output
    # the message itself, not an exception class name before it
    assert errors[0].startswith("Error: PostgreSQL refused the store: ")
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_server_that_does_not_answer_is_one_line_saying_what_to_do(command: str) -> None:
    closed = free_port()
    url = f"postgresql://postgres@127.0.0.1:{closed}/test"
    result = CliRunner().invoke(main, [*COMMANDS[command], "--database-url", url])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert errors == [
        f"Error: PostgreSQL at 127.0.0.1:{closed} does not answer (the connection was "
        "refused); start it, or fix the host and port of the store URL "
        "(UNIMEM_DATABASE_URL or --database-url)"
    ], result.output
    assert "Traceback" not in result.output


def test_through_a_real_process_there_is_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "unimem.cli", "migrate", "--database-url", MISSING_DB],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        'Error: PostgreSQL refused the store: database "unimem_no_such_database" does not '
        "exist; create the database (`createdb NAME`) or fix the database name in the store URL"
    ]


def test_mcp_with_a_missing_database_is_one_clean_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "unimem.cli", "mcp", "--database-url", MISSING_DB],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "InvalidCatalogNameError" not in done.stderr
    assert 'database "unimem_no_such_database" does not exist' in done.stderr


def test_errors_print_the_message_not_the_exception_class(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["migrate"], env={"UNIMEM_HOT_WINDOW": "lots", "UNIMEM_DATABASE_URL": ""}
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: UNIMEM_HOT_WINDOW: ")
    assert "ConfigurationError" not in result.output


def test_migrate_says_what_it_applied(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    first = CliRunner().invoke(main, ["migrate", "--database-url", url])
    assert first.exit_code == 0, first.output
    assert re.search(r"applied migrations 1(, \d+)*\n", first.output), first.output
    assert "up to date" not in first.output
    again = CliRunner().invoke(main, ["migrate", "--database-url", url])
    assert again.exit_code == 0 and "is up to date: no migration to apply" in again.output


def test_migrate_on_a_new_postgresql_schema_says_what_it_applied(
    request: pytest.FixtureRequest,
) -> None:
    schema = fresh_name(request.node.name, "cli")
    url = _pg(query=f"schema={schema}")
    try:
        first = CliRunner().invoke(main, ["migrate", "--database-url", url])
        assert first.exit_code == 0, first.output
        assert re.search(r"applied migrations 1(, \d+)*\n", first.output), first.output
        again = CliRunner().invoke(main, ["migrate", "--database-url", url])
        assert "is up to date" in again.output
    finally:
        asyncio.run(drop_schema(PG_URL, schema))


def test_export_prints_no_progress_on_stderr(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "unimem.cli",
            "export",
            "--user",
            "a",
            "--database-url",
            f"sqlite:///{tmp_path / 'e.db'}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and json.loads(done.stdout)["user_id"] == "a"


@pytest.mark.parametrize("command", [None, "serve", "migrate", "mcp"])
def test_help_says_where_the_data_lives(command: str | None) -> None:
    result = CliRunner().invoke(main, [command, "--help"] if command else ["--help"])
    text = " ".join(result.output.split())
    assert "./data/unimem.db" in text or "<data dir>/unimem.db" in text
    assert "UNIMEM_DATA_DIR" in text and "working directory" in text


def test_readme_says_where_the_data_lives_and_mcp_sets_it() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "./data/unimem.db" in readme and "UNIMEM_DATA_DIR" in readme
    block = re.search(r'```json\n(\{"mcpServers".*?)\n```', readme, re.S)
    assert block is not None
    server = json.loads(block.group(1))["mcpServers"]["unimem"]
    assert Path(server["env"]["UNIMEM_DATA_DIR"]).is_absolute()


@pytest.mark.slow
def test_mcp_says_on_stderr_which_store_it_opened(tmp_path: Path) -> None:
    env = {**os.environ, "UNIMEM_DATA_DIR": str(tmp_path / "mcp-data")}
    env.pop("UNIMEM_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "unimem.cli", "mcp", "--user", "carol"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    assert f"store sqlite:///{tmp_path / 'mcp-data' / 'unimem.db'}" in done.stderr
    assert "user 'carol'" in done.stderr and done.stdout == ""


@pytest.mark.slow
def test_local_mode_banner_health_and_readiness(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "UNIMEM_JWT_SECRET": ""}
    for name in ("UNIMEM_DATABASE_URL", "UNIMEM_DATA_DIR", "VOICEASSIST_DATA_DIR"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "unimem.cli", "serve", "--port", str(port), "--log-level", "info"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "unimem serve did not start"
            time.sleep(0.2)
        assert health.json() == {"status": "ok", "store": "sqlite", "local_mode": True}
        ready = httpx.get(f"{base}/readyz", timeout=5).json()
        assert ready == {"status": "ok", "store": "ok", "local_mode": True}
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert err.count("LOCAL MODE") == 1, err
    assert f"open http://127.0.0.1:{port}/ for the web UI" in err
    # the default store, relative to the working directory, and where that is
    assert f"sqlite:///data/unimem.db ({tmp_path / 'data' / 'unimem.db'})" in err
    assert (tmp_path / "data" / "unimem.db").exists()


@pytest.mark.slow
def test_workers_use_the_database_url_option(tmp_path: Path) -> None:
    """With --workers 2 the workers open the store the option names (not the default)."""
    port = free_port()
    db = tmp_path / "option.db"
    env = {**os.environ, "UNIMEM_JWT_SECRET": ""}
    for name in ("UNIMEM_DATABASE_URL", "UNIMEM_REDIS_URL", "UNIMEM_DATA_DIR"):
        env.pop(name, None)
    command = [sys.executable, "-m", "unimem.cli", "serve", "--port", str(port)]
    command += ["--workers", "2", "--database-url", f"sqlite:///{db}"]
    proc = subprocess.Popen(
        command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "unimem serve did not start"
            time.sleep(0.2)
        assert health.json()["store"] == "sqlite"
        for n in range(4):  # (requests spread over both workers)
            r = httpx.post(
                f"{base}/v1/sessions/s{n}/entries",
                json={"role": "user", "content": f"hello {n}"},
                timeout=10,
            )
            assert r.status_code == 201, r.text
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    assert not (tmp_path / "data").exists()  # nothing went to the default store

    async def sessions() -> int:
        from unimem import UnifiedMemoryService

        async with UnifiedMemoryService.from_url(f"sqlite:///{db}") as service:
            return len(await service.list_sessions(user_id="local"))

    assert asyncio.run(sessions()) == 4
    assert not list(Path(tempfile.gettempdir()).glob("unimem-serve-*.env"))


def test_workers_refuse_an_environment_naming_another_store(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["serve", "--workers", "2", "--database-url", f"sqlite:///{tmp_path / 'a.db'}"],
        env={"UNIMEM_DATABASE_URL": f"sqlite:///{tmp_path / 'b.db'}", "UNIMEM_JWT_SECRET": ""},
    )
    assert result.exit_code == 2, result.output
    assert "UNIMEM_DATABASE_URL names another store than the command's option" in result.output
