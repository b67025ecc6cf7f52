"""Loading, at a process's start, what unimem otherwise loads on first use.

The language models (about 5 s, holding the interpreter), the token
vocabularies of the models a context is counted for, and the PHI lexicon each
load the first time a turn needs them. ``unimem serve`` calls
:func:`load_models` at start-up; the framework adapters call it (as
``unimem.integrations.prewarm``) where a framework prepares a process before
its first conversation, so that no user turn pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..language import preload
from ..privacy.phi_lexicon import get_lexicon
from .tokens import warm_up

__all__ = ["DEFAULT_MODELS", "load_models"]

#: The models whose token vocabularies load by default.
DEFAULT_MODELS = ("gpt-4o", "gpt-4")


def load_models(models: Iterable[str] = DEFAULT_MODELS) -> None:
    """Load now the language models, the token vocabularies of ``models`` and
    the PHI lexicon (seconds, holding the interpreter; once per process)."""
    preload()
    warm_up(models)
    get_lexicon()
