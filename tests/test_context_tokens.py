"""Token counting: exact for OpenAI encodings (offline), a tested estimate otherwise."""

from __future__ import annotations

import subprocess
import sys

import pytest

from unimem.context import (
    approximate_tokens,
    count_text_tokens,
    count_tokens,
    encoding_name_for_model,
    fit_text,
)

# One medical sentence in each supported language.
SENTENCES = {
    "en": "I take metformin 500 mg twice a day, and my blood pressure was 140/90 this morning.",
    "es": "Tomo metformina de 500 mg dos veces al día y esta mañana mi presión era 140/90.",
    "fr": "Je prends de la metformine 500 mg deux fois par jour, et ma tension était de 14/9.",
    "de": "Ich nehme zweimal täglich 500 mg Metformin, und mein Blutdruck war heute 140/90.",
    "it": "Prendo metformina 500 mg due volte al giorno e stamattina la pressione era 140/90.",
    "pt": "Tomo metformina 500 mg duas vezes ao dia e hoje de manhã a pressão estava 14 por 9.",
    "ar": "أتناول الميتفورمين 500 ملغ مرتين في اليوم، وكان ضغط دمي 140/90 هذا الصباح.",
    "zh": "我每天服用两次二甲双胍500毫克，今天早上我的血压是140/90。",
    "hi": "मैं दिन में दो बार 500 मिलीग्राम मेटफॉर्मिन लेता हूं, और आज सुबह मेरा रक्तचाप 140/90 था।",
    "ur": "میں دن میں دو بار 500 ملی گرام میٹفارمن لیتا ہوں، اور آج صبح میرا بلڈ پریشر 140/90 تھا۔",
    "ja": "メトホルミン500mgを1日2回飲んでいて、今朝の血圧は140/90でした。",
    "ko": "저는 메트포르민 500mg을 하루 두 번 복용하고, 오늘 아침 혈압은 140/90이었습니다.",
    "ru": "Я принимаю метформин 500 мг два раза в день, а утром давление было 140/90.",
    "tr": "Günde iki kez 500 mg metformin alıyorum ve bu sabah tansiyonum 140/90 idi.",
    "voice": "i take metformin five hundred milligrams twice a day and my pressure was fine",
    "code": '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}',
}


def test_exact_counts_match_the_openai_vocabularies():
    # Token ids published for tiktoken: "hello world" is 2 tokens in both.
    assert count_tokens("hello world", "gpt-4o") == 2
    assert count_tokens("hello world", "gpt-4") == 2
    assert count_text_tokens("", "gpt-4o") == 0
    # Different vocabularies give different counts for non-English text.
    hindi = SENTENCES["hi"]
    assert count_tokens(hindi, "gpt-4o") < count_tokens(hindi, "gpt-4")


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4.1", "o200k_base"),
        ("gpt-5", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("openai/gpt-4o", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("cl100k_base", "cl100k_base"),
        ("claude-3-5-sonnet", None),
        ("llama-3.1-8b", None),
    ],
)
def test_model_names_map_to_their_encoding(model, encoding):
    assert encoding_name_for_model(model) == encoding


def test_chat_messages_are_counted_with_framing():
    messages = [{"role": "user", "content": "hello world"}]
    # 3 framing + 1 ("user") + 2 content + 3 reply priming
    assert count_tokens(messages, "gpt-4o") == 9
    named = [{"role": "user", "content": "hello world", "name": "bob"}]
    assert count_tokens(named, "gpt-4o") == 9 + count_text_tokens("bob") + 1
    assert count_tokens([], "gpt-4o") == 0
    parts = [{"role": "user", "content": [{"type": "text", "text": "hello world"}]}]
    assert count_tokens(parts, "gpt-4o") == 9


def test_tool_calls_are_counted():
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "lookup", "arguments": '{"drug": "metformin"}'},
            }
        ],
    }
    bare = count_tokens([{"role": "assistant", "content": None}], "gpt-4o")
    assert count_tokens([call], "gpt-4o") > bare + count_text_tokens('{"drug": "metformin"}')


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_approximation_never_undercounts_natural_text(language):
    """The estimate for unknown models is at least both exact counts and at most twice them."""
    text = SENTENCES[language]
    exact = max(count_tokens(text, "gpt-4o"), count_tokens(text, "gpt-4"))
    estimate = approximate_tokens(text)
    assert exact <= estimate <= 2 * exact, (language, exact, estimate)
    assert count_tokens(text, "claude-3-5-sonnet") == estimate


def test_fit_text_cuts_to_the_limit():
    text = " ".join(SENTENCES.values())
    for model in ("gpt-4o", "gpt-4", "mistral-large"):
        for limit in (1, 2, 5, 17, 60):
            cut = fit_text(text, limit, model)
            assert count_tokens(cut, model) <= limit
            assert text.startswith(cut.removesuffix(" …").rstrip("…").rstrip())
        assert fit_text(text, 10_000, model) == text
        assert fit_text(text, 0, model) == ""


def test_encodings_load_without_network():
    """The vocabularies ship in the package: counting works with sockets disabled."""
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network disabled in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from unimem.context import count_tokens\n"
        "assert count_tokens('hello world', 'gpt-4o') == 2\n"
        "assert count_tokens('hello world', 'gpt-4') == 2\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
