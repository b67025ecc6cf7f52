"""Language detection and the switch policy against the labelled sets in tests/data/language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unimem.language import (
    SUPPORTED_LANGUAGES,
    decide_language,
    detect,
    detect_language,
)
from unimem.models import SwitchTrigger

DATA = Path(__file__).parent / "data" / "language"


def _rows(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def _accuracy(rows: list[list[str]]) -> float:
    return sum(detect_language(text) == lang for lang, _, text in rows) / len(rows)


def switch_scores(dialogues: list[dict]) -> tuple[float, float, int]:
    """Precision and recall of switches predicted by the policy, and the number expected."""
    tp = fp = fn = 0
    for dialogue in dialogues:
        expected_current = predicted_current = None
        for text, label in dialogue["turns"]:
            expected = label is not None and expected_current not in (None, label)
            if label is not None:
                expected_current = label
            decision = decide_language(text, predicted_current, None)
            predicted_current = decision.language
            if decision.switched and expected and decision.language == label:
                tp += 1
            else:
                fp += decision.switched
                fn += expected
    return tp / max(1, tp + fp), tp / max(1, tp + fn), tp + fn


def test_realistic_utterances_reach_99_percent():
    rows = _rows("utterances.tsv") + _rows("utterances_holdout.tsv")
    assert len(rows) >= 400
    assert _accuracy(rows) >= 0.99


def test_short_utterances_reach_98_percent():
    rows = [r for r in _rows("utterances.tsv") + _rows("utterances_holdout.tsv") if r[1] == "short"]
    assert len(rows) >= 200
    assert _accuracy(rows) >= 0.98


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_every_language_is_covered_and_detected(language: str):
    rows = [r for r in _rows("utterances.tsv") if r[0] == language]
    assert len(rows) >= 20
    assert _accuracy(rows) >= 0.95


def test_interjections_names_drugs_and_numbers_get_no_language():
    rows = _rows("no_language.tsv")
    assert len(rows) >= 100
    wrong = [text for _, text in rows if detect_language(text) is not None]
    assert len(wrong) <= len(rows) * 0.02, wrong


def test_switch_precision_and_recall_on_dialogues():
    dialogues = [
        dialogue
        for name in ("dialogues.json", "dialogues_holdout.json")
        for dialogue in json.loads((DATA / name).read_text(encoding="utf-8"))["dialogues"]
    ]
    assert len(dialogues) >= 40
    precision, recall, expected = switch_scores(dialogues)
    assert expected >= 30
    assert precision >= 0.95
    assert recall >= 0.95


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("머리가 아파요", "ko"),
        ("頭が痛いです", "ja"),
        ("我头疼得厉害", "zh"),
        ("मुझे बुखार है", "hi"),
        ("مجھے بخار ہے", "ur"),
        ("عندي صداع", "ar"),
        ("У меня болит голова", "ru"),
        ("Başım çok ağrıyor", "tr"),
        ("我在吃 metformin 500 mg，可以吗", "zh"),
        ("Não consigo dormir", "pt"),
    ],
)
def test_script_fast_paths_and_mixed_text(text: str, language: str):
    assert detect_language(text) == language


@pytest.mark.parametrize(
    "text", ["", "   ", "!!!", "ok", "Amlodipine", "1000 mg", "Juan de la Cruz"]
)
def test_nothing_to_judge_gives_none(text: str):
    assert detect_language(text) is None
    assert detect(text).confidence < 0.5


def test_a_real_sentence_switches_and_an_interjection_does_not():
    assert decide_language("gracias", "en").switched is False
    assert decide_language("Ok, perfect, thank you so much", "es").switched is False
    assert decide_language("metformin 500 mg", "en").switched is False
    decision = decide_language("¿Puedo tomar la pastilla con comida?", "en")
    assert (decision.language, decision.switched, decision.trigger) == (
        "es",
        True,
        SwitchTrigger.AUTO_DETECTED,
    )


def test_kanji_only_text_does_not_flip_japanese_to_chinese():
    assert detect_language("頭痛") is None
    assert decide_language("頭痛", "ja").switched is False
    assert decide_language("我头疼", "ja").language == "zh"


def test_unsure_text_keeps_the_current_language():
    decision = decide_language("hmm ok", "fr")
    assert (decision.language, decision.detected_language, decision.switched) == ("fr", None, False)
    assert decision.trigger is None


def test_a_region_tag_is_the_same_language():
    decision = decide_language("Posso tomar com comida?", "pt-BR")
    assert (decision.language, decision.detected_language, decision.switched) == (
        "pt-BR",
        "pt",
        False,
    )
    assert decide_language("Posso tomar com comida?", "en", "pt-BR").trigger == "auto_detected"


def test_first_confident_turn_sets_the_language_without_a_switch():
    decision = decide_language("I need a refill", None)
    assert (decision.language, decision.switched) == ("en", False)


def test_explicit_language_wins_and_names_its_trigger():
    disagree = decide_language("I would like to see the doctor tomorrow", "en", "es")
    assert (disagree.language, disagree.detected_language) == ("es", "en")
    assert (disagree.switched, disagree.trigger) == (True, SwitchTrigger.EXPLICIT_SETTING)
    agree = decide_language("Quiero ver al médico mañana", "en", "es")
    assert (agree.switched, agree.trigger) == (True, SwitchTrigger.AUTO_DETECTED)
    unsure = decide_language("hola", "en", "es")
    assert (unsure.switched, unsure.trigger) == (True, SwitchTrigger.AUTO_DETECTED)
    same = decide_language("I need a refill", "es", "es")
    assert (same.language, same.switched, same.trigger) == ("es", False, None)


def test_very_long_message_is_detected_from_its_opening():
    text = "Ich habe seit drei Tagen Bauchschmerzen und keinen Appetit mehr. " * 800
    found = detect(text)
    assert (found.language, found.reason) == ("de", "lingua")
    assert 0.5 <= found.confidence <= 1.0
