"""Sealing the content fields of stored records with a keyring (AES-GCM), and
opening them again; pure: no store, no I/O.

Each value is bound to its record and field (the associated data names user,
session, record and field), so a sealed value moved elsewhere does not open.
Sealed: an entry's ``content``, ``retrieved_passages``, ``sources`` and
``metadata``; a fact's ``text``, ``key``, ``value`` and attribute values; a
summary's ``text``; a namespaced item's ``value``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from ..models import Fact, MemoryEntry, StoredItem, Summary
from .crypto import PREFIX, Keyring

__all__ = ["ENC", "ENTRY_FIELDS", "Sealer"]

#: The key under which a sealed JSON value (``sources``, ``metadata``, an item) is kept.
ENC = "_enc"
#: The fields of an entry that are sealed.
ENTRY_FIELDS = ("content", "retrieved_passages", "sources", "metadata")

_FACT_FIELDS = ("id", "user_id", "text", "key", "value")


def _aad(session_id: str, entry_id: str, name: str) -> str:
    return f"entry\x1f{session_id}\x1f{entry_id}\x1f{name}"


def _fact_aad(fact_id: str, user_id: str) -> str:
    return f"fact\x1f{user_id}\x1f{fact_id}"


def summary_aad(session_id: str) -> str:
    """The associated data of a session's summary text."""
    return f"summary\x1f{session_id}"


def _item_aad(user_id: str, namespace: Sequence[str], key: str) -> str:
    return f"item\x1f{user_id}\x1f{'.'.join(namespace)}\x1f{key}"


