"""Numbers, doses, dates and times as people say them, in words or digits.

A speech recognizer writes "twenty milligrams", "veinte miligramos",
"vingt milligrammes" or "٢٠ ملغ"; :func:`normalize_numbers` turns them into
digits first. Dates are kept as said and resolved against ``now`` when they
can be ("next thursday", "el 12 de mayo", "demain", "الخميس القادم", "the
weekend after thanksgiving"); "next <day>" is the first such day after today.
"""

# ruff: noqa: E501  (tables of cue words and number words read best one language a line)

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from .cues import base_language
from .ordinals import month_ordinals

__all__ = [
    "dose_in",
    "find_date",
    "find_onset",
    "find_slash_date",
    "find_time",
    "normalize_numbers",
]

_UNITS = {
    "en": "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen",
    "es": "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince "
    "dieciseis diecisiete dieciocho diecinueve veinte veintiuno veintidos veintitres veinticuatro "
    "veinticinco veintiseis veintisiete veintiocho veintinueve",
    "fr": "zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze "
    "seize dix-sept dix-huit dix-neuf",
}
_TENS = {
    "en": "_ _ twenty thirty forty fifty sixty seventy eighty ninety",
    "es": "_ _ _ treinta cuarenta cincuenta sesenta setenta ochenta noventa",
    "fr": "_ _ vingt trente quarante cinquante soixante",
}
_HUNDRED = {"en": ("hundred",), "es": ("cien", "ciento"), "fr": ("cent", "cents")}
_HUNDREDS_ES = "_ _ doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos novecientos"
_JOIN = {"en": ("and",), "es": ("y",), "fr": ("et",)}
_POINT = {"en": "point", "es": "punto", "fr": "virgule"}


def _table(lang: str) -> dict[str, int]:
    out = {w: i for i, w in enumerate(_UNITS[lang].split())}
    out.update({w: 10 * i for i, w in enumerate(_TENS[lang].split()) if w != "_"})
    if lang == "es":
        out.update({w: 100 * i for i, w in enumerate(_HUNDREDS_ES.split()) if w != "_"})
    if lang == "fr":
        out.update({"quatre-vingt": 80, "quatre-vingts": 80})
    return out


_TABLES = {lang: _table(lang) for lang in _UNITS}
_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")


def _spoken(words: list[str], lang: str) -> list[str]:
    table, hundred, join = _TABLES[lang], _HUNDRED[lang], _JOIN[lang]
    out: list[str] = []
    i = 0
    while i < len(words):
        parts = words[i].split("-") if lang == "fr" and words[i] not in table else [words[i]]
        if not all(p in table or p in hundred for p in parts if p not in join):
            out.append(words[i])
            i += 1
            continue
        total, j = 0, i
        seen = False
        while j < len(words):
            word = words[j]
            pieces = word.split("-") if lang == "fr" and word not in table else [word]
            pieces = [p for p in pieces if p not in join or not seen]
            if seen and word in join and j + 1 < len(words) and words[j + 1] in table:
                j += 1
                continue
            if not pieces or not all(p in table or p in hundred for p in pieces):
                break
            if seen and not _joins(total, pieces[0], table, hundred, lang):
                break
            for piece in pieces:
                if piece in hundred:
                    total = max(total, 1) * 100
                elif lang == "fr" and piece in ("vingt", "vingts") and 1 < total % 100 < 10:
                    total = total - total % 100 + (total % 100) * 20
                else:
                    total += table[piece]
            seen = True
            j += 1
        if not seen:
            out.append(words[i])
            i += 1
            continue
        if j + 1 < len(words) and words[j] == _POINT[lang] and words[j + 1] in table:
            out.append(f"{total}.{table[words[j + 1]]}")
            j += 2
        else:
            out.append(str(total))
        i = j
    return out


def _joins(
    total: int, piece: str, table: dict[str, int], hundred: tuple[str, ...], lang: str
) -> bool:
    """Whether ``piece`` continues the number said so far ("twenty" + "five"), or
    starts another ("three" "fifteen": a time, 3:15)."""
    if piece in hundred:
        return 0 < total < 10 or (lang == "es" and total == 0)
    value = table[piece]
    rest = total % 100
    if rest == 0:
        return value < 100 or total == 0
    if lang == "fr" and ((rest in (60, 80) and value < 20) or (rest == 10 and value < 10)):
        return True  # soixante-dix, quatre-vingt-dix
    return rest % 10 == 0 and rest >= 20 and value < 10


