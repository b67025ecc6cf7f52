"""What every part of the service shares: the store, the limits, the live
bus and the per-user write state, with the checks every method starts with."""

from __future__ import annotations

from ..config import MemoryConfig
from ..errors import SessionNotFoundError
from ..live_bus import LiveBus
from ..models import MemorySettings, SessionInfo
from ..privacy.crypto import Keyring
from ..privacy.pipeline import PrivacyPipeline
from ..privacy.write_settings import WriteSettings
from ..stores.contracts import DurableStore
from ..validation import check_id

__all__ = ["ServiceCore", "check_owner", "visible"]


def check_owner(state: SessionInfo | None, session_id: str, user_id: str | None) -> None:
    """Raise ``SessionNotFoundError`` when the session exists and ``user_id`` (if
    given) is not its owner: another user's session looks like no session."""
    if state is not None and user_id is not None and state.user_id != user_id:
        raise SessionNotFoundError(f"no session {session_id!r} for this user")


def visible(state: SessionInfo | None, user_id: str | None) -> bool:
    """Whether the session exists for ``user_id`` (any user when ``None``).
    Reads of a session that is not answer as for a session never used."""
    return state is not None and (user_id is None or state.user_id == user_id)


class ServiceCore:
    """The state the service's parts share.

    Args:
        store: the store every part reads and writes.
        config: the service's limits.
        live: where stored entries and events are published.
        privacy: the redaction applied to every write (a default one when ``None``).
    """

    def __init__(
        self,
        store: DurableStore,
        config: MemoryConfig,
        live: LiveBus,
        privacy: PrivacyPipeline | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.live = live
        self._ready = False
        #: The user's settings applied to every write (``unimem.privacy.pipeline``).
        self.privacy = privacy if privacy is not None else PrivacyPipeline()
        #: The settings each owner's last write used (``unimem.privacy.write_settings``).
        self.write_settings = WriteSettings()
        #: The keys sealing content at rest and the PHI vault's values (``None``:
        #: encryption off, and the vault with it: tokens only).
        self.keyring: Keyring | None = None

    async def setup(self) -> None:
        """Open the store and create or migrate its schema. Idempotent."""
        if not self._ready:
            await self.store.setup()
            self._ready = True

    async def aclose(self) -> None:
        """Close the store; it can be set up again afterwards."""
        self._ready = False
        await self.store.aclose()

    async def ready_store(self) -> DurableStore:
        """The store, set up first if it was not yet."""
        if not self._ready:
            await self.setup()
        return self.store

    def user(self, user_id: str | None) -> str:
        """``user_id`` checked, or the configured default user when ``None``."""
        return check_id(user_id, "user_id") if user_id is not None else self.config.default_user_id

    async def owned_session(self, session_id: str, user_id: str | None) -> SessionInfo | None:
        """The session if it exists and (when ``user_id`` is given) belongs to that user."""
        state = await (await self.ready_store()).get_session(session_id)
        check_owner(state, session_id, user_id)
        return state

    async def settings_of(self, user_id: str) -> MemorySettings:
        """The user's stored settings, or the defaults."""
        # read per write: embedded stores answer in microseconds; a cache may memoize
        stored = await (await self.ready_store()).get_settings(user_id)
        return stored or MemorySettings()
