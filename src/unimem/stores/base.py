"""The storage contract and the timeline rules, under their former module name.

The contract lives in :mod:`unimem.stores.contracts`, the rules in
:mod:`unimem.stores.timeline`; this module re-exports both.
"""

from __future__ import annotations

from .contracts import (
    RECENT_SCAN,
    AppendResult,
    ContextSnapshot,
    DeleteScope,
    DurableStore,
    PhiGuard,
    SettingsChanged,
    SettingsGuard,
    TokensChanged,
)
from .timeline import (
    UPDATABLE_ENTRY_FIELDS,
    apply_entry_changes,
    check_write_guards,
    number_events,
    plan_close,
    plan_entry,
    plan_event,
)

__all__ = [
    "RECENT_SCAN",
    "UPDATABLE_ENTRY_FIELDS",
    "AppendResult",
    "ContextSnapshot",
    "DeleteScope",
    "DurableStore",
    "PhiGuard",
    "SettingsChanged",
    "SettingsGuard",
    "TokensChanged",
    "apply_entry_changes",
    "check_write_guards",
    "number_events",
    "plan_close",
    "plan_entry",
    "plan_event",
]
