"""Re-encrypting a user's sealed records under the current key (key rotation):
what :meth:`~unimem.privacy.encrypted_store.EncryptedStore.rotate_user` does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..stores.items import item_store_of
from .sealing import ENC, ENTRY_FIELDS
from .vault import reseal_stale

if TYPE_CHECKING:
    from .encrypted_store import EncryptedStore

__all__ = ["rotate_user"]

_PAGE = 500
_ALL = 2**31


async def rotate_user(store: EncryptedStore, user_id: str) -> int:
    """Re-encrypt every encrypted value of the user in ``store`` that is not under
    the current key, the PHI vault's sealed values among them; returns how many
    records were rewritten. Plaintext written before encryption was turned on
    is encrypted too."""
    inner = store.inner
    sealer = store.sealer
    rewritten = 0
    offset = 0
    while True:
        sessions = await inner.list_sessions(user_id, limit=_PAGE, offset=offset)
        stale = reseal_stale(
            store.keyring,
            await inner.get_vault_values(user_id, [s.session_id for s in sessions]),
        )
        rewritten += await inner.reseal_vault_values(stale)
        for state in sessions:
            sid = state.session_id
            for raw in await inner.get_entries(sid, limit=_ALL):
                fields = {k: getattr(raw, k) for k in ENTRY_FIELDS}
                if not sealer.stale(fields) and not sealer.plain(fields):
                    continue
                plain = sealer.open_fields(sid, raw.id, fields)
                await inner.update_entry(sid, raw.id, sealer.seal_fields(sid, raw.id, plain))
                rewritten += 1
            summary = await inner.get_summary(sid)
            if summary is not None and store.keyring.needs_rotation(summary.text):
                await store.put_summary(await store.get_summary(sid) or summary)
                rewritten += 1
        if len(sessions) < _PAGE:
            break
        offset += _PAGE
    for fact in await inner.list_facts(user_id):
        if store.keyring.needs_rotation(fact.text):
            await store.put_fact(sealer.open_fact(fact))
            rewritten += 1
    items = item_store_of(inner)
    if items is not None:
        for raw_item in await items.export_items(user_id):
            value = raw_item.value
            token = value.get(ENC) if set(value) == {ENC} else None
            if isinstance(token, str) and not store.keyring.needs_rotation(token):
                continue
            await store.put_item(user_id, sealer.open_item(user_id, raw_item))
            rewritten += 1
    return rewritten
