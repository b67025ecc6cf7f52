"""The service's facts as their owner sees them: list (with history),
confirm, correct and delete (the facts each turn updates are found by
:mod:`unimem.service.fact_updates`).

A correction closes the old fact and adds the new one in one store operation,
so the history is kept and a superseded value is never current.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ConflictError, FactNotFoundError, InvalidInputError
from ..ids import new_id
from ..models import FACT_VALUE_CHARS, Fact, MemorySettings, utcnow
from ..stores.contracts import DurableStore, FactsChanged
from ..validation import check_flag, check_id
from .core import ServiceCore
from .reveal import RevealOperations

__all__ = ["FactOperations", "corrected_text"]
#: Kinds a caller may filter ``list_facts`` by, at most.
MAX_KINDS = 32


def _check_value(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{field} must be a non-empty string", field=field)
    if len(value) > FACT_VALUE_CHARS:
        raise InvalidInputError(
            f"{field} is longer than {FACT_VALUE_CHARS} characters",
            field=field,
            limit=FACT_VALUE_CHARS,
        )
    return value.strip()


def _check_attributes(attributes: object) -> dict[str, str]:
    if not isinstance(attributes, Mapping):
        raise InvalidInputError(
            "attributes must be an object of names to strings", field="attributes"
        )
    checked = {}
    for name, value in attributes.items():
        if not isinstance(name, str):
            raise InvalidInputError("attribute names must be strings", field="attributes")
        checked[name] = _check_value(value, f"attributes.{name}")
    return checked


def _check_kinds(kinds: object) -> set[str] | None:
    if kinds is None:
        return None
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInputError("kinds must be a list of fact kinds", field="kinds")
    if len(kinds) > MAX_KINDS:
        raise InvalidInputError(f"at most {MAX_KINDS} kinds", field="kinds", limit=MAX_KINDS)
    for kind in kinds:
        if not isinstance(kind, str) or not 1 <= len(kind) <= 64:
            raise InvalidInputError("each kind is a name of 1-64 characters", field="kinds")
    return set(kinds)


def corrected_text(old: Fact, value: str, attributes: Mapping[str, str]) -> str:
    """The line of a corrected fact: the old line with the old value and
    attribute values replaced by the new ones, or ``kind: value (attributes)``
    when the old line does not name them."""
    if old.key is None:
        return value  # a fact pinned by hand is its text
    text = old.text
    pairs = [(old.value, value)] if old.value else []
    pairs += [(old.attributes[n], v) for n, v in attributes.items() if old.attributes.get(n)]
    if pairs and all(before in text for before, _ in pairs):
        for before, after in pairs:
            text = text.replace(before, after)
        return text
    extra = ", ".join(f"{name} {v}" for name, v in attributes.items())
    label = old.kind.replace("_", " ").capitalize()
    return f"{label}: {value}" + (f" ({extra})" if extra else "")


class FactOperations:
    """The owner's side of the facts of :class:`unimem.UnifiedMemoryService`.

    Args:
        core: the shared state.
        reveal: the owner's view of their facts (PHI tokens given their values).
    """

    def __init__(self, core: ServiceCore, reveal: RevealOperations) -> None:
        self._core = core
        self._reveal = reveal

    # ------------------------------------------------------------------ the owner's

    async def _owned(self, store: DurableStore, fact_id: str, owner: str) -> Fact:
        for fact in await store.list_facts(owner):
            if fact.id == fact_id:
                return fact
        raise FactNotFoundError(f"no fact {fact_id!r} for this user")

    async def list_facts(
        self,
        *,
        user_id: str | None = None,
        include_history: bool = False,
        kinds: Sequence[str] | None = None,
        reveal: bool = False,
    ) -> list[Fact]:
        """The user's facts, oldest first: those pinned and those found in the
        conversation (each user and assistant turn updates them).

        Args:
            user_id: whose facts.
            include_history: also the facts a change or a correction closed
                (``valid_to`` set), oldest first among the rest.
            kinds: only facts of these kinds (``allergy``, ``medication``, ...).
            reveal: PHI tokens replaced by their values from the user's vault
                (as :meth:`get_history`; audited).

        Raises:
            InvalidInputError: ``kinds`` is not a list of names.
        """
        owner = self._core.user(user_id)
        if not isinstance(include_history, bool):
            raise InvalidInputError(
                "include_history must be true or false", field="include_history"
            )
        wanted = _check_kinds(kinds)
        facts = await (await self._core.ready_store()).list_facts(owner)
        facts = [
            f
            for f in facts
            if (include_history or f.current) and (wanted is None or f.kind in wanted)
        ]
        if check_flag(reveal, "reveal"):
            facts = await self._reveal.facts(facts, owner)
        return facts

    async def confirm_fact(self, fact_id: str, *, user_id: str | None = None) -> Fact:
        """Mark a current fact of the user as confirmed (``status="confirmed"``).

        Raises:
            FactNotFoundError: no such fact of the user (another user's is reported the same).
            ConflictError: the fact was superseded; confirm the current one.
        """
        check_id(fact_id, "fact_id")
        owner = self._core.user(user_id)
        store = await self._core.ready_store()
        fact = await self._owned(store, fact_id, owner)
        if not fact.current:
            raise ConflictError(
                f"fact {fact_id!r} was superseded; confirm the current one (list_facts)"
            )
        if fact.status == "confirmed":
            return fact
        return await store.put_fact(fact.model_copy(update={"status": "confirmed"}))

    async def correct_fact(
        self,
        fact_id: str,
        value: str,
        *,
        user_id: str | None = None,
        attributes: Mapping[str, str] | None = None,
    ) -> Fact:
        """Correct a current fact of the user: the old one is closed (kept as
        history) and the new one, ``status="corrected"``, is current; returns it.

        Args:
            fact_id: the fact to correct.
            value: its right value (``"20 mg"``, ``"penicillin"``, ...).
            attributes: its attributes (``dose``, ``reaction``, ...); the old
                ones when ``None``.

        Raises:
            FactNotFoundError: no such fact of the user (another user's is reported the same).
            ConflictError: the fact was superseded meanwhile; correct the current one.
            InvalidInputError: an empty or too long value or attribute.
        """
        check_id(fact_id, "fact_id")
        value = _check_value(value, "value")
        checked = _check_attributes(attributes) if attributes is not None else None
        owner = self._core.user(user_id)
        store = await self._core.ready_store()
        old = await self._owned(store, fact_id, owner)
        if not old.current:
            raise ConflictError(
                f"fact {fact_id!r} was superseded; correct the current one (list_facts)"
            )
        attrs = checked if checked is not None else dict(old.attributes)
        now = utcnow()
        text = corrected_text(old, value, attrs)
        new = Fact(
            id=new_id(),
            user_id=owner,
            kind=old.kind,
            key=old.key,
            value=value,
            attributes=attrs,
            text=text,
            status="corrected",
            session_id=old.session_id,
            entry_id=old.entry_id,
            source_entry_ids=old.source_entry_ids,
            created_at=now,
            valid_from=now,
        )
        settings = await self._core.settings_of(owner)
        if not settings.enabled:
            return new
        new = await self._redact_given(new, settings, store)
        try:
            await store.apply_fact_changes(owner, close=[(old.id, now)], add=[new])
        except FactsChanged:
            raise ConflictError(
                f"fact {fact_id!r} changed meanwhile; list the facts and correct the current one"
            ) from None
        return new

    async def _redact_given(
        self, fact: Fact, settings: MemorySettings, store: DurableStore
    ) -> Fact:
        """A fact a caller wrote, redacted like any text of theirs."""
        if not settings.anonymize_phi:
            return fact
        redact = self._core.privacy.redact_text
        sid = fact.session_id
        text, _ = await redact(fact.text, settings, store, sid)
        value, _ = await redact(fact.value or "", settings, store, sid)
        attrs = {k: (await redact(v, settings, store, sid))[0] for k, v in fact.attributes.items()}
        return fact.model_copy(
            update={"text": text, "value": value if fact.value else None, "attributes": attrs}
        )

    async def delete_fact(self, fact_id: str, *, user_id: str | None = None) -> bool:
        """Delete one fact of the user (current or past); whether it existed."""
        check_id(fact_id, "fact_id")
        return await (await self._core.ready_store()).delete_fact(self._core.user(user_id), fact_id)
