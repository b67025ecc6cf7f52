"""``unimem facts ...``: a user's facts (list with history, confirm, correct,
delete) from the command line, on the store ``unimem serve`` opens."""

from __future__ import annotations

import json

import click

from ..models import Fact
from .support import DB_HELP, fail_cleanly, open_service_at, run

__all__ = ["facts"]


def _line(fact: Fact) -> str:
    when = f" (until {fact.valid_to:%Y-%m-%d})" if fact.valid_to is not None else ""
    return f"{fact.id}  [{fact.kind}] {fact.text}  {fact.status}{when}"


def _echo(found: list[Fact], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([f.model_dump(mode="json") for f in found], ensure_ascii=False))
        return
    for fact in found:
        click.echo(_line(fact))


@click.group()
def facts() -> None:
    """A user's facts: allergies, medicines, conditions, names, ..."""


@facts.command("list")
@click.option("--user", required=True, help="Whose facts.")
@click.option("--history", is_flag=True, help="Also the facts a change or correction closed.")
@click.option("--kind", "kinds", multiple=True, help="Only this kind (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON.")
@click.option("--database-url", help=DB_HELP)
@fail_cleanly
def list_(
    user: str, history: bool, kinds: tuple[str, ...], as_json: bool, database_url: str | None
) -> None:
    """List a user's facts, oldest first."""

    async def go() -> list[Fact]:
        async with open_service_at(database_url) as service:
            return await service.list_facts(
                user_id=user, include_history=history, kinds=list(kinds) or None
            )

    found = run(go())
    _echo(found, as_json)
    if not found and not as_json:
        click.echo("no facts", err=True)


@facts.command()
@click.option("--user", required=True, help="Whose fact.")
@click.option("--database-url", help=DB_HELP)
@click.argument("fact_id")
@fail_cleanly
def confirm(user: str, database_url: str | None, fact_id: str) -> None:
    """Mark a current fact as confirmed."""

    async def go() -> Fact:
        async with open_service_at(database_url) as service:
            return await service.confirm_fact(fact_id, user_id=user)

    click.echo(_line(run(go())))


@facts.command()
@click.option("--user", required=True, help="Whose fact.")
@click.option("--attr", "attrs", multiple=True, help="An attribute as name=value (repeatable).")
@click.option("--database-url", help=DB_HELP)
@click.argument("fact_id")
@click.argument("value")
@fail_cleanly
def correct(
    user: str, attrs: tuple[str, ...], database_url: str | None, fact_id: str, value: str
) -> None:
    """Correct a current fact: the old value is kept as history."""
    attributes: dict[str, str] = {}
    for item in attrs:
        name, sep, given = item.partition("=")
        if not sep or not name.strip():
            raise click.UsageError(f"--attr takes name=value (e.g. dose='20 mg'), got {item!r}")
        attributes[name.strip()] = given

    async def go() -> Fact:
        async with open_service_at(database_url) as service:
            return await service.correct_fact(
                fact_id, value, user_id=user, attributes=attributes or None
            )

    click.echo(_line(run(go())))


@facts.command()
@click.option("--user", required=True, help="Whose fact.")
@click.option("--database-url", help=DB_HELP)
@click.argument("fact_id")
@fail_cleanly
def delete(user: str, database_url: str | None, fact_id: str) -> None:
    """Delete one fact (current or past)."""

    async def go() -> bool:
        async with open_service_at(database_url) as service:
            return await service.delete_fact(fact_id, user_id=user)

    if not run(go()):
        raise click.ClickException(f"no fact {fact_id!r} for user {user!r}")
    click.echo(f"deleted {fact_id}")
