"""Shared fixtures.

``service`` is parametrized over every backend in :data:`BACKENDS`; the
conformance suite in ``tests/conformance`` runs once per backend. Backends that
need a server (Redis, PostgreSQL) fail under ``CI=true`` when it cannot be
reached, and skip with the reason otherwise.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from unimem import UnifiedMemoryService
from unimem.stores import InMemoryStore, SQLiteStore

ON_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

ServiceFactory = Callable[[Path, str], Awaitable[UnifiedMemoryService]]


async def _memory(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(InMemoryStore())


async def _sqlite(tmp_path: Path, test_id: str) -> UnifiedMemoryService:
    return UnifiedMemoryService(SQLiteStore(tmp_path / "unimem.db"))


#: name -> factory; backend modules add theirs (see tests/backends.py).
BACKENDS: dict[str, ServiceFactory] = {"memory": _memory, "sqlite": _sqlite}

try:  # server-backed factories live beside the fixtures that start their servers
    from backends import SERVER_BACKENDS  # type: ignore[import-not-found]

    BACKENDS.update(SERVER_BACKENDS)
except ImportError:
    pass


def unreachable(reason: str) -> None:
    """Fail under CI, skip elsewhere: a backend test never passes without its server."""
    if ON_CI:
        pytest.fail(f"backend unavailable under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(params=sorted(BACKENDS))
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[UnifiedMemoryService]:
    """A set-up service on each backend, isolated to this test."""
    factory = BACKENDS[request.param]
    svc = await factory(tmp_path, request.node.nodeid)
    async with svc:
        yield svc


#: The backends every framework adapter's tests run on (tests/integrations/).
ADAPTER_BACKENDS = ["memory", "redis+postgres"]


@pytest.fixture(params=ADAPTER_BACKENDS)
async def adapter_memory(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[UnifiedMemoryService]:
    """A set-up service for an adapter's test, in process and on Redis + PostgreSQL."""
    svc = await BACKENDS[request.param](tmp_path, request.node.nodeid)
    async with svc:
        yield svc


@pytest.fixture(scope="session", autouse=True)
def _prewarmed() -> None:
    """Tests start like a deployed process: the models unimem loads on first use
    (language, token vocabularies, PHI lexicon) are loaded once, before the first test."""
    from unimem.integrations import prewarm

    prewarm()
