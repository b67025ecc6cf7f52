"""The pure core of recall: terms, the query, BM25, fusion, spreading, the block."""

import math
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from unimem import MemoryEntry, MemoryHit
from unimem.recall import build_query, format_hit, recall_block, select_hits, terms
from unimem.recall.index import BM25_B, BM25_K1, TermIndex
from unimem.recall.rank import SESSION_DECAY, diversify, fuse, recency_factor

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_terms_fold_case_accents_plurals_and_drop_common_words():
    assert terms("The Cardiólogo said my HEADACHES are worse") == [
        "cardiologo",
        "said",
        "headache",
        "worse",
    ]
    assert terms("l'endocrinologue m'a dit") == ["endocrinologue", "dit"]
    assert terms("the doctor's note, 5.2 at 10:30") == ["doctor", "note", "5.2", "10:30"]


def test_terms_cut_cjk_into_bigrams_and_keep_other_scripts_whole():
    assert terms("头痛了") == ["头痛", "痛了"]
    assert terms("钾") == ["钾"]
    assert terms("頭痛 두통이") == ["頭痛", "두통", "통이"]
    assert terms("हृदय रोग विशेषज्ञ") == ["हृदय", "रोग", "विशेषज्ञ"]  # vowel signs kept
    assert terms("وَالقلب") == ["قلب"]  # marks, "and" and the article removed


def test_a_short_follow_up_reads_the_turns_before_it():
    query = build_query("and the dose?", ["hello", "let's talk about my metformin"])
    assert query.question_terms == ("dose",)
    assert query.context_terms["metformin"] == 0.5 and query.context_terms["hello"] == 0.3
    assert query.text.startswith("let's talk about my metformin")
    assert build_query("hi").empty is False and build_query("the and of").empty


def test_bm25_prefers_rare_terms_and_forgets_removed_documents():
    index: TermIndex[str] = TermIndex()
    index.add("a", "metformin dose changed")
    index.add("b", "the weather changed again")
    index.add("c", "changed the channel")
    [(best, _), *_] = index.search(["metformin", "changed"], limit=3)
    assert best == "a"
    index.remove("a")
    assert [k for k, _ in index.search(["metformin"], limit=3)] == []
    assert len(index) == 2 and "a" not in index


def _bm25_every_posting(docs: dict[int, list[str]], query: list[str]) -> dict[int, float]:
    """BM25 scored the plain way: every posting of every query term."""
    count = len(docs)
    average = sum(map(len, docs.values())) / count
    scores: dict[int, float] = {}
    for term in dict.fromkeys(query):
        having = [key for key, words in docs.items() if term in words]
        if not having:
            continue
        idf = math.log(1 + (count - len(having) + 0.5) / (len(having) + 0.5))
        for key in having:
            tf = docs[key].count(term)
            norm = 1 - BM25_B + BM25_B * len(docs[key]) / average
            scores[key] = scores.get(key, 0.0) + idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * norm)
    return scores


def test_bm25_top_k_skipping_common_terms_equals_scoring_every_posting():
    """The MaxScore shortcut returns the same keys and scores as scoring every
    posting, with and without a filter, on a corpus of common and rare words."""
    rng = random.Random(3)
    common = ["dose", "pill", "today", "doctor"]
    rare = [f"rare{i}" for i in range(40)]
    docs = {
        key: rng.choices(common, k=rng.randint(1, 6)) + rng.choices(rare, k=rng.randint(0, 2))
        for key in range(600)
    }
    index: TermIndex[int] = TermIndex()
    for key, words in docs.items():
        index.add(key, " ".join(words))
    for _ in range(30):
        query = rng.sample(rare, 2) + rng.sample(common, 2)
        for limit, accept in (
            (10, None),
            (25, lambda key: key % 3 != 0),
            (10, lambda key: key < 60),  # most keys refused, as a session's own turns are
        ):
            expected = _bm25_every_posting(docs, query)
            ranked = sorted(
                ((k, v) for k, v in expected.items() if accept is None or accept(k)),
                key=lambda item: item[1],
                reverse=True,
            )[:limit]
            asked: list[int] = []

            def counted(
                key: int, accept: Callable[[int], bool] | None = accept, asked: list[int] = asked
            ) -> bool:
                asked.append(key)
                return accept is None or accept(key)

            found = index.search(query, limit=limit, accept=counted if accept else None)
            assert len(asked) == len(set(asked))  # each key is judged once
            assert [round(v, 9) for _, v in found] == [round(v, 9) for _, v in ranked]
            assert {k for k, _ in found} <= {k for k, v in ranked} | {
                k for k, v in expected.items() if round(v, 9) == round(ranked[-1][1], 9)
            }


def test_fusion_adds_reciprocal_ranks_with_weights():
    scores = fuse({"q": (1.0, ["x", "y"]), "c": (0.5, ["y"])}, k=60)
    assert scores["y"] > scores["x"]
    assert abs(scores["x"] - 1 / 61) < 1e-12


def test_recency_and_session_spread():
    assert recency_factor(NOW, NOW) > recency_factor(NOW - timedelta(days=120), NOW) > 1.0
    assert recency_factor(None, NOW) == 1.0
    spread = dict(diversify([("a1", 1.0, "A"), ("a2", 0.99, "A"), ("b1", 0.9, "B")]))
    assert spread["a2"] == 0.99 * SESSION_DECAY and spread["b1"] == 0.9
    assert list(dict(diversify([("a1", 1.0, "A"), ("a2", 0.99, "A"), ("b1", 0.9, "B")]))) == [
        "a1",
        "b1",
        "a2",
    ]


def _hit(text: str, day: int, mode: str = "voice") -> MemoryHit:
    entry = MemoryEntry(
        id=f"e{day}",
        session_id=f"s{day}",
        role="user",
        content=text,
        mode=mode,
        timestamp=datetime(2026, 5, day, 9, tzinfo=UTC),
    )
    return MemoryHit(
        kind="entry",
        entry=entry,
        id=entry.id,
        session_id=entry.session_id,
        timestamp=entry.timestamp,
        score=1.0,
        snippet=text,
    )


def test_the_block_is_dated_oldest_first_within_budget_and_empty_without_hits():
    hits = [_hit("newer  line", 9), _hit("older line", 8, "text"), _hit("x " * 400, 10)]
    chosen = select_hits(hits, 30, lambda line: len(line.split()))
    assert [h.id for h in chosen] == ["e8", "e9"]  # the long one did not fit
    block = recall_block(chosen, ["keyword"])
    assert block.splitlines()[1:] == [
        "[2026-05-08, text] user: older line",
        "[2026-05-09, voice] user: newer line]",
    ]
    assert "(keyword)" in block.splitlines()[0]
    assert recall_block([], ["keyword"]) == ""
    assert format_hit(_hit("a", 8)).startswith("[2026-05-08, voice] user: ")
