"""``unimem export``, ``unimem search`` and ``unimem delete``: what is kept
about a user, read or deleted by an operator (exports and deletions audited)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .support import DB_HELP, cli_settings, fail_cleanly, open_service, run

if TYPE_CHECKING:
    from ..recall.hits import MemoryHit

__all__ = ["delete", "export", "search"]


@click.command()
@click.option("--user", required=True, help="User id to export.")
@click.option("--database-url", help=DB_HELP)
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
@fail_cleanly
def export(user: str, database_url: str | None, output: Path | None, reveal: bool) -> None:
    """Export everything stored about a user as JSON."""

    settings = cli_settings(database_url)

    async def go() -> dict[str, Any]:
        async with open_service(settings) as service:
            return await service.export_user_memory(user_id=user, actor="cli", reveal=reveal)

    data = run(go())
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


@click.command()
@click.option("--user", required=True, help="User whose memory to search.")
@click.option("-k", "k", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--session-id", help="Only this session.")
@click.option("--since", type=click.DateTime(), help="Only turns from this time (UTC).")
@click.option("--until", type=click.DateTime(), help="Only turns before this time (UTC).")
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
@click.option("--database-url", help=DB_HELP)
@click.argument("query")
@fail_cleanly
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
    from ..recall.block import format_hit

    since, until = (t.replace(tzinfo=UTC) if t is not None else None for t in (since, until))

    async def go() -> list[MemoryHit]:
        async with open_service(cli_settings(database_url)) as service:
            return await service.search_memory(
                query, user_id=user, k=k, session_id=session_id, since=since, until=until
            )

    hits = run(go())
    if as_json:
        click.echo(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False))
        return
    for hit in hits:
        click.echo(f"{format_hit(hit)}  ({hit.session_id or '-'}, {hit.score:.4f})")
    if not hits:
        click.echo("nothing found", err=True)


@click.command()
@click.option("--user", required=True, help="User whose memory to delete.")
@click.option("--scope", required=True, type=click.Choice(["session", "day", "all"]))
@click.option("--session-id", help="With --scope session (required there): the session.")
@click.option("--tz", help="With --scope day: IANA time zone of 'today' (default UTC).")
@click.option("--database-url", help=DB_HELP)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@fail_cleanly
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

    settings = cli_settings(database_url)

    async def go() -> Any:
        async with open_service(settings) as service:
            return await service.delete_user_memory(
                scope, user_id=user, tz=tz, session_id=session_id, actor="cli"
            )

    receipt = run(go())
    click.echo(receipt.model_dump_json(indent=2))
