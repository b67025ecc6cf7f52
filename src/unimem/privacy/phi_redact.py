"""Anonymization: replace PHI with readable tokens that stay the same within a session.

``redact("my name is john carter", mapping=m)`` gives ``"my name is [PERSON_1]"``;
later calls with the same :class:`PhiTokenMap` give ``[PERSON_1]`` again for
"John Carter", "john carter" or just "Carter", and ``[PHONE_1]`` for
"555-1212" as for "five five five one two one two".

The map stores no raw value: each value is normalized (digits for numbers,
lowercase letters for names) and keyed by an HMAC-SHA256 under the map's key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError
from .phi import PhiFinding, PhiType, detect_phi
from .phi_number_runs import number_runs
from .phi_tokens import normalize, tokenize

__all__ = ["PhiTokenMap", "RedactionResult", "redact"]

_VERSION = 1
_SPOKEN_SYMBOLS = {
    "at": "@",
    "arroba": "@",
    "arobase": "@",
    "dot": ".",
    "punto": ".",
    "point": ".",
    "underscore": "_",
    "dash": "-",
    "hyphen": "-",
    "slash": "/",
}
_NUMERIC = frozenset(
    {
        PhiType.PHONE,
        PhiType.SSN,
        PhiType.MRN,
        PhiType.ACCOUNT,
        PhiType.IP_ADDRESS,
        PhiType.AGE_OVER_89,
    }
)


def _fold(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _canonical(type_: PhiType, value: str) -> str:
    """The form under which two mentions of one value compare equal."""
    norm = normalize(value)
    tokens = tokenize(value, norm)
    runs = {run.first: run for run in number_runs(tokens)}
    parts: list[str] = []
    i = 0
    while i < len(tokens):
        run = runs.get(i)
        if run is not None:
            parts.append(run.digits)
            i = run.last + 1
            continue
        low = tokens[i].low
        if type_ in (PhiType.EMAIL, PhiType.URL):
            parts.append(_SPOKEN_SYMBOLS.get(low, low))
        elif low.isalnum() or "'" in low:
            parts.append(_fold(low).replace("'", ""))
        i += 1
    joiner = "" if type_ in _NUMERIC or type_ in (PhiType.EMAIL, PhiType.URL) else " "
    return joiner.join(parts)


class PhiTokenMap:
    """Replacement numbering for one session: the same value always gets the same token.

    Create one per session and pass it to every :func:`redact` call of that
    session; store it with :meth:`to_json` and restore it with :meth:`from_json`.

    Args:
        key: secret for the value hashes. Leave it ``None`` to have the map make
            a random one and store it in its JSON; pass a server-side secret to
            keep it out of the JSON (then pass it again to :meth:`from_json`).
            Whoever holds both the JSON and the key can test guesses of a value,
            so store the map with the same care as the session's content.

    Raises:
        InvalidInputError: ``key`` is shorter than 16 bytes.
    """

    __slots__ = ("_counters", "_key", "_new", "_own_key", "_tokens")

    def __init__(self, key: bytes | None = None) -> None:
        if key is not None and len(key) < 16:
            raise InvalidInputError("the PhiTokenMap key must be at least 16 bytes", field="key")
        self._own_key = key is None
        self._key = secrets.token_bytes(32) if key is None else key
        self._counters: dict[str, int] = {}
        self._tokens: dict[str, str] = {}
        #: hashed keys made since the map was made, loaded or last marked saved
        self._new: list[str] = []

    def __len__(self) -> int:
        return len(set(self._tokens.values()))

    def _hash(self, type_: PhiType, canonical: str) -> str:
        message = f"{type_.value}\x00{canonical}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()[:32]

    def token_for(self, type_: PhiType | str, value: str) -> str:
        """The replacement token for ``value`` of ``type_`` (``"[PERSON_1]"``), made if new."""
        type_ = PhiType(type_)
        canonical = _canonical(type_, value)
        key = self._hash(type_, canonical)
        token = self._tokens.get(key)
        if token is None:
            number = self._counters.get(type_.value, 0) + 1
            self._counters[type_.value] = number
            token = f"[{type_.value}_{number}]"
            self._tokens[key] = token
            self._new.append(key)
        if type_ is PhiType.PERSON:
            # "Carter" or "John" alone later means the same person, unless taken.
            for part in canonical.split():
                if len(part) > 1:
                    part_key = self._hash(type_, part)
                    if part_key not in self._tokens:
                        self._tokens[part_key] = token
                        self._new.append(part_key)
        return token

    def new_entries(self) -> dict[str, str]:
        """The entries (``{hashed key: token}``) made since the map was made or
        loaded, or since :meth:`mark_saved`: what a caller keeping the map as a
        journal has to save next (without walking the whole map)."""
        return {key: self._tokens[key] for key in self._new}

    def mark_saved(self) -> None:
        """Mark every entry so far as saved (see :meth:`new_entries`)."""
        self._new = []

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: counters, hashed keys and tokens (and the key if the map made it)."""
        data: dict[str, Any] = {
            "version": _VERSION,
            "counters": dict(self._counters),
            "tokens": dict(self._tokens),
        }
        if self._own_key:
            data["key"] = self._key.hex()
        return data

    def to_json(self) -> str:
        """:meth:`to_dict` as a JSON string."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], key: bytes | None = None) -> PhiTokenMap:
        """Rebuild a map saved with :meth:`to_dict`.

        Raises:
            InvalidInputError: the data is not a saved map, or it has no key and none is given.
        """
        try:
            if data.get("version") != _VERSION:
                raise ValueError("version")
            stored = data.get("key")
            if key is None and not isinstance(stored, str):
                raise InvalidInputError(
                    "this PhiTokenMap was saved without its key; pass key= as when it was made",
                    field="key",
                )
            mapping = cls(bytes.fromhex(stored) if key is None else key)  # type: ignore[arg-type]
            mapping._own_key = key is None
            mapping._counters = {str(k): int(v) for k, v in dict(data["counters"]).items()}
            mapping._tokens = {str(k): str(v) for k, v in dict(data["tokens"]).items()}
        except InvalidInputError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError):
            raise InvalidInputError(
                "not a saved PhiTokenMap: expected the dict made by PhiTokenMap.to_dict()",
                field="mapping",
            ) from None
        return mapping

    @classmethod
    def from_json(cls, raw: str | bytes, key: bytes | None = None) -> PhiTokenMap:
        """Rebuild a map saved with :meth:`to_json` (raises as :meth:`from_dict`)."""
        try:
            data = json.loads(raw)
        except (TypeError, ValueError):
            raise InvalidInputError(
                "not a saved PhiTokenMap: the JSON does not parse", field="mapping"
            ) from None
        if not isinstance(data, dict):
            raise InvalidInputError(
                "not a saved PhiTokenMap: expected a JSON object", field="mapping"
            )
        return cls.from_dict(data, key)


@dataclass(frozen=True, slots=True)
class RedactionResult:
    """The anonymized text, what was found, and the token that replaced each finding."""

    text: str
    findings: tuple[PhiFinding, ...]
    #: ``replacements[i]`` replaced ``findings[i]``.
    replacements: tuple[str, ...]

    @property
    def phi_detected(self) -> bool:
        """Whether anything was replaced."""
        return bool(self.findings)

    def counts(self) -> dict[str, int]:
        """Findings per type (``{"PERSON": 1, "PHONE": 2}``): safe to log or store in events."""
        return dict(Counter(f.type.value for f in self.findings))


def redact(
    text: str, language: str | None = None, mapping: PhiTokenMap | None = None
) -> RedactionResult:
    """Replace the PHI in ``text`` with ``[TYPE_n]`` tokens.

    Args:
        text: the content to anonymize.
        language: optional hint, as for :func:`detect_phi`.
        mapping: the session's :class:`PhiTokenMap`, updated in place so that
            numbering stays consistent across calls; a fresh one when ``None``.

    Raises:
        InvalidInputError: ``text`` is not a string, or ``mapping`` not a PhiTokenMap.
    """
    if mapping is not None and not isinstance(mapping, PhiTokenMap):
        raise InvalidInputError("mapping must be a PhiTokenMap or None", field="mapping")
    findings = detect_phi(text, language)
    if not findings:
        return RedactionResult(text, (), ())
    mapping = PhiTokenMap() if mapping is None else mapping
    pieces: list[str] = []
    replacements: list[str] = []
    pos = 0
    for finding in findings:
        token = mapping.token_for(finding.type, finding.text)
        pieces.append(text[pos : finding.start])
        pieces.append(token)
        replacements.append(token)
        pos = finding.end
    pieces.append(text[pos:])
    return RedactionResult("".join(pieces), tuple(findings), tuple(replacements))
