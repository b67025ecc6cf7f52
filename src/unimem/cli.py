"""The ``unimem`` command: serve, migrate, sweep, export, delete, token, mcp.

Every command reads ``UNIMEM_*`` settings (see :mod:`unimem.server.settings`)
and takes the store URL as ``--database-url`` too. Errors print one line that
says what to do and exit non-zero; they never print message content.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import json
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from . import __version__
from .errors import UnimemError

if TYPE_CHECKING:
    from .service import UnifiedMemoryService

__all__ = ["main"]

T = TypeVar("T")

_DB_HELP = (
    "Store URL: sqlite:///path.db, postgresql://user@host/db or memory:// "
    "[env: UNIMEM_DATABASE_URL]"
)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def _fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn unimem errors into a one-line message and exit status 1."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UnimemError as exc:
            raise click.ClickException(f"{type(exc).__name__}: {exc.message}") from None

    return wrapper


#: Seconds `unimem serve` lets running requests finish after SIGTERM.
SHUTDOWN_GRACE_SECONDS = 15


def _database_url(option: str | None) -> str:
    from .server.settings import default_database_url

    url = option or os.environ.get("UNIMEM_DATABASE_URL", "").strip()
    return url or default_database_url()


def _open_service(database_url: str | None) -> UnifiedMemoryService:
    """The service as ``unimem serve`` opens it: ``--database-url`` or
    ``UNIMEM_DATABASE_URL``, and ``UNIMEM_REDIS_URL``, ``UNIMEM_ENCRYPTION_KEYS``
    and the ``UNIMEM_*`` limits, so encrypted content reads back and the Redis
    layers are deleted too."""
    from .server.app import build_service
    from .server.settings import ServerSettings

    settings = dataclasses.replace(
        ServerSettings.from_env(), database_url=_database_url(database_url)
    )
    return build_service(settings)


def _redacted(url: str) -> str:
    """The URL without a password, for printing."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, _, host = rest.rpartition("@")
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else f"{scheme}://{user}@{host}"


def _ensure_sqlite_dir(url: str) -> None:
    if url.startswith("sqlite:///"):
        Path(url[len("sqlite:///") :]).expanduser().parent.mkdir(parents=True, exist_ok=True)


async def _steps(label: str, steps: list[tuple[str, Callable[[], Awaitable[Any]]]]) -> list[Any]:
    """Run ``steps`` in order under a progress bar; return their results."""
    results: list[Any] = []
    with click.progressbar(
        steps, label=label, item_show_func=lambda s: s[0] if s else None, file=sys.stderr
    ) as bar:
        for _, step in bar:
            results.append(await step())
    return results


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unimem")
def main() -> None:
    """unimem: unified conversation memory for voice and text AI assistants."""


# ---------------------------------------------------------------------- serve


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--database-url", help=_DB_HELP)
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
    help="Log a line per request (method, path with the session id, status). Off by "
    "default: request paths name sessions, and a line per request costs CPU on every "
    "voice turn.",
)
@_fail_cleanly
def serve(
    host: str,
    port: int,
    workers: int,
    database_url: str | None,
    redis_url: str | None,
    log_level: str,
    access_log: bool,
) -> None:
    """Serve the HTTP API, the live WebSocket and the web UI."""
    import uvicorn

    from .server.settings import ServerSettings

    url = _database_url(database_url)
    os.environ["UNIMEM_DATABASE_URL"] = url
    if redis_url:
        os.environ["UNIMEM_REDIS_URL"] = redis_url
    settings = ServerSettings.from_env()
    if settings.local_mode and not _is_loopback(host):
        raise click.UsageError(
            f"refusing to listen on {host} in local mode (no UNIMEM_JWT_SECRET): anyone who "
            "can reach it would read every conversation. Set UNIMEM_JWT_SECRET (48+ random "
            "characters) and hand out tokens with `unimem token`, or bind 127.0.0.1."
        )
    _ensure_sqlite_dir(url)
    click.echo(f"unimem {__version__}", err=True)
    _run(_migrate_with_progress(url))
    click.echo(f"  store     {_redacted(url)}", err=True)
    if settings.redis_url:
        click.echo(f"  cache     {_redacted(settings.redis_url)}", err=True)
    if settings.local_mode:
        click.secho(
            "  auth      LOCAL MODE: no UNIMEM_JWT_SECRET, every request is user 'local', "
            "loopback only",
            fg="yellow",
            err=True,
        )
    else:
        click.echo(
            "  auth      bearer tokens (HS256); issue with `unimem token --user NAME`", err=True
        )
    limit = settings.rate_limit
    click.echo(f"  limit     {limit if limit else 'off'} per user", err=True)
    ui = "built" if (settings.web_dir / "index.html").is_file() else "not built (API only)"
    click.echo(f"  web ui    {ui}", err=True)
    if workers > 1 and not settings.redis_url:
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
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"  listening http://{shown}:{port}  (docs at /docs)", err=True)
    uvicorn.run(
        "unimem.server.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        access_log=access_log,
        proxy_headers=False,
        # a request still running this long after SIGTERM is abandoned, so a
        # stuck client or query never keeps the server from stopping
        timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS,
    )


def _telemetry_line() -> str:
    from .server.app import opentelemetry_configured

    if opentelemetry_configured():
        return "OpenTelemetry set up: FastAPI traces and measures requests"
    return "OpenTelemetry off (no provider or OTEL_* variable); /metrics as always"


