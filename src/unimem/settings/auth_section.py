"""The ``auth`` section: the secret of bearer tokens, or local mode."""

from __future__ import annotations

from pydantic import SecretStr, field_validator

from ..config import DEFAULT_USER_ID
from .section import Section

__all__ = ["MIN_SECRET_BYTES", "AuthSettings"]

#: HS256 keys shorter than the hash output are weak (RFC 7518 section 3.2).
MIN_SECRET_BYTES = 32


class AuthSettings(Section):
    """Bearer tokens, or local mode."""

    #: HS256 secret of bearer tokens; ``None`` is local mode.
    jwt_secret: SecretStr | None = None
    #: The user every request is in local mode.
    local_user: str = DEFAULT_USER_ID

    @field_validator("jwt_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value().encode()) < MIN_SECRET_BYTES:
            raise ValueError(
                f"must be at least {MIN_SECRET_BYTES} bytes "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        return value

    @property
    def local_mode(self) -> bool:
        """No secret: loopback only, and every request is ``local_user``."""
        return self.jwt_secret is None
