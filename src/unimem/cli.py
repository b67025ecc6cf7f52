"""The ``unimem`` command: serve, migrate, sweep, export, delete, token, mcp.

Every command reads the ``UNIMEM_*`` settings once (:class:`unimem.settings.Settings`),
its options override them, and it opens the store with
:func:`unimem.assembly.build_service`. Errors print one line that says what
to do and exit non-zero; they never print message content.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import click

from . import __version__
from .errors import UnimemError

if TYPE_CHECKING:
    from .recall.hits import MemoryHit
    from .service import UnifiedMemoryService
    from .settings import Settings

__all__ = ["main"]

T = TypeVar("T")

_DB_HELP = (
    "Store URL: sqlite:///path.db, postgresql://user@host/db or memory:// "
    "[env: UNIMEM_DATABASE_URL; default: sqlite:///<data dir>/unimem.db, the data "
    "dir being UNIMEM_DATA_DIR or ./data, relative to the working directory]"
)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def _fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn unimem errors (and a file system error) into a one-line message and exit status 1."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except UnimemError as exc:
            raise click.ClickException(exc.message) from None
        except OSError as exc:  # e.g. a data directory that cannot be created
            where = f" ({exc.filename})" if exc.filename else ""
            raise click.ClickException(f"{exc.strerror or exc}{where}") from None

    return wrapper


#: Seconds `unimem serve` lets running requests finish after SIGTERM.
SHUTDOWN_GRACE_SECONDS = 15


def _settings(database_url: str | None = None, redis_url: str | None = None) -> Settings:
    """The ``UNIMEM_*`` settings with the command's options in place of theirs."""
    from .settings import Settings

    store = {"database_url": database_url} if database_url else {}
    if redis_url:
        store["redis_url"] = redis_url
    return Settings.from_env(store=store)


def _open_service(settings: Settings) -> UnifiedMemoryService:
    """The service as ``unimem serve`` opens it: the settings' store behind their
    Redis cache, with their encryption keys and limits, so encrypted content
    reads back and the Redis layers are deleted too."""
    from .assembly import build_service

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


def _where(url: str) -> str:
    """The store URL for people: a password hidden, a SQLite file's absolute path."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///") :]).expanduser()
        if not path.is_absolute():
            return f"{_redacted(url)} ({path.resolve()})"
    return _redacted(url)


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
    """unimem: unified conversation memory for voice and text AI assistants.

    Every command opens the store UNIMEM_DATABASE_URL (or --database-url) names;
    by default ./data/unimem.db, relative to the working directory
    (UNIMEM_DATA_DIR moves the data directory).
    """


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
    help="Log a line per request (method, path with ids and tokens masked, status). Off "
    "by default: a line per request costs CPU on every voice turn.",
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
    """Serve the HTTP API, the live WebSocket and the web UI.

    The data lives in UNIMEM_DATABASE_URL (or --database-url); by default in
    ./data/unimem.db relative to the working directory (UNIMEM_DATA_DIR moves
    it). Every UNIMEM_* variable is listed in the README.
    """
    import uvicorn

    from .server.app import create_app
    from .server.log_redaction import uvicorn_log_config

    settings = _settings(database_url, redis_url)
    if settings.local_mode and not _is_loopback(host):
        raise click.UsageError(
            f"refusing to listen on {host} in local mode (no UNIMEM_JWT_SECRET): anyone who "
            "can reach it would read every conversation. Set UNIMEM_JWT_SECRET (48+ random "
            "characters) and hand out tokens with `unimem token`, or bind 127.0.0.1."
        )
    url = settings.store.durable_url
    redis = settings.store.redis_url
    _ensure_sqlite_dir(url)
    click.echo(f"unimem {__version__}", err=True)
    applied = _run(_migrate(url))
    click.echo(f"  store     {_where(url)}", err=True)
    if applied:
        click.echo(f"  schema    applied migrations {_versions(applied)}", err=True)
    if redis:
        click.echo(f"  cache     {_redacted(redis)}", err=True)
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
    from .server.app import opentelemetry_configured

    if opentelemetry_configured():
        return "OpenTelemetry set up: FastAPI traces and measures requests"
    return "OpenTelemetry off (no provider or OTEL_* variable); /metrics as always"


@runtime_checkable
class _Migrating(Protocol):
    """A store that records the migrations its last ``setup()`` applied."""

    applied_migrations: list[int]


def _versions(applied: list[int]) -> str:
    return ", ".join(str(v) for v in applied)


async def _migrate(url: str) -> list[int]:
    """Open the durable store at ``url`` (creating or migrating its schema) and close
    it; returns the migration versions applied."""
    from .stores import durable_store_from_url

    store = durable_store_from_url(url)
    await store.setup()
    try:
        return list(store.applied_migrations) if isinstance(store, _Migrating) else []
    finally:
        await store.aclose()


# ---------------------------------------------------------------------- maintenance


@main.command()
@click.option("--database-url", help=_DB_HELP)
@_fail_cleanly
def migrate(database_url: str | None) -> None:
    """Create the schema or apply pending migrations (safe to run again)."""
    url = _settings(database_url).store.durable_url
    _ensure_sqlite_dir(url)
    applied = _run(_migrate(url))
    if applied:
        click.echo(f"store {_where(url)}: applied migrations {_versions(applied)}")
    else:
        click.echo(f"store {_where(url)} is up to date: no migration to apply")


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
    from .models import MemorySettings

    settings = _settings(database_url)
    days = default_retention_days or MemorySettings().retention_days

    async def go() -> tuple[int, float]:
        async with _open_service(settings) as service:
            started = time.monotonic()
            deleted = await service.sweep_retention(default_retention_days=days)
            return deleted, time.monotonic() - started

    deleted, took = _run(go())
    rows = "expired entry or event" if deleted == 1 else "expired entries and events"
    click.echo(
        f"store {_where(settings.store.durable_url)}: deleted {deleted} {rows} "
        f"(older than their user's retention; {days} days for users who set none) "
        f"in {took:.2f} s"
    )


@main.command()
@click.option("--user", required=True, help="User id to export.")
@click.option("--database-url", help=_DB_HELP)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to this file instead of standard output.",
)
@click.option(
    "--reveal",
    is_flag=True,
    help="The user's own copy: PHI tokens replaced by their values (audited).",
)
@_fail_cleanly
def export(user: str, database_url: str | None, output: Path | None, reveal: bool) -> None:
    """Export everything stored about a user as JSON."""

    settings = _settings(database_url)

    async def go() -> dict[str, Any]:
        async with _open_service(settings) as service:
            return await service.export_user_memory(user_id=user, actor="cli", reveal=reveal)

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
@click.option("--user", required=True, help="User whose memory to search.")
@click.option("-k", "k", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--session-id", help="Only this session.")
@click.option("--since", type=click.DateTime(), help="Only turns from this time (UTC).")
@click.option("--until", type=click.DateTime(), help="Only turns before this time (UTC).")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option("--database-url", help=_DB_HELP)
@click.argument("query")
@_fail_cleanly
def search(
    user: str,
    k: int,
    session_id: str | None,
    since: datetime | None,
    until: datetime | None,
    as_json: bool,
    database_url: str | None,
    query: str,
) -> None:
    """Search a user's memory across every session, best hit first."""
    from .recall.block import format_hit

    since, until = (t.replace(tzinfo=UTC) if t is not None else None for t in (since, until))

    async def go() -> list[MemoryHit]:
        async with _open_service(_settings(database_url)) as service:
            return await service.search_memory(
                query, user_id=user, k=k, session_id=session_id, since=since, until=until
            )

    hits = _run(go())
    if as_json:
        click.echo(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False))
        return
    for hit in hits:
        click.echo(f"{format_hit(hit)}  ({hit.session_id or '-'}, {hit.score:.4f})")
    if not hits:
        click.echo("nothing found", err=True)


