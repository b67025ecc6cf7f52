"""Generate the long-term recall evaluation set (``recall_eval.json``), seeded.

Each user is a patient talking to a voice and text assistant over months:
medicines and dose changes, visits and lab results, appointments, symptoms,
allergies, family, and everyday chatter that shares words with them. Voice
turns are lowercase transcripts with fillers; typed turns are punctuated.
Questions are asked later, in a new session, and name the turns that hold
the answer (``evidence``). Run ``python3 tests/data/recall/generate.py`` to
write the file again; the same seed writes the same bytes.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SEED = 20261201
OUT = Path(__file__).with_name("recall_eval.json")

MEDS = [
    ("lisinopril", 10, 20),
    ("metformin", 500, 1000),
    ("atorvastatin", 20, 40),
    ("levothyroxine", 50, 75),
    ("amlodipine", 5, 10),
    ("warfarin", 3, 5),
    ("sertraline", 50, 100),
    ("furosemide", 20, 40),
    ("omeprazole", 20, 40),
    ("gabapentin", 300, 600),
    ("prednisone", 10, 5),
    ("losartan", 25, 50),
]
LABS = ["potassium", "a1c", "cholesterol", "tsh", "creatinine", "inr", "hemoglobin"]
ALLERGENS = ["penicillin", "sulfa", "latex", "shellfish", "ibuprofen", "codeine"]
NAMES = ["Rosa", "Tomas", "Amina", "Li Wei", "Priya", "Jean", "Omar", "Nadia", "Pablo", "Mei"]

# Per language: the words and sentence templates of each kind of turn.
# {med} {dose} {dose2} {lab} {value} {doctor} {day} {symptom} {allergen} {name} {relative}
LANG: dict[str, dict[str, Any]] = {
    "en": {
        "doctors": ["cardiologist", "endocrinologist", "nephrologist", "neurologist"],
        "symptoms": ["dizziness", "headaches", "swollen ankles", "a dry cough", "back pain"],
        "relatives": ["daughter", "son", "sister", "grandson"],
        "days": ["monday", "tuesday", "thursday", "friday"],
        "med_start": "the {doctor} started me on {med} {dose} milligrams every morning",
        "med_change": "my {doctor} changed the {med} to {dose2} milligrams because of {symptom}",
        "visit": "i saw the {doctor} today and she said my {lab} was {value}, a bit high",
        "appointment": "I have an appointment with the {doctor} next {day} at ten.",
        "symptom": "I've had {symptom} for about a week now, mostly at night.",
        "allergy": "Remember that I'm allergic to {allergen}, I get a rash.",
        "family": "my {relative} {name} is coming to stay with me next month",
        "near": [
            "i picked up the {med} at the pharmacy, the line was long",
            "forgot to take my {med} this morning, took it at lunch",
            "the {doctor}'s office called about parking, nothing important",
            "My neighbor says {lab} tests are a waste of time, ha.",
        ],
        "chatter": [
            "it's raining again, i didn't go for my walk",
            "I watched a cooking show last night, they made lentil soup.",
            "um the tv remote stopped working can you believe it",
            "my cat knocked over the plant again",
            "What's a good book for a long train ride?",
            "i made chicken soup today it was pretty good",
            "the bus was late so i missed the market",
            "Can you remind me how to video call on my tablet?",
        ],
        "ack": ["Okay, I've noted that.", "Thanks for telling me.", "Got it.", "I understand."],
        "q_dose": "what dose of {med} am i taking now?",
        "q_lab": "what did the {doctor} say about my {lab}?",
        "q_when": "when did i last see the {doctor}?",
        "q_allergy": "what am i allergic to?",
        "q_family": "who is coming to stay with me?",
        "q_two": "why was my {med} changed and what was the dose before?",
        "q_symptom": "how long have I had {symptom}, and what did we change for it?",
        "follow_intro": "let's talk about my {med}",
        "follow_q": "and the dose?",
        "fillers": ["um ", "uh ", "so ", ""],
    },
    "es": {
        "doctors": ["cardiólogo", "endocrinólogo", "nefrólogo", "neurólogo"],
        "symptoms": ["mareos", "dolores de cabeza", "tobillos hinchados", "tos seca"],
        "relatives": ["hija", "hijo", "hermana", "nieto"],
        "days": ["lunes", "martes", "jueves", "viernes"],
        "med_start": "el {doctor} me empezó con {med} de {dose} miligramos cada mañana",
        "med_change": "mi {doctor} cambió el {med} a {dose2} miligramos por los {symptom}",
        "visit": "hoy vi al {doctor} y dijo que mi {lab} estaba en {value}, un poco alto",
        "appointment": "Tengo cita con el {doctor} el próximo {day} a las diez.",
        "symptom": "Tengo {symptom} desde hace una semana, sobre todo de noche.",
        "allergy": "Recuerda que soy alérgica a la {allergen}, me da sarpullido.",
        "family": "mi {relative} {name} viene a quedarse conmigo el mes que viene",
        "near": [
            "recogí el {med} en la farmacia, había mucha cola",
            "se me olvidó tomar el {med} esta mañana, lo tomé al mediodía",
            "llamaron de la consulta del {doctor} por el aparcamiento, nada importante",
            "Mi vecina dice que los análisis de {lab} no sirven para nada.",
        ],
        "chatter": [
            "está lloviendo otra vez, no salí a caminar",
            "Anoche vi un programa de cocina, hicieron sopa de lentejas.",
            "eh el mando de la tele dejó de funcionar",
            "mi gato tiró la planta otra vez",
            "¿Qué libro me recomiendas para un viaje largo en tren?",
            "hoy hice sopa de pollo y quedó muy rica",
            "el autobús llegó tarde y no fui al mercado",
        ],
        "ack": ["Vale, lo he anotado.", "Gracias por contármelo.", "Entendido."],
        "q_dose": "¿qué dosis de {med} estoy tomando ahora?",
        "q_lab": "¿qué dijo el {doctor} sobre mi {lab}?",
        "q_when": "¿cuándo fue la última vez que vi al {doctor}?",
        "q_allergy": "¿a qué soy alérgica?",
        "q_family": "¿quién viene a quedarse conmigo?",
        "q_two": "¿por qué me cambiaron el {med} y qué dosis tomaba antes?",
        "q_symptom": "¿desde cuándo tengo {symptom} y qué cambiamos por eso?",
        "follow_intro": "hablemos de mi {med}",
        "follow_q": "¿y la dosis?",
        "fillers": ["eh ", "pues ", "este ", ""],
    },
    "fr": {
        "doctors": ["cardiologue", "endocrinologue", "néphrologue", "neurologue"],
        "symptoms": ["vertiges", "maux de tête", "chevilles gonflées", "toux sèche"],
        "relatives": ["fille", "fils", "sœur", "petit-fils"],
        "days": ["lundi", "mardi", "jeudi", "vendredi"],
        "med_start": "le {doctor} m'a mis sous {med} {dose} milligrammes chaque matin",
        "med_change": "mon {doctor} a changé le {med} à {dose2} milligrammes à cause des {symptom}",
        "visit": "j'ai vu le {doctor} aujourd'hui, il a dit que mon {lab} était à {value}",
        "appointment": "J'ai rendez-vous avec le {doctor} {day} prochain à dix heures.",
        "symptom": "J'ai des {symptom} depuis une semaine, surtout la nuit.",
        "allergy": "N'oubliez pas que je suis allergique à la {allergen}, ça me donne des plaques.",
        "family": "ma {relative} {name} vient habiter chez moi le mois prochain",
        "near": [
            "j'ai récupéré le {med} à la pharmacie, il y avait la queue",
            "j'ai oublié le {med} ce matin, je l'ai pris à midi",
            "le cabinet du {doctor} a appelé pour le parking, rien d'important",
            "Ma voisine dit que les analyses de {lab} ne servent à rien.",
        ],
        "chatter": [
            "il pleut encore, je ne suis pas sorti marcher",
            "Hier soir j'ai regardé une émission de cuisine, une soupe de lentilles.",
            "euh la télécommande ne marche plus",
            "mon chat a encore renversé la plante",
            "Quel livre pour un long voyage en train ?",
            "le bus était en retard alors j'ai raté le marché",
        ],
        "ack": ["D'accord, c'est noté.", "Merci de me le dire.", "Compris."],
        "q_dose": "quelle dose de {med} je prends maintenant ?",
        "q_lab": "qu'est-ce que le {doctor} a dit sur mon {lab} ?",
        "q_when": "quand ai-je vu le {doctor} pour la dernière fois ?",
        "q_allergy": "à quoi suis-je allergique ?",
        "q_family": "qui vient habiter chez moi ?",
        "q_two": "pourquoi a-t-on changé le {med} et quelle était la dose avant ?",
        "q_symptom": "depuis quand j'ai des {symptom} et qu'est-ce qu'on a changé ?",
        "follow_intro": "parlons de mon {med}",
        "follow_q": "et la dose ?",
        "fillers": ["euh ", "alors ", "bon ", ""],
    },
    "zh": {
        "doctors": ["心脏科医生", "内分泌科医生", "肾科医生", "神经科医生"],
        "symptoms": ["头晕", "头痛", "脚踝肿", "干咳"],
        "relatives": ["女儿", "儿子", "妹妹", "孙子"],
        "days": ["星期一", "星期二", "星期四", "星期五"],
        "med_start": "{doctor}让我开始吃{med}，每天早上{dose}毫克",
        "med_change": "{doctor}把{med}改成了{dose2}毫克，因为我{symptom}",
        "visit": "我今天看了{doctor}，她说我的{lab}是{value}，有点高",
        "appointment": "我下个{day}上午十点要去看{doctor}。",
        "symptom": "我{symptom}已经一个星期了，晚上更厉害。",
        "allergy": "记住我对{allergen}过敏，会起疹子。",
        "family": "我{relative}{name}下个月要来跟我住",
        "near": [
            "我去药房拿了{med}，排队排了很久",
            "今天早上忘了吃{med}，中午才吃",
            "{doctor}的诊所打电话说停车的事，不重要",
            "邻居说查{lab}没什么用。",
        ],
        "chatter": [
            "又下雨了，我没去散步",
            "昨晚看了一个做饭的节目，做了扁豆汤。",
            "电视遥控器坏了",
            "我的猫又把花盆打翻了",
            "坐长途火车看什么书好？",
            "今天做了鸡汤，挺好喝的",
        ],
        "ack": ["好的，我记下了。", "谢谢你告诉我。", "明白了。"],
        "q_dose": "我现在吃多少{med}？",
        "q_lab": "{doctor}怎么说我的{lab}？",
        "q_when": "我上次看{doctor}是什么时候？",
        "q_allergy": "我对什么过敏？",
        "q_family": "谁要来跟我住？",
        "q_two": "为什么改了{med}的剂量，以前吃多少？",
        "q_symptom": "我{symptom}多久了，为这个改了什么药？",
        "follow_intro": "我们说说我的{med}",
        "follow_q": "剂量呢？",
        "fillers": ["嗯", "那个", ""],
    },
    "ar": {
        "doctors": ["طبيب القلب", "طبيب الغدد", "طبيب الكلى", "طبيب الأعصاب"],
        "symptoms": ["الدوخة", "الصداع", "تورم الكاحلين", "السعال الجاف"],
        "relatives": ["ابنتي", "ابني", "أختي", "حفيدي"],
        "days": ["الاثنين", "الثلاثاء", "الخميس", "الجمعة"],
        "med_start": "{doctor} بدأ معي دواء {med} {dose} ملغ كل صباح",
        "med_change": "{doctor} غيّر دواء {med} إلى {dose2} ملغ بسبب {symptom}",
        "visit": "رأيت {doctor} اليوم وقال إن {lab} عندي {value} مرتفع قليلا",
        "appointment": "عندي موعد مع {doctor} يوم {day} القادم الساعة العاشرة.",
        "symptom": "عندي {symptom} منذ أسبوع تقريبا خاصة في الليل.",
        "allergy": "تذكر أن عندي حساسية من {allergen} يسبب لي طفحا.",
        "family": "{relative} {name} ستأتي لتسكن معي الشهر القادم",
        "near": [
            "أخذت دواء {med} من الصيدلية وكان الطابور طويلا",
            "نسيت دواء {med} هذا الصباح وأخذته عند الظهر",
            "اتصلت عيادة {doctor} بخصوص الموقف لا شيء مهم",
        ],
        "chatter": [
            "إنها تمطر مرة أخرى لم أخرج للمشي",
            "شاهدت برنامج طبخ البارحة صنعوا شوربة العدس.",
            "جهاز التحكم بالتلفاز توقف عن العمل",
            "قطتي أوقعت النبتة مرة أخرى",
            "ما هو كتاب جيد لرحلة قطار طويلة؟",
        ],
        "ack": ["حسنا، سجلت ذلك.", "شكرا لإخباري.", "فهمت."],
        "q_dose": "ما هي جرعة {med} التي آخذها الآن؟",
        "q_lab": "ماذا قال {doctor} عن {lab} عندي؟",
        "q_when": "متى رأيت {doctor} آخر مرة؟",
        "q_allergy": "مما عندي حساسية؟",
        "q_family": "من سيأتي ليسكن معي؟",
        "q_two": "لماذا غيروا دواء {med} وما كانت الجرعة قبل ذلك؟",
        "q_symptom": "منذ متى عندي {symptom} وماذا غيرنا بسببه؟",
        "follow_intro": "لنتحدث عن دواء {med}",
        "follow_q": "والجرعة؟",
        "fillers": ["يعني ", "طيب ", ""],
    },
    "hi": {
        "doctors": ["हृदय रोग विशेषज्ञ", "मधुमेह डॉक्टर", "गुर्दा डॉक्टर", "न्यूरोलॉजिस्ट"],
        "symptoms": ["चक्कर", "सिरदर्द", "टखनों में सूजन", "सूखी खांसी"],
        "relatives": ["बेटी", "बेटा", "बहन", "पोता"],
        "days": ["सोमवार", "मंगलवार", "गुरुवार", "शुक्रवार"],
        "med_start": "{doctor} ने मुझे हर सुबह {med} {dose} मिलीग्राम शुरू करवाई",
        "med_change": "{doctor} ने {med} को {dose2} मिलीग्राम कर दिया क्योंकि {symptom} हो रहा था",
        "visit": "आज मैं {doctor} से मिली, उन्होंने कहा मेरा {lab} {value} है, थोड़ा ज़्यादा",
        "appointment": "अगले {day} को दस बजे {doctor} के साथ मेरी अपॉइंटमेंट है।",
        "symptom": "मुझे एक हफ्ते से {symptom} है, ज़्यादातर रात को।",
        "allergy": "याद रखना मुझे {allergen} से एलर्जी है, दाने निकल आते हैं।",
        "family": "मेरी {relative} {name} अगले महीने मेरे साथ रहने आ रही है",
        "near": [
            "मैंने फार्मेसी से {med} ली, बहुत लंबी लाइन थी",
            "आज सुबह {med} लेना भूल गई, दोपहर को ली",
            "{doctor} के क्लिनिक से पार्किंग के बारे में फ़ोन आया, कुछ ख़ास नहीं",
        ],
        "chatter": [
            "फिर से बारिश हो रही है, मैं टहलने नहीं गई",
            "कल रात खाना बनाने का शो देखा, दाल का सूप बनाया।",
            "टीवी का रिमोट काम नहीं कर रहा",
            "मेरी बिल्ली ने फिर से पौधा गिरा दिया",
            "लंबी ट्रेन यात्रा के लिए कौन सी किताब अच्छी है?",
        ],
        "ack": ["ठीक है, मैंने नोट कर लिया।", "बताने के लिए धन्यवाद।", "समझ गई।"],
        "q_dose": "मैं अभी {med} की कितनी खुराक ले रही हूँ?",
        "q_lab": "{doctor} ने मेरे {lab} के बारे में क्या कहा?",
        "q_when": "मैं आख़िरी बार {doctor} से कब मिली?",
        "q_allergy": "मुझे किस चीज़ से एलर्जी है?",
        "q_family": "मेरे साथ रहने कौन आ रहा है?",
        "q_two": "{med} क्यों बदली गई और पहले कितनी खुराक थी?",
        "q_symptom": "मुझे {symptom} कब से है और उसके लिए क्या बदला?",
        "follow_intro": "मेरी {med} के बारे में बात करते हैं",
        "follow_q": "और खुराक?",
        "fillers": ["अच्छा ", "वो ", ""],
    },
}

#: (user id, main language, second language for code-switching or None, split)
USERS = [
    ("u01", "en", None, "tune"),
    ("u02", "es", "en", "tune"),
    ("u03", "zh", None, "tune"),
    ("u04", "fr", None, "tune"),
    ("u05", "en", None, "tune"),
    ("u06", "ar", None, "tune"),
    ("u07", "en", None, "heldout"),
    ("u08", "es", "en", "heldout"),
    ("u09", "hi", "en", "heldout"),
    ("u10", "zh", None, "heldout"),
    ("u11", "fr", "en", "heldout"),
    ("u12", "en", None, "heldout"),
]


def voice(text: str, rng: random.Random, lang: str) -> str:
    """A speech-to-text rendering: lowercase, no end punctuation, a filler."""
    filler = rng.choice(LANG[lang]["fillers"])
    return (filler + text).lower().rstrip(".?!。？")


def build_user(uid: str, main: str, second: str | None, rng: random.Random) -> dict[str, Any]:
    start = datetime(2026, 1, 5, 9, 0, tzinfo=UTC) + timedelta(days=rng.randrange(20))
    n_sessions = rng.randrange(16, 22)
    meds = rng.sample(MEDS, 3)
    lab, _lab2 = rng.sample(LABS, 2)
    allergen = rng.choice(ALLERGENS)
    name = rng.choice(NAMES)
    L = LANG[main]
    doctor, doctor2 = rng.sample(L["doctors"], 2)
    symptom = rng.choice(L["symptoms"])
    relative = rng.choice(L["relatives"])
    day = rng.choice(L["days"])
    # planted facts: (kind, language, values); each becomes one user turn
    med, dose, dose2 = meds[0]
    med2, dose_b, _ = meds[1]
    value = f"{rng.randrange(3, 9)}.{rng.randrange(10)}"
    values = {
        "med": med,
        "dose": dose,
        "dose2": dose2,
        "lab": lab,
        "value": value,
        "doctor": doctor,
        "day": day,
        "symptom": symptom,
        "allergen": allergen,
        "name": name,
        "relative": relative,
    }
    # the second language (code-switching) carries some facts, questions stay in main
    fact_lang = {
        k: main
        for k in (
            "med_start",
            "med_change",
            "visit",
            "appointment",
            "symptom",
            "allergy",
            "family",
            "med_start2",
        )
    }
    if second is not None:
        for k in ("visit", "allergy", "med_start2"):
            fact_lang[k] = second
    plan = {
        "med_start": rng.randrange(1, 4),
        "med_start2": rng.randrange(2, 6),
        "symptom": rng.randrange(6, 9),
        "med_change": rng.randrange(9, 12),
        "visit": rng.randrange(4, n_sessions - 3),
        "appointment": rng.randrange(3, n_sessions - 2),
        "allergy": rng.randrange(0, n_sessions - 1),
        "family": rng.randrange(5, n_sessions - 1),
    }
    sessions: list[dict[str, Any]] = []
    turn_ids: dict[str, str] = {}
    when = start
    for s in range(n_sessions):
        when += timedelta(days=rng.randrange(4, 11), hours=rng.randrange(-3, 4))
        mode = rng.choice(["voice", "voice", "text"])
        sid = f"{uid}-s{s:02d}"
        turns: list[dict[str, Any]] = []
        lines: list[tuple[str | None, str, str]] = []  # (fact kind, language, text)
        for _ in range(rng.randrange(8, 15)):
            lang = main if second is None or rng.random() < 0.7 else second
            if rng.random() < 0.35:
                tmpl = rng.choice(LANG[lang]["near"])
            else:
                tmpl = rng.choice(LANG[lang]["chatter"])
            m = rng.choice(meds)[0]
            lines.append((None, lang, tmpl.format(**{**values, "med": m})))
        for kind, at in plan.items():
            if at == s:
                lang = fact_lang[kind]
                v = dict(values)
                if lang != main:  # the words of the other language
                    v["doctor"] = LANG[lang]["doctors"][L["doctors"].index(doctor)]
                    v["symptom"] = LANG[lang]["symptoms"][L["symptoms"].index(symptom)]
                    v["relative"] = LANG[lang]["relatives"][L["relatives"].index(relative)]
                if kind == "med_start2":
                    v.update(med=med2, dose=dose_b, doctor=doctor2 if lang == main else v["doctor"])
                    text = LANG[lang]["med_start"].format(**v)
                else:
                    text = LANG[lang][kind].format(**v)
                lines.insert(rng.randrange(len(lines) + 1), (kind, lang, text))
        t = when
        for k, (kind, lang, text) in enumerate(lines):
            turn_mode = mode if rng.random() < 0.85 else ("text" if mode == "voice" else "voice")
            content = voice(text, rng, lang) if turn_mode == "voice" else text
            tid = f"{sid}-t{2 * k:02d}"
            turns.append(
                {
                    "id": tid,
                    "role": "user",
                    "content": content,
                    "mode": turn_mode,
                    "language": lang,
                    "timestamp": t.isoformat(),
                }
            )
            t += timedelta(seconds=rng.randrange(20, 90))
            turns.append(
                {
                    "id": f"{sid}-t{2 * k + 1:02d}",
                    "role": "assistant",
                    "content": rng.choice(LANG[lang]["ack"]),
                    "mode": turn_mode,
                    "language": lang,
                    "timestamp": t.isoformat(),
                }
            )
            t += timedelta(seconds=rng.randrange(20, 90))
            if kind is not None:
                turn_ids[kind] = tid
        sessions.append({"session_id": sid, "mode": mode, "turns": turns})
    asked = when + timedelta(days=5)
    q = {**values, "doctor": doctor}

    def question(
        qid: str, kind: str, text: str, evidence: list[str], **extra: Any
    ) -> dict[str, Any]:
        return {
            "id": f"{uid}-{qid}",
            "user_id": uid,
            "kind": kind,
            "language": main,
            "question": text,
            "evidence": evidence,
            "asked_at": asked.isoformat(),
            **extra,
        }

    questions = [
        question("dose", "single", L["q_dose"].format(**q), [turn_ids["med_change"]]),
        question("lab", "single", L["q_lab"].format(**q), [turn_ids["visit"]]),
        question("when", "when", L["q_when"].format(**q), [turn_ids["visit"]]),
        question("allergy", "single", L["q_allergy"].format(**q), [turn_ids["allergy"]]),
        question("family", "single", L["q_family"].format(**q), [turn_ids["family"]]),
        question(
            "two",
            "two_turn",
            L["q_two"].format(**q),
            [turn_ids["med_start"], turn_ids["med_change"]],
        ),
        question(
            "symptom",
            "two_turn",
            L["q_symptom"].format(**q),
            [turn_ids["symptom"], turn_ids["med_change"]],
        ),
        question(
            "follow",
            "follow_up",
            L["follow_q"],
            [turn_ids["med_start2"]],
            history=[L["follow_intro"].format(med=med2)],
        ),
    ]
    if second is not None:
        for q_ in questions:
            if any(
                e in (turn_ids["visit"], turn_ids["allergy"], turn_ids["med_start2"])
                for e in q_["evidence"]
            ):
                q_["code_switch"] = second
    return {
        "user_id": uid,
        "language": main,
        "second_language": second,
        "sessions": sessions,
        "questions": questions,
    }


def main() -> None:
    """Write ``recall_eval.json`` beside this script."""
    rng = random.Random(SEED)
    users = []
    for uid, main_lang, second, split in USERS:
        user = build_user(uid, main_lang, second, rng)
        user["split"] = split
        users.append(user)
    OUT.write_text(
        json.dumps({"seed": SEED, "users": users}, ensure_ascii=False, separators=(",", ":")) + "\n"
    )


if __name__ == "__main__":
    main()
