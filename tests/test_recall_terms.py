"""The ASCII path of recall.search_terms.terms finds the terms the general one finds."""

from __future__ import annotations

import json
import string
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from unimem.recall import search_terms

DATA = Path(__file__).parent / "data"
_PIECES = [*string.printable, "3.5", "1,000", "10:30", "don't", "l'eau", "it's", "mg", " "]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_ascii_text_gets_the_general_terms(text: str) -> None:
    assert text.isascii()
    assert search_terms.terms(text) == search_terms._terms_of_any_script(text)


def test_the_labelled_texts_get_the_general_terms() -> None:
    texts = [
        json.loads(line)["text"]
        for path in sorted((DATA / "phi").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    ascii_texts = [t for t in texts if t.isascii()]
    assert len(ascii_texts) > 300
    for text in ascii_texts:
        assert search_terms.terms(text) == search_terms._terms_of_any_script(text), text
