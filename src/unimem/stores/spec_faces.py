"""The spec's store classes under the module name they were first published at.

``RedisMemoryStore`` and ``PostgresMemoryStore`` live in
:mod:`unimem.stores.spec_stores`; this module keeps ``from
unimem.stores.spec_faces import ...`` working.
"""

from __future__ import annotations

from .spec_stores import PostgresMemoryStore, RedisMemoryStore

__all__ = ["PostgresMemoryStore", "RedisMemoryStore"]
