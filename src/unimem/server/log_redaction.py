"""No credential and no session id in any log line.

uvicorn logs every WebSocket handshake at INFO on ``uvicorn.error``
(``"WebSocket /v1/sessions/<id>/live?token=<jwt>" [accepted]``), and, with
``--access-log``, every request's path on ``uvicorn.access``. Paths name
sessions and entries, and a browser's WebSocket may carry its token in the
query. :class:`RedactingFilter`, installed on uvicorn's handlers through its
``log_config`` (:func:`uvicorn_log_config`, what ``unimem serve`` passes),
masks both before a line is written: ``token=`` values, the query's
``session_id=`` and ``q=`` (a search's words) values, and the path segments
after ``/sessions/`` and ``/entries/`` become ``***``. unimem's own log lines
carry ids of neither (they log types, counts and route templates).
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from uvicorn.config import LOGGING_CONFIG

__all__ = ["MASK", "RedactingFilter", "redact", "uvicorn_log_config"]

#: What stands in for a masked value.
MASK = "***"

# a credential, an id or a user's words in a query string (``?token=``,
# ``&access_token=``, ``jwt=``; ``session_id=`` of a deletion or a search, the
# search's ``q=``, which may hold PHI)
_QUERY_SECRET = re.compile(
    r"(?i)([?&;](?:(?:access_)?token|jwt|session_id|entry_id|fact_id|user_id|q)=)[^&;#\s\"']*"
)
# the id after /sessions/ or /entries/ (and any /facts/ id)
_PATH_ID = re.compile(r"(/(?:sessions|entries|facts)/)[^/?#\s\"']+")


def redact(text: str) -> str:
    """``text`` with query-string tokens and the ids in session paths masked."""
    if "/" not in text and "=" not in text:
        return text
    return _PATH_ID.sub(rf"\g<1>{MASK}", _QUERY_SECRET.sub(rf"\g<1>{MASK}", text))


def _masked(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class RedactingFilter(logging.Filter):
    """Masks tokens and session ids in a record's message and arguments
    (keeping the arguments' positions, which uvicorn's access formatter reads)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the record in place; never drops it."""
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(_masked(arg) for arg in args)
        elif isinstance(args, dict):
            record.args = {key: _masked(value) for key, value in args.items()}
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's default ``log_config`` with :class:`RedactingFilter` on each of
    its handlers (so on every line of ``uvicorn``, ``uvicorn.error`` and
    ``uvicorn.access``)."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": RedactingFilter}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    return config
