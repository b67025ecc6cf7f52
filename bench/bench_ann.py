"""Approximate against exact dense search at 100,000 vectors: overlap, time, memory.

Usage: python bench/bench_ann.py [--rows 100000] [--k 30]

Two sets of ``--rows`` unit vectors of the built-in model (multilingual-e5-small),
searched with the recall evaluation set's questions (their ``query``
embeddings):

- ``bench``: the vectors ``bench/bench_recall.py`` stores, each user turn of
  the evaluation set repeated (about 200 copies of each of 500 sentences);
  copies tie, so overlap is counted by score: a hit counts when its cosine is
  at least the exact k-th best.
- ``distinct``: every vector different, each a random blend of two of those
  sentences' vectors with a little noise (a history with no repeats);
  overlap counts the same rows.

For each: the index's build seconds, its bytes, the p50 of one search
(index + exact re-scoring of its candidates, as the in-memory cache does) and
of the exact scan in the same run, and overlap@k (mean over questions).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from unimem.embeddings import LocalEmbedder
from unimem.service.vector_index import NPROBE, AnnIndex, list_count, nearest

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "recall" / "recall_eval.json"


def exact(rows: npt.NDArray[np.float32], query: npt.NDArray[np.float32], k: int) -> np.ndarray:
    scores = rows @ query
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def compare(name: str, rows: npt.NDArray[np.float32], queries: np.ndarray, k: int) -> None:
    t0 = time.perf_counter()
    index = AnnIndex.build(rows)
    built = time.perf_counter() - t0
    allowed = np.ones(len(rows), bool)
    by_rows, by_score, t_ann, t_exact = [], [], [], []
    for query in queries:
        t0 = time.perf_counter()
        got = nearest(index, rows, query, allowed, k)
        t_ann.append((time.perf_counter() - t0) * 1e3)
        t0 = time.perf_counter()
        want = exact(rows, query, k)
        t_exact.append((time.perf_counter() - t0) * 1e3)
        by_rows.append(len(set(got.tolist()) & set(want.tolist())) / k)
        kth = float(rows[want[-1]] @ query)
        by_score.append(float(np.sum(rows[got] @ query >= kth - 1e-6)) / k)
    print(
        f"{name:9s} rows={len(rows)} lists={list_count(len(rows))} nprobe={NPROBE} "
        f"build_s={built:.1f} index_mb={index.nbytes / 1e6:.1f} "
        f"matrix_mb={rows.nbytes / 1e6:.1f} ann_p50_ms={statistics.median(t_ann):.2f} "
        f"exact_p50_ms={statistics.median(t_exact):.2f} "
        f"overlap@{k}_rows={statistics.mean(by_rows):.3f} "
        f"overlap@{k}_score={statistics.mean(by_score):.3f}",
        flush=True,
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--k", type=int, default=30)
    args = parser.parse_args()
    print("load average", *(f"{v:.2f}" for v in os.getloadavg()))
    data = json.loads(DATA.read_text())
    turns = sorted(
        {t["content"] for u in data["users"] for s in u["sessions"] for t in s["turns"]
         if t["role"] == "user"}
    )  # fmt: skip
    questions = [q["question"] for u in data["users"] for q in u["questions"]]
    embedder = LocalEmbedder()
    made = np.concatenate(
        [await embedder.embed(turns[i : i + 32], kind="passage") for i in range(0, len(turns), 32)]
    )
    queries = await embedder.embed(questions, kind="query")
    rng = random.Random(7)  # the bench's own draw of sentences
    bench = made[[rng.randrange(len(turns)) for _ in range(args.rows)]]
    compare("bench", np.ascontiguousarray(bench), queries, args.k)
    gen = np.random.default_rng(7)
    a, b = gen.integers(0, len(turns), (2, args.rows))
    w = gen.random((args.rows, 1), dtype=np.float32)
    blend = w * made[a] + (1 - w) * made[b]
    blend += gen.standard_normal(blend.shape, dtype=np.float32) * 0.01
    blend /= np.linalg.norm(blend, axis=1, keepdims=True)
    compare("distinct", blend.astype(np.float32), queries, args.k)
    print("load average", *(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    asyncio.run(main())
