"""Numbers that identify someone: phones, SSNs, MRNs, member/account ids, ages over 89.

A number alone says little: "140 over 90" is a blood pressure, "500 mg" a dose,
"four four two nine one" could be anything. What it is comes from the words in
front of it (a *cue*: "m r n", "member id", "my number is", "social") and from
its shape (how many digits, letters mixed in). Numbers with no cue and fewer than
seven digits are left alone, which is what keeps doses and vital signs out.
"""

from __future__ import annotations

import re

from .phi_doc import SENTENCE_END, Doc, after_hint, scan, words

__all__ = ["find_ages", "find_identifiers"]

# Priority when several cues precede one number: the nearest specific cue wins;
# the generic "number" only decides when nothing else does.
_GENERIC = "NUMBER"
_NOT_PHI = "NOT_PHI"
_CUES: dict[tuple[str, ...], str] = {}


def _cues(type_: str, phrases: str) -> None:
    for phrase in phrases.split(","):
        _CUES[tuple(phrase.split())] = type_


_cues(
    "MRN",
    "mrn,m r n,medical record,record number,chart number,chart,patient id,patient number,"
    "hospital number,record,dossier,expediente,historia clínica,historial,رقم الملف,الملف,"
    "رقم المريض,ملف",
)
_cues(
    "SSN",
    "ssn,s s n,social security,social,seguro social,sécurité sociale,securite sociale,"
    "الضمان الاجتماعي",
)
_cues(
    "ACCOUNT",
    "member,member id,insurance,policy,account,group,subscriber,medicare,medicaid,plan,card,"
    "id,afiliado,póliza,poliza,cuenta,mutuelle,compte,carte vitale,adhérent,التأمين,تأمين,"
    "حساب,بطاقة",
)
_cues(
    "PHONE",
    "phone,telephone,area code,cell,mobile,call,reach,fax,teléfono,telefono,móvil,movil,celular,"
    "llámame,llamar,llame,téléphone,portable,appeler,appelez,هاتف,هاتفي,جوال,جوالي,اتصل,"
    "موبايل,تلفون",
)
_cues("ADDRESS", "zip,zip code,zipcode,postal code,postcode,código postal,code postal")
_cues("DATE", "born,birth,dob,d o b,birthday,admitted,nací,nacimiento,né,née,naissance")
# Numbers of things, not of people: a lot number is not a phone number.
_cues(
    _NOT_PHI,
    "lot,batch,ndc,tracking,order,confirmation,steps,model,version,reference,invoice,receipt",
)
_cues(_GENERIC, "number,numbers,número,numero,numéro,رقم,رقمي,no,#")
_LONGEST: dict[str, int] = {}
for _key in _CUES:
    _LONGEST[_key[0]] = max(_LONGEST.get(_key[0], 0), len(_key))
_CUE_FIRST = frozenset(_LONGEST)
#: The second words of the cues of two words or more, by first word.
_SECOND: dict[str, frozenset[str]] = {
    first: frozenset(k[1] for k in _CUES if len(k) > 1 and k[0] == first) for first in _LONGEST
}
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
#: Where a token of ASCII letters and digits has one next to the other.
_LETTER_DIGIT_RE = re.compile(r"[a-z][0-9]|[0-9][a-z]")
_GROUP_SEPARATORS = frozenset({",", "-", "dash", "hyphen", "guion", "tiret"})
_STOP = SENTENCE_END | {"and", "y", "et", "or", "o", "ou", "but", "pero", "mais"}

_AGE_AFTER = frozenset(words("years year yrs yr yo años año ans an سنة سنوات عاما عام"))
_AGE_BEFORE = frozenset(words("age aged turned turns turning عمري عمره عمرها edad âge"))
_PEOPLE = frozenset(
    words(
        "i he she father mother mom mum dad grandmother grandfather grandma grandpa wife husband "
        "patient aunt uncle brother sister son daughter friend neighbor neighbour"
    )
)
# Clinical shorthand: "93 y/o", "91yo", "95-yr-old".
_AGE_COMPACT_RE = re.compile(r"(?<![\d.])(9\d|1[01]\d|12[0-5])\s?-?(?:y/o|y\.o\.|yo|yrs?)(?![a-z])")
#: A "y" after a digit, maybe a space and maybe a hyphen (as in ``_AGE_COMPACT_RE``).
_AGE_HINT_RE = re.compile(r"y(?:(?<=\dy)|(?<=\d\sy)|(?<=\d-y)|(?<=\d\s-y))")
_BE = frozenset({"is", "was", "am", "i'm", "im", "he's", "she's", "'s"})
_UNITS = frozenset(
    words(
        "percent % mg milligrams milligram pounds lbs lb kg kilos degrees bpm over / point . "
        "beats mmhg units ml mcg grams g sobre sur على"
    )
)


