"""What every ``unimem`` command shares: the settings with its options in
place, the service opened as ``unimem serve`` opens it, one-line errors, and
store URLs printed without passwords."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..errors import UnimemError

if TYPE_CHECKING:
    from ..service import UnifiedMemoryService
    from ..settings import Settings

__all__ = [
    "DB_HELP",
    "cli_settings",
    "ensure_sqlite_dir",
    "fail_cleanly",
    "open_service",
    "open_service_at",
    "redacted",
    "run",
    "where",
]

T = TypeVar("T")

#: The help of every command's ``--database-url``.
DB_HELP = (
    "Store URL: sqlite:///path.db, postgresql://user@host/db or memory:// "
    "[env: UNIMEM_DATABASE_URL; default: sqlite:///<data dir>/unimem.db, the data "
    "dir being UNIMEM_DATA_DIR or ./data, relative to the working directory]"
)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine to its end."""
    return asyncio.run(coro)


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
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


def cli_settings(database_url: str | None = None, redis_url: str | None = None) -> Settings:
    """The ``UNIMEM_*`` settings with the command's options in place of theirs."""
    from ..settings import Settings

    store = {"database_url": database_url} if database_url else {}
    if redis_url:
        store["redis_url"] = redis_url
    return Settings.from_env(store=store)


def open_service(settings: Settings) -> UnifiedMemoryService:
    """The service as ``unimem serve`` opens it: the settings' store behind their
    Redis cache, with their encryption keys and limits, so encrypted content
    reads back and the Redis layers are deleted too."""
    from ..assembly import build_service

    return build_service(settings)


def open_service_at(database_url: str | None) -> UnifiedMemoryService:
    """:func:`open_service` of the ``UNIMEM_*`` settings, at ``--database-url`` when given."""
    return open_service(cli_settings(database_url))


def redacted(url: str) -> str:
    """The URL without a password, for printing."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, _, host = rest.rpartition("@")
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else f"{scheme}://{user}@{host}"


def ensure_sqlite_dir(url: str) -> None:
    """Create the directory of a SQLite file the URL names."""
    if url.startswith("sqlite:///"):
        Path(url[len("sqlite:///") :]).expanduser().parent.mkdir(parents=True, exist_ok=True)


def where(url: str) -> str:
    """The store URL for people: a password hidden, a SQLite file's absolute path."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///") :]).expanduser()
        if not path.is_absolute():
            return f"{redacted(url)} ({path.resolve()})"
    return redacted(url)
