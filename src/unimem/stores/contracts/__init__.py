"""The storage contracts: small protocols by concern, and their union.

A backend is a :class:`DurableStore`: the authority for a session's order
(``seq``), its state (current mode and language, owner) and everything kept
long-term. The contract is the union of six protocols, one per concern
(:class:`TimelineStore`, :class:`SessionStore`, :class:`UserDataStore`,
:class:`PrivacyStore`, :class:`VaultStore`, :class:`StoreLifecycle`), so a consumer can ask for
only what it uses. What only some stores can do is a named capability
(:class:`SessionTtlStore`, :class:`EventStateStore`, :class:`SweepReportStore`,
:class:`ItemStore`),
checked with ``isinstance``. The rules every backend applies live in
:mod:`unimem.stores.timeline`.

One module a concern: :mod:`.timeline`, :mod:`.sessions`, :mod:`.user_data`,
:mod:`.privacy` (with the vault), :mod:`.durable` (the union and the life
cycle), :mod:`.capabilities`; the values they pass in :mod:`.values` and
:mod:`.guards`. Every name is importable from here.
"""

from __future__ import annotations

from .capabilities import EventStateStore, ItemStore, SessionTtlStore, SweepReportStore
from .durable import DurableStore, StoreLifecycle
from .guards import FactsChanged, PhiGuard, SettingsChanged, SettingsGuard, TokensChanged
from .privacy import PrivacyStore, VaultStore
from .sessions import SessionStore
from .timeline import TimelineStore
from .user_data import UserDataStore
from .values import RECENT_SCAN, AppendResult, ContextSnapshot, DeleteScope, VaultValue

__all__ = [
    "RECENT_SCAN",
    "AppendResult",
    "ContextSnapshot",
    "DeleteScope",
    "DurableStore",
    "EventStateStore",
    "FactsChanged",
    "ItemStore",
    "PhiGuard",
    "PrivacyStore",
    "SessionStore",
    "SessionTtlStore",
    "SettingsChanged",
    "SettingsGuard",
    "StoreLifecycle",
    "SweepReportStore",
    "TimelineStore",
    "TokensChanged",
    "UserDataStore",
    "VaultStore",
    "VaultValue",
]
