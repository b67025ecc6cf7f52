"""Cost of the facts rules per turn on the write path.

Usage: PYTHONPATH=src python bench/bench_facts.py [--reps 5]

Replays every turn of the labelled clinical dialogues (tests/data/clinical,
every split: 3,600+ turns of voice and typed text in English, Spanish,
French and Arabic) through ``extract_facts`` with the facts current at that
point, and through doing nothing (a call of the same shape that returns no
change), in the same run. Prints p50 / p99 / mean microseconds per turn and
the first call's cost (the vocabulary is read on first use). The "cpu time"
line counts the thread's CPU time only: on a busy machine the wall-clock p99
includes the time the process waited for a core.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from unimem.facts import FactChange, extract_facts

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "clinical"


@dataclass
class Held:
    id: str
    kind: str
    key: str | None
    value: str | None
    attributes: dict[str, str] = field(default_factory=dict)


def nothing(
    text: str,
    *,
    role: str,
    language: str | None,
    current: Sequence[Any],
    now: datetime | None = None,
) -> list[FactChange]:
    return []


def turns() -> list[tuple[str, str, str, datetime, list[Held]]]:
    """Every turn with the facts current before it (as the rules leave them)."""
    out = []
    for split in ("tune", "tune2", "heldout"):
        for dialogue in json.loads((DATA / f"{split}.json").read_text(encoding="utf-8")):
            now = datetime.fromisoformat(dialogue["now"])
            held: dict[str, Held] = {}
            for turn in dialogue["turns"]:
                current = list(held.values())
                out.append((turn["text"], turn["role"], dialogue["language"], now, current))
                for change in extract_facts(
                    turn["text"],
                    role=turn["role"],
                    language=dialogue["language"],
                    current=current,
                    now=now,
                ):
                    if change.op == "close":
                        held.pop(change.key, None)
                    else:
                        held[change.key] = Held(
                            f"f{len(out)}",
                            change.kind,
                            change.key,
                            change.value,
                            dict(change.attributes),
                        )
    return out


def measure(
    fn: Callable[..., list[FactChange]], cases: list[Any], reps: int, clock: Callable[[], int]
) -> list[float]:
    times: list[float] = []
    for _ in range(reps):
        for text, role, language, now, current in cases:
            start = clock()
            fn(text, role=role, language=language, current=current, now=now)
            times.append((clock() - start) / 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    start = time.perf_counter()
    extract_facts("I take lisinopril 10 mg", role="user", language="en", current=[])
    first_ms = (time.perf_counter() - start) * 1000
    every = turns()
    measure(
        extract_facts, every, 1, time.perf_counter_ns
    )  # warm: each language's cues compile on first use
    users = [case for case in every if case[1] == "user"]
    for label, cases in (("all turns", every), ("user turns", users)):
        for name, fn, clock in (
            ("nothing", nothing, time.perf_counter_ns),
            ("extract_facts", extract_facts, time.perf_counter_ns),
            ("  (cpu time)", extract_facts, time.thread_time_ns),
        ):
            times = sorted(measure(fn, cases, args.reps, clock))
            p50 = statistics.median(times)
            p99 = times[int(0.99 * (len(times) - 1))]
            print(
                f"{label:10s} {name:14s} n={len(cases)} p50={p50:8.1f} µs  "
                f"p99={p99:8.1f} µs  mean={statistics.fmean(times):8.1f} µs"
            )
    print(f"first call (reads the vocabulary): {first_ms:.1f} ms")


if __name__ == "__main__":
    main()