@main.command()
@click.option("--user", required=True, help="User whose memory to delete.")
@click.option("--scope", required=True, type=click.Choice(["session", "day", "all"]))
@click.option("--session-id", help="With --scope session (required there): the session.")
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
    if scope == "session" and not session_id:
        raise click.UsageError(
            "--scope session needs --session-id, the session to delete "
            "(--scope day deletes today's memory, --scope all everything)"
        )
    what = {"session": f"session {session_id}"}.get(
        scope, "today's memory" if scope == "day" else "ALL memory"
    )
    if not yes:
        click.confirm(f"Delete {what} of user {user!r}? This cannot be undone", abort=True)

    settings = _settings(database_url)

    async def go() -> Any:
        async with _open_service(settings) as service:
            return await service.delete_user_memory(
                scope, user_id=user, tz=tz, session_id=session_id, actor="cli"
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

    Tools: add_entry, get_context, get_history, list_sessions, delete_memory,
    add_fact, list_facts, confirm_fact, correct_fact, delete_fact, pin_entry,
    search_memory, put_item, get_item, delete_item, search_items,
    list_item_namespaces. The store is opened as `unimem serve`
    opens it (UNIMEM_DATABASE_URL, UNIMEM_REDIS_URL, UNIMEM_ENCRYPTION_KEYS and
    the UNIMEM_* limits apply). An MCP host starts this in a directory of its
    choosing: set UNIMEM_DATA_DIR (or UNIMEM_DATABASE_URL) in its server entry,
    or the data lands in ./data/unimem.db of that directory. The store opened is
    printed on stderr.
    """
    from .mcp_server import serve_stdio

    settings = _settings(database_url)
    url = settings.store.durable_url
    _ensure_sqlite_dir(url)
    service = _open_service(settings)
    click.echo(f"unimem {__version__} mcp: store {_where(url)}, user {user!r}", err=True)
    _run(serve_stdio(service, user))


# defined beside this module (which it imports), registered once both exist
from .cli_facts import facts  # noqa: E402
from .cli_items import items  # noqa: E402

main.add_command(facts)
main.add_command(items)

if __name__ == "__main__":  # pragma: no cover - `python -m unimem.cli`
    main()