async def _migrate_with_progress(url: str) -> None:
    from .service import UnifiedMemoryService

    service = UnifiedMemoryService.from_url(url)
    await _steps(
        "  migrating",
        [("open and migrate the store", service.setup), ("close", service.aclose)],
    )


# ---------------------------------------------------------------------- maintenance


@main.command()
@click.option("--database-url", help=_DB_HELP)
@_fail_cleanly
def migrate(database_url: str | None) -> None:
    """Create the schema or apply pending migrations (safe to run again)."""
    url = _database_url(database_url)
    _ensure_sqlite_dir(url)
    _run(_migrate_with_progress(url))
    click.echo(f"store {_redacted(url)} is up to date")


@main.command()
@click.option("--database-url", help=_DB_HELP)
@click.option(
    "--default-retention-days",
    type=click.IntRange(1, 36500),
    help="Retention for users who never set theirs (default: 30).",
)
@_fail_cleanly
def sweep(database_url: str | None, default_retention_days: int | None) -> None:
    """Delete entries and events older than each user's retention period."""
    service = _open_service(database_url)

    async def sweep_now() -> int:
        return await service.sweep_retention(default_retention_days=default_retention_days)

    results = _run(
        _steps(
            "sweeping",
            [("open", service.setup), ("delete expired", sweep_now), ("close", service.aclose)],
        )
    )
    click.echo(f"deleted {results[1]} expired entries and events")


@main.command()
@click.option("--user", required=True, help="User id to export.")
@click.option("--database-url", help=_DB_HELP)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to this file instead of standard output.",
)
@_fail_cleanly
def export(user: str, database_url: str | None, output: Path | None) -> None:
    """Export everything stored about a user as JSON."""

    async def go() -> dict[str, Any]:
        async with _open_service(database_url) as service:
            return await service.export_user_memory(user, actor="cli")

    data = _run(go())
    if output is None:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))
        return
    sections = [k for k, v in data.items() if isinstance(v, list)]
    items = list(data.items())
    # One JSON object, written key by key so the bar follows real progress on
    # large exports (the list sections dominate).
    with (
        output.open("w", encoding="utf-8") as fh,
        click.progressbar(items, label=f"writing {output}", file=sys.stderr) as bar,
    ):
        fh.write("{\n")
        for index, (key, value) in enumerate(bar):
            body = json.dumps(value, ensure_ascii=False, indent=2, default=str)
            body = body.replace("\n", "\n  ")
            comma = "," if index < len(items) - 1 else ""
            fh.write(f"  {json.dumps(key)}: {body}{comma}\n")
        fh.write("}\n")
    counts = ", ".join(f"{len(data[k])} {k}" for k in sections)
    click.echo(f"exported {counts} to {output}", err=True)


@main.command()
@click.option("--user", required=True, help="User whose memory to delete.")
@click.option("--scope", required=True, type=click.Choice(["session", "day", "all"]))
@click.option("--session-id", help="With --scope session: only this session.")
@click.option("--tz", help="With --scope day: IANA time zone of 'today' (default UTC).")
@click.option("--database-url", help=_DB_HELP)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@_fail_cleanly
def delete(
    user: str,
    scope: str,
    session_id: str | None,
    tz: str | None,
    database_url: str | None,
    yes: bool,
) -> None:
    """Delete a user's memory (one session, today, or everything). Audited."""
    what = {"session": f"session {session_id}" if session_id else "open sessions"}.get(
        scope, "today's memory" if scope == "day" else "ALL memory"
    )
    if not yes:
        click.confirm(f"Delete {what} of user {user!r}? This cannot be undone", abort=True)

    async def go() -> Any:
        async with _open_service(database_url) as service:
            return await service.delete_user_memory(
                user, scope, tz=tz, session_id=session_id, actor="cli"
            )

    receipt = _run(go())
    click.echo(receipt.model_dump_json(indent=2))


# ---------------------------------------------------------------------- tokens and MCP


@main.command()
@click.option("--user", required=True, help="User id (the token's 'sub').")
@click.option("--ttl", default="1h", show_default=True, help="Lifetime: 3600, 15m, 1h, 7d, 2w.")
@click.option(
    "--secret",
    envvar="UNIMEM_JWT_SECRET",
    help="Signing secret [env: UNIMEM_JWT_SECRET].",
    show_envvar=False,
)
@_fail_cleanly
def token(user: str, ttl: str, secret: str | None) -> None:
    """Print a bearer token for USER, signed with the server's secret."""
    from .server.auth import issue_token, parse_ttl

    if not secret:
        raise click.UsageError(
            "no secret: set UNIMEM_JWT_SECRET (the same value the server uses) or pass --secret"
        )
    click.echo(issue_token(secret, user, parse_ttl(ttl)))


@main.command()
@click.option("--user", default="local", show_default=True, help="User the tools act as.")
@click.option("--database-url", help=_DB_HELP)
@_fail_cleanly
def mcp(user: str, database_url: str | None) -> None:
    """Serve memory tools to an MCP client over stdin/stdout.

    Tools: add_entry, get_context, get_history, list_sessions, delete_memory.
    The store is opened as `unimem serve` opens it (UNIMEM_REDIS_URL,
    UNIMEM_ENCRYPTION_KEYS and the UNIMEM_* limits apply).
    """
    from .mcp_server import serve_stdio

    _ensure_sqlite_dir(_database_url(database_url))
    _run(serve_stdio(_open_service(database_url), user))


if __name__ == "__main__":  # pragma: no cover - `python -m unimem.cli`
    main()
