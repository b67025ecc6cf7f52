"""Street addresses: "42 Maple Street, Springfield, IL 62704", "one twenty three main street",
"Calle Mayor 12, Madrid", "14 rue Victor Hugo, 69002 Lyon", "شارع الملك فهد".
"""

from __future__ import annotations

from .phi_doc import SENTENCE_END, Doc, words

__all__ = ["find_addresses"]

_SUFFIXES = frozenset(
    words(
        "street st avenue ave av road rd drive dr boulevard blvd lane ln court ct way place pl "
        "terrace ter circle cir highway hwy parkway pkwy square sq trail trl crescent close"
    )
)
_DIRECTIONS = frozenset(words("n s e w ne nw se sw north south east west"))
_UNITS = frozenset(words("apt apartment unit suite ste flat floor # no room"))
# Street words that come first: Spanish "Calle Mayor 12", French "rue de la Paix"
# (French puts the number before: "12 rue de la Paix"), Arabic "شارع".
_ES_PREFIX = frozenset(words("calle c/ avenida avda paseo plaza carrera camino ronda travesía"))
_FR_PREFIX = frozenset(
    words("rue avenue boulevard bd chemin allée allee place impasse quai route cours")
)
_AR_PREFIX = frozenset({"شارع", "حي", "طريق"})
_PARTICLES = frozenset(words("de del la las los le du des l' d' y"))
_PO_BOXES = (
    ("p", ".", "o", ".", "box"),
    ("p", "o", "box"),
    ("po", "box"),
    ("post", "office", "box"),
    ("apartado", "de", "correos"),
    ("apartado",),
    ("boîte", "postale"),
    ("صندوق", "بريد"),
    ("ص", ".", "ب"),
)
_PO_FIRST = frozenset(box[0] for box in _PO_BOXES)
_STARTS = _PO_FIRST | _ES_PREFIX | _AR_PREFIX
_AFTER_RUN = _FR_PREFIX | _SUFFIXES


def _name_words(doc: Doc, i: int, limit: int) -> int:
    """Last token of up to ``limit`` street-name words from ``i`` (or i - 1 when none)."""
    j = i
    while j < i + limit and doc.free(j):
        low = doc.lows[j]
        ordinal = low[:-2].isdigit() and low[-2:] in ("st", "nd", "rd", "th")
        if (doc.nums[j] is not None or not doc.is_alpha(j)) and not ordinal:
            break
        if low in _SUFFIXES:
            break
        if low in doc.lex.common and low not in _PARTICLES:
            break
        j += 1
    return j - 1


def _tail(doc: Doc, j: int) -> int:
    """Extend an address ending at ``j`` over direction, unit, city, state and postcode."""
    if doc.low(j + 1) == "." and doc.free(j + 1):
        j += 1
    if doc.low(j + 1) in _DIRECTIONS and doc.free(j + 1):
        j += 1
    k = j + 1
    if doc.low(k) == ",":
        k += 1
    if doc.low(k) in _UNITS and doc.free(k):
        k += 1
        if doc.low(k) in {".", "#"}:
            k += 1
        unit_run = doc.run_at(k)
        if unit_run is not None and doc.free(k):
            j = unit_run.last
        elif doc.free(k) and any(c.isdigit() for c in doc.low(k)):
            j = k
    # ", City, ST 12345" / ", 69002 Lyon": only in typed text, after a comma.
    steps = 0
    while doc.low(j + 1) == "," and doc.free(j + 2) and steps < 3:
        k = j + 2
        low = doc.lows[k]
        if low.isdigit() and len(low) == 5:
            j = k + 1 if doc.free(k + 1) and doc.capitalized(k + 1) else k
        elif doc.capitalized(k) or (doc.token_text(k).isupper() and len(low) == 2):
            while doc.free(k + 1) and (doc.capitalized(k + 1) or doc.token_text(k + 1).isupper()):
                k += 1
            j = k
        else:
            break
        steps += 1
    if doc.free(j + 1) and doc.low(j + 1).isdigit() and len(doc.low(j + 1)) == 5:
        j += 1  # "DC 20500"
    return j


def find_addresses(doc: Doc) -> None:
    """Claim street addresses (typed or spoken).

    Addresses start at a number run followed by a French street word or by
    street name words and a suffix ("Street", "rd"), or at a PO box or street
    prefix word: the run scan needs one of those words in the text, and the
    word scan only visits tokens that are one of those words.
    """
    n = len(doc.lows)
    runs = doc.runs if not _AFTER_RUN.isdisjoint(doc.vocab) else []
    for run in list(runs):
        i = run.first
        if not doc.free(i, run.last) or len(run.digits) > 6:
            continue
        k = run.last + 1
        if doc.low(k) == ",":
            k += 1
        if doc.low(k) in _FR_PREFIX and doc.free(k):
            j = k
            while doc.free(j + 1) and (doc.low(j + 1) in _PARTICLES or doc.is_alpha(j + 1)):
                if doc.low(j + 1) in SENTENCE_END or j - k >= 5:
                    break
                j += 1
            if j > k:
                doc.claim("ADDRESS", i, _tail(doc, j), 0.85)
            continue
        last = _name_words(doc, run.last + 1, 4)
        suffix = last + 1
        if last > run.last and doc.low(suffix) in _SUFFIXES and doc.free(suffix):
            doc.claim("ADDRESS", i, _tail(doc, suffix), 0.9)
    if _STARTS.isdisjoint(doc.vocab):
        return
    # The loop below only acts at a PO box's first word or a street prefix word.
    for i in (k for k in range(n) if doc.lows[k] in _STARTS):
        for box in _PO_BOXES if doc.low(i) in _PO_FIRST else ():
            end = i + len(box)
            if tuple(doc.low(k) for k in range(i, end)) == box and doc.free(i, end - 1):
                number = doc.run_at(end)
                if number is not None and doc.free(number.first, number.last):
                    doc.claim("ADDRESS", i, _tail(doc, number.last), 0.9)
                break
        low = doc.low(i)
        if (low in _ES_PREFIX or low in _AR_PREFIX) and doc.free(i):
            last = _name_words(doc, i + 1, 4)
            if last < i + 1:
                continue
            number = doc.run_at(last + 1)
            end = number.last if number is not None else last
            if number is None and low not in _AR_PREFIX and not doc.capitalized(i + 1):
                continue  # "calle" alone in a lowercase sentence is not an address
            doc.claim("ADDRESS", i, _tail(doc, end), 0.85)
