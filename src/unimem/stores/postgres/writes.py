"""Appends of the PostgreSQL store: one statement, compare-and-set on the session row.

One append is one transaction. The session row carries a ``version`` that
every state change increments; the entry, its events and the new session
state are written by one statement that only applies when the version is
still the one the plan was made from (compare-and-set). So:

* a process that wrote the session last plans from its cached state and
  commits in **one round trip** (autocommit: one statement, one transaction);
* a process whose cache is stale (another process wrote) sees the CAS miss and
  falls back to ``SELECT ... FOR UPDATE`` inside an explicit transaction,
  which waits for the other writer and plans from the committed state.

Either way ``seq`` is gap-free and ``(session_id, seq)`` is the primary key,
so two writers can never both claim a number. ``(session_id, id)`` is unique:
a retry with the same entry id returns the stored entry (``created=False``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg

from ...errors import StoreUnavailableError
from ...models import MemoryEntry, MemoryEvent, SessionInfo
from ..contracts import AppendResult, PhiGuard, SettingsGuard, VaultValue
from ..rows import entry_from_json, session_from_json
from ..timeline import check_write_guards, plan_close, plan_entry, plan_event
from .connection import Turn
from .sql import STATE, WRITE_EXISTING, WRITE_NEW
from .vault import vault_params

__all__ = ["CachedState", "PostgresWrites"]


class CachedState:
    """A session's state as this process last wrote or read it, with its row version."""

    __slots__ = ("state", "version")

    def __init__(self, state: SessionInfo, version: int) -> None:
        self.state = state
        self.version = version


