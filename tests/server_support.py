"""Helpers for the server, client and CLI tests: apps on a fresh SQLite file,
tokens, an in-process ASGI client, and a real uvicorn server on loopback."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from unimem.server import ServerSettings, create_app, issue_token

SECRET = "test-secret-" + "s" * 40


def token(user: str, ttl: int = 3600) -> str:
    """A valid bearer token for ``user``."""
    return issue_token(SECRET, user, ttl)


def auth(user: str) -> dict[str, str]:
    """The Authorization header of ``user``."""
    return {"Authorization": f"Bearer {token(user)}"}


def settings(tmp_path: Path, **changes: Any) -> ServerSettings:
    """Token-auth settings on a fresh SQLite file, no rate limit, no web UI."""
    values: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'server.db'}",
        "jwt_secret": SECRET,
        "rate_limit": None,
        "web_dir": tmp_path / "no-web",
    }
    values.update(changes)
    return ServerSettings(**values)


@asynccontextmanager
async def asgi_client(app: FastAPI, **kwargs: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client calling ``app`` in-process, with its lifespan running."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test", **kwargs) as c:
            yield c


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@asynccontextmanager
async def running_server(app: FastAPI) -> AsyncIterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port; yields the base URL."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(500):
            if server.started:
                break
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        else:
            raise RuntimeError("uvicorn did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


__all__ = [
    "SECRET",
    "asgi_client",
    "auth",
    "create_app",
    "free_port",
    "running_server",
    "settings",
    "token",
]