class Sealer:
    """Seals and opens records' content fields with ``keyring``."""

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring

    # ------------------------------------------------------------------ values

    def seal(self, value: str, aad: str) -> str:
        """``value`` encrypted under ``aad`` (an empty value stays empty)."""
        return self.keyring.encrypt(value, aad) if value else value

    def open(self, value: str, aad: str) -> str:
        """``value`` decrypted under ``aad`` (an empty value stays empty)."""
        return self.keyring.decrypt(value, aad) if value else value

    # ------------------------------------------------------------------ entries

    def seal_fields(self, sid: str, eid: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Those of ``fields`` (an entry's, or changes to one) that are sealed, sealed."""
        out = dict(fields)
        if "content" in out:
            out["content"] = self.seal(out["content"], _aad(sid, eid, "content"))
        if "retrieved_passages" in out:
            aad = _aad(sid, eid, "passage")
            out["retrieved_passages"] = [self.seal(p, aad) for p in out["retrieved_passages"]]
        for name in ("sources", "metadata"):
            if out.get(name):
                blob = orjson.dumps(out[name]).decode()
                token = self.keyring.encrypt(blob, _aad(sid, eid, name))
                out[name] = [{ENC: token}] if name == "sources" else {ENC: token}
        return out

    def open_fields(self, sid: str, eid: str, fields: dict[str, Any]) -> dict[str, Any]:
        """An entry's fields (a dict) with the sealed ones opened."""
        out = dict(fields)
        out["content"] = self.open(out.get("content", ""), _aad(sid, eid, "content"))
        aad = _aad(sid, eid, "passage")
        out["retrieved_passages"] = [self.open(p, aad) for p in out.get("retrieved_passages", [])]
        sources = out.get("sources")
        if isinstance(sources, list) and len(sources) == 1 and ENC in sources[0]:
            out["sources"] = orjson.loads(self.open(sources[0][ENC], _aad(sid, eid, "sources")))
        metadata = out.get("metadata")
        if isinstance(metadata, dict) and set(metadata) == {ENC}:
            out["metadata"] = orjson.loads(self.open(metadata[ENC], _aad(sid, eid, "metadata")))
        return out

    def seal_entry(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` with its content fields sealed."""
        fields = {k: getattr(entry, k) for k in ENTRY_FIELDS}
        return entry.model_copy(update=self.seal_fields(entry.session_id, entry.id, fields))

    def open_entry(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` with its content fields opened."""
        fields = {k: getattr(entry, k) for k in ENTRY_FIELDS}
        return entry.model_copy(update=self.open_fields(entry.session_id, entry.id, fields))

    def open_entries(self, entries: list[MemoryEntry]) -> list[MemoryEntry]:
        """Every entry opened."""
        return [self.open_entry(e) for e in entries]

    # ------------------------------------------------------------------ facts and summaries

    def fact_fields(self, data: dict[str, Any], crypt: Callable[[str, str], str]) -> dict[str, Any]:
        """A fact's fields (as a dict) with text, key, value and attribute values
        passed through ``crypt(value, aad)``; the text keeps its first binding."""
        aad = _fact_aad(data["id"], data["user_id"])
        out = {**data, "text": crypt(data["text"], aad)}
        for name in ("key", "value"):
            if data.get(name):
                out[name] = crypt(data[name], f"{aad}\x1f{name}")
        attributes = data.get("attributes") or {}
        out["attributes"] = {k: crypt(v, f"{aad}\x1fattr\x1f{k}") for k, v in attributes.items()}
        return out

    def seal_fact(self, fact: Fact) -> Fact:
        """``fact`` with its text, key, value and attribute values sealed."""
        fields = {n: getattr(fact, n) for n in _FACT_FIELDS}
        fields["attributes"] = fact.attributes
        return fact.model_copy(update=self.fact_fields(fields, self.seal))

    def open_fact(self, fact: Fact) -> Fact:
        """``fact`` with its sealed fields opened."""
        fields = {n: getattr(fact, n) for n in _FACT_FIELDS}
        fields["attributes"] = fact.attributes
        return fact.model_copy(update=self.fact_fields(fields, self.open))

    def seal_summary(self, summary: Summary) -> Summary:
        """``summary`` with its text sealed."""
        text = self.seal(summary.text, summary_aad(summary.session_id))
        return summary.model_copy(update={"text": text})

    def open_summary(self, summary: Summary, session_id: str) -> Summary:
        """``summary`` (of ``session_id``) with its text opened."""
        text = self.open(summary.text, summary_aad(session_id))
        return summary.model_copy(update={"text": text})

    # ------------------------------------------------------------------ items

    def seal_item(self, user_id: str, item: StoredItem) -> StoredItem:
        """``item`` with its value sealed (kept as ``{ENC: token}``)."""
        blob = orjson.dumps(item.value).decode()
        token = self.keyring.encrypt(blob, _item_aad(user_id, item.namespace, item.key))
        return item.model_copy(update={"value": {ENC: token}})

    def open_item(self, user_id: str, item: StoredItem) -> StoredItem:
        """``item`` with its value opened (one written before encryption was on
        comes back as it is)."""
        value = item.value
        if set(value) != {ENC} or not isinstance(value[ENC], str):
            return item  # written before encryption was turned on
        aad = _item_aad(user_id, item.namespace, item.key)
        return item.model_copy(
            update={"value": orjson.loads(self.keyring.decrypt(value[ENC], aad))}
        )

    # ------------------------------------------------------------------ rotation

    def stale(self, value: Any) -> bool:
        """Whether ``value`` (or any string in it) is sealed under a key that is
        not the current one."""
        if isinstance(value, str):
            return value.startswith(PREFIX) and self.keyring.needs_rotation(value)
        if isinstance(value, list):
            return any(self.stale(v) for v in value)
        if isinstance(value, dict):
            return any(self.stale(v) for v in value.values())
        return False

    @staticmethod
    def plain(fields: dict[str, Any]) -> bool:
        """Whether an entry still holds content written before encryption was on."""
        content = fields.get("content") or ""
        passages = fields.get("retrieved_passages") or []
        sources = fields.get("sources") or []
        metadata = fields.get("metadata") or {}
        return (
            bool(content and not content.startswith(PREFIX))
            or any(not p.startswith(PREFIX) for p in passages if p)
            or bool(sources and not (len(sources) == 1 and ENC in sources[0]))
            or bool(metadata and set(metadata) != {ENC})
        )
