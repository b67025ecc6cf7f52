"""The FastAPI application: ``create_app(settings=None)``.

Settings are read when the app is built; the memory service opens in the
lifespan and reaches handlers as an ``Annotated`` dependency. The web UI, when
built into ``src/unimem/web/dist``, is served at ``/`` after the API routes.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .. import __version__
from ..service import UnifiedMemoryService
from . import live, me, ops, reply, sessions
from .auth import Authenticator, RateLimiter
from .errors import install_error_handlers
from .fastpath import FastPathMiddleware
from .metrics import Metrics, TimedStore
from .middleware import BodyLimitMiddleware, LoopbackOnlyMiddleware, MetricsMiddleware
from .relay import RedisLiveBus
from .settings import ServerSettings
from .sweeper import lock_for, sweep_forever

__all__ = ["build_service", "create_app"]

log = logging.getLogger("unimem.server")

_NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>unimem</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>unimem is running</h1>
<p>The web UI is not built. Build it with <code>cd frontend &amp;&amp; npm ci &amp;&amp;
npm run build</code> (it lands in <code>src/unimem/web/dist</code>), then restart.</p>
<p>The API is up: see <a href="/docs">/docs</a> and <a href="/openapi.json">/openapi.json</a>.</p>
</body></html>
"""


def build_service(settings: ServerSettings) -> UnifiedMemoryService:
    """The memory service the settings name (not yet set up), encrypting content
    at rest when ``UNIMEM_ENCRYPTION_KEYS`` is set. The CLI opens it the same way.

    Raises:
        ConfigurationError: a URL or the keys cannot work.
    """
    service = UnifiedMemoryService.from_url(
        archive=settings.database_url, session=settings.redis_url, config=settings.memory
    )
    if settings.encryption_keys:
        from ..privacy.crypto import Keyring

        service.use_encryption(Keyring.parse(settings.encryption_keys))
    return service


async def _start_relay(
    settings: ServerSettings, service: UnifiedMemoryService
) -> RedisLiveBus | None:
    """With a plain Redis configured, relay live messages between workers."""
    url = settings.redis_url
    if not url or url.split("://", 1)[0].lower() not in ("redis", "rediss", "unix"):
        return None
    bus = RedisLiveBus(url, prefix=settings.live_channel_prefix)
    try:
        await bus.start()
    except (RedisError, OSError) as exc:
        await bus.aclose()
        log.warning("live relay disabled (%s): live updates stay per worker", type(exc).__name__)
        return None
    service.live = bus
    return bus


def _warm_up() -> None:
    """Load the language models, token vocabularies and PHI lexicon now, so the
    first request does not pay seconds for them."""
    from ..context.tokens import warm_up
    from ..language.detector import preload
    from ..privacy.phi_lexicon import get_lexicon

    preload()
    warm_up()
    get_lexicon()


class _SpaFiles(StaticFiles):
    """Static files where unknown paths without an extension fall back to
    ``index.html``, so client-side routes survive a reload."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            return await super().get_response(path, scope)
        except HTTPException as exc:
            if exc.status_code != 404 or "." in Path(path).name or path.startswith("v1"):
                raise
            return await super().get_response("index.html", scope)


def create_app(
    settings: ServerSettings | None = None, *, service: UnifiedMemoryService | None = None
) -> FastAPI:
    """The unimem HTTP + WebSocket app.

    Args:
        settings: server settings; read from ``UNIMEM_*`` variables when omitted.
        service: serve this service instead of building one from the settings'
            URLs (embedding, tests); the app sets it up but leaves closing it to
            the caller.

    Raises:
        ConfigurationError: a setting cannot work.
    """
    settings = settings if settings is not None else ServerSettings.from_env()
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        memory = service if service is not None else build_service(settings)
        if not isinstance(memory.store, TimedStore):
            memory.store = TimedStore(memory.store, metrics)
        await memory.setup()
        relay = await _start_relay(settings, memory)
        await asyncio.to_thread(_warm_up)
        # Everything loaded so far (models, lexicons, schemas, the app) lives as
        # long as the process: move it out of the collector's reach, so a full
        # collection no longer walks it (~15 ms each, the top of the p99).
        gc.collect()
        gc.freeze()
        app.state.service = memory
        if settings.local_mode:
            log.warning(
                "unimem %s: LOCAL MODE (no UNIMEM_JWT_SECRET): loopback clients only, "
                "every request is user %r",
                __version__,
                settings.local_user,
            )
        log.info("unimem %s ready: store %s", __version__, _scheme(settings))
        sweeper = None
        if settings.sweep_interval > 0:
            sweeper = asyncio.create_task(
                sweep_forever(memory, lock_for(settings), settings.sweep_interval)
            )
        try:
            yield
        finally:
            gc.unfreeze()
            if sweeper is not None:
                sweeper.cancel()
                await asyncio.gather(sweeper, return_exceptions=True)
            if relay is not None:
                await relay.aclose()
            if service is None:
                await memory.aclose()

    app = FastAPI(
        title="unimem",
        version=__version__,
        summary="Unified conversation memory for voice and text AI assistants",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.auth = Authenticator(settings.jwt_secret, settings.local_user)
    app.state.limiter = RateLimiter(settings.rate_limit)
    install_error_handlers(app)
    app.include_router(ops.router)
    app.include_router(sessions.router)
    app.include_router(me.router)
    app.include_router(reply.router)
    app.include_router(live.router)

    # Innermost first: the fast path runs inside the body limit and the metrics.
    app.add_middleware(FastPathMiddleware)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    if settings.local_mode:
        app.add_middleware(LoopbackOnlyMiddleware)

    web = settings.web_dir
    if (web / "index.html").is_file():
        app.mount("/", _SpaFiles(directory=web, html=True), name="web")
    else:

        @app.get("/", include_in_schema=False)
        async def not_built() -> HTMLResponse:
            return HTMLResponse(_NOT_BUILT)

    return app


def _scheme(settings: ServerSettings) -> str:
    # The scheme only: URLs may carry passwords.
    return settings.database_url.split("://", 1)[0]