class PostgresWrites:
    """Mixin of :class:`~unimem.stores.postgres.PostgresStore`: appends of entries
    and events, and closing a session."""

    if TYPE_CHECKING:  # provided by PostgresStore
        _states: OrderedDict[str, CachedState]
        _state_cache_size: int
        _locks: dict[str, list[Any]]

        def _conn(self) -> AbstractAsyncContextManager[asyncpg.Connection]: ...

    def _serial(self, session_id: str) -> Turn:
        """Appends of one session in this process run one at a time, so the
        cached state stays current and the CAS fast path nearly always hits."""
        return Turn(self._locks, session_id)

    def _remember(self, state: SessionInfo, version: int) -> None:
        self._states[state.session_id] = CachedState(state, version)
        self._states.move_to_end(state.session_id)
        while len(self._states) > self._state_cache_size:
            self._states.popitem(last=False)

    def forget(self, session_ids: Sequence[str] = (), *, everything: bool = False) -> None:
        """Drop cached session states (after deletions)."""
        if everything:
            self._states.clear()
        for sid in session_ids:
            self._states.pop(sid, None)

    async def _write(
        self,
        conn: asyncpg.Connection,
        state: SessionInfo,
        expected: int,
        entry: MemoryEntry | None,
        events: list[MemoryEvent],
        guard: SettingsGuard | None = None,
        entry_json: str | None = None,
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> bool:
        """One statement; whether it wrote (``False``: the session's version moved).

        Raises :class:`SettingsChanged` or :class:`TokensChanged` when a guard no
        longer matches (see :func:`check_write_guards`).
        """
        sql = WRITE_NEW if expected == 0 else WRITE_EXISTING
        if entry is not None and entry_json is None:
            entry_json = entry.model_dump_json()
        row = await conn.fetchrow(
            sql,
            state.session_id,
            state.user_id,
            expected + 1,
            state.last_active_at,
            state.model_dump_json(),
            expected,
            entry.seq if entry else None,
            entry.id if entry else None,
            entry.timestamp if entry else None,
            entry_json,
            [e.seq for e in events],
            [e.id for e in events],
            [e.event_type for e in events],
            [e.timestamp for e in events],
            [e.model_dump_json() for e in events],
            guard.text if guard is not None else None,
            guard is not None,
            phi_guard is not None,
            phi_guard.last_seq if phi_guard is not None else None,
            *vault_params(vault),
        )
        assert row is not None
        if row[0]:
            return True
        check_write_guards(guard, row[1], phi_guard, row[2])
        return False  # the session's version moved

    async def _write_planned(
        self,
        conn: asyncpg.Connection,
        cached: CachedState,
        state: SessionInfo,
        entry: MemoryEntry | None,
        events: list[MemoryEvent],
        guard: SettingsGuard | None = None,
        entry_json: str | None = None,
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
    ) -> bool:
        """The write planned from the cached state (compare-and-set on its version).

        ``False`` when another writer got there first (the version moved, or a
        stale cache or a retried id collided on a unique key): the caller settles
        it on the locked path. Raises what :meth:`_write` raises for guards.
        """
        try:
            written = await self._write(
                conn, state, cached.version, entry, events, guard, entry_json, phi_guard, vault
            )
        except asyncpg.UniqueViolationError:
            return False
        if written:
            self._remember(state, cached.version + 1)
        return written

    async def append_entry(
        self,
        entry: MemoryEntry,
        *,
        trigger: str | None = None,
        settings_guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
        language_detected: bool = False,
    ) -> AppendResult:
        async with self._serial(entry.session_id), self._conn() as conn:
            cached = self._states.get(entry.session_id)
            if cached is not None:
                state, stored, events = plan_entry(
                    cached.state,
                    entry,
                    trigger=trigger,
                    events_after=events_after,
                    language_detected=language_detected,
                )
                text = stored.model_dump_json()
                if await self._write_planned(
                    conn, cached, state, stored, events, settings_guard, text, phi_guard, vault
                ):
                    return AppendResult(stored, events, True, state, text)
            return await self._append_locked(
                conn,
                entry,
                trigger,
                settings_guard,
                events_after,
                phi_guard,
                vault,
                language_detected,
            )

    async def _append_locked(
        self,
        conn: asyncpg.Connection,
        entry: MemoryEntry,
        trigger: str | None,
        guard: SettingsGuard | None = None,
        events_after: Sequence[MemoryEvent] = (),
        phi_guard: PhiGuard | None = None,
        vault: Sequence[VaultValue] = (),
        language_detected: bool = False,
    ) -> AppendResult:
        for _ in range(3):
            async with conn.transaction():
                row = await conn.fetchrow(
                    STATE + " FOR UPDATE OF s", entry.session_id, entry.id, entry.user_id
                )
                state = session_from_json(row[0]) if row else None
                version = row[1] if row else 0
                if row is not None and row[2] is not None:
                    assert state is not None
                    self._remember(state, version)
                    return AppendResult(entry_from_json(row[2]), [], created=False, session=state)
                new_state, stored, events = plan_entry(
                    state,
                    entry,
                    trigger=trigger,
                    events_after=events_after,
                    language_detected=language_detected,
                )
                text = stored.model_dump_json()
                if await self._write(
                    conn, new_state, version, stored, events, guard, text, phi_guard, vault
                ):
                    self._remember(new_state, version + 1)
                    return AppendResult(stored, events, True, new_state, text)
            # a first write to a new session raced another process's: plan again
        raise StoreUnavailableError("session write kept conflicting; retry")

    async def _mutate(self, session_id: str, change: Any) -> tuple[SessionInfo, Any]:
        """Run ``change(state) -> (new_state, event | None, result)`` under the row lock."""
        async with self._serial(session_id), self._conn() as conn:
            for _ in range(3):
                async with conn.transaction():
                    row = await conn.fetchrow(STATE + " FOR UPDATE OF s", session_id, "", "")
                    state = session_from_json(row[0]) if row else None
                    version = row[1] if row else 0
                    new_state, event, result = change(state)
                    if new_state is state:
                        assert state is not None
                        return state, result
                    events = [event] if event is not None else []
                    if await self._write(conn, new_state, version, None, events):
                        self._remember(new_state, version + 1)
                        return new_state, result
        raise StoreUnavailableError("session write kept conflicting; retry")

    async def append_event(self, event: MemoryEvent) -> MemoryEvent:
        return (await self.append_event_with_state(event))[0]

    async def append_event_with_state(self, event: MemoryEvent) -> tuple[MemoryEvent, SessionInfo]:
        """:meth:`append_event`, also returning the session state it produced.

        Like an entry: one statement planned from the cached state (CAS on the
        session's version); the locked path when another process wrote since.
        """
        async with self._serial(event.session_id):
            cached = self._states.get(event.session_id)
            if cached is not None:
                new_state, stored = plan_event(cached.state, event)
                async with self._conn() as conn:
                    if await self._write_planned(conn, cached, new_state, None, [stored]):
                        return stored, new_state

        def change(state: SessionInfo | None) -> tuple[SessionInfo, MemoryEvent, MemoryEvent]:
            new_state, stored = plan_event(state, event)
            return new_state, stored, stored

        state, stored = await self._mutate(event.session_id, change)
        return stored, state

    async def close_session(self, session_id: str, *, now: datetime) -> SessionInfo:
        def change(state: SessionInfo | None) -> tuple[SessionInfo, None, None]:
            return plan_close(state, session_id, None, now), None, None

        state, _ = await self._mutate(session_id, change)
        return state
