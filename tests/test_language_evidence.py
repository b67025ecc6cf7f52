"""Skipping lingua when the function words alone decide (``exact_confidence=False``).

From a lead of ``DECISIVE_LEAD`` hits over every other Latin-script language,
no lingua probabilities can change the label ``detect_latin`` gives; these tests
check the scoring against adversarial probabilities, the same labels on every
text the equivalence tests use, and that lingua is (not) asked.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from test_language_equivalence import _ODD, _TEXTS, _variants, reference_detect
from unimem.language import detector, latin_evidence, lingua_model, policy
from unimem.language.detector import (
    DECISIVE_LEAD,
    EVIDENCE_WEIGHT,
    MIN_CONFIDENCE,
    PROBABILITY_FLOOR,
    Detection,
    detect,
)
from unimem.models import MemoryEntry, SessionInfo

_N = len(latin_evidence._LATIN)
_LONG = (
    "I have been taking the blood pressure medication every morning but I feel dizzy after lunch"
)


# -- the scoring, for every lingua output -------------------------------------------


def test_the_lead_is_derived_from_the_constants():
    assert DECISIVE_LEAD is not None
    lead = DECISIVE_LEAD
    beats = EVIDENCE_WEIGHT * lead > math.log((1 + PROBABILITY_FLOOR) / PROBABILITY_FLOOR)
    spread = (
        (1 + PROBABILITY_FLOOR * (_N - 1)) / PROBABILITY_FLOOR * math.exp(-EVIDENCE_WEIGHT * lead)
    )
    assert beats and 1 / (1 + spread) >= MIN_CONFIDENCE
    assert lead == 5  # with the weights of today: W = 1, floor 0.01, seven languages


def test_one_hit_less_is_not_decisive():
    """At DECISIVE_LEAD - 1, lingua's probabilities can put the winner below the floor."""
    assert DECISIVE_LEAD is not None
    hits = [0] * _N
    hits[0] = DECISIVE_LEAD - 1
    probability = [0.0] * _N
    probability[1] = 1.0  # all on the runner-up, none on the evidence's winner
    best, confidence = latin_evidence._weigh(probability, hits)
    assert best != 0 or confidence < MIN_CONFIDENCE


@st.composite
def decisive(draw: st.DrawFn) -> tuple[list[int], int, list[float]]:
    """Hits where ``b`` leads by at least DECISIVE_LEAD, and lingua probabilities
    (each >= 0, summing to at most 1) that often favour someone else."""
    assert DECISIVE_LEAD is not None
    b = draw(st.integers(0, _N - 1))
    hits = draw(st.lists(st.integers(0, 60), min_size=_N, max_size=_N))
    hits[b] = max(h for j, h in enumerate(hits) if j != b) + draw(
        st.integers(DECISIVE_LEAD, DECISIVE_LEAD + 4) | st.integers(DECISIVE_LEAD, 150)
    )
    kind = draw(st.sampled_from(["random", "runner-up", "other", "none"]))
    probability = [0.0] * _N
    if kind == "random":
        weights = draw(st.lists(st.floats(0, 1), min_size=_N, max_size=_N))
        total = sum(weights)
        mass = draw(st.floats(0, 1))
        if total > 0:
            probability = [mass * w / total for w in weights]
        if draw(st.booleans()):
            probability[b] = 0.0
    elif kind != "none":
        others = [j for j in range(_N) if j != b]
        if kind == "runner-up":
            target = max(others, key=lambda j: (hits[j], -j))
        else:
            target = draw(st.sampled_from(others))
        probability[target] = draw(st.floats(0.5, 1))
    return hits, b, probability


def _adversarial(hits: list[int], b: int) -> list[float]:
    probability = [0.0] * _N
    runner = max((j for j in range(_N) if j != b), key=hits.__getitem__)
    probability[runner] = 1.0
    return probability


