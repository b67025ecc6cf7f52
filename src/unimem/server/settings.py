"""The server's settings under the module name they were first published at.

:class:`ServerSettings` and the names beside it live in
:mod:`unimem.server.server_settings`; this module keeps ``from
unimem.server.settings import ...`` working.
"""

from __future__ import annotations

from .server_settings import (
    MIN_SECRET_BYTES,
    RateLimit,
    ServerSettings,
    default_database_url,
    parse_rate_limit,
)

__all__ = [
    "MIN_SECRET_BYTES",
    "RateLimit",
    "ServerSettings",
    "default_database_url",
    "parse_rate_limit",
]
