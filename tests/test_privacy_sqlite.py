"""SQLite specifics of the privacy layers: migration v1 -> v2, append-only audit table."""

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from unimem.ids import new_id
from unimem.models import AuditRecord
from unimem.stores import SQLiteStore
from unimem.stores.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION


def _v1_file(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE unimem_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    version, sql = MIGRATIONS[0]
    assert version == 1 and isinstance(sql, str)
    db.executescript(sql)
    db.execute("INSERT INTO unimem_migrations (version) VALUES (1)")
    db.execute(
        "INSERT INTO settings (user_id, data) VALUES ('u1', ?)",
        ('{"enabled": true, "retention_days": 3}',),
    )
    db.commit()
    db.close()


async def test_v2_migration_backfills_retention_days_from_v1_settings(tmp_path: Path):
    _v1_file(tmp_path / "v1.db")
    store = SQLiteStore(tmp_path / "v1.db")
    await store.setup()
    try:
        assert store.schema_version() == SCHEMA_VERSION
        row = store._conn().execute("SELECT retention_days FROM settings").fetchone()
        assert row == (3,)
        settings = await store.get_settings("u1")
        assert settings is not None and settings.retention_days == 3
    finally:
        await store.aclose()


async def test_audit_rows_cannot_be_changed_or_deleted(tmp_path: Path):
    store = SQLiteStore(tmp_path / "a.db")
    await store.setup()
    try:
        record = AuditRecord(
            id=new_id(), timestamp=datetime.now(UTC), actor="u1", action="export", user_id="u1"
        )
        await store.append_audit(record)
        db = store._conn()
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("DELETE FROM audit")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE audit SET user_id = 'x'")
        assert [r.id for r in await store.list_audit("u1", limit=5)] == [record.id]
    finally:
        await store.aclose()


SECRET = "zebra-violet-4471 chest pain"


async def test_delete_all_leaves_no_row_and_no_byte_of_the_user_in_the_files(tmp_path: Path):
    from unimem import MemoryEntry, UnifiedMemoryService

    db = tmp_path / "erase.db"
    async with UnifiedMemoryService(SQLiteStore(db)) as svc:
        await svc.update_settings({"anonymize_phi": False}, user_id="u1")
        for i in range(30):  # enough to fill several pages
            entry = MemoryEntry(role="user", content=f"{SECRET} {i}", retrieved_passages=[SECRET])
            await svc.add_entry(f"s{i % 3}", entry, user_id="u1")
        await svc.add_fact(SECRET, "note", user_id="u1")
        for i in range(10):  # an agent's namespaced items
            await svc.put_item(["memories"], f"k{i}", {"text": f"{SECRET} {i}"}, user_id="u1")
        await svc.add_entry("other", MemoryEntry(role="user", content="kept"), user_id="u2")
        receipt = await svc.delete_user_memory("all", user_id="u1")
        assert receipt.counts["entries"] == 30 and receipt.counts["facts"] == 1
        assert receipt.counts["items"] == 10

        raw = sqlite3.connect(db)
        for table in ("entries", "events", "sessions", "summaries", "facts", "items"):
            [(n,)] = raw.execute(f"SELECT COUNT(*) FROM {table} WHERE user_id = 'u1'").fetchall()
            assert n == 0, table
        [(n,)] = raw.execute("SELECT COUNT(*) FROM entries WHERE user_id = 'u2'").fetchall()
        assert n == 1
        raw.close()
        assert _files_holding(tmp_path, b"zebra-violet") == []
        # nor the search terms the keyword index held ("zebra", "violet", "4471")
        assert _files_holding(tmp_path, b"zebra") == []
        assert _files_holding(tmp_path, b"violet") == []


def _files_holding(folder: Path, needle: bytes) -> list[str]:
    """Names of the database files (db, WAL, shm) whose bytes contain ``needle``."""
    files = [p for p in folder.iterdir() if p.name.startswith("erase.db")]
    return [p.name for p in files if needle in p.read_bytes()]