def _cue_map(doc: Doc) -> tuple[dict[int, str], set[int]]:
    """Cue type by the index of each cue's last token, and every token inside a cue."""
    ends: dict[int, str] = {}
    inside: set[int] = set()
    if _CUE_FIRST.isdisjoint(doc.vocab):
        return ends, inside
    lows = doc.lows
    n = len(lows)
    i = 0
    # only a token that begins a cue can start one: visit those
    for at in [k for k, low in enumerate(lows) if low in _LONGEST]:
        if at < i:
            continue
        i = at
        top = min(_LONGEST[lows[i]], n - i)
        if top > 1 and lows[i + 1] not in _SECOND[lows[i]]:
            top = 1  # no longer cue starts with these two words
        for size in range(top, 0, -1):
            key = tuple(lows[i : i + size])
            type_ = _CUES.get(key)
            if type_ is not None and (size > 1 or len(key[0]) > 1 or key[0] == "#"):
                ends[i + size - 1] = type_
                inside.update(range(i, i + size))
                i += size
                break
        else:
            i += 1
    return ends, inside


def _cue_before(doc: Doc, start: int, ends: dict[int, str]) -> str | None:
    generic = False
    lows = doc.lows
    for k in range(start - 1, max(-1, start - 9), -1):
        low = lows[k]  # k >= 0
        if low in _STOP:
            break
        type_ = ends.get(k)
        if type_ == _GENERIC:
            generic = True
        elif type_ is not None:
            return type_
    return _GENERIC if generic else None


def _id_part_shapes(doc: Doc) -> list[int]:
    """Indices of the tokens shaped like an id part.

    That is a number, an ASCII letters-and-digits token ("a1234567", "1eg4"), a
    spelled letter ("x j h one two three") or a letter group glued to a number
    by a hyphen ("POL-5567"). Such a token is an id part while it is free and
    no cue word. The word tests are answered once per distinct word: single
    letters (lowercase: the text is normalized), and letters with digits, which
    need an ASCII letter next to a 0-9 digit in the text. The hyphen test only
    looks at the tokens right before a "-".
    """
    lows = doc.lows
    nums = doc.nums
    vocab = doc.vocab
    shaped = _ASCII_LETTERS.intersection(vocab)
    if doc.ascii_digit and _LETTER_DIGIT_RE.search(doc.norm):
        # most words are letters only: that test first
        shaped |= {w for w in vocab if not w.isalpha() and w.isalnum() and w.isascii()}
    found = [k for k, low in enumerate(lows) if nums[k] is not None or low in shaped]
    if "-" not in vocab:
        return found
    starts = doc.starts
    ends = doc.ends
    glued = [
        k - 1
        for k, low in enumerate(lows)
        if low == "-"
        and k > 0
        and ends[k - 1] == starts[k]
        and len(lows[k - 1]) <= 4
        and lows[k - 1].isalpha()
        and lows[k - 1].isascii()
    ]
    return sorted(set(found).union(glued)) if glued else found


def find_identifiers(doc: Doc) -> None:
    """Claim SSNs, MRNs, account ids and phone numbers (typed or spoken).

    Every type needs at least three digits, counted from number runs and from
    the 0-9 characters of the other tokens: without a run or an ASCII digit in
    the text there is nothing to classify. The scan for ids visits the tokens
    shaped like an id part (:func:`_id_part_shapes`) only, and a token is an id
    part when it has that shape, is free and is no cue word.
    """
    if not doc.runs and not doc.ascii_digit:
        return
    ends, cue_tokens = _cue_map(doc)
    lows = doc.lows
    nums = doc.nums
    used = doc.used
    n = len(lows)
    candidates = _id_part_shapes(doc)
    shaped = set(candidates)

    def part(k: int) -> bool:
        return k in shaped and not used[k] and k not in cue_tokens

    i = 0
    for at in candidates:
        if at < i:
            continue  # inside the group just read
        i = at
        if not part(i):
            i += 1
            continue
        j = i
        # After a cue, digit groups may be read with pauses: "555, 123, 4567",
        # "five five five dash one two three four". Without one they stay apart
        # ("my readings were 120, 135, 140"). Looked up once a separator follows
        # a number (_cue_before only reads tokens).
        grouped: bool | None = None
        while j + 1 < n:
            if part(j + 1):
                j += 1
            elif (lows[j + 1] == "-" and doc.starts[j + 1] == doc.ends[j] and part(j + 2)) or (
                lows[j + 1] in _GROUP_SEPARATORS
                and nums[j] is not None
                and not used[j + 1]
                and part(j + 2)
                and len(getattr(doc.run_at(j + 2), "digits", "")) >= 2
                and (
                    grouped
                    if grouped is not None
                    else (grouped := _cue_before(doc, i, ends) not in (None, _NOT_PHI))
                )
            ):
                j += 2
            else:
                break
        last = j
        while last >= i and nums[last] is None and not any(c.isdigit() for c in lows[last]):
            last -= 1  # spelled letters at the end are words ("... and i")
        start = i
        while start <= last and nums[start] is None and len(lows[start]) == 1:
            if (
                lows[start] in {"i", "a", "y", "o", "e"}
                and start + 1 <= last
                and nums[start + 1] is not None
            ):
                start += 1  # "a one c", "i one": a word before the number
                continue
            break
        i = j + 1
        if last < start:
            continue
        _classify(doc, start, last, _cue_before(doc, start, ends))


