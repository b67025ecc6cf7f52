"""PHI detector quality and speed on the labelled sets in tests/data/phi/.

Usage: python bench/bench_phi.py [--runs 2000] [--sets tune,heldout,challenge,blind]

Prints recall and precision per PHI type and overall for each set (span
overlap, same type: the scoring of ``unimem.privacy.phi_eval``, which the tests
use too), then the latency of ``detect_phi`` and ``redact`` on 30-word
utterances (p50/p99 in milliseconds), and the misses and false alarms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from unimem.privacy import PhiTokenMap, detect_phi, redact
from unimem.privacy.phi_eval import Score, load_cases, score

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "phi"

# 30-word utterances, typed and spoken, with and without PHI.
UTTERANCES = [
    "hi my name is john carter and my date of birth is march third nineteen fifty two "
    "and you can reach me at five five five one two one two thanks",
    "I have had Parkinson's disease for six years and I take carbidopa levodopa 25/100 "
    "three times a day, my blood pressure this morning was 140 over 90, pulse 72.",
    "my daughter sophie says i should ask doctor patel about the metformin five hundred "
    "milligrams because my sugar was two hundred and ten after dinner last night okay",
    "Please call me at (617) 555-0142 or email t.becker58@gmail.com, MRN 00482913, member "
    "ID XQK928374615, I live at 88 Willow Lane, Cambridge, MA 02139 and my wife Anna "
    "drives me to the clinic.",
    "me llamo lucía fernández y mi teléfono es seis cero cinco cuatro cuatro uno dos tres "
    "nueve y tengo noventa y dos años y diabetes desde hace mucho",
    "je m'appelle pierre dubois mon numéro est le zéro six douze trente-quatre cinquante-six "
    "soixante-dix-huit et j'ai de l'hypertension depuis dix ans, le docteur Martin m'a "
    "prescrit du ramipril cinq milligrammes merci",
]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(name: str, result: Score) -> None:
    total_gold = sum(result.gold.values())
    print(
        f"\n{name}: {total_gold} gold spans, recall {result.recall():.3f},"
        f" precision {result.precision():.3f}"
    )
    print(f"  {'type':<12} {'gold':>5} {'recall':>7} {'found':>6} {'precision':>9}")
    for type_ in result.types():
        print(
            f"  {type_:<12} {result.gold.get(type_, 0):>5} {result.recall(type_):>7.3f}"
            f" {result.predicted.get(type_, 0):>6} {result.precision(type_):>9.3f}"
        )
    for case_id, type_, text in result.misses:
        print(f"  miss        {case_id} {type_}: {text!r}")
    for case_id, type_, text in result.false_alarms:
        print(f"  false alarm {case_id} {type_}: {text!r}")


def latency(runs: int) -> None:
    for utterance in UTTERANCES:
        assert 28 <= len(utterance.split()) <= 32, len(utterance.split())
    detect_phi(UTTERANCES[0])  # the lexicon loads once, lazily: keep it out of the figures
    for label, call in (
        ("detect_phi", lambda text: detect_phi(text)),
        ("redact", lambda text: redact(text, mapping=PhiTokenMap())),
    ):
        samples: list[float] = []
        for i in range(runs):
            text = UTTERANCES[i % len(UTTERANCES)]
            t0 = time.perf_counter()
            call(text)
            samples.append((time.perf_counter() - t0) * 1000)
        print(
            f"{label:<11} 30-word utterance: p50 {statistics.median(samples):.3f} ms,"
            f" p99 {pct(samples, 0.99):.3f} ms ({runs} runs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--sets", default="tune,heldout,challenge,blind")
    args = parser.parse_args()
    combined = Score()
    for name in args.sets.split(","):
        result = score(load_cases(DATA / f"{name}.jsonl"))
        report(name, result)
        for field in ("gold", "found", "predicted", "correct"):
            mine, theirs = getattr(combined, field), getattr(result, field)
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
    print(f"\nall sets: recall {combined.recall():.3f}, precision {combined.precision():.3f}\n")
    latency(args.runs)


if __name__ == "__main__":
    main()
