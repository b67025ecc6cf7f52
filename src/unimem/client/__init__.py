"""``MemoryClient``: the memory API over HTTP, with the same method names and
return types as :class:`~unimem.service.UnifiedMemoryService`, so code can move
between in-process and remote memory by changing one line::

    async with MemoryClient("http://127.0.0.1:8000", token=token) as memory:
        await memory.add_entry("visit-42", MemoryEntry(role="user", content="hi"))
        context = await memory.get_context("visit-42")

The server acts as the token's user (``local`` without a token), so the
``user_id`` arguments kept for compatibility must be ``None`` or that user.
Server errors are raised as the same :mod:`unimem.errors` classes.

The calls are grouped by what they touch: :mod:`.sessions` (entries, events,
context), :mod:`.user_memory` (facts, settings, search, privacy) and
:mod:`.items`, over the one connection of :mod:`.transport`.
"""

from __future__ import annotations

from .items import ItemCalls
from .sessions import SessionCalls
from .user_memory import UserMemoryCalls

__all__ = ["MemoryClient"]


class MemoryClient(SessionCalls, UserMemoryCalls, ItemCalls):
    """Async client of a unimem server.

    Args:
        base_url: the server, e.g. ``http://127.0.0.1:8000``.
        token: a bearer token (``unimem token --user NAME``); none for a local-mode server.
        timeout: seconds per request.
        transport: an httpx transport (tests may pass ``httpx.ASGITransport``).
    """
