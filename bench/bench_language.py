"""Language detection and switch policy: accuracy, switch precision/recall, latency, memory.

Usage: python bench/bench_language.py [--reps 20]

Scores unimem's detector and policy on the labelled sets in
tests/data/language and compares them with an off-the-shelf baseline: lingua
with all defaults for the same 14 languages and no policy (every detected
language other than the session's is a switch). Resident memory is the RSS
growth of a fresh process after building the detector and running every
sample through it (so lazily loaded models are counted).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "language"
Detector = Callable[[str], "str | None"]
Decide = Callable[[str, "str | None"], "tuple[str | None, bool]"]


def rows(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def dialogues() -> list[dict]:
    return [
        dialogue
        for name in ("dialogues.json", "dialogues_holdout.json")
        for dialogue in json.loads((DATA / name).read_text(encoding="utf-8"))["dialogues"]
    ]


def accuracy(detect: Detector, items: list[list[str]]) -> float:
    return sum(detect(text) == lang for lang, _, text in items) / len(items)


def switch_scores(decide: Decide) -> tuple[float, float]:
    tp = fp = fn = 0
    for dialogue in dialogues():
        expected_current = current = None
        for text, label in dialogue["turns"]:
            expected = label is not None and expected_current not in (None, label)
            if label is not None:
                expected_current = label
            current, switched = decide(text, current)
            if switched and expected and current == label:
                tp += 1
            else:
                fp += switched
                fn += expected
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


def baseline_detector() -> Detector:
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    from unimem.language import SUPPORTED_LANGUAGES

    codes = [getattr(IsoCode639_1, c.upper()) for c in SUPPORTED_LANGUAGES]
    lingua = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()

    def detect(text: str) -> str | None:
        found = lingua.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found is not None else None

    return detect


def naive_decide(detect: Detector) -> Decide:
    def decide(text: str, current: str | None) -> tuple[str | None, bool]:
        found = detect(text)
        if found is None or found == current:
            return current, False
        return found, current is not None

    return decide


def latency(detect: Detector, texts: list[str], reps: int) -> tuple[float, float, float]:
    """Wall-clock p50 and p99, and the p99 of CPU time (what preemption does not inflate)."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(reps):
        for text in texts:
            start, start_cpu = time.perf_counter(), time.thread_time()
            detect(text)
            cpu.append(time.thread_time() - start_cpu)
            wall.append(time.perf_counter() - start)
    wall.sort()
    cpu.sort()
    p99 = int(len(wall) * 0.99)
    return wall[len(wall) // 2] * 1e3, wall[p99] * 1e3, cpu[p99] * 1e3


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_child(mode: str) -> None:
    """Run in a fresh process: RSS growth of building a detector and using it."""
    texts = [r[2] for r in rows("utterances.tsv")] + [r[1] for r in rows("no_language.tsv")]
    import lingua  # noqa: F401  (the library itself is not the detector's cost)

    import unimem.language.detector as det
    import unimem.language.lingua_model as model

    before = rss_mb()
    if mode == "baseline":
        fn: Detector = baseline_detector()
    else:
        if mode != "unimem":
            model._detector = det.build_lingua_detector(
                low_accuracy=mode == "low-accuracy", preload=mode == "preloaded"
            )
        fn = det.detect_language
    for text in texts:
        fn(text)
    print(f"{rss_mb() - before:.0f}")


def measure_rss(mode: str) -> str:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", mode], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def score(name: str, detect: Detector, decide: Decide, reps: int) -> dict[str, object]:
    utterances = rows("utterances.tsv") + rows("utterances_holdout.tsv")
    holdout = rows("utterances_holdout.tsv")
    none_rows = rows("no_language.tsv")
    texts = [r[2] for r in utterances] + [r[1] for r in none_rows]
    for text in texts:  # warm: lazily loaded models
        detect(text)
    precision, recall = switch_scores(decide)
    p50, p99, cpu_p99 = latency(detect, texts, reps)
    return {
        "detector": name,
        "accuracy": accuracy(detect, utterances),
        "short(2-5 words)": accuracy(detect, [r for r in utterances if r[1] == "short"]),
        "long": accuracy(detect, [r for r in utterances if r[1] == "long"]),
        "held-out": accuracy(detect, holdout),
        "none on confusers": sum(detect(t) is None for _, t in none_rows) / len(none_rows),
        "switch precision": precision,
        "switch recall": recall,
        "p50 ms": p50,
        "p99 ms": p99,
        "p99 ms (CPU time)": cpu_p99,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        rss_child(args.rss_child)
        return

    import unimem.language.detector as det
    import unimem.language.lingua_model as model
    from unimem.language import decide_language, detect_language

    def policy(text: str, current: str | None) -> tuple[str | None, bool]:
        decision = decide_language(text, current)
        return decision.language, decision.switched

    n = len(rows("utterances.tsv")) + len(rows("utterances_holdout.tsv"))
    print(
        f"{n} utterances ({len(rows('utterances_holdout.tsv'))} held out), "
        f"{len(rows('no_language.tsv'))} confusers, {len(dialogues())} dialogues "
        f"({sum(len(d['turns']) for d in dialogues())} user turns)\n"
    )
    results = [score("unimem (lingua high accuracy, lazy)", detect_language, policy, args.reps)]
    model._detector = det.build_lingua_detector(low_accuracy=True)
    results.append(score("unimem (lingua low accuracy)", detect_language, policy, args.reps))
    model._detector = None
    base = baseline_detector()
    results.append(
        score("baseline: lingua defaults, no policy", base, naive_decide(base), args.reps)
    )
    for result in results:
        print(result["detector"])
        for key, value in result.items():
            if key != "detector":
                shown = f"{value:.3f}" if isinstance(value, float) else value
                print(f"  {key:<22} {shown}")
    print("\nresident memory (RSS growth in a fresh process, MB):")
    for mode in ("unimem", "preloaded", "low-accuracy", "baseline"):
        print(f"  {mode:<14} {measure_rss(mode)}")
    print(
        "\nWall-clock p99 on a shared machine includes scheduler preemption; the CPU-time "
        "p99 is the detector's own worst case."
    )


if __name__ == "__main__":
    main()
