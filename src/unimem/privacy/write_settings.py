"""The owners' settings as the write path uses them: kept in memory between
writes, and never trusted beyond what the store confirms.

Every ``add_entry`` needs the owner's settings before anything is stored
(memory on or off, PHI redaction, what to keep). Reading them costs a round
trip per write on a remote store. Instead the service keeps, per user, the
settings its last write used together with the stored JSON they came from (a
:class:`~unimem.stores.contracts.SettingsGuard`), and hands the guard to the store
with the write. The store compares it with the stored settings inside the
write's own transaction: if another process (or a request of this one)
changed them meanwhile, nothing is stored and the store answers with the
current settings (:class:`~unimem.stores.contracts.SettingsChanged`), under which
the service prepares the entry again. So no turn is ever stored under settings
that had been replaced before its write began, and the read costs nothing in
the common case.

A write that the kept settings would drop (memory switched off) is confirmed
with a fresh read first: settings switched back on elsewhere must not lose a
turn silently.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from ..models import MemorySettings
from ..stores.contracts import SettingsGuard

__all__ = ["KnownSettings", "WriteSettings"]

#: Users whose settings one process keeps (least recently written dropped first).
KEEP_USERS = 10_000


class _SettingsReader(Protocol):
    async def get_settings(self, user_id: str) -> MemorySettings | None: ...


class KnownSettings:
    """A user's settings and the guard that proves them current at write time."""

    __slots__ = ("fresh", "guard", "settings")

    def __init__(self, settings: MemorySettings, guard: SettingsGuard, *, fresh: bool) -> None:
        self.settings = settings
        self.guard = guard
        #: read from the store by this write (not kept from an earlier one)
        self.fresh = fresh


class WriteSettings:
    """Per-process memory of the settings each user's last write used."""

    def __init__(self, keep: int = KEEP_USERS) -> None:
        self._keep = keep
        self._known: OrderedDict[str, tuple[MemorySettings, SettingsGuard]] = OrderedDict()

    def peek(self, user_id: str) -> KnownSettings | None:
        """The settings kept for ``user_id``, without any I/O (``None``: none kept)."""
        found = self._known.get(user_id)
        if found is None:
            return None
        self._known.move_to_end(user_id)
        return KnownSettings(found[0], found[1], fresh=False)

    async def load(self, store: _SettingsReader, user_id: str) -> KnownSettings:
        """Read the user's settings from ``store`` and keep them."""
        stored = await store.get_settings(user_id)
        text = stored.model_dump_json() if stored is not None else None
        return self._put(user_id, stored or MemorySettings(), SettingsGuard(text))

    def changed(self, user_id: str, current: str | None) -> KnownSettings:
        """The store refused a write: keep (and return) the settings it holds now."""
        settings = MemorySettings.model_validate_json(current) if current else MemorySettings()
        return self._put(user_id, settings, SettingsGuard(current))

    def forget(self, user_id: str) -> None:
        """Drop what is kept for ``user_id`` (its settings were just written here)."""
        self._known.pop(user_id, None)

    def _put(self, user_id: str, settings: MemorySettings, guard: SettingsGuard) -> KnownSettings:
        self._known[user_id] = (settings, guard)
        self._known.move_to_end(user_id)
        while len(self._known) > self._keep:
            self._known.popitem(last=False)
        return KnownSettings(settings, guard, fresh=True)