def _classify(doc: Doc, start: int, last: int, cue: str | None) -> None:
    if cue == _NOT_PHI:
        return
    digits = 0
    letters = False
    # the number runs within start..last count their digits; other tokens
    # (but separators and number words of runs reaching past last) are letters
    runs = doc.run_starts
    k = start
    while k <= last:
        run = runs.get(k)
        if run is not None and run.last <= last:
            digits += len(run.digits)
            k = run.last + 1
            continue
        low = doc.lows[k]
        if doc.nums[k] is None and low not in _GROUP_SEPARATORS:
            letters = True
            digits += sum(map(str.isdigit, low))
        k += 1
    type_: str | None = None
    if cue == "SSN" and 4 <= digits <= 15:  # US SSN 9, its last 4; French NIR 13-15
        type_ = "SSN"
    elif cue in ("MRN", "ACCOUNT") and (digits >= 4 or (letters and digits >= 3)):
        type_ = cue
    elif cue == "ADDRESS" and digits in (5, 9) and not letters:
        type_ = "ADDRESS"
    elif cue == "DATE" and 6 <= digits <= 8 and not letters:
        type_ = "DATE"
    elif 7 <= digits <= 15 and not letters:
        type_ = "PHONE"
    if type_ is None:
        return
    if type_ == "PHONE" and doc.low(start - 1) == "+" and doc.free(start - 1):
        start -= 1
    doc.claim(type_, start, last, 0.9 if cue and cue != _GENERIC else 0.75)


def _decimal_point(doc: Doc, k: int) -> bool:
    """Token ``k`` (a ".") sits between two numbers with no space: "93.5", not "93."."""
    j = k + 1
    return (
        j < len(doc.lows)
        and doc.nums[j] is not None
        and doc.starts[j] == doc.ends[k]
        and doc.ends[k - 1] == doc.starts[k]
    )


def find_ages(doc: Doc) -> None:
    """Claim ages of 90 and over ("i'm ninety two", "94 years old", "tengo 92 años").

    The compact form ("93 y/o") has a digit, maybe a space and a hyphen, then
    "y", that "y" within five characters of its start: it is searched from
    there (see :func:`~.phi_doc.scan`).
    """
    norm = doc.norm
    if doc.ascii_digit:
        for m in scan(_AGE_COMPACT_RE, norm, lambda pos: after_hint(_AGE_HINT_RE, norm, pos, 5)):
            doc.claim_chars("AGE_OVER_89", m.start(1), m.end(1), 0.85)
    for run in doc.runs:
        value = run.value
        if value is None or not 90 <= value <= 125 or not doc.free(run.first, run.last):
            continue
        after = run.last + 1
        while doc.low(after) == "-":
            after += 1
        nxt = doc.low(after)
        if nxt == "." and not _decimal_point(doc, after):
            nxt = ""  # "My grandfather is 102.": the sentence ends there
        if nxt in _UNITS:
            continue
        before = doc.low(run.first - 1)
        before2 = doc.low(run.first - 2)
        age = nxt in _AGE_AFTER
        age = age or before in _AGE_BEFORE or (before == ":" and before2 in _AGE_BEFORE)
        if not age and before == "be":
            before3 = doc.low(run.first - 3)
            age = before2 in {"she'll", "he'll", "i'll"} or (
                before2 in {"will", "would"} and before3 in _PEOPLE
            )
        if not age and before in _BE:
            subject = before2 if before != "am" else "i"
            if before in {"i'm", "im", "he's", "she's"} or subject in _PEOPLE:
                age = True
            else:
                # "my mom susan is ninety four", "My mother, Rosalind Achterberg, is 93"
                name = run.first - (3 if before2 == "," else 2)
                age = (
                    name >= 0
                    and doc.used[name]
                    and any(s.type == "PERSON" and s.end == doc.ends[name] for s in doc.spans)
                )
        if not age and before == "," and nxt in {",", ""}:
            # "My father George, 92, lives with us"
            age = run.first >= 2 and (before2 in _PEOPLE or doc.used[run.first - 2])
        if age:
            doc.claim("AGE_OVER_89", run.first, run.last, 0.85)
