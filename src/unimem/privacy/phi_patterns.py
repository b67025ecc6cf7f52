"""Structured identifiers: emails, URLs, IP addresses, formatted SSNs and phones.

Typed forms are matched with regular expressions on the normalized text; spoken
forms ("john dot carter at gmail dot com", "w w w dot example dot com",
"one nine two dot one six eight dot zero dot one") on tokens.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from .phi_doc import Doc, after_hint, run_start, scan, words

__all__ = ["find_spoken_addresses", "find_typed_patterns"]

_EMAIL_RE = re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.ASCII)
_URL_RE = re.compile(
    r"\b(?:https?://|www\.)[^\s<>\"']*[^\s<>\"'.,;:!?)\]]"
    r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|edu|gov|io|health|info)"
    r"(?:/[^\s<>\"']*[^\s<>\"'.,;:!?)\]])?\b"
)
_IP_RE = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w.]|\.\d)")
_IPV6_RE = re.compile(r"(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])")
#: What the second form of ``_URL_RE`` always contains: a dot before a listed domain.
_URL_HINT_RE = re.compile(r"\.(?:com|org|net|edu|gov|io|health|info)")
# What every match of _IP_RE, _SSN_RE and the first of _PHONE_RES contains:
# "<d>.<d>" (matched at its dot), "<d><d>-<d><d>-<d>" (at its first hyphen) and
# "<d><d><d> <d><d><d><d>". A pattern that begins with a literal is searched
# for that character first, several times faster than for a digit.
_IP_HINT_RE = re.compile(r"\.(?<=\d\.)\d")
_SSN_HINT_RE = re.compile(r"-(?<=\d\d-)\d\d-\d")
_PHONE_HINT_RE = re.compile(r"\d\d\d[\s.-]\d\d\d\d")
#: ``[\w.%+-]`` of ``_EMAIL_RE`` (ASCII) and ``[a-z0-9-]`` or "." of ``_URL_RE``.
_EMAIL_LOCAL = frozenset(string.ascii_letters + string.digits + "_.%+-")
_URL_NAME = frozenset(string.ascii_lowercase + string.digits + "-.")
_SSN_RE = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_PHONE_RES = (
    # North American: (617) 555-0142, 617.555.0142, 617-555-0142, +1 415 555 2671
    re.compile(r"(?<![\w+-])(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}(?![\d-])"),
    # International with a plus: +34 612 345 678, +966 50 123 4567, +33 6 12 34 56 78
    re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\d{1,4}){2,6}(?!\d)"),
)
_TLDS = frozenset(
    words("com org net edu gov io co uk fr es de ca us info health me app ma sa ae eg mx ar")
)
_AT = frozenset({"at", "arroba", "arobase", "@", "آت"})
# Spoken only: a typed "." is matched by the regular expressions, and a "." token
# here is sentence punctuation ("Dr. de la Cruz" is no domain).
_DOT = frozenset({"dot", "punto", "point"})
_JOIN = frozenset({"dot", "punto", "point", "underscore", "dash", "hyphen", "guion", "tiret"})
_WWW = ("w", "w", "w")


def _first(text: str, pos: int, *literals: str) -> int:
    """The lowest offset at or after ``pos`` of any of ``literals``, or -1 when none is there."""
    found = [at for at in (text.find(literal, pos) for literal in literals) if at >= 0]
    return min(found) if found else -1


def find_typed_patterns(doc: Doc) -> None:
    """Claim typed emails, URLs, IP addresses, SSNs and formatted phone numbers.

    Each pattern only runs when the text has what every match of it contains,
    and searches from where its next match can begin at the earliest
    (:func:`~.phi_doc.scan`), found with ``str.find`` or a short hint pattern:

    - email: an "@", with ``[\\w.%+-]`` characters right before it;
    - IPv4: "<digit>.<digit>" with its dot within the first four characters;
    - URL: "http", "www.", or ``[a-z0-9.-]`` characters up to a dot before a
      listed domain (".com"...);
    - SSN: "<d><d>-<d><d>-<d>" with its first hyphen the fourth character;
    - North American phone: three digits, a separator and four digits within
      nine characters of its start ("+1 (617) ");
    - international phone: a "+".
    """
    norm = doc.norm
    digit = doc.digit

    def email(pos: int) -> int:
        at = norm.find("@", pos)
        return -1 if at < 0 else max(pos, run_start(norm, at, _EMAIL_LOCAL))

    def ipv4(pos: int) -> int:
        return after_hint(_IP_HINT_RE, norm, pos, 3)

    def url(pos: int) -> int:
        start = _first(norm, pos, "http", "www.")
        hint = _URL_HINT_RE.search(norm, pos)
        if hint is not None:
            domain = max(pos, run_start(norm, hint.start(), _URL_NAME))
            start = domain if start < 0 else min(start, domain)
        return start

    if "@" in norm:
        for m in scan(_EMAIL_RE, norm, email):
            doc.claim_chars("EMAIL", m.start(), m.end(), 0.99)
    if "." in norm:
        if digit:
            for m in scan(_IP_RE, norm, ipv4):
                if all(int(part) <= 255 for part in m.group().split(".")):
                    doc.claim_chars("IP_ADDRESS", m.start(), m.end(), 0.95)
        for m in scan(_URL_RE, norm, url):
            doc.claim_chars("URL", m.start(), m.end(), 0.95)
    if norm.count(":") >= 7:
        for m in _IPV6_RE.finditer(norm):
            doc.claim_chars("IP_ADDRESS", m.start(), m.end(), 0.95)
    if not digit:
        return
    if "-" in norm:
        for m in scan(_SSN_RE, norm, lambda pos: after_hint(_SSN_HINT_RE, norm, pos, 3)):
            doc.claim_chars("SSN", m.start(), m.end(), 0.9)
    earliest: tuple[Callable[[int], int], Callable[[int], int]] = (
        lambda pos: after_hint(_PHONE_HINT_RE, norm, pos, 9),
        lambda pos: norm.find("+", pos),
    )
    for regex, phone in zip(_PHONE_RES, earliest, strict=True):
        for m in scan(regex, norm, phone):
            digits = sum(c.isdigit() for c in m.group())
            if 7 <= digits <= 15:
                doc.claim_chars("PHONE", m.start(), m.end(), 0.9)


def _label_back(doc: Doc, i: int) -> int:
    """First token of the spoken label ending at token ``i`` (one or two plain words)."""
    if not doc.free(i) or not doc.lows[i].isalnum() or doc.low(i) in doc.lex.common:
        return -1
    prev = i - 1
    if (
        doc.free(prev)
        and doc.lows[prev].isalpha()
        and doc.low(prev) not in doc.lex.common
        and doc.low(prev) not in _JOIN
        and doc.low(prev - 1) in _JOIN
    ):
        return prev
    return i


def _domain_forward(doc: Doc, i: int) -> int:
    """Last token of a spoken domain starting at ``i`` ("gmail dot com"), or -1."""
    n = len(doc.lows)
    if i >= n or not doc.free(i) or not doc.lows[i].isalnum():
        return -1
    last = -1
    k = i
    while k + 2 < n and doc.low(k + 1) in _DOT and doc.free(k + 2):
        label = k + 2
        if not doc.lows[label].isalnum():
            break
        if doc.low(label) in _TLDS:
            last = label
        k = label
        # A two-word label ("example health dot org").
        if (
            k + 1 < n
            and doc.low(k + 1) not in _DOT
            and doc.low(k + 2) in _DOT
            and doc.lows[k + 1].isalnum()
            and doc.free(k + 1)
        ):
            k += 1
    return last


def _local_back(doc: Doc, i: int) -> int:
    """First token of a spoken email local part ending at ``i`` ("john dot carter")."""
    first = _label_back(doc, i)
    if first < 0 and doc.free(i) and doc.lows[i].isalnum():
        first = i  # a local part may be a common word ("info", "contact")
    run = next((r for r in doc.runs if r.first <= first <= r.last), None)
    if run is not None and run.last == i:
        first = run.first  # "doe eighty seven at ..." is "doe87@"
        prev = first - 1
        if (
            doc.free(prev)
            and doc.lows[prev].isalpha()
            and doc.low(prev) not in doc.lex.common
            and doc.low(prev) not in _JOIN
        ):
            first = prev
    while first >= 2 and doc.low(first - 1) in _JOIN and doc.free(first - 2):
        if not doc.lows[first - 2].isalnum() or doc.low(first - 2) in doc.lex.common:
            break
        first -= 2
    return first


def find_spoken_addresses(doc: Doc) -> None:
    """Claim spoken emails, URLs and IP addresses.

    An email has an "at" word and a "dot" word, a URL or an IP address "dot"
    words: the scans visit the tokens at an "at" and those before a "dot" only.
    """
    vocab = doc.vocab
    if _DOT.isdisjoint(vocab):
        return
    lows = doc.lows
    n = len(lows)
    if not _AT.isdisjoint(vocab):
        for i in [k for k, low in enumerate(lows) if low in _AT]:
            if 0 < i < n - 1 and doc.free(i):
                last = _domain_forward(doc, i + 1)
                # _local_back only reads: not needed without a domain
                if last > 0 and (first := _local_back(doc, i - 1)) >= 0:
                    doc.claim("EMAIL", first, last, 0.9)
    for i in [k - 1 for k, low in enumerate(lows) if low in _DOT and k > 0]:
        if not doc.free(i):
            continue
        first = i
        if tuple(doc.low(k) for k in range(i - 2, i + 1)) == _WWW and doc.free(i - 2, i):
            first = i - 2
        elif doc.low(i) != "www":
            first = _label_back(doc, i)
        if first < 0:
            continue
        last = _domain_forward(doc, i)
        if last > 0:
            if doc.low(last + 1) == "slash" and doc.free(last + 2):
                last += 2
            doc.claim("URL", first, last, 0.85)
    _spoken_ips(doc)


def _spoken_ips(doc: Doc) -> None:
    runs = {run.first: run for run in doc.runs}
    for run in doc.runs:
        parts = [run]
        while len(parts) < 4:
            dot = parts[-1].last + 1
            nxt = runs.get(dot + 1)
            if doc.low(dot) not in _DOT or nxt is None:
                break
            parts.append(nxt)
        if (
            len(parts) == 4
            and all(len(p.digits) <= 3 and int(p.digits) <= 255 for p in parts)
            and doc.free(run.first, parts[-1].last)
        ):
            doc.claim("IP_ADDRESS", run.first, parts[-1].last, 0.9)
