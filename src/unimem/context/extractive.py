"""The offline summarizer: keep the sentences that carry facts.

A summary is a list of lines, ``- role: sentence``, in conversation order.
Each sentence is scored by what it carries (doses and units, allergies,
medications, diagnoses, dates and procedures, care instructions, names and
language preferences, decisions) against what it wastes (greetings, thanks,
small talk); the best sentences that fit the token budget are kept.

Corrections ("actually it's 20 mg, not 10") replace what they correct: the
corrected sentence is merged into the correction's line, so the summary keeps
one line that states the current value and nothing that states the stale one
alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..facts.cues import about_someone_else
from .tokens import content_text, count_text_tokens

__all__ = [
    "ExtractiveSummarizer",
    "SummaryLine",
    "apply_corrections",
    "digits",
    "parse_summary",
    "render_summary",
]

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?。！？؟])\s+|\n+")
_MAX_SENTENCE_WORDS = 40  # voice transcripts come unpunctuated: cut long runs

_FACT_TERMS = re.compile(
    r"\b(allerg\w*|anaphyla\w*|hives|rash|intoleran\w*|react\w*|"
    r"mg|mcg|µg|ml|units?|tablets?|pills?|capsules?|puffs?|drops?|inhaler|patch|"
    r"dose|dosage|doses|daily|twice|once|nightly|every|hours?|"
    r"prescri\w*|medica\w*|taking|take|takes|started|stopped|switched|"
    r"diagnos\w*|condition|disease|syndrome|disorder|cancer|tumou?r|diabet\w*|"
    r"hypertension|asthma|copd|arrhythmia|fibrillation|\w*thyroid\w*|epilep\w*|apnea|"
    r"\w+(?:itis|osis|emia|pathy|oma)|"
    r"migraines?|kidney|liver|heart|cholesterol|anemi\w*|pregnan\w*|"
    r"surgery|procedure|operation|biopsy|colonoscopy|endoscopy|scan|mri|ct|x-ray|"
    r"ultrasound|appointment|scheduled|follow-up|vaccin\w*|blood\s+test|"
    r"avoid|never|always|must|should|don't|do not|fasting|fast|"
    r"told (?:me )?to|instruct\w*|wants me to|(?:nurse|doctor) said|keep|check|monitor\w*|"
    r"elevat\w*|glucose|blood sugar|insulin|blood pressure|"
    r"call me|calls me|my name|name is|name's|known as|prefer\w*|language|speak|rather|"
    r"english|spanish|french|german|italian|portuguese|arabic|chinese|mandarin|cantonese|"
    r"hindi|urdu|japanese|korean|russian|turkish|"
    r"decided|decision|plan|agreed|will|goal|"
    r"alergi\w*|alérgi\w*|medicamento\w*|dosis|diagnóstico|cirugía|cita|"
    r"allergique|médicament\w*|diagnostic|chirurgie|rendez-vous|"
    r"allergie|medikament\w*|diagnose|operation|termin)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)"
)
# Digits, or numbers as a speech recognizer writes them ("seventy five").
_NUMBER = re.compile(rf"\d|\b{_NUMBER_WORDS}\b", re.IGNORECASE)
_UNIT = re.compile(
    rf"(\d\s*|\b{_NUMBER_WORDS}\s+)(mg|mcg|µg|g|ml|units?|iu|%|mmhg|kg|lbs?|"
    r"milligrams?|micrograms?|grams?|milliliters?|percent)\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|"
    r"sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|tomorrow|next week|\d{1,2}/\d{1,2}(/\d{2,4})?|"
    r"\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
_SELF = re.compile(r"\b(i|i'm|i've|my|me|mine)\b", re.IGNORECASE)
_CHATTER = re.compile(
    r"^\W*(hi|hello|hey|thanks|thank you|ok(ay)?|sure|great|cool|bye|goodbye|"
    r"good (morning|night|evening)|you're welcome|no problem|sounds good|got it|"
    r"hmm+|uh+|um+|yes|no|yeah|right|alright|lol|haha)\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(actually|correction|i meant|i mean|sorry,? (it'?s|it is|i meant)|"
    r"not \d|rather than|instead of|i was wrong|let me correct|correct that|misspoke|"
    r"mistake|got (?:that|it) wrong|en realidad|"
    r"en fait|eigentlich)\b",
    re.IGNORECASE,
)
_STALE_VALUE = re.compile(r"\bnot\s+(?:the\s+)?((?:[\w./-]+\s*){1,3})", re.IGNORECASE)
_CORRECTION_LOOKBACK = 80  # sentences searched back for what a correction corrects
_LINE = re.compile(r"^- (user|assistant|system|tool): (.*)$")


@dataclass(slots=True)
class SummaryLine:
    """One kept sentence: who said it, the text, its score and its position."""

    role: str
    text: str
    score: float
    order: int


def _sentences(text: str) -> list[str]:
    out: list[str] = []
    for raw in _SENTENCE_SPLIT.split(text.strip()):
        sentence = " ".join(raw.split())
        if not sentence:
            continue
        words = sentence.split(" ")
        for start in range(0, len(words), _MAX_SENTENCE_WORDS):
            out.append(" ".join(words[start : start + _MAX_SENTENCE_WORDS]))
    return out


_WORD = re.compile(r"[a-z][a-z'-]+")


@functools.cache
def _medical_words() -> frozenset[str]:
    # The medical lexicon the PHI detector ships (conditions, drugs, eponyms),
    # extended by a deployment's <data dir>/lexicons/medical_terms.txt.
    from ..privacy.phi_lexicon import get_lexicon

    return get_lexicon().medical


@functools.lru_cache(maxsize=65_536)
def score_sentence(sentence: str, role: str) -> float:
    """How much a sentence is worth keeping: facts up, chatter down (may be negative).

    Cached: a stored summary's lines are re-scored on every build that has to
    shorten it, and each score costs a dozen regular-expression scans.
    """
    score = 0.0
    medical = _medical_words()
    terms = len(_FACT_TERMS.findall(sentence))
    terms += sum(1 for word in _WORD.findall(sentence.lower()) if word in medical)
    score += 1.5 * min(3, terms)
    if _NUMBER.search(sentence):
        score += 1.0
    if _UNIT.search(sentence):
        score += 2.0
    if _DATE.search(sentence):
        score += 1.5
    if role == "user" and _SELF.search(sentence):
        score += 1.0
    if _CORRECTION.search(sentence):
        score += 2.0
    if _CHATTER.match(sentence) and score < 3:
        score -= 2.0
    if about_someone_else(sentence):
        score -= 5.0  # "my neighbor takes 20 mg of that": a dose that is not the patient's
    if len(sentence) < 12:
        score -= 1.0
    if role == "assistant":
        score *= 0.8  # the assistant mostly echoes; the user's own words come first
    return score


def parse_summary(text: str) -> list[SummaryLine]:
    """The lines of a stored summary (any text not in ``- role: ...`` form counts as system)."""
    lines: list[SummaryLine] = []
    for number, raw in enumerate(text.splitlines()):
        raw = raw.strip()
        if not raw:
            continue
        match = _LINE.match(raw)
        role, body = (match.group(1), match.group(2)) if match else ("system", raw.lstrip("-• "))
        lines.append(SummaryLine(role, body, score_sentence(body, role), number))
    return lines


def render_summary(lines: Sequence[SummaryLine]) -> str:
    """Lines back to text, in conversation order."""
    return "\n".join(f"- {line.role}: {line.text}" for line in sorted(lines, key=lambda x: x.order))


_SMALL = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
    if i > 1
}
_NUMBER_RUN = re.compile(
    r"\b(?:(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|thousand)(?:\s+|\b))+",
    re.IGNORECASE,
)


def _run_value(run: str) -> str:
    total = current = 0
    for word in run.lower().split():
        if word in _SMALL:
            current += _SMALL[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word == "thousand":
            total += max(current, 1) * 1000
            current = 0
    return str(total + current)


def digits(text: str) -> str:
    """``text`` with spoken numbers as digits ("seventy five mg" → "75 mg"), for matching."""
    return _NUMBER_RUN.sub(lambda m: _run_value(m.group(0)) + " ", text).strip()


def _stale_values(correction: str) -> list[str]:
    """What a correction says was wrong: "not 10" → ["10"], "not seventy five" →
    ["seventy five", "seventy"] (longest first)."""
    match = _STALE_VALUE.search(correction)
    if not match:
        return []
    words = match.group(1).replace(",", " ").rstrip(".").split()[:3]
    return [" ".join(words[:n]).rstrip(".") for n in range(len(words), 0, -1)]


def _corrected_index(lines: Sequence[SummaryLine], correction: SummaryLine) -> int | None:
    """The line a correction corrects: the latest one stating the value the
    correction rejects ("not 10"), preferring one that carries a dose or fact;
    without a rejected value, the latest fact-bearing line of the same speaker."""
    window = lines[-_CORRECTION_LOOKBACK:]
    offset = len(lines) - len(window)
    target: int | None = None
    texts = [digits(line.text) for line in window]
    for value in _stale_values(digits(correction.text)):
        pattern = re.compile(rf"(?<![\w.]){re.escape(value)}(?!\w)", re.IGNORECASE)
        hits = [i for i in range(len(window)) if pattern.search(texts[i])]
        factual = [i for i in hits if window[i].score >= 3 or _UNIT.search(window[i].text)]
        if factual or hits:
            target = offset + (factual or hits)[-1]
            break
    if target is None:
        for index in range(len(window) - 1, -1, -1):
            if window[index].role == correction.role and window[index].score >= 3:
                target = offset + index
                break
    return target


def _merge_correction(lines: list[SummaryLine], correction: SummaryLine) -> None:
    """Fold the sentence a correction corrects into the correction's line."""
    target = _corrected_index(lines, correction)
    if target is None:
        return
    earlier = lines.pop(target)
    correction.text = f"{earlier.text} → {correction.text}"
    correction.score = max(correction.score, earlier.score) + 1.0


