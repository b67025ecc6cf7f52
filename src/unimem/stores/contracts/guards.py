"""The guards an append may carry, and what a store raises when one no longer
holds (nothing is stored then): settings, the session's PHI tokens, and the
facts a change was to close."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FactsChanged", "PhiGuard", "SettingsChanged", "SettingsGuard", "TokensChanged"]


@dataclass(frozen=True, slots=True)
class SettingsGuard:
    """The owner's settings an entry was prepared under, as the store holds them:
    ``text`` is the stored settings JSON, ``None`` when the user has none.

    An append given a guard commits only if the stored settings still read
    exactly so (checked inside the write's transaction); otherwise it raises
    :class:`SettingsChanged` and stores nothing. This lets the service keep the
    settings in memory between writes without ever storing a turn under
    settings another process has since replaced.
    """

    text: str | None


class SettingsChanged(Exception):
    """An append's :class:`SettingsGuard` no longer matched; nothing was stored.

    ``current`` is the stored settings JSON now (``None``: none stored), so the
    caller can prepare the entry again without another read. Internal to the
    service, which retries; never raised to its callers.
    """

    def __init__(self, current: str | None) -> None:
        super().__init__("the user's settings changed while the entry was prepared")
        self.current = current


@dataclass(frozen=True, slots=True)
class PhiGuard:
    """The session's PHI token map an entry was redacted with: ``last_seq`` is the
    ``seq`` of the session's last ``phi_detected`` event the map includes
    (``None``: none). An append given a guard commits only if that is still the
    session's last one (checked inside the write's transaction); otherwise it
    raises :class:`TokensChanged` and stores nothing, so two processes never
    hand out the same token number for different values."""

    last_seq: int | None


class FactsChanged(Exception):
    """A fact :meth:`UserDataStore.apply_fact_changes` was to close is no longer
    a current fact of the user (closed or deleted meanwhile); nothing was stored."""

    def __init__(self, fact_id: str) -> None:
        super().__init__("a fact to close is no longer current")
        self.fact_id = fact_id


class TokensChanged(Exception):
    """An append's :class:`PhiGuard` no longer matched (another process recorded
    PHI in the session meanwhile); nothing was stored. Internal to the service,
    which redacts the entry again with the current map."""

    def __init__(self) -> None:
        super().__init__("the session's PHI tokens changed while the entry was prepared")