def normalize_numbers(words: list[str], language: str | None) -> list[str]:
    """``words`` with spoken numbers as digits (English and the turn's language,
    ``es`` for ``es-MX``)."""
    language = base_language(language)
    words = [w.translate(_ARABIC_DIGITS) for w in words]
    words = month_ordinals(words, _MONTH)
    for lang in dict.fromkeys(["en", language or "en"]):
        if lang in _TABLES:
            words = _thousands(_spoken(words, lang), _THOUSAND[lang])
    return words


_THOUSAND = {"en": "thousand", "es": "mil", "fr": "mille"}


def _thousands(words: list[str], thousand: str) -> list[str]:
    """Digits around the word for a thousand as one number ("2 thousand 500" ->
    "2500", "mil" -> "1000", "mil 500" -> "1500")."""
    if thousand not in words:
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] != thousand:
            out.append(words[i])
            i += 1
            continue
        times = int(out.pop()) if out and out[-1].isdigit() and 0 < int(out[-1]) < 1000 else 1
        total = times * 1000
        i += 1
        if i < len(words) and words[i].isdigit() and int(words[i]) < 1000:
            total += int(words[i])
            i += 1
        out.append(str(total))
    return out


_DOSE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(?:like\s+)?(mg|mcg|µg|milligrams?|miligramos?|milligrammes?|"
    r"micrograms?|microgramos?|microgrammes?|ملغ|ملغم|مغ|ملليغرام|units?|unidades|unites|"
    r"وحدة|ml|g|grams?|gramos?|grammes?|puffs?)(?!\w)"
)
_UNIT_NAME = {"mcg": "mcg", "µg": "mcg", "ml": "ml", "g": "g", "puff": "puffs"}


def dose_in(text: str) -> list[tuple[int, str]]:
    """The doses in ``text`` (digits already), as ``(offset, "20 mg")``."""
    out: list[tuple[int, str]] = []
    for match in _DOSE.finditer(text):
        amount = match.group(1).replace(",", ".")
        unit = match.group(2)
        if unit.startswith(("mil", "mg", "ملغ", "مغ", "ملل")):
            name = "mg"
        elif unit.startswith(("mic", "mcg", "µg")):
            name = "mcg"
        elif unit.startswith(("unit", "unid", "وحدة")):
            name = "units"
        elif unit.startswith("puff"):
            name = "puffs"
        else:
            name = _UNIT_NAME.get(unit, "g" if unit.startswith("gr") or unit == "g" else unit)
        out.append((match.start(), f"{amount} {name}"))
    return out


