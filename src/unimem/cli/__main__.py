"""``python -m unimem.cli``: the ``unimem`` command."""

from . import main

main()
