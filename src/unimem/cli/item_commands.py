"""``unimem items ...``: a user's namespaced items (what an agent keeps through
LangGraph's store) from the command line, on the store ``unimem serve`` opens.

A namespace is written with ``/`` between its labels: ``memories/food``."""

from __future__ import annotations

import json
from typing import Any

import click

from ..models import StoredItem
from .support import DB_HELP, fail_cleanly, open_service_at, run

__all__ = ["items"]


def _labels(text: str) -> list[str]:
    return [label for label in text.split("/") if label]


def _echo(found: list[StoredItem], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([i.model_dump(mode="json") for i in found], ensure_ascii=False))
        return
    for item in found:
        value = json.dumps(item.value, ensure_ascii=False)
        click.echo(f"{'/'.join(item.namespace)}  {item.key}  {value}")


@click.group()
def items() -> None:
    """A user's namespaced items (an agent's long-term memory)."""


@items.command("list")
@click.option("--user", required=True, help="Whose items.")
@click.option("--prefix", default="", help="Only under this namespace, e.g. memories/food.")
@click.option("--query", help="Rank by these words (the matches first).")
@click.option("--filter", "filter_json", help='Value fields as JSON, e.g. {"stars": {"$gte": 4}}.')
@click.option("--limit", default=100, show_default=True, help="At most this many (1-1000).")
@click.option("--json", "as_json", is_flag=True, help="Print the items as JSON.")
@click.option("--database-url", help=DB_HELP)
@fail_cleanly
def list_(
    user: str,
    prefix: str,
    query: str | None,
    filter_json: str | None,
    limit: int,
    as_json: bool,
    database_url: str | None,
) -> None:
    """List a user's items, most recently updated first (or ranked by --query)."""
    try:
        value_filter: Any = json.loads(filter_json) if filter_json else None
    except json.JSONDecodeError as exc:
        raise click.UsageError(f"--filter is not JSON: {exc.msg}") from exc

    async def go() -> list[StoredItem]:
        async with open_service_at(database_url) as service:
            return await service.search_items(
                _labels(prefix), query=query, filter=value_filter, limit=limit, user_id=user
            )

    found = run(go())
    _echo(found, as_json)
    if not found and not as_json:
        click.echo("no items", err=True)


@items.command()
@click.option("--user", required=True, help="Whose namespaces.")
@click.option("--database-url", help=DB_HELP)
@fail_cleanly
def namespaces(user: str, database_url: str | None) -> None:
    """The namespaces holding the user's items."""

    async def go() -> list[list[str]]:
        async with open_service_at(database_url) as service:
            return await service.list_item_namespaces(user_id=user, limit=1000)

    for namespace in run(go()):
        click.echo("/".join(namespace))


@items.command()
@click.option("--user", required=True, help="Whose item.")
@click.option("--database-url", help=DB_HELP)
@click.argument("namespace")
@click.argument("key")
@fail_cleanly
def delete(user: str, database_url: str | None, namespace: str, key: str) -> None:
    """Delete one item (NAMESPACE as memories/food)."""

    async def go() -> bool:
        async with open_service_at(database_url) as service:
            return await service.delete_item(_labels(namespace), key, user_id=user)

    if not run(go()):
        raise click.ClickException(f"no item {key!r} in {namespace!r} for user {user!r}")
    click.echo(f"deleted {namespace} {key}")
