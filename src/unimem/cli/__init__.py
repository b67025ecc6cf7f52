"""The ``unimem`` command: serve, migrate, sweep, export, search, delete,
token, mcp, facts, items.

Every command reads the ``UNIMEM_*`` settings once (:class:`unimem.settings.Settings`),
its options override them, and it opens the store with
:func:`unimem.assembly.build_service`. Errors print one line that says what
to do and exit non-zero; they never print message content.

One module per group of commands: :mod:`.serving`, :mod:`.maintenance`
(migrate, sweep), :mod:`.user_memory` (export, search, delete),
:mod:`.clients` (token, mcp), :mod:`.fact_commands` and :mod:`.item_commands`; what they
share is in :mod:`.support`.
"""

from __future__ import annotations

import click

from .. import __version__
from .clients import mcp, token
from .fact_commands import facts
from .item_commands import items
from .maintenance import migrate, sweep
from .serving import serve
from .user_memory import delete, export, search

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unimem")
def main() -> None:
    """unimem: unified conversation memory for voice and text AI assistants.

    Every command opens the store UNIMEM_DATABASE_URL (or --database-url) names;
    by default ./data/unimem.db, relative to the working directory
    (UNIMEM_DATA_DIR moves the data directory).
    """


for _command in (serve, migrate, sweep, export, search, delete, token, mcp, facts, items):
    main.add_command(_command)
