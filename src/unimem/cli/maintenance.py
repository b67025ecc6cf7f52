"""``unimem migrate`` and ``unimem sweep``: the store's schema and its
retention, run by an operator or a cron job."""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

import click

from .support import (
    DB_HELP,
    cli_settings,
    ensure_sqlite_dir,
    fail_cleanly,
    open_service,
    run,
    where,
)

__all__ = ["apply_migrations", "migrate", "sweep", "versions"]


@runtime_checkable
class _Migrating(Protocol):
    """A store that records the migrations its last ``setup()`` applied."""

    applied_migrations: list[int]


def versions(applied: list[int]) -> str:
    """Migration versions as people read them: ``1, 2, 3``."""
    return ", ".join(str(v) for v in applied)


async def apply_migrations(url: str) -> list[int]:
    """Open the durable store at ``url`` (creating or migrating its schema) and close
    it; returns the migration versions applied."""
    from ..stores import durable_store_from_url

    store = durable_store_from_url(url)
    await store.setup()
    try:
        return list(store.applied_migrations) if isinstance(store, _Migrating) else []
    finally:
        await store.aclose()


@click.command()
@click.option("--database-url", help=DB_HELP)
@fail_cleanly
def migrate(database_url: str | None) -> None:
    """Create the schema or apply pending migrations (safe to run again)."""
    url = cli_settings(database_url).store.durable_url
    ensure_sqlite_dir(url)
    applied = run(apply_migrations(url))
    if applied:
        click.echo(f"store {where(url)}: applied migrations {versions(applied)}")
    else:
        click.echo(f"store {where(url)} is up to date: no migration to apply")


@click.command()
@click.option("--database-url", help=DB_HELP)
@click.option(
    "--default-retention-days",
    type=click.IntRange(1, 36500),
    help="Retention for users who never set theirs (default: 30).",
)
@fail_cleanly
def sweep(database_url: str | None, default_retention_days: int | None) -> None:
    """Delete entries and events older than each user's retention period."""
    from ..models import MemorySettings

    settings = cli_settings(database_url)
    days = default_retention_days or MemorySettings().retention_days

    async def go() -> tuple[int, float]:
        async with open_service(settings) as service:
            started = time.monotonic()
            deleted = await service.sweep_retention(default_retention_days=days)
            return deleted, time.monotonic() - started

    deleted, took = run(go())
    rows = "expired entry or event" if deleted == 1 else "expired entries and events"
    click.echo(
        f"store {where(settings.store.durable_url)}: deleted {deleted} {rows} "
        f"(older than their user's retention; {days} days for users who set none) "
        f"in {took:.2f} s"
    )
