"""One settings object: every UNIMEM_* variable lands in its section, nothing is
read unless asked, and every entry point builds its service from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from server_support import SECRET, asgi_client
from unimem import ConfigurationError, UnifiedMemoryService
from unimem.assembly import build_service
from unimem.cli import main
from unimem.context.summarize import ExtractiveSummarizer, LLMSummarizer
from unimem.privacy.crypto import generate_key
from unimem.privacy.encrypted_store import EncryptedStore
from unimem.server import ServerSettings
from unimem.server.app import create_app
from unimem.settings import ENVIRONMENT, RateLimit, Settings

ROOT = Path(__file__).resolve().parent.parent


def test_every_documented_variable_is_a_setting() -> None:
    documented = set()
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        documented |= set(re.findall(r"\bUNIMEM_[A-Z_]*[A-Z]\b", doc.read_text("utf-8")))
    known = {name for name, _, _ in ENVIRONMENT}
    # UNIMEM_TEST_*: where the test suite finds its servers, not a setting
    assert {n for n in documented if not n.startswith("UNIMEM_TEST_")} <= known


def test_each_variable_lands_in_its_section(tmp_path: Path) -> None:
    env = {
        "UNIMEM_DATABASE_URL": "postgresql://u@h/db",
        "UNIMEM_REDIS_URL": "redis://h:6379/0",
        "UNIMEM_DATA_DIR": str(tmp_path),
        "UNIMEM_MAX_CONTENT_BYTES": "100",
        "UNIMEM_HOT_WINDOW": "7",
        "UNIMEM_SESSION_TTL": "60",
        "UNIMEM_SHORT_TERM_TTL": "61",
        "UNIMEM_JWT_SECRET": SECRET,
        "UNIMEM_RATE_LIMIT": "5/second",
        "UNIMEM_MAX_BODY_BYTES": "2048",
        "UNIMEM_MAX_CONCURRENT_REQUESTS": "8",
        "UNIMEM_WEB_DIR": str(tmp_path / "web"),
        "UNIMEM_SWEEP_INTERVAL": "0",
        "UNIMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "UNIMEM_LLM_MODEL": "m",
        "UNIMEM_LLM_API_KEY": "k",
        "UNIMEM_LLM_TIMEOUT": "2.5",
        "UNIMEM_ENCRYPTION_KEYS": "k1:" + "A" * 43 + "=",
    }
    s = Settings.from_env(env)
    assert (s.store.database_url, s.store.redis_url) == ("postgresql://u@h/db", "redis://h:6379/0")
    assert s.store.data_dir == tmp_path
    assert (s.store.max_content_bytes, s.store.hot_window) == (100, 7)
    assert (s.store.session_ttl, s.store.short_term_ttl) == (60, 61)
    assert s.auth.jwt_secret is not None and s.auth.jwt_secret.get_secret_value() == SECRET
    assert not s.local_mode
    assert s.server.rate_limit == RateLimit(5, 1.0) and s.server.max_body_bytes == 2048
    assert s.server.max_concurrent_requests == 8
    assert s.server.web_root == tmp_path / "web" and s.server.sweep_interval == 0
    endpoint = s.llm.endpoint()
    assert endpoint is not None
    assert (endpoint.base_url, endpoint.model, endpoint.api_key, endpoint.timeout) == (
        "http://127.0.0.1:9/v1",
        "m",
        "k",
        2.5,
    )
    assert s.privacy.encryption_keys is not None
    # the server's flat view says the same, and turns back into the same settings
    server = ServerSettings.from_settings(s)
    assert server.database_url == "postgresql://u@h/db" and server.memory.hot_window == 7
    assert server.max_concurrent_requests == 8
    assert ServerSettings.from_settings(server.to_settings()) == server


def test_defaults_and_the_data_dir(tmp_path: Path) -> None:
    s = Settings.from_env({})
    assert s.store.durable_url == "sqlite:///data/unimem.db" and s.local_mode
    assert s.server.rate_limit == RateLimit(600, 60.0)
    assert s.llm.endpoint() is None and s.privacy.keyring() is None
    both = {"VOICEASSIST_DATA_DIR": "/srv/va", "UNIMEM_DATA_DIR": "/srv/u"}
    assert Settings.from_env(both).store.durable_url == "sqlite:////srv/va/unimem.db"
    # blank values count as unset
    assert Settings.from_env({"UNIMEM_HOT_WINDOW": " ", "UNIMEM_JWT_SECRET": ""}).local_mode


def test_nothing_is_read_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIMEM_HOT_WINDOW", "7")
    assert Settings().store.hot_window == 50
    assert Settings.from_env().store.hot_window == 7
    assert Settings.from_env({}).store.hot_window == 50


def test_overrides_win_over_the_environment() -> None:
    s = Settings.from_env(
        {"UNIMEM_DATABASE_URL": "sqlite:///a.db", "UNIMEM_HOT_WINDOW": "9"},
        store={"database_url": "memory://"},
    )
    assert s.store.durable_url == "memory://" and s.store.hot_window == 9


def test_errors_name_the_variable_and_never_echo_a_secret() -> None:
    with pytest.raises(ConfigurationError, match=r"UNIMEM_HOT_WINDOW.*'lots'"):
        Settings.from_env({"UNIMEM_HOT_WINDOW": "lots"})
    with pytest.raises(ConfigurationError, match="UNIMEM_MAX_BODY_BYTES"):
        Settings.from_env({"UNIMEM_MAX_BODY_BYTES": "10"})
    with pytest.raises(ConfigurationError, match="UNIMEM_LLM_TIMEOUT"):
        Settings.from_env({"UNIMEM_LLM_TIMEOUT": "nan"})
    with pytest.raises(ConfigurationError, match="UNIMEM_LLM_BASE_URL"):
        Settings.from_env({"UNIMEM_LLM_BASE_URL": "ftp://x"})
    with pytest.raises(ConfigurationError, match=r"UNIMEM_JWT_SECRET.*32 bytes") as caught:
        Settings.from_env({"UNIMEM_JWT_SECRET": "short-and-secret"})
    assert "short-and-secret" not in caught.value.message


def test_from_env_builds_the_service_with_the_settings_summarizer(tmp_path: Path) -> None:
    env = {
        "UNIMEM_DATA_DIR": str(tmp_path),
        "UNIMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "UNIMEM_LLM_MODEL": "m",
        "UNIMEM_ENCRYPTION_KEYS": generate_key("k1"),
    }
    service = UnifiedMemoryService.from_env(env)
    assert isinstance(service.summarizer, LLMSummarizer) and service.summarizer.model == "m"
    assert isinstance(service.store, EncryptedStore)
    plain = build_service(Settings(store={"database_url": "memory://"}))  # type: ignore[arg-type]
    assert isinstance(plain.summarizer, ExtractiveSummarizer)
    assert plain.store.__class__.__name__ == "InMemoryStore"


async def test_create_app_takes_the_settings(tmp_path: Path) -> None:
    settings = Settings(
        store={"database_url": f"sqlite:///{tmp_path / 'app.db'}"},  # type: ignore[arg-type]
        server={"web_dir": tmp_path / "no-web", "rate_limit": None},  # type: ignore[arg-type]
    )
    async with asgi_client(create_app(settings)) as client:
        assert (await client.get("/healthz")).json()["local_mode"] is True
        created = await client.post(
            "/v1/sessions/s/entries", json={"role": "user", "content": "hi"}
        )
        assert created.status_code == 201 and created.json()["user_id"] == "local"
    assert (tmp_path / "app.db").exists()


def test_cli_options_do_not_write_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    monkeypatch.setenv("UNIMEM_DATABASE_URL", "")
    monkeypatch.setenv("UNIMEM_REDIS_URL", "")
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    result = CliRunner().invoke(
        main,
        ["serve", "--host", "0.0.0.0", "--database-url", url, "--redis-url", "redis://h/0"],
        env={"UNIMEM_JWT_SECRET": ""},
    )
    assert result.exit_code == 2, result.output
    assert os.environ["UNIMEM_DATABASE_URL"] == "" and os.environ["UNIMEM_REDIS_URL"] == ""


def test_data_dir_from_env_is_the_settings_data_dir() -> None:
    from pathlib import Path

    from unimem.settings import Settings, data_dir_from_env

    for env in (
        {},
        {"UNIMEM_DATA_DIR": "/srv/unimem"},
        {"UNIMEM_DATA_DIR": "/srv/unimem", "VOICEASSIST_DATA_DIR": "/srv/voice"},
        {"UNIMEM_DATA_DIR": "  ", "VOICEASSIST_DATA_DIR": ""},
    ):
        assert data_dir_from_env(env) == Settings.from_env(env).store.data_dir.expanduser()
    assert data_dir_from_env({"VOICEASSIST_DATA_DIR": "/srv/voice"}) == Path("/srv/voice")
    # another variable's bad value does not matter to this question
    assert data_dir_from_env({"UNIMEM_RATE_LIMIT": "nonsense"}) == Path("data")
