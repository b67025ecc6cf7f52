"""SQLite-specific behaviour: durability across reopen, migrations, several processes."""

import asyncio
import sqlite3
import sys
import textwrap
from pathlib import Path

import pytest

from unimem import MemoryEntry, SchemaError, UnifiedMemoryService
from unimem.stores import SQLiteStore
from unimem.stores.sqlite.migrations import SCHEMA_VERSION


async def test_entries_survive_reopening_the_file(tmp_path: Path):
    url = f"sqlite:///{tmp_path}/u.db"
    async with UnifiedMemoryService.from_url(url) as memory:
        await memory.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="kept"))
        await memory.update_settings({"retention_days": 3}, user_id="local")
    async with UnifiedMemoryService.from_url(url) as memory:
        [entry] = await memory.get_history("s1")
        assert entry.content == "kept"
        assert (await memory.get_settings()).retention_days == 3
        nxt = await memory.add_entry(session_id="s1", entry=MemoryEntry(role="user", content="n"))
        assert nxt.seq == 2


async def test_migrations_are_recorded_once(tmp_path: Path):
    store = SQLiteStore(tmp_path / "m.db")
    await store.setup()
    assert store.schema_version() == SCHEMA_VERSION
    assert store.migrate() == []
    await store.aclose()
    rows = (
        sqlite3.connect(tmp_path / "m.db")
        .execute("SELECT version FROM unimem_migrations")
        .fetchall()
    )
    assert rows == [(v,) for v in range(1, SCHEMA_VERSION + 1)]


async def test_unmigrated_file_is_refused_without_migrate(tmp_path: Path):
    store = SQLiteStore(tmp_path / "empty.db", migrate=False)
    with pytest.raises(SchemaError, match="unimem migrate"):
        await store.setup()


async def test_newer_schema_is_refused(tmp_path: Path):
    store = SQLiteStore(tmp_path / "new.db")
    await store.setup()
    await store.aclose()
    db = sqlite3.connect(tmp_path / "new.db")
    db.execute("INSERT INTO unimem_migrations (version) VALUES (999)")
    db.commit()
    db.close()
    with pytest.raises(SchemaError, match="newer"):
        await SQLiteStore(tmp_path / "new.db").setup()


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from unimem import MemoryEntry, UnifiedMemoryService

    async def main(url, tag):
        async with UnifiedMemoryService.from_url(url) as memory:
            for i in range(40):
                await memory.add_entry(
                    session_id="shared", entry=MemoryEntry(role="user", content=f"{tag}-{i}")
                )

    asyncio.run(main(sys.argv[1], sys.argv[2]))
    """
)


async def test_several_processes_share_one_session_gap_free(tmp_path: Path):
    url = f"sqlite:///{tmp_path}/shared.db"
    async with UnifiedMemoryService.from_url(url):
        pass  # create the schema once, before the writers race
    procs = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", WRITER, url, f"p{n}")
        for n in range(3)
    ]
    codes = [await p.wait() for p in procs]
    assert codes == [0, 0, 0]
    async with UnifiedMemoryService.from_url(url) as memory:
        history = await memory.get_history("shared", max_messages=1000)
    assert [e.seq for e in history] == list(range(1, 121))
    assert len({e.content for e in history}) == 120


async def test_settings_stored_in_another_spelling_still_guard_writes(tmp_path: Path):
    """Settings JSON written by another version (other key order, a field it
    lacked): the first write's guard fails once, then holds the stored text."""
    path = tmp_path / "g.db"
    db = sqlite3.connect(path)
    async with UnifiedMemoryService.from_url(f"sqlite:///{path}") as memory:
        db.execute(
            "INSERT INTO settings (user_id, data, retention_days) VALUES (?, ?, ?)",
            ("local", '{"retention_days": 5, "anonymize_phi": false}', 5),
        )
        db.commit()
        stored = await memory.add_entry("s1", MemoryEntry(role="user", content="617 555 0142"))
        assert stored.content == "617 555 0142"  # the stored settings applied: no redaction
        again = await memory.add_entry("s1", MemoryEntry(role="user", content="second"))
        assert again.seq == 2
    db.close()
