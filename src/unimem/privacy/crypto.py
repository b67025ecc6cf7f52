"""Encryption of content fields at rest: AES-256-GCM with a keyring.

Configuration: ``UNIMEM_ENCRYPTION_KEYS`` = comma-separated ``kid:base64key``
pairs (16, 24 or 32 byte keys; 32 recommended), the first being the current
key. New values are encrypted with the current key; every listed key still
decrypts, so a key is rotated by putting a new one first, running
:meth:`unimem.privacy.encrypted_store.EncryptedStore.rotate_user` for every
user, and only then removing the old one.

A value is stored as ``enc:v1:<kid>:<base64(nonce | ciphertext | tag)>``. The
associated data binds it to where it belongs (session, entry and field), so a
ciphertext copied into another row or field does not decrypt. Values without
the prefix are plaintext written before encryption was turned on, and are
returned as they are.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
from collections.abc import Mapping

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ..errors import ConfigurationError, StoreError

__all__ = ["ENV_VAR", "PREFIX", "Keyring", "generate_key", "load_keyring"]

ENV_VAR = "UNIMEM_ENCRYPTION_KEYS"
PREFIX = "enc:v1:"
_KID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
_NONCE = 12


def generate_key(kid: str) -> str:
    """A new ``kid:base64key`` entry (32 random bytes) for ``UNIMEM_ENCRYPTION_KEYS``."""
    if not _KID_RE.fullmatch(kid):
        raise ConfigurationError("a key id is 1-32 characters of letters, digits, '.', '_', '-'")
    return f"{kid}:{base64.b64encode(os.urandom(32)).decode()}"


class Keyring:
    """The encryption keys: the first encrypts, all decrypt.

    Raises:
        ConfigurationError: no key, a duplicate or malformed key id, or a key
            that is not 16, 24 or 32 bytes.
    """

    def __init__(self, keys: list[tuple[str, bytes]]) -> None:
        if not keys:
            raise ConfigurationError(f"{ENV_VAR} names no key; use kid:base64key[,kid:key...]")
        self._ciphers: dict[str, AESGCM] = {}
        for kid, key in keys:
            if not _KID_RE.fullmatch(kid):
                raise ConfigurationError(
                    f"{ENV_VAR}: key id {kid!r} must be 1-32 letters, digits, '.', '_' or '-'"
                )
            if kid in self._ciphers:
                raise ConfigurationError(f"{ENV_VAR}: key id {kid!r} appears twice")
            if len(key) not in (16, 24, 32):
                raise ConfigurationError(
                    f"{ENV_VAR}: key {kid!r} is {len(key)} bytes; AES needs 16, 24 or 32"
                )
            self._ciphers[kid] = AESGCM(key)
        self.current = keys[0][0]
        # a key for keyed digests (PHI tokens), independent of the cipher use
        self.digest_key = hmac.new(keys[0][1], b"unimem phi token digests", hashlib.sha256).digest()

    @classmethod
    def parse(cls, spec: str) -> Keyring:
        """Build from ``kid:base64key,kid2:base64key2`` (first is current)."""
        keys: list[tuple[str, bytes]] = []
        for part in filter(None, (p.strip() for p in spec.split(","))):
            kid, sep, b64 = part.partition(":")
            if not sep:
                raise ConfigurationError(f"{ENV_VAR}: each key is kid:base64key")
            try:
                key = base64.b64decode(b64.strip(), validate=True)
            except (binascii.Error, ValueError):
                raise ConfigurationError(f"{ENV_VAR}: key {kid!r} is not valid base64") from None
            keys.append((kid.strip(), key))
        return cls(keys)

    @property
    def kids(self) -> list[str]:
        """Every key id, current first."""
        return list(self._ciphers)

    def encrypt(self, plaintext: str, aad: str) -> str:
        """``plaintext`` encrypted with the current key, bound to ``aad``."""
        nonce = os.urandom(_NONCE)
        sealed = self._ciphers[self.current].encrypt(nonce, plaintext.encode(), aad.encode())
        return f"{PREFIX}{self.current}:{base64.b64encode(nonce + sealed).decode()}"

    def decrypt(self, value: str, aad: str) -> str:
        """The plaintext of a value made by :meth:`encrypt` (plaintext passes through).

        Raises:
            StoreError: the value was encrypted with a key not configured, or it
                does not decrypt (tampered, or moved to another row or field).
        """
        if not value.startswith(PREFIX):
            return value
        kid, _, body = value[len(PREFIX) :].partition(":")
        cipher = self._ciphers.get(kid)
        if cipher is None:
            raise StoreError(
                f"a stored value is encrypted with key {kid!r}, which is not in {ENV_VAR}; "
                "add it back (after the current key) to read it"
            )
        try:
            raw = base64.b64decode(body, validate=True)
            return cipher.decrypt(raw[:_NONCE], raw[_NONCE:], aad.encode()).decode()
        except (binascii.Error, ValueError, InvalidTag):
            raise StoreError(
                f"a stored value encrypted with key {kid!r} failed authentication "
                "(tampered, or copied from another record)"
            ) from None

    def needs_rotation(self, value: str) -> bool:
        """Whether ``value`` is plaintext or encrypted with another key than the current."""
        return not value.startswith(f"{PREFIX}{self.current}:")


def load_keyring(env: Mapping[str, str] | None = None) -> Keyring | None:
    """The keyring of ``UNIMEM_ENCRYPTION_KEYS`` (``os.environ`` by default), or
    ``None`` when it is not set: ``Settings.from_env(env).privacy.keyring()``."""
    from ..settings import Settings

    return Settings.from_env(env).privacy.keyring()
