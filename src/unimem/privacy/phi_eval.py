"""Scoring of the PHI detector against a labelled set (used by the tests and the bench).

A labelled case is one JSON object per line::

    {"id": "tune-001", "lang": "en", "style": "spoken", "text": "...",
     "spans": [{"type": "PERSON", "start": 11, "end": 22, "text": "john carter"}]}

The sets are written as marked-up text (``{{john carter|PERSON}}``) in
``tests/data/phi/*.txt`` and converted with ``python -m unimem.privacy.phi_eval``.

Metric: a gold span is recalled when a finding of the same type overlaps it; a
finding is correct when it overlaps a gold span of the same type.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .phi import PhiFinding, detect_phi

__all__ = ["Case", "Score", "build_jsonl", "load_cases", "parse_marked", "score"]

_MARK_RE = re.compile(r"\{\{(.+?)\|([A-Z_0-9]+)\}\}")


@dataclass(frozen=True, slots=True)
class Case:
    """One labelled utterance: gold spans are (type, start, end)."""

    id: str
    lang: str
    style: str
    text: str
    spans: tuple[tuple[str, int, int], ...]


def parse_marked(marked: str) -> tuple[str, list[tuple[str, int, int]]]:
    """Turn ``"call {{555 1212|PHONE}}"`` into the plain text and its gold spans."""
    plain: list[str] = []
    spans: list[tuple[str, int, int]] = []
    pos = 0
    length = 0
    for m in _MARK_RE.finditer(marked):
        before = marked[pos : m.start()]
        plain.append(before)
        length += len(before)
        plain.append(m.group(1))
        spans.append((m.group(2), length, length + len(m.group(1))))
        length += len(m.group(1))
        pos = m.end()
    plain.append(marked[pos:])
    return "".join(plain), spans


def build_jsonl(source: Path, target: Path) -> int:
    """Convert a marked-up ``lang<TAB>style<TAB>text`` file into JSONL; returns the count."""
    split = source.stem
    out: list[str] = []
    for line in source.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, style, marked = line.split("\t")
        text, spans = parse_marked(marked)
        record = {
            "id": f"{split}-{len(out) + 1:03d}",
            "lang": lang,
            "style": style,
            "text": text,
            "spans": [{"type": t, "start": s, "end": e, "text": text[s:e]} for t, s, e in spans],
        }
        out.append(json.dumps(record, ensure_ascii=False))
    target.write_text("\n".join(out) + "\n", "utf-8")
    return len(out)


def load_cases(path: Path) -> list[Case]:
    """Read a JSONL labelled set."""
    cases = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            spans = tuple((s["type"], s["start"], s["end"]) for s in raw["spans"])
            cases.append(Case(raw["id"], raw["lang"], raw["style"], raw["text"], spans))
    return cases


@dataclass(slots=True)
class Score:
    """Counts per PHI type and the misses and false alarms, for reports."""

    gold: dict[str, int] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)
    predicted: dict[str, int] = field(default_factory=dict)
    correct: dict[str, int] = field(default_factory=dict)
    misses: list[tuple[str, str, str]] = field(default_factory=list)
    false_alarms: list[tuple[str, str, str]] = field(default_factory=list)

    @staticmethod
    def _ratio(num: int, den: int) -> float:
        return num / den if den else 1.0

    def recall(self, type_: str | None = None) -> float:
        """Share of gold spans (of ``type_``, or all) found with the right type."""
        if type_ is None:
            return self._ratio(sum(self.found.values()), sum(self.gold.values()))
        return self._ratio(self.found.get(type_, 0), self.gold.get(type_, 0))

    def precision(self, type_: str | None = None) -> float:
        """Share of findings (of ``type_``, or all) that match a gold span of that type."""
        if type_ is None:
            return self._ratio(sum(self.correct.values()), sum(self.predicted.values()))
        return self._ratio(self.correct.get(type_, 0), self.predicted.get(type_, 0))

    def types(self) -> list[str]:
        """Every type seen in the gold spans or the findings, sorted."""
        return sorted(set(self.gold) | set(self.predicted))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def score(
    cases: Iterable[Case],
    detector: Callable[[str, str | None], Sequence[PhiFinding]] = detect_phi,
) -> Score:
    """Run ``detector`` on every case and count matches (span overlap, same type)."""
    result = Score()
    for case in cases:
        findings = detector(case.text, case.lang)
        for type_, start, end in case.spans:
            result.gold[type_] = result.gold.get(type_, 0) + 1
            if any(f.type == type_ and _overlaps((f.start, f.end), (start, end)) for f in findings):
                result.found[type_] = result.found.get(type_, 0) + 1
            else:
                result.misses.append((case.id, type_, case.text[start:end]))
        for f in findings:
            result.predicted[f.type] = result.predicted.get(f.type, 0) + 1
            if any(t == f.type and _overlaps((f.start, f.end), (s, e)) for t, s, e in case.spans):
                result.correct[f.type] = result.correct.get(f.type, 0) + 1
            else:
                result.false_alarms.append((case.id, f.type.value, f.text))
    return result


if __name__ == "__main__":  # pragma: no cover - maintenance command
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/phi")
    for src in sorted(folder.glob("*.txt")):
        count = build_jsonl(src, src.with_suffix(".jsonl"))
        print(f"{src.with_suffix('.jsonl')}: {count} cases")