@given(decisive())
@example(([5, 0, 0, 0, 0, 0, 0], 0, [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
@example(([0, 0, 0, 0, 0, 0, 5], 6, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]))
@example(([4, 4, 4, 4, 4, 4, 9], 6, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]))
@example(([9, 4, 4, 4, 4, 4, 4], 0, [0.0, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6]))
def test_a_decisive_lead_decides_whatever_lingua_says(case):
    hits, b, probability = case
    assert min(probability) >= 0 and sum(probability) <= 1 + 1e-12
    best, confidence = latin_evidence._weigh(probability, hits)
    # what detect_latin reads: the best, its evidence and the confidence floor
    assert best == b
    assert hits[best] > 0
    assert confidence >= MIN_CONFIDENCE
    lowest = latin_evidence._lowest_confidence(hits, b)
    assert MIN_CONFIDENCE <= lowest <= confidence + 1e-12


@given(decisive())
def test_the_lowest_confidence_is_what_the_worst_lingua_output_gives(case):
    hits, b, _ = case
    _, worst = latin_evidence._weigh(_adversarial(hits, b), hits)
    assert math.isclose(latin_evidence._lowest_confidence(hits, b), worst, rel_tol=1e-8)


# -- the same labels on every text ----------------------------------------------

_ALL = _TEXTS + _ODD + _variants(_TEXTS + _ODD, 3000)


def test_the_same_label_with_and_without_lingua_on_every_text():
    skipped = 0
    wrong = []
    for text in _ALL:
        exact, fast = detect(text), detect(text, exact_confidence=False)
        if fast.language != exact.language:
            wrong.append((text, exact, fast))
        elif fast.reason == "evidence" or (
            fast.reason == "romanized"
            and not math.isclose(fast.confidence, exact.confidence, rel_tol=0.0, abs_tol=1e-9)
        ):  # lingua skipped: the lowest confidence it could have given
            skipped += 1
            if not MIN_CONFIDENCE <= fast.confidence <= exact.confidence + 1e-9:
                wrong.append((text, exact, fast))
        elif not (
            fast.reason == exact.reason
            and math.isclose(fast.confidence, exact.confidence, rel_tol=0.0, abs_tol=1e-9)
        ):
            wrong.append((text, exact, fast))
    assert not wrong, wrong[:5]
    assert skipped > 300  # the long typed turns, mostly


def test_the_exact_detection_is_the_reference_one():
    """detect() as before: the token-by-token reference (which always asks lingua)."""
    for text in _TEXTS:
        got, want = detect(text), reference_detect(text)
        assert (got.language, got.reason) == (want.language, want.reason), text
        assert math.isclose(got.confidence, want.confidence, rel_tol=0.0, abs_tol=1e-9), text


def test_lingua_probabilities_sum_to_at_most_one_over_latin():
    """The mass bound the proof rests on (``_LINGUA_MASS``)."""
    lingua = lingua_model.lingua_detector()
    for text in _TEXTS[:300]:
        values = lingua.compute_language_confidence_values(text)
        assert all(v.value >= 0 for v in values)
        assert sum(v.value for v in values) <= latin_evidence._LINGUA_MASS, text


# -- lingua is asked only when needed --------------------------------------------


class _NoLingua:
    def compute_language_confidence_values(self, text: str) -> list[object]:
        raise AssertionError(f"lingua asked about {text!r}")


@pytest.fixture
def no_lingua(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lingua_model, "_detector", _NoLingua())


def test_a_long_decisive_sentence_skips_lingua(no_lingua: None):
    found = detect(_LONG, exact_confidence=False)
    assert (found.language, found.reason) == ("en", "evidence")
    assert found.confidence >= MIN_CONFIDENCE
    assert detector.detect_language("je suis très fatigué depuis hier soir et j'ai mal") == "fr"


@pytest.mark.parametrize("text", ["my head hurts", "I feel dizzy", "la casa"])
def test_a_short_text_asks_lingua(no_lingua: None, text: str):
    with pytest.raises(AssertionError, match="lingua asked"):
        detect(text, exact_confidence=False)


def test_the_exact_detection_always_asks_lingua(no_lingua: None):
    with pytest.raises(AssertionError, match="lingua asked"):
        detect(_LONG)


# -- the service's policy ---------------------------------------------------------


class _Store:
    def __init__(self, language: str | None) -> None:
        self.language = language

    async def get_session(self, session_id: str) -> SessionInfo | None:
        now = datetime.now(UTC)
        return SessionInfo(
            session_id=session_id,
            user_id="u",
            started_at=now,
            last_active_at=now,
            current_language=self.language,
        )


async def test_the_policy_decides_as_with_the_exact_detection(monkeypatch: pytest.MonkeyPatch):
    def exact(text: str, *, exact_confidence: bool = True) -> Detection:
        return detect(text)

    async def decide_all() -> list[tuple[object, ...]]:
        out = []
        for text in _TEXTS:
            for current in (None, "en", "es", "pt-BR"):
                for explicit in (None, "fr"):
                    entry = MemoryEntry(
                        session_id="s", role="user", content=text, language=explicit
                    )
                    decided, trigger = await policy.apply_language_policy(
                        entry, None, _Store(current)
                    )
                    out.append((decided.language, decided.detected_language, trigger))
        return out

    fast = await decide_all()
    monkeypatch.setattr(policy, "detect", exact)
    assert await decide_all() == fast
