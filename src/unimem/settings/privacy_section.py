"""The ``privacy`` section: the keys encrypting content at rest."""

from __future__ import annotations

from pydantic import SecretStr

from ..privacy.crypto import Keyring
from .section import Section

__all__ = ["PrivacySettings"]


class PrivacySettings(Section):
    """Encryption at rest."""

    encryption_keys: SecretStr | None = None

    def keyring(self) -> Keyring | None:
        """The keys, parsed; ``None`` when encryption is off.

        Raises:
            ConfigurationError: malformed keys.
        """
        if self.encryption_keys is None:
            return None
        return Keyring.parse(self.encryption_keys.get_secret_value())
