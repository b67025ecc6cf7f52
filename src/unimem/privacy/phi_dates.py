"""Calendar dates: "03/03/1952", "March 3rd, 1952", "march third nineteen fifty two",
"the fifth of january", "tres de marzo de mil novecientos cincuenta y dos", "12 mars 1951".

A date needs a month together with a day or a year (or a numeric day/month/year
form). Relative times ("this morning", "last week", "next tuesday") and bare
years are not dates of a person under HIPAA Safe Harbor, so they are left alone.
"""

from __future__ import annotations

import re

from .phi_doc import Doc, after_hint, scan, words

__all__ = ["find_dates"]

_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        "january jan enero janvier يناير",
        "february feb febrero février fevrier فبراير",
        "march mar marzo mars مارس",
        "april apr abril avril أبريل ابريل",
        "may mayo mai مايو",
        "june jun junio juin يونيو",
        "july jul julio juillet يوليو",
        "august aug agosto août aout أغسطس اغسطس",
        "september sep sept septiembre setiembre septembre سبتمبر",
        "october oct octubre octobre أكتوبر اكتوبر",
        "november nov noviembre novembre نوفمبر",
        "december dec diciembre décembre decembre ديسمبر",
    ),
    start=1,
):
    for _name in _names.split():
        _MONTHS[_name] = _number

_ORDINALS = {
    word: n
    for n, word in enumerate(
        words(
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
            "twentieth"
        ),
        start=1,
    )
}
_ORDINALS.update({"thirtieth": 30, "primero": 1, "premier": 1, "1er": 1, "1re": 1})
_ORDINAL_DIGITS_RE = re.compile(r"^([0-9]{1,2})(?:st|nd|rd|th|er|º|°)$")
_NUMERIC_RES = (
    re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?![\d/-]|\.\d)"),
    re.compile(r"(?<![\d/.-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])"),
)
#: What every match of both ``_NUMERIC_RES`` contains, "<d>/<d>/<d>" or the like,
#: matched at its first separator (a search led by a character class of
#: literals is faster than one led by ``\d``).
_NUMERIC_HINT_RE = re.compile(r"[/.-](?<=\d[/.-])\d{1,2}[/.-]\d")
# "12/25" alone is a fraction or a dose as often as a date: only after a date cue.
_MONTH_DAY_RE = re.compile(r"(?<![\d/.-])(\d{1,2})/(\d{1,2})(?![\d/]|\.\d)")
_DATE_CUES = frozenset(
    words("born birthday birth dob admitted discharged seen visit nací nacimiento né née")
)
_LEAD = frozenset({"the", "le", "el", "on"})
# "on the fourteenth" is a date when nothing follows that the ordinal could count
# ("on the fourteenth floor" is not).
_AFTER_BARE_DAY = frozenset(
    {"", ",", ".", "?", "!", ";", "at", "and", "or", "for", "in", "then", "when", "but", "so"}
)
_OF = frozenset({"of", "de", "del", ","})
_MONTH_WORDS = frozenset(_MONTHS)
_DATE_STARTS = _MONTH_WORDS | frozenset(_ORDINALS) | {"the"}


def _numeric_dates(doc: Doc) -> None:
    """Typed dates, each pattern searched from where its next match can begin.

    That is four characters before the first separator of "<d>/<d>/<d>",
    "<d>-<dd>-<d>"... (the hint every match of ``_NUMERIC_RES`` has that soon),
    two before a "/" for ``_MONTH_DAY_RE``.
    """
    norm = doc.norm

    hint = _NUMERIC_HINT_RE.search(norm)

    def numeric(pos: int) -> int:
        if hint is None:
            return -1
        if pos == 0:  # both patterns start here: one search
            return max(0, hint.start() - 4)
        return after_hint(_NUMERIC_HINT_RE, norm, pos, 4)

    def slash(pos: int) -> int:
        at = norm.find("/", pos)
        return -1 if at < 0 else max(pos, at - 2)

    for index, regex in enumerate(_NUMERIC_RES):
        for m in scan(regex, norm, numeric):
            a, b, c = (int(g) for g in m.groups())
            day_month = (a, b) if index == 0 else (c, b)
            if index == 1 and not 1 <= b <= 12:
                continue
            if index == 0 and not (
                (1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)
            ):
                continue
            if index == 0 and len(m.group(3)) == 2 and m.group().count(".") == 2:
                continue  # "1.2.10" is more likely a version or a dose than a date
            if all(1 <= v <= 31 for v in day_month):
                doc.claim_chars("DATE", m.start(), m.end(), 0.9)
    for m in scan(_MONTH_DAY_RE, norm, slash):
        a, b = int(m.group(1)), int(m.group(2))
        if not ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)):
            continue
        # inside a word ("2x1/2 tablet", "a12/25"): no token starts there, so
        # no cue can precede it; not a date
        first = next((k for k, start in enumerate(doc.starts) if start == m.start()), None)
        if first is None:
            continue
        if any(doc.low(k) in _DATE_CUES for k in range(first - 4, first)):
            doc.claim_chars("DATE", m.start(), m.end(), 0.8)