_MONTHS = {
    "en": "january february march april may june july august september october november december",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
    "fr": "janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre",
    "ar": "يناير فبراير مارس أبريل مايو يونيو يوليو أغسطس سبتمبر أكتوبر نوفمبر ديسمبر",
}
_WEEKDAYS = {
    "en": "monday tuesday wednesday thursday friday saturday sunday",
    "es": "lunes martes miercoles jueves viernes sabado domingo",
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche",
    "ar": "الاثنين الثلاثاء الأربعاء الخميس الجمعة السبت الأحد",
}
_MONTH = {w: i + 1 for names in _MONTHS.values() for i, w in enumerate(names.split())}
_MONTH.update({w[:3]: i + 1 for i, w in enumerate(_MONTHS["en"].split())})
_WEEKDAY = {w: i for names in _WEEKDAYS.values() for i, w in enumerate(names.split())}
_MONTH_RE = "|".join(sorted(_MONTH, key=len, reverse=True))
_DAY_RE = "|".join(sorted(_WEEKDAY, key=len, reverse=True))
_OFFSETS = [
    (r"day after tomorrow|pasado manana|apres-demain|بعد غد", 2),
    (r"day before yesterday|anteayer|antier|avant-hier|أول أمس|اول امس", -2),
    (r"tomorrow|(?<!la )(?<!por la )(?<!de la )\bmanana\b|\bdemain\b|غدا|غداً|بكرة", 1),
    (r"yesterday|\bayer\b|\bhier\b|أمس|امس|البارحة", -1),
    (r"\btoday\b|\bhoy\b|aujourd'hui|اليوم", 0),
]
_IN_N = re.compile(
    r"(?:\bin|\ben|\bdentro de|\bdans|بعد)\s+(\d+)\s+(days?|dias?|jours?|أيام|يوم|weeks?|semanas?|semaines?|أسابيع|أسبوع)"
)
_FOR_N = re.compile(
    r"(?:\bfor(?: about| the past| the last)?|desde hace|hace|depuis|منذ)\s+(\d+|a|an|un|une|una)\s+"
    r"(days?|dias?|jours?|أيام|weeks?|semanas?|semaines?|أسابيع|months?|meses|mois)"
)
_AR_COUNTS = {
    "يومين": 2,
    "ثلاثة أيام": 3,
    "أربعة أيام": 4,
    "خمسة أيام": 5,
    "أسبوع": 7,
    "أسبوعين": 14,
}
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:\s?(?:st|nd|rd|th))?\b")
_DAY_MONTH = re.compile(
    rf"(?<![\d:])(\d{{1,2}})(?:\s?(?:st|nd|rd|th|er))?\s+(?:of\s+|de\s+)?({_MONTH_RE})(?!\w)"
)
_AR_AHEAD = {"بعد يومين": 2, "بعد أسبوع": 7, "بعد أسبوعين": 14, "بعد شهر": 30}
_SLASH = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?(?![\d/])")
_WEEKDAY_RE = re.compile(
    rf"(?:(?:next|this coming|this|on|el proximo|el|este|ce|يوم)\s+)?(?<!\w)({_DAY_RE})(?!\w)"
    r"(?:\s+(?:prochain|que viene|القادم|المقبل))?"
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def _thanksgiving(year: int, weekend: bool) -> date:
    first = date(year, 11, 1)
    day = first + timedelta(days=(3 - first.weekday()) % 7 + 21)  # the fourth Thursday
    return day + timedelta(days=2) if weekend else day


def _holiday(text: str, now: date, past: bool) -> tuple[str, date] | None:
    """Thanksgiving (US), or the weekend after it: the last one for an onset, the next one else."""
    if "thanksgiving" not in text:
        return None
    weekend = "weekend after" in text
    day = _thanksgiving(now.year, weekend)
    if past and day > now:
        day = _thanksgiving(now.year - 1, weekend)
    elif not past and day < now:
        day = _thanksgiving(now.year + 1, weekend)
    return ("the weekend after thanksgiving" if weekend else "thanksgiving"), day


def find_slash_date(
    raw: str, now: datetime | None, *, day_first: bool, past: bool = False
) -> tuple[str, str | None] | None:
    """A date written with slashes in ``raw`` ("3/14", "12/5/2027"): month first
    in English, day first elsewhere (either way when only one order is a date)."""
    match = _SLASH.search(raw)
    if match is None:
        return None
    a, b = int(match.group(1)), int(match.group(2))
    month, day = (b, a) if day_first else (a, b)
    if month > 12 and day <= 12:
        month, day = day, month
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if now is None:
        return match.group(0), None
    today = now.date()
    year = match.group(3)
    try:
        if year:
            when = date(int(year) + (2000 if len(year) == 2 else 0), month, day)
        else:
            when = date(today.year, month, day)
            if not past and when <= today:
                when = date(today.year + 1, month, day)
            if past and when > today:
                when = date(today.year - 1, month, day)
    except ValueError:
        return match.group(0), None
    return match.group(0), when.isoformat()


def find_date(
    text: str, now: datetime | None, *, past: bool = False
) -> tuple[str, str | None] | None:
    """The first date ``text`` names, as said, and resolved to ISO when ``now`` allows.

    ``past`` reads a bare weekday or day of a month as the latest one before
    today (an onset) instead of the next one after it (an appointment).
    """
    today = now.date() if now else None
    if today is not None and (holiday := _holiday(text, today, past)):
        return holiday[0], holiday[1].isoformat()
    if match := _ISO.search(text):
        return match.group(0), match.group(0)
    for pattern, offset in _OFFSETS:
        if match := re.search(pattern, text):
            resolved = (today + timedelta(days=offset)).isoformat() if today else None
            return match.group(0), resolved
    if match := _IN_N.search(text):
        n = int(match.group(1)) * (7 if match.group(2)[0] in "wsأ" else 1)
        return match.group(0), (today + timedelta(days=n)).isoformat() if today else None
    for said, n in sorted(_AR_AHEAD.items(), key=lambda item: -len(item[0])):
        if said in text:
            return said, (today + timedelta(days=n)).isoformat() if today else None
    month_day = _MONTH_DAY.search(text) or _DAY_MONTH.search(text)
    if month_day:
        a, b = month_day.group(1), month_day.group(2)
        month, day = (_MONTH[a], int(b)) if a in _MONTH else (_MONTH[b], int(a))
        if not 1 <= day <= 31:
            return None
        if today is None:
            return month_day.group(0), None
        try:
            when = date(today.year, month, day)
            if not past and when <= today:
                when = date(today.year + 1, month, day)
            if past and when > today:
                when = date(today.year - 1, month, day)
        except ValueError:
            return month_day.group(0), None
        return month_day.group(0), when.isoformat()
    if match := _WEEKDAY_RE.search(text):
        if today is None:
            return match.group(0), None
        weekday = _WEEKDAY[match.group(1)]
        if past:
            back = (today.weekday() - weekday - 1) % 7 + 1
            return match.group(0), (today - timedelta(days=back)).isoformat()
        ahead = (weekday - today.weekday() - 1) % 7 + 1
        return match.group(0), (today + timedelta(days=ahead)).isoformat()
    return None


_SINCE = re.compile(r"\b(?:since|desde|depuis)\b|منذ")


def find_onset(text: str, now: datetime | None) -> tuple[str, str | None] | None:
    """When a symptom began: ("for three days" -> 3 days ago, "since last week" as said)."""
    today = now.date() if now else None
    if match := _FOR_N.search(text):
        count = match.group(1)
        n = int(count) if count.isdigit() else 1
        unit = match.group(2)
        n *= 7 if unit[0] in "wsأ" else 30 if unit[0] == "m" else 1
        return match.group(0), (today - timedelta(days=n)).isoformat() if today else None
    for said, n in _AR_COUNTS.items():
        if f"منذ {said}" in text:
            return f"منذ {said}", (today - timedelta(days=n)).isoformat() if today else None
    if re.search(r"(?:about|almost|nearly) a week|une semaine|una semana", text):
        return "a week", (today - timedelta(days=7)).isoformat() if today else None
    since = _SINCE.search(text)
    if since is None:
        return None
    tail = text[since.start() :]
    found = find_date(tail, now, past=True)
    if found is not None:
        at = tail.find(found[0])
        return (tail[: at + len(found[0])] if at >= 0 else found[0]), found[1]
    said = " ".join(tail.split()[:5])
    return said, None


_CLOCK = re.compile(
    r"(?<![\d.])(\d{1,2})(?:[:h](\d{2})|h\b| (\d{2})\b)?\s*(am|pm|a m|p m|heures?)?"
)
_AFTERNOON = re.compile(
    r"afternoon|evening|tonight|de la tarde|de la noche|du soir|de l'apres-midi|مساء"
)


def find_time(text: str) -> str | None:
    """The clock time ``text`` names after "at" / "a las" / "à" / "الساعة" ("14:00")."""
    cue = re.search(r"\bat\b|\ba las?\b|\bà\b|\ba\b(?= \d)|الساعة|,", text)
    scope = text[cue.end() :] if cue else text
    for match in _CLOCK.finditer(scope):
        hour, minute = int(match.group(1)), match.group(2) or match.group(3)
        meridiem = (match.group(4) or "").replace(" ", "")
        tail = scope[match.end() : match.end() + 30]
        if not (meridiem or minute or match.group(0).endswith("h") or cue):
            continue
        if minute is None and meridiem.startswith("heure"):
            said = re.match(r"\s*(\d{1,2})\b", tail)  # "quatorze heures trente"
            minute = f"{int(said.group(1)):02d}" if said and int(said.group(1)) < 60 else None
        if minute is None:
            if "y media" in tail[:10] or "et demie" in tail[:12] or "and a half" in tail[:14]:
                minute = "30"
            elif "y cuarto" in tail[:10] or "et quart" in tail[:12]:
                minute = "15"
        if hour > 23 or (minute and int(minute) > 59):
            continue
        if meridiem == "pm" or (_AFTERNOON.search(tail) and hour < 12):
            hour = hour + 12 if hour < 12 else hour
        if meridiem == "am" and hour == 12:
            hour = 0
        return f"{hour:02d}:{minute or '00'}"
    if re.search(r"\b(?:noon|midday|mediodia|midi)\b|الظهر", text):
        return "12:00"
    return None
