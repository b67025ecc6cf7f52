"""``unimem serve``: the HTTP API, the live WebSocket and the web UI, with a
start-up summary of what it opened (store, cache, auth, limits) on stderr."""

from __future__ import annotations

import ipaddress
import os
import tempfile
from pathlib import Path
from typing import Any

import click

from .. import __version__
from .maintenance import apply_migrations, versions
from .support import (
    DB_HELP,
    cli_settings,
    ensure_sqlite_dir,
    fail_cleanly,
    redacted,
    run,
    where,
)

__all__ = ["SHUTDOWN_GRACE_SECONDS", "serve"]

#: Seconds `unimem serve` lets running requests finish after SIGTERM.
SHUTDOWN_GRACE_SECONDS = 15


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--database-url", help=DB_HELP)
@click.option("--redis-url", help="Session cache URL [env: UNIMEM_REDIS_URL]")
@click.option(
    "--log-level",
    default="info",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
)
@click.option(
    "--access-log/--no-access-log",
    default=False,
    show_default=True,
    help="Log a line per request (method, path with ids and tokens masked, status). Off "
    "by default: a line per request costs CPU on every voice turn.",
)
@fail_cleanly
def serve(
    host: str,
    port: int,
    workers: int,
    database_url: str | None,
    redis_url: str | None,
    log_level: str,
    access_log: bool,
) -> None:
    """Serve the HTTP API, the live WebSocket and the web UI.

    The data lives in UNIMEM_DATABASE_URL (or --database-url); by default in
    ./data/unimem.db relative to the working directory (UNIMEM_DATA_DIR moves
    it). Every UNIMEM_* variable is listed in the README.
    """
    import uvicorn

    from ..server.app import create_app
    from ..server.log_redaction import uvicorn_log_config

    settings = cli_settings(database_url, redis_url)
    if settings.local_mode and not _is_loopback(host):
        raise click.UsageError(
            f"refusing to listen on {host} in local mode (no UNIMEM_JWT_SECRET): anyone who "
            "can reach it would read every conversation. Set UNIMEM_JWT_SECRET (48+ random "
            "characters) and hand out tokens with `unimem token`, or bind 127.0.0.1."
        )
    url = settings.store.durable_url
    redis = settings.store.redis_url
    ensure_sqlite_dir(url)
    click.echo(f"unimem {__version__}", err=True)
    applied = run(apply_migrations(url))
    click.echo(f"  store     {where(url)}", err=True)
    if applied:
        click.echo(f"  schema    applied migrations {versions(applied)}", err=True)
    if redis:
        click.echo(f"  cache     {redacted(redis)}", err=True)
    if settings.local_mode:
        click.secho(
            "  auth      LOCAL MODE: no UNIMEM_JWT_SECRET, every request is user "
            f"{settings.auth.local_user!r}, loopback only",
            fg="yellow",
            err=True,
        )
    else:
        click.echo(
            "  auth      bearer tokens (HS256); issue with `unimem token --user NAME`", err=True
        )
    limit = settings.server.rate_limit
    click.echo(f"  limit     {limit if limit else 'off'} per user", err=True)
    shown = f"[{host}]" if ":" in host else host
    if (settings.server.web_root / "index.html").is_file():
        ui = f"open http://{shown}:{port}/ for the web UI"
    else:
        ui = "not built (API only)"
    click.echo(f"  web ui    {ui}", err=True)
    if workers > 1 and not redis:
        click.secho(
            f"  workers   {workers} without UNIMEM_REDIS_URL: live updates reach only clients "
            "of the same worker",
            fg="yellow",
            err=True,
        )
    if workers > 1:
        click.echo(f"  workers   {workers} (the rate limit applies per worker)", err=True)
    click.echo(f"  access    {'logged' if access_log else 'not logged (--access-log)'}", err=True)
    click.echo(f"  telemetry {_telemetry_line()}", err=True)
    click.echo(f"  listening http://{shown}:{port}  (API docs at /docs)", err=True)
    app: Any = create_app(settings) if workers == 1 else "unimem.server.app:create_app"
    # uvicorn starts each of several workers from the factory's import string,
    # and create_app() reads the UNIMEM_* variables: the command's options
    # reach the workers as uvicorn's env file (the one worker of the default
    # case is handed its app instead)
    env_file = _worker_env_file(url, redis) if workers > 1 else None
    try:
        uvicorn.run(
            app,
            factory=workers > 1,
            env_file=env_file,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level,
            # every line masks tokens and session ids (server/log_redaction.py)
            log_config=uvicorn_log_config(),
            access_log=access_log,
            proxy_headers=False,
            # a request still running this long after SIGTERM is abandoned, so a
            # stuck client or query never keeps the server from stopping
            timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
        )
    finally:
        if env_file is not None:
            env_file.unlink(missing_ok=True)


def _worker_env_file(url: str, redis: str | None) -> Path:
    """A private env file naming the store URLs the workers must use.

    uvicorn loads it (python-dotenv) without overriding variables already
    set, so a variable set to another value than the option is refused.
    """
    lines = []
    for name, value in (("UNIMEM_DATABASE_URL", url), ("UNIMEM_REDIS_URL", redis)):
        if not value:
            continue
        present = os.environ.get(name, "").strip()
        if present and present != value:
            raise click.UsageError(
                f"{name} names another store than the command's option, and with --workers "
                f"above 1 every worker reads {name}: unset it, or drop the option"
            )
        quoted = value.replace("\\", "\\\\").replace("'", "\\'")
        lines.append(f"{name}='{quoted}'\n")
    fd, path = tempfile.mkstemp(prefix="unimem-serve-", suffix=".env")  # mode 0600
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.writelines(lines)
    return Path(path)


def _telemetry_line() -> str:
    from ..server.app import opentelemetry_configured

    if opentelemetry_configured():
        return "OpenTelemetry set up: FastAPI traces and measures requests"
    return "OpenTelemetry off (no provider or OTEL_* variable); /metrics as always"
