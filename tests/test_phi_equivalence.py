"""The PHI detector's fast paths find what the plain forms they replace find.

The detector skips work it can prove useless: it tokenizes chunk by chunk
instead of running the token pattern over the whole text, searches each
pattern from where its next match can begin instead of from every position,
folds accents with a translate table. These tests compare each fast path with
the plain form, written out here, on generated texts rich in digits,
separators and cue words.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from unimem.privacy import phi_dates, phi_numbers, phi_patterns
from unimem.privacy.phi_doc import Doc, Span, _cased, after_hint, scan
from unimem.privacy.phi_lexicon import fold, get_lexicon
from unimem.privacy.phi_number_words import _number_of
from unimem.privacy.phi_tokens import _TOKEN_RE, normalize, split

PIECES = [
    *"0123456789",
    *"0123456789",
    *"abcxyz",
    *"@.-/:+(),_' \n",
    "  ",
    "www.",
    "http://",
    ".com",
    ".org",
    "gmail",
    "y/o",
    "yo",
    "yrs",
    "-yr-old",
    " born ",
    " dob ",
    "555",
    "0142",
    "(617) ",
    "+1 ",
    "+34 ",
    "1952",
    "03/03/",
    "12/25",
    "2024-",
    "192.168.",
    "10.0.",
    "fe80:",
    "ff:",
    "É",
    "é",
    "İ",
    "٣",
    "۵",
    "²",
    "day,",
    "were.",
    "o'brien",
    "lucía",
    "hundred",
    " a ",
]

# Things the patterns look for, made by their own rules, glued with separators
# that make them match or not ("x192.168.0.1", "555-0142-9").
SHAPES = [
    st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){2,4}", fullmatch=True),
    st.from_regex(r"\+?1?[ .-]?\(?[0-9]{3}\)?[ .-]?[0-9]{3}[ .-][0-9]{4}", fullmatch=True),
    st.from_regex(r"\+[0-9]{1,3}([ .-]?[0-9]{1,4}){2,6}", fullmatch=True),
    st.from_regex(r"[0-9]{3}-[0-9]{2}-[0-9]{4}", fullmatch=True),
    st.from_regex(r"(9[0-9]|1[01][0-9]|12[0-5]|[0-9]) ?-?(y/o|y\.o\.|yo|yrs?)", fullmatch=True),
    st.from_regex(r"[0-9]{1,2}[/.-][0-9]{1,2}[/.-]([0-9]{4}|[0-9]{2})", fullmatch=True),
    st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|[0-9]{1,2}/[0-9]{1,2}", fullmatch=True),
    st.from_regex(
        r"[a-z0-9._%+-]{1,8}@[a-z0-9-]{1,6}(\.[a-z0-9-]{1,5}){0,2}\.[a-z]{2,4}", fullmatch=True
    ),
    st.from_regex(
        r"(https?://|www\.)?[a-z0-9-]{1,6}(\.[a-z0-9-]{1,5}){0,2}\.(com|org|io|health)(/[a-z0-9]{0,5})?",
        fullmatch=True,
    ),
    st.from_regex(r"([0-9a-f]{1,4}:){7}[0-9a-f]{1,4}", fullmatch=True),
    # \d is any decimal digit ("٣", "໘"): the patterns read those too
    st.from_regex(r"\d{1,3}(\.\d{1,3}){3}|\d{3}[ .-]\d{4}|\d{1,2}/\d{1,2}", fullmatch=True),
    st.sampled_from(PIECES),
]
GLUE = st.sampled_from([" ", " ", "", ",", ".", "-", "/", "a", "x", "9", "\n", "  ", " born "])
shaped = st.lists(st.tuples(st.one_of(*SHAPES), GLUE), max_size=8).map(
    lambda parts: "".join(shape + glue for shape, glue in parts)
)
texts = st.one_of(
    shaped,
    shaped,
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.text(max_size=120),
)


def _spans(doc: Doc) -> list[tuple[str, int, int, float]]:
    return [(s.type, s.start, s.end, s.score) for s in doc.spans]


def _doc(text: str) -> Doc:
    return Doc.build(text, get_lexicon(), None)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_split_is_the_token_pattern(text: str) -> None:
    norm = normalize(text)
    toks = split(norm)
    expected = [(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(norm)]
    assert list(zip(toks.lows, toks.starts, toks.ends, strict=True)) == expected
    nums = [_number_of(low) for low in toks.lows]
    for k in range(1, len(nums)):
        if toks.lows[k - 1] == "a" and toks.lows[k] in ("hundred", "thousand"):
            nums[k - 1] = ("d", 1)
    assert toks.nums == nums
    assert toks.numbered == [k for k, num in enumerate(nums) if num is not None]


def _plain_typed_patterns(doc: Doc) -> None:
    """find_typed_patterns as it was: every pattern over the whole text."""
    norm = doc.norm
    p = phi_patterns
    if "@" in norm:
        for m in p._EMAIL_RE.finditer(norm):
            doc.claim_chars("EMAIL", m.start(), m.end(), 0.99)
    if "." in norm:
        for m in p._IP_RE.finditer(norm):
            if all(int(part) <= 255 for part in m.group().split(".")):
                doc.claim_chars("IP_ADDRESS", m.start(), m.end(), 0.95)
        for m in p._URL_RE.finditer(norm):
            doc.claim_chars("URL", m.start(), m.end(), 0.95)
    if ":" in norm:
        for m in p._IPV6_RE.finditer(norm):
            doc.claim_chars("IP_ADDRESS", m.start(), m.end(), 0.95)
    if "-" in norm:
        for m in p._SSN_RE.finditer(norm):
            doc.claim_chars("SSN", m.start(), m.end(), 0.9)
    for regex in p._PHONE_RES:
        for m in regex.finditer(norm):
            if 7 <= sum(c.isdigit() for c in m.group()) <= 15:
                doc.claim_chars("PHONE", m.start(), m.end(), 0.9)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_typed_patterns_find_what_a_full_search_finds(text: str) -> None:
    fast, plain = _doc(text), _doc(text)
    phi_patterns.find_typed_patterns(fast)
    _plain_typed_patterns(plain)
    assert _spans(fast) == _spans(plain)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_numeric_dates_and_compact_ages_find_what_a_full_search_finds(text: str) -> None:
    fast, plain = _doc(text), _doc(text)
    # the month/day form looks for a token at the match (none after a letter: "a12/25")
    if any(m.start() not in plain.starts for m in phi_dates._MONTH_DAY_RE.finditer(plain.norm)):
        return
    if fast.digit:
        phi_dates._numeric_dates(fast)
    for index, regex in enumerate(phi_dates._NUMERIC_RES):
        for m in regex.finditer(plain.norm):
            a, b, c = (int(g) for g in m.groups())
            day_month = (a, b) if index == 0 else (c, b)
            if index == 1 and not 1 <= b <= 12:
                continue
            if index == 0 and not (
                (1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)
            ):
                continue
            if index == 0 and len(m.group(3)) == 2 and m.group().count(".") == 2:
                continue
            if all(1 <= v <= 31 for v in day_month):
                plain.claim_chars("DATE", m.start(), m.end(), 0.9)
    for m in phi_dates._MONTH_DAY_RE.finditer(plain.norm):
        a, b = int(m.group(1)), int(m.group(2))
        if not ((1 <= a <= 12 and 1 <= b <= 31) or (1 <= b <= 12 and 1 <= a <= 31)):
            continue
        first = plain.starts.index(m.start())
        if any(plain.low(k) in phi_dates._DATE_CUES for k in range(first - 4, first)):
            plain.claim_chars("DATE", m.start(), m.end(), 0.8)
    assert _spans(fast) == _spans(plain)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_compact_ages_are_searched_from_their_hint(text: str) -> None:
    norm = normalize(text)
    hinted = scan(
        phi_numbers._AGE_COMPACT_RE,
        norm,
        lambda pos: after_hint(phi_numbers._AGE_HINT_RE, norm, pos, 5),
    )
    plain = phi_numbers._AGE_COMPACT_RE.finditer(norm)
    assert [m.span(1) for m in hinted] == [m.span(1) for m in plain]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=30))
def test_fold_removes_combining_marks(word: str) -> None:
    plain = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    assert fold(word) == (word if word.isascii() else plain)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_cased_is_any_uppercase_letter(text: str) -> None:
    norm = normalize(text)
    assert _cased(text, norm) == (norm != text and any(c.isupper() for c in text))


def test_span_is_a_value_object() -> None:
    assert Span("DATE", 1, 2, 0.9) == Span("DATE", 1, 2, 0.9)
