"""The adapters' tests start like a deployed voice process: the models unimem
loads on first use are loaded once, before the first conversation."""

from __future__ import annotations

import pytest

from unimem.integrations import prewarm


@pytest.fixture(scope="session", autouse=True)
def _prewarmed() -> None:
    prewarm()
