"""The PHI vault's pure part: sealing token values and putting them back in text.

With ``anonymize_phi`` on, stored text holds tokens (``[PERSON_1]``). The vault
keeps, per user, each token's original value, sealed with the keyring
(AES-GCM, :mod:`unimem.privacy.crypto`) under associated data that binds the
user, the session that numbers the token and the token: a sealed value copied
to another user, session or token does not open. Stores
see only :class:`~unimem.stores.contracts.VaultValue` rows; this module does
no I/O.

:func:`reveal_text` puts the values back in a text (re-identification) for
the owner and for an LLM the deployment trusts; a token without a value (its
record deleted, or written before the vault was on) stays a token.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ..errors import StoreError
from ..models import Fact, MemoryEntry
from ..stores.contracts import VaultValue
from .crypto import Keyring

__all__ = [
    "TOKEN_RE",
    "StreamReveal",
    "VaultValues",
    "open_values",
    "reseal_stale",
    "reveal_entry",
    "reveal_fact",
    "reveal_text",
    "reveal_value",
    "seal_values",
    "tokens_in",
]

#: A token as the pipeline writes it (``[PERSON_1]``, ``[DATE_12]``).
TOKEN_RE = re.compile(r"\[[A-Z][A-Z0-9_]*?_\d+\]")
#: Token -> value, for one session.
VaultValues = dict[str, str]


def _aad(user_id: str, session_id: str, token: str) -> str:
    return f"unimem vault\x1f{user_id}\x1f{session_id}\x1f{token}"


def seal_values(
    keyring: Keyring,
    user_id: str,
    session_id: str,
    values: Mapping[str, str],
    created_at: datetime,
) -> list[VaultValue]:
    """``values`` (token -> original value) sealed for the vault."""
    return [
        VaultValue(
            user_id=user_id,
            session_id=session_id,
            token=token,
            sealed=keyring.encrypt(value, _aad(user_id, session_id, token)),
            created_at=created_at,
        )
        for token, value in sorted(values.items())
    ]


def open_values(keyring: Keyring, rows: Iterable[VaultValue]) -> dict[str, VaultValues]:
    """Session id -> token -> value of the rows that open with the keyring; a row
    that does not (a key no longer configured, or tampered) is left out, so its
    token stays a token."""
    opened: dict[str, VaultValues] = {}
    for row in rows:
        try:
            value = keyring.decrypt(row.sealed, _aad(row.user_id, row.session_id, row.token))
        except StoreError:
            continue
        opened.setdefault(row.session_id, {})[row.token] = value
    return opened


def reseal_stale(keyring: Keyring, rows: Iterable[VaultValue]) -> list[VaultValue]:
    """The rows not sealed with the current key, sealed again with it (same user,
    session and token); a row that does not open (its key no longer configured,
    or tampered) is left as it is."""
    out: list[VaultValue] = []
    for row in rows:
        if not keyring.needs_rotation(row.sealed):
            continue
        aad = _aad(row.user_id, row.session_id, row.token)
        try:
            value = keyring.decrypt(row.sealed, aad)
        except StoreError:
            continue
        out.append(dataclasses.replace(row, sealed=keyring.encrypt(value, aad)))
    return out


def tokens_in(text: str) -> set[str]:
    """The tokens a text holds."""
    return set(TOKEN_RE.findall(text)) if "[" in text else set()


def reveal_text(text: str, values: Mapping[str, str]) -> tuple[str, int]:
    """``text`` with every token that has a value replaced by it, and how many
    were replaced."""
    if "[" not in text or not values:
        return text, 0
    count = 0

    def put_back(match: re.Match[str]) -> str:
        nonlocal count
        value = values.get(match.group(0))
        if value is None:
            return match.group(0)
        count += 1
        return value

    return TOKEN_RE.sub(put_back, text), count


def reveal_value(value: Any, values: Mapping[str, str]) -> tuple[Any, int]:
    """:func:`reveal_text` on every string of ``value`` (strings, lists and dicts
    of them; dict keys stay), and how many tokens were replaced."""
    if isinstance(value, str):
        return reveal_text(value, values)
    if isinstance(value, Mapping):
        total = 0
        out: dict[Any, Any] = {}
        for key, item in value.items():
            out[key], count = reveal_value(item, values)
            total += count
        return out, total
    if isinstance(value, list):
        total = 0
        items: list[Any] = []
        for item in value:
            revealed, count = reveal_value(item, values)
            items.append(revealed)
            total += count
        return items, total
    return value, 0


def reveal_entry(entry: MemoryEntry, values: Mapping[str, str]) -> tuple[MemoryEntry, int]:
    """``entry`` with its content, passages, sources and metadata re-identified,
    and how many tokens were replaced."""
    if not values:
        return entry, 0
    fields = {
        "content": entry.content,
        "retrieved_passages": entry.retrieved_passages,
        "sources": entry.sources,
        "metadata": entry.metadata,
    }
    revealed, count = reveal_value(fields, values)
    return (entry.model_copy(update=revealed), count) if count else (entry, 0)


def reveal_fact(fact: Fact, values: Mapping[str, str]) -> tuple[Fact, int]:
    """``fact`` with its text, value and attribute values re-identified, and how
    many tokens were replaced."""
    if not values:
        return fact, 0
    fields = {"text": fact.text, "value": fact.value, "attributes": fact.attributes}
    revealed, count = reveal_value(fields, values)
    return (fact.model_copy(update=revealed), count) if count else (fact, 0)


#: Longest token a stream holds back while waiting for its ``]``.
_LONGEST_TOKEN = 40


class StreamReveal:
    """Re-identifies text that arrives in pieces (an LLM's streamed reply): a
    piece ending inside a token (``"[PERS"``) is held back until the token is
    complete, so every token is replaced whole.

    Args:
        values: token -> value of the session.
    """

    def __init__(self, values: Mapping[str, str]) -> None:
        self._values = values
        self._held = ""
        #: tokens replaced so far
        self.count = 0

    def feed(self, piece: str) -> str:
        """The text of ``piece`` that can be shown now, re-identified."""
        text = self._held + piece
        cut = text.rfind("[")
        if cut != -1 and "]" not in text[cut:] and len(text) - cut < _LONGEST_TOKEN:
            text, self._held = text[:cut], text[cut:]
        else:
            self._held = ""
        shown, count = reveal_text(text, self._values)
        self.count += count
        return shown

    def flush(self) -> str:
        """What is still held back (the stream ended)."""
        text, self._held = self._held, ""
        shown, count = reveal_text(text, self._values)
        self.count += count
        return shown

    def entry(self, entry: MemoryEntry) -> MemoryEntry:
        """``entry`` (of the same session) re-identified."""
        shown, count = reveal_entry(entry, self._values)
        self.count += count
        return shown
