"""Configuration comes from the environment only when asked, with clear errors."""

from pathlib import Path

import pytest

from unimem import ConfigurationError, MemoryConfig, load_config
from unimem.config import _resolve_data_dir, resolve_data_dir


def test_data_dir_defaults_to_dot_data():
    assert resolve_data_dir({}) == Path("./data")


def test_voiceassist_data_dir_wins_over_unimem_data_dir():
    env = {"VOICEASSIST_DATA_DIR": "/srv/va", "UNIMEM_DATA_DIR": "/srv/u"}
    assert resolve_data_dir(env) == Path("/srv/va")
    assert resolve_data_dir({"UNIMEM_DATA_DIR": "/srv/u"}) == Path("/srv/u")


def test_private_alias_reads_the_process_environment(monkeypatch):
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", "/tmp/va-data")
    assert _resolve_data_dir() == Path("/tmp/va-data")


def test_load_config_reads_limits():
    config = load_config({"UNIMEM_MAX_CONTENT_BYTES": "100", "UNIMEM_HOT_WINDOW": "7"})
    assert config.max_content_bytes == 100
    assert config.hot_window == 7


def test_bad_numbers_name_the_variable():
    with pytest.raises(ConfigurationError, match="UNIMEM_HOT_WINDOW"):
        load_config({"UNIMEM_HOT_WINDOW": "lots"})
    with pytest.raises(ConfigurationError, match="hot_window"):
        MemoryConfig(hot_window=0)