def _day_at(doc: Doc, i: int) -> int:
    """Last token of a day of the month starting at ``i`` ("third", "twenty first", "14th")."""
    low = doc.low(i)
    if not doc.free(i):
        return -1
    if low in _ORDINALS or _ORDINAL_DIGITS_RE.match(low):
        return i
    run = doc.run_at(i)
    if run is None:
        return -1
    if run.value in (20, 30) and doc.low(run.last + 1) in _ORDINALS and doc.free(run.last + 1):
        return run.last + 1  # "twenty first", "thirty first"
    if 1 <= run.segments[0] <= 31 and len(run.digits) <= 2 and len(run.segments) == 1:
        return run.last
    if 1 <= run.segments[0] <= 31 and len(run.segments) > 1:
        rest = run.digits[len(str(run.segments[0])) :]
        if len(rest) == 4 and 1900 <= int(rest) <= 2099:
            return run.last  # "march three nineteen fifty two" as one run
    return -1


def _year_at(doc: Doc, i: int) -> int:
    """Last token of a year starting at ``i`` ("1952", "nineteen fifty two"), or -1."""
    run = doc.run_at(i)
    if run is None or not doc.free(i):
        return -1
    if len(run.digits) == 4 and 1900 <= int(run.digits) <= 2099:
        return run.last
    return -1


def _skip(doc: Doc, i: int, words: frozenset[str]) -> int:
    while doc.low(i) in words:
        i += 1
    return i


def _scan_end(doc: Doc) -> int:
    """One past the last token where a spoken or written-out date can start.

    A date found by the token scan has a month at or after its first token, or
    is "on the <ordinal>" and starts at that "the": past the last month word
    and the last "the" after "on", no token can start one.
    """
    lows = doc.lows
    end = 0
    if not _MONTH_WORDS.isdisjoint(doc.vocab):
        end = max(k for k, low in enumerate(lows) if low in _MONTHS) + 1
    if "on" in doc.vocab and "the" in doc.vocab:
        for k in range(len(lows) - 1, end - 1, -1):
            if lows[k] == "the" and k > 0 and lows[k - 1] == "on":
                end = k + 1
                break
    return end


def find_dates(doc: Doc) -> None:
    """Claim calendar dates, typed or spoken, in English, Spanish, French or Arabic.

    The numeric forms need a digit; the token scan stops at :func:`_scan_end`
    and visits the tokens where a date can begin only: a month, "the" (after
    "on"), and those where a day (:func:`_day_at`) can: an ordinal word, a
    token starting with 0-9, or the first token of a number run.
    """
    if doc.digit:
        _numeric_dates(doc)
    n = _scan_end(doc)
    lows = doc.lows
    runs = doc.run_starts
    candidates = [
        k
        for k, low in enumerate(lows[:n])
        if low in _DATE_STARTS or "0" <= low[0] <= "9" or k in runs
    ]
    i = 0
    for at in candidates:
        if at < i:
            continue  # inside the date just claimed
        i = at
        low = lows[i]
        end = -1
        start = i
        if low in _MONTHS and doc.free(i):
            # MONTH DAY [,] [YEAR]  |  MONTH [of] YEAR
            day_end = _day_at(doc, _skip(doc, i + 1, frozenset({"the"})))
            if day_end >= 0:
                end = day_end
                year_end = _year_at(doc, _skip(doc, end + 1, _OF))
                end = max(end, year_end)
            else:
                end = _year_at(doc, _skip(doc, i + 1, _OF))
        elif doc.free(i) and (low in _ORDINALS or "0" <= low[0] <= "9" or i in runs):
            # DAY [of|de] MONTH [[,] [de] YEAR]
            day_end = _day_at(doc, i)
            month = _skip(doc, day_end + 1, _OF) if day_end >= 0 else -1
            if month > 0 and doc.low(month) in _MONTHS and doc.free(month):
                end = month
                end = max(end, _year_at(doc, _skip(doc, month + 1, _OF)))
                if doc.low(i - 1) in _LEAD and doc.low(i - 1) != "on" and doc.free(i - 1):
                    start = i - 1
        if (
            end < 0
            and low == "the"
            and doc.low(i - 1) == "on"
            and doc.free(i, i + 1)
            and (doc.low(i + 1) in _ORDINALS or _ORDINAL_DIGITS_RE.match(doc.low(i + 1)))
            and doc.low(i + 2) in _AFTER_BARE_DAY
        ):
            end = i + 1
        if end >= 0:
            doc.claim("DATE", start, end, 0.9)
            i = end + 1
