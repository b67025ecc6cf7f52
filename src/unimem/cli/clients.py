"""``unimem token`` and ``unimem mcp``: how a client reaches memory, with a
bearer token for the HTTP API or as an MCP server over stdin/stdout."""

from __future__ import annotations

import click

from .. import __version__
from .support import (
    DB_HELP,
    cli_settings,
    ensure_sqlite_dir,
    fail_cleanly,
    open_service,
    run,
    where,
)

__all__ = ["mcp", "token"]


@click.command()
@click.option("--user", required=True, help="User id (the token's 'sub').")
@click.option("--ttl", default="1h", show_default=True, help="Lifetime: 3600, 15m, 1h, 7d, 2w.")
@click.option(
    "--secret",
    envvar="UNIMEM_JWT_SECRET",
    help="Signing secret [env: UNIMEM_JWT_SECRET].",
    show_envvar=False,
)
@fail_cleanly
def token(user: str, ttl: str, secret: str | None) -> None:
    """Print a bearer token for USER, signed with the server's secret."""
    from ..server.auth import issue_token, parse_ttl

    if not secret:
        raise click.UsageError(
            "no secret: set UNIMEM_JWT_SECRET (the same value the server uses) or pass --secret"
        )
    click.echo(issue_token(secret, user, parse_ttl(ttl)))


@click.command()
@click.option("--user", default="local", show_default=True, help="User the tools act as.")
@click.option("--database-url", help=DB_HELP)
@fail_cleanly
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
    from ..mcp_server import serve_stdio

    settings = cli_settings(database_url)
    url = settings.store.durable_url
    ensure_sqlite_dir(url)
    service = open_service(settings)
    click.echo(f"unimem {__version__} mcp: store {where(url)}, user {user!r}", err=True)
    run(serve_stdio(service, user))