@functools.lru_cache(maxsize=65_536)
def _corrections_in(text: str) -> tuple[str, ...]:
    # Cached: the same history messages are scanned on every build.
    return tuple(s for s in _sentences(text) if _CORRECTION.search(s))


def apply_corrections(summary: str, messages: Sequence[Mapping[str, Any]]) -> str:
    """Mark summary lines that newer ``messages`` (kept verbatim) correct.

    Without this a summary line ("I take lisinopril 10 mg") and its correction
    in the recent history ("actually it's 20 mg, not 10") would sit apart; the
    corrected line gets the correction appended, so it never reads as current.
    """
    if not summary:
        return summary
    lines: list[SummaryLine] | None = None
    for message in messages:
        role = str(message.get("role", "user"))
        for sentence in _corrections_in(content_text(message.get("content"))):
            if lines is None:
                lines = parse_summary(summary)
            correction = SummaryLine(role, sentence, 0.0, len(lines))
            target = _corrected_index(lines, correction)
            if target is not None and "→" not in lines[target].text:
                lines[target].text += f" → later: {sentence}"
    return summary if lines is None else render_summary(lines)


class ExtractiveSummarizer:
    """Offline summarizer: no model, deterministic, sub-millisecond per turn.

    Args:
        min_score: sentences scoring at or below this are never kept.
    """

    name = "extractive"

    def __init__(self, *, min_score: float = 1.5) -> None:
        self.min_score = min_score

    def candidates(
        self, messages: Sequence[Mapping[str, Any]], previous: str | None = None
    ) -> list[SummaryLine]:
        """Every scored sentence of ``previous`` and ``messages``, corrections merged."""
        lines = parse_summary(previous) if previous else []
        order = len(lines)
        for message in messages:
            role = str(message.get("role", "user"))
            if role == "tool":
                continue  # tool output is data for one answer, not conversation
            for sentence in _sentences(content_text(message.get("content"))):
                line = SummaryLine(role, sentence, score_sentence(sentence, role), order)
                order += 1
                if _CORRECTION.search(sentence):
                    _merge_correction(lines, line)
                lines.append(line)
        return lines

    def select(self, lines: Sequence[SummaryLine], max_tokens: int, model: str) -> str:
        """The best lines within ``max_tokens`` (the rendered text), in order."""
        seen: dict[str, SummaryLine] = {}
        for line in lines:
            if line.score > self.min_score:
                seen[f"{line.role}:{line.text.lower()}"] = line  # a repeat keeps its latest place
        ranked = sorted(seen.values(), key=lambda x: (-x.score, -x.order))
        kept: list[SummaryLine] = []
        used = 0
        for line in ranked:
            # +1 for the newline joining lines; the prefix is counted with the text
            cost = count_text_tokens(f"- {line.role}: {line.text}", model) + 1
            if used + cost <= max_tokens:
                kept.append(line)
                used += cost
        text = render_summary(kept)
        while kept and count_text_tokens(text, model) > max_tokens:
            kept.remove(min(kept, key=lambda x: (x.score, x.order)))  # never in practice
            text = render_summary(kept)
        return text

    def summarize_sync(
        self,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        *,
        previous: str | None = None,
        model: str = "gpt-4o",
    ) -> str:
        """Summary of ``previous`` extended with ``messages``, within ``max_tokens``."""
        if max_tokens <= 0:
            return ""
        return self.select(self.candidates(messages, previous), max_tokens, model)

    async def summarize(
        self,
        messages: Sequence[Mapping[str, Any]],
        max_tokens: int,
        *,
        previous: str | None = None,
        model: str = "gpt-4o",
    ) -> str:
        """Async face of :meth:`summarize_sync` (same result)."""
        return self.summarize_sync(messages, max_tokens, previous=previous, model=model)

    def __call__(self, messages: Sequence[Mapping[str, Any]], max_tokens: int, model: str) -> str:
        return self.summarize_sync(messages, max_tokens, model=model)
