"""Random sequences of library operations against a simple model: adding
(including retries of an id already stored), reading, closing and deleting
sessions of two users. After every step the stored timelines equal the
model's: nothing lost, duplicated, reordered or visible to the wrong user."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.errors import NotFoundError, SessionClosedError
from unimem.ids import new_id
from unimem.stores import InMemoryStore, SQLiteStore

SESSIONS = st.sampled_from(["s0", "s1", "s2"])
USERS = st.sampled_from(["alice", "bob"])
#: phrases without anything PHI-like, so stored content equals sent content
TEXTS = st.sampled_from(["ok", "thank you", "what about the dose", "yes please", "gracias"])


@dataclass
class ModelSession:
    owner: str
    closed: bool = False
    entries: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, role, mode, text


def make_machine(backend: str) -> type[RuleBasedStateMachine]:
    class MemoryModel(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.loop = asyncio.new_event_loop()
            self.tmp = tempfile.TemporaryDirectory()
            store = (
                InMemoryStore()
                if backend == "memory"
                else SQLiteStore(Path(self.tmp.name) / "m.db")
            )
            self.memory = UnifiedMemoryService(store)
            self.run(self.memory.setup())
            self.model: dict[str, ModelSession] = {}

        def run(self, coro):  # type: ignore[no-untyped-def]
            return self.loop.run_until_complete(coro)

        def teardown(self) -> None:
            self.run(self.memory.aclose())
            self.loop.close()
            self.tmp.cleanup()

        @rule(
            sid=SESSIONS,
            user=USERS,
            role=st.sampled_from(["user", "assistant"]),
            mode=st.sampled_from(["voice", "text"]),
            text=TEXTS,
            retry=st.booleans(),
        )
        def add(self, sid: str, user: str, role: str, mode: str, text: str, retry: bool) -> None:
            known = self.model.get(sid)
            entry_id = known.entries[-1][0] if retry and known and known.entries else new_id()
            entry = MemoryEntry(id=entry_id, role=role, mode=mode, content=text, language="en")
            if known is not None and known.owner != user:
                with pytest.raises(NotFoundError):
                    self.run(self.memory.add_entry(sid, entry, user_id=user))
                return
            if (
                known is not None
                and known.closed
                and not any(e[0] == entry_id for e in known.entries)
            ):
                with pytest.raises(SessionClosedError):
                    self.run(self.memory.add_entry(sid, entry, user_id=user))
                return
            stored = self.run(self.memory.add_entry(sid, entry, user_id=user))
            session = self.model.setdefault(sid, ModelSession(user))
            if any(e[0] == entry_id for e in session.entries):  # idempotent retry
                assert stored.seq == [e[0] for e in session.entries].index(entry_id) + 1
                return
            session.entries.append((entry_id, role, mode, text))
            assert stored.seq == len(session.entries)

        @precondition(lambda self: bool(self.model))
        @rule(sid=SESSIONS)
        def close(self, sid: str) -> None:
            session = self.model.get(sid)
            if session is None:
                return
            self.run(self.memory.close_session(sid, user_id=session.owner))
            session.closed = True

        @rule(sid=SESSIONS, user=USERS)
        def delete_session(self, sid: str, user: str) -> None:
            session = self.model.get(sid)
            if session is not None and session.owner != user:
                # another user's session: deleted from as one never used (nothing)
                receipt = self.run(
                    self.memory.delete_user_memory("session", user_id=user, session_id=sid)
                )
                assert receipt.total == 0
                return
            try:
                self.run(self.memory.delete_user_memory("session", user_id=user, session_id=sid))
            except NotFoundError:
                assert session is None
            if session is not None:
                del self.model[sid]

        @rule(user=USERS)
        def delete_all(self, user: str) -> None:
            self.run(self.memory.delete_user_memory("all", user_id=user))
            for sid in [s for s, m in self.model.items() if m.owner == user]:
                del self.model[sid]

        def sees_nothing(self, sid: str, user: str) -> bool:
            """A missing session, or another user's, reads as empty or not found."""
            try:
                return self.run(self.memory.get_history(sid, user_id=user)) == []
            except NotFoundError:
                return True

        @invariant()
        def timelines_match(self) -> None:
            for sid in ("s0", "s1", "s2"):
                session = self.model.get(sid)
                for user in ("alice", "bob"):
                    if session is None or session.owner != user:
                        assert self.sees_nothing(sid, user)
                        continue
                    got = self.run(self.memory.get_history(sid, max_messages=1000, user_id=user))
                    assert [(e.id, e.role.value, e.mode.value, e.content) for e in got] == [
                        *session.entries
                    ]
                    assert [e.seq for e in got] == list(range(1, len(got) + 1))
                    ctx = self.run(self.memory.get_context(sid, max_messages=5, user_id=user))
                    assert [m.id for m in ctx.messages] == [e[0] for e in session.entries[-5:]]

    return MemoryModel


_SETTINGS = settings(
    max_examples=25,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestModelMemory = make_machine("memory").TestCase
TestModelMemory.settings = _SETTINGS
TestModelSqlite = make_machine("sqlite").TestCase
TestModelSqlite.settings = _SETTINGS
