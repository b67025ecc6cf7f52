"""The FastAPI application: ``create_app(settings=None)``.

Settings are read when the app is built; the memory service opens in the
lifespan and reaches handlers as an ``Annotated`` dependency. The web UI, when
built into ``src/unimem/web/dist``, is served at ``/`` after the API routes.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .. import __version__
from ..assembly import build_service
from ..context.warm import load_models
from ..service import UnifiedMemoryService
from ..settings import Settings
from . import facts, items, live, me, ops, reply, search, sessions
from .auth import Authenticator, RateLimiter
from .error_handlers import install_error_handlers
from .metrics import Metrics
from .middleware import (
    BodyLimitMiddleware,
    ConcurrencyLimitMiddleware,
    LoopbackOnlyMiddleware,
    MetricsMiddleware,
)
from .relay import RedisLiveBus
from .server_settings import ServerSettings
from .sweeper import lock_for, sweep_forever
from .timed_store import TimedStore

__all__ = ["build_service", "create_app", "opentelemetry_configured"]

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


def opentelemetry_configured(environ: Mapping[str, str] | None = None) -> bool:
    """Whether OpenTelemetry is set up for this process: a global tracer or
    meter provider is installed, or an ``OTEL_*`` variable (or
    ``FASTAPI_OTEL_AUTO_CONFIGURE=true``) says one will be, by auto-instrumentation
    or by FastAPI's own set-up when the app starts.

    A tracer provider counts as installed when it is not the API's stand-in
    (``opentelemetry.trace.ProxyTracerProvider``), which is there until
    something installs a real one; any other (an SDK's, a vendor's, a no-op)
    counts. A meter or logger provider installed in code alone is not looked
    for: the metrics and logs APIs publish no way to tell their stand-ins from
    a real provider (set ``OTEL_SERVICE_NAME``, as exporters want anyway).

    Args:
        environ: the variables to read; ``os.environ`` when omitted.
    """
    env = os.environ if environ is None else environ
    if env.get("FASTAPI_OTEL_AUTO_CONFIGURE", "").lower() == "true":
        return True
    if any(name.startswith("OTEL_") for name in env):
        return True
    try:
        from opentelemetry import trace
    except ImportError:
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _fastapi_telemetry(enabled: bool) -> dict[str, Any]:
    """FastAPI's ``telemetry`` argument: its defaults when OpenTelemetry is set
    up, every signal off when it is not.

    FastAPI asks the OpenTelemetry API for its three global providers on every
    request (3 us of CPU in-process, more in a busy server) to learn whether to
    trace it. Without a provider or an ``OTEL_*`` variable at start-up the
    answer is always no, so it is given once here; FastAPI versions without
    the argument are left as they are.
    """
    if enabled or "telemetry" not in inspect.signature(FastAPI.__init__).parameters:
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


async def _start_relay(settings: ServerSettings) -> RedisLiveBus | None:
    """With a plain Redis configured, relay live messages between workers."""
    url = settings.redis_url
    if not url or url.split("://", 1)[0].lower() not in ("redis", "rediss", "unix"):
        return None
    bus = RedisLiveBus(url, prefix=settings.live_channel_prefix)
    try:
        await bus.start()
    except (RedisError, OSError) as exc:
        await bus.aclose()
        log.warning(
            "live relay disabled (%s: %s): live updates stay per worker", type(exc).__name__, exc
        )
        return None
    return bus


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
    settings: Settings | ServerSettings | None = None,
    *,
    service: UnifiedMemoryService | None = None,
) -> FastAPI:
    """The unimem HTTP + WebSocket app.

    Args:
        settings: the settings (:class:`unimem.settings.Settings`, or the
            server's flat :class:`ServerSettings`); read from ``UNIMEM_*``
            variables when omitted (``Settings.from_env()``).
        service: serve this service instead of building one from the settings'
            URLs (embedding, tests); the app sets it up but leaves closing it to
            the caller.

    Raises:
        ConfigurationError: a setting cannot work.
    """
    if settings is None:
        settings = Settings.from_env()
    server = ServerSettings.from_settings(settings) if isinstance(settings, Settings) else settings
    metrics = Metrics()
    otel = opentelemetry_configured()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # An embedder's service is served as it was built; the app's own gets
        # the relay between workers and the timing of every store call.
        relay = await _start_relay(server) if service is None else None
        memory = service or build_service(
            server.to_settings(), live=relay, observe=lambda store: TimedStore(store, metrics)
        )
        await memory.setup()
        # the language models, token vocabularies and PHI lexicon, so the
        # first request does not pay seconds for them
        await asyncio.to_thread(load_models)
        # Everything loaded so far (models, lexicons, schemas, the app) lives as
        # long as the process: move it out of the collector's reach, so a full
        # collection no longer walks it (~15 ms each, the top of the p99).
        gc.collect()
        gc.freeze()
        app.state.service = memory
        if not otel and opentelemetry_configured():
            log.warning(
                "OpenTelemetry was set up after the app was built: FastAPI's request "
                "telemetry stays off; set it up before create_app(), or set any OTEL_* variable"
            )
        log.info(
            "unimem %s ready: store %s, %s, OpenTelemetry %s",
            __version__,
            _scheme(server),
            f"local mode (loopback only, user {server.local_user!r})"
            if server.local_mode
            else "bearer tokens",
            "on" if otel else "off",
        )
        sweeper = None
        if server.sweep_interval > 0:
            sweeper = asyncio.create_task(
                sweep_forever(memory, lock_for(server), server.sweep_interval)
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
        **_fastapi_telemetry(otel),
    )
    app.state.settings = server
    #: Whether FastAPI's OpenTelemetry request telemetry runs (decided at build).
    app.state.opentelemetry = otel
    app.state.metrics = metrics
    app.state.auth = Authenticator(server.jwt_secret, server.local_user)
    app.state.limiter = RateLimiter(server.rate_limit)
    install_error_handlers(app)
    app.include_router(ops.router)
    app.include_router(sessions.router)
    app.include_router(me.router)
    app.include_router(facts.router)
    app.include_router(items.router)
    app.include_router(search.router)
    app.include_router(reply.router)
    app.include_router(live.router)

    # Innermost first: the body limit runs inside the concurrency limit, both inside
    # the metrics (so a request's latency includes its wait for a turn).
    app.add_middleware(BodyLimitMiddleware, limit=server.max_body_bytes, auth=app.state.auth)
    if server.max_concurrent_requests:
        app.add_middleware(ConcurrencyLimitMiddleware, limit=server.max_concurrent_requests)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    if server.local_mode:
        app.add_middleware(LoopbackOnlyMiddleware)

    web = server.web_dir
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
