"""Phrasings, drugs and names of the ``heldout`` split: written before the rules,
with other words than the tune bank, and never tuned on."""

from __future__ import annotations

import random
from typing import Any

from generate import MONTHS, WEEKDAYS, Dialogue, days, thanksgiving, weekday_after

VOICE_SHARE = 0.6
DIALOGUES = [
    ("en", "2026-12-02T10:00:00+00:00", 9001),
    ("en", "2027-01-20T13:15:00+00:00", 9002),
    ("en", "2026-12-18T17:45:00+00:00", 9003),
    ("es", "2026-12-11T09:00:00+00:00", 9004),
    ("es", "2027-04-06T12:00:00+00:00", 9005),
    ("fr", "2026-12-21T10:30:00+00:00", 9006),
    ("fr", "2027-02-24T15:00:00+00:00", 9007),
    ("ar", "2027-01-05T11:00:00+00:00", 9008),
]


def date_phrase(d: Dialogue, rng: random.Random) -> tuple[str, str]:
    """A date as the patient says it and the date it resolves to."""
    lang, now = d.language, d.now
    day = rng.randint(0, 6)
    wd = WEEKDAYS[lang].split()[day]
    month = rng.randint(1, 12)
    dom = rng.randint(1, 28)
    year = now.year if (month, dom) > (now.month, now.day) else now.year + 1
    iso = f"{year}-{month:02d}-{dom:02d}"
    mname = MONTHS[lang].split()[month - 1]
    if lang == "en":
        th = {1: "1st", 2: "2nd", 3: "3rd", 21: "21st", 22: "22nd", 23: "23rd"}.get(dom, f"{dom}th")
        forms = [
            (f"this coming {wd}", weekday_after(now, day)),
            (f"on the {th} of {mname}", iso),
            ("in two weeks", days(now, 14)),
            (f"{mname} {th}", iso),
        ]
    elif lang == "es":
        forms = [
            (f"este {wd}", weekday_after(now, day)),
            (f"el {dom} de {mname}", iso),
            ("pasado mañana", days(now, 2)),
        ]
    elif lang == "fr":
        forms = [
            (f"ce {wd}", weekday_after(now, day)),
            (f"le {dom} {mname}", iso),
            ("après-demain", days(now, 2)),
        ]
    else:
        forms = [
            (f"{wd} المقبل", weekday_after(now, day)),
            (f"يوم {dom} {mname}", iso),
            ("بعد غد", days(now, 2)),
        ]
    return rng.choice(forms)


def onset_phrase(d: Dialogue, rng: random.Random) -> tuple[str, dict[str, str]]:
    """When a symptom began, as said, and the checked attributes."""
    lang, now = d.language, d.now
    forms: list[tuple[str, dict[str, str]]]
    if lang == "en":
        tg = thanksgiving(now.year if now.month >= 12 else now.year - 1)
        forms = [
            ("since last week", {"onset": "~last week"}),
            ("since the weekend after thanksgiving", {"onset_date": days(tg, 2)}),
            ("since the day before yesterday", {"onset_date": days(now, -2)}),
            ("for about a week now", {"onset_date": days(now, -7)}),
        ]
    elif lang == "es":
        forms = [
            ("desde la semana pasada", {"onset": "~semana pasada"}),
            ("desde anteayer", {"onset_date": days(now, -2)}),
        ]
    elif lang == "fr":
        forms = [
            ("depuis la semaine dernière", {"onset": "~semaine dernière"}),
            ("depuis avant-hier", {"onset_date": days(now, -2)}),
        ]
    else:
        forms = [
            ("منذ الأسبوع الماضي", {"onset": "~الأسبوع الماضي"}),
            ("منذ أول أمس", {"onset_date": days(now, -2)}),
        ]
    return rng.choice(forms)


LANG: dict[str, dict[str, Any]] = {
    "en": {
        "drugs": [
            ("losartan", "losartan"),
            ("metoprolol", "metoprolol"),
            ("furosemide", "furosemide"),
            ("eliquis", "eliquis"),
            ("prednisone", "prednisone"),
            ("tamsulosin", "tamsulosin"),
            ("simvastatin", "simvastatin"),
            ("synthroid", "synthroid"),
            ("montelukast", "montelukast"),
        ],
        "allergens": [
            ("amoxicillin", "amoxicillin"),
            ("morphine", "morphine"),
            ("iodine contrast", "iodine-contrast"),
            ("peanuts", "peanuts"),
            ("bee stings", "bee-stings"),
            ("ibuprofen", "ibuprofen"),
        ],
        "reactions": [
            ("my throat closes up", "throat"),
            ("i break out in welts", "welts"),
            ("really bad nausea", "nausea"),
        ],
        "conditions": [
            ("copd", "copd"),
            ("congestive heart failure", "congestive-heart-failure"),
            ("gout", "gout"),
            ("chronic kidney disease", "chronic-kidney-disease"),
            ("glaucoma", "glaucoma"),
            ("osteoporosis", "osteoporosis"),
        ],
        "specialties": [
            ("pulmonology", "pulmonology"),
            ("orthopedics", "orthopedics"),
            ("kidney doctor", "nephrology"),
        ],
        "procedures": [
            ("mri", "mri"),
            ("hip replacement", "hip-replacement"),
            ("stress test", "stress-test"),
        ],
        "symptoms": [
            ("my feet have been tingling", "tingling"),
            ("i've had chest tightness", "chest-tightness"),
            ("i keep getting nosebleeds", "nosebleeds"),
            ("i've been short of breath", "shortness-of-breath"),
        ],
        "times": [
            ("3:15 pm", "three fifteen in the afternoon", "15:15"),
            ("8:45 am", "eight forty five", "08:45"),
            ("11 am", "eleven in the morning", "11:00"),
        ],
        "names": [
            ("Dot", "Dottie", "Dorothy"),
            ("Chuck", "Charlie", "Charles"),
            ("Gert", "Trudy", "Gertrude"),
        ],
        "languages": [("Portuguese", "pt"), ("Spanish", "es")],
        "care": [
            ("the nurse told me to keep my leg elevated", "elevated"),
            ("I'm not supposed to lift anything heavier than ten pounds", "lift"),
        ],
        "preferences": [
            ("I like my appointments late in the afternoon", "afternoon"),
            ("please email me instead of calling", "email"),
        ],
        "freqs": [
            "every evening",
            "first thing in the morning",
            "three times a day",
            "with dinner",
        ],
        "relatives": ["my wife", "my dad", "my brother-in-law", "my roommate", "my granddaughter"],
        "med_add": [
            "I'm currently on {drug} {dose} {freq}.",
            "The {drug} I take is {dose}, {freq}.",
            "They have me on {drug} {dose} {freq}.",
        ],
        "med_change": [
            "My cardiologist lowered the {drug} to {dose}.",
            "I'm taking {dose} of {drug} now since my last visit.",
        ],
        "med_restate": ["So the {drug}, that's {dose}."],
        "med_correct": [
            "No wait, the {drug} is {dose}, not {old}.",
            "Correction, it's {dose} of {drug}, not {old}.",
        ],
        "med_stop": ["I quit the {drug} last month.", "My doctor took me off {drug}."],
        "allergy_reaction": [
            "{allergen} makes me sick, {reaction}.",
            "I react badly to {allergen}, {reaction}.",
        ],
        "allergy_add": [
            "I can't have {allergen}, I'm allergic.",
            "Put down that I'm allergic to {allergen}.",
        ],
        "allergy_retract": [
            "The allergy test came back negative for {allergen}, so I'm not allergic to it.",
            "Scratch the {allergen} allergy, that was a mistake.",
        ],
        "confirm_allergy": [
            "Thanks, I've recorded an allergy to {allergen}.",
            "Noted: allergic to {allergen}.",
        ],
        "vague": ["the tape they used after my blood draw left my arm all red and blistered"],
        "condition_add": ["I've got {cond}.", "They told me I have {cond}."],
        "appointment_add": [
            "I see {spec} {date} at {time}.",
            "The {spec} appointment is set for {date}, {time}.",
        ],
        "appointment_move": [
            "The {spec} office called and pushed me to {date}.",
            "{spec} changed my appointment to {date}.",
        ],
        "procedure_add": ["They booked my {proc} for {date}.", "My {proc} is {date}."],
        "symptom_add": ["{symptom} {onset}.", "I should mention {symptom} {onset}."],
        "care_add": ["{care}."],
        "preference_add": ["{pref}."],
        "name_add": [
            "Nobody's called me {legal} since the navy, I go by {name}.",
            "Just call me {name}.",
        ],
        "name_change": [
            "Oh and please use {name} instead of {old}.",
            "Let's switch it, call me {name}.",
        ],
        "language_add": [
            "I'm more comfortable in {language}.",
            "Could we speak {language} from now on?",
        ],
        "relative": [
            "{relative} is on {drug} {dose}.",
            "{relative} can't take {allergen}, she gets hives.",
            "{relative} was just diagnosed with {cond}.",
            "My neighbor takes 20 mg of that.",
            "{relative} is allergic to {allergen} too.",
        ],
        "question": ["Can {drug} cause dizziness?", "What's the max dose of {drug}?"],
        "negation": [
            "I'm not on {drug} or anything like that.",
            "No allergy to {allergen} that I know of.",
        ],
        "chatter": [
            "My insurance card is in the car.",
            "Is the pharmacy on the first floor?",
            "It's supposed to snow this weekend.",
            "The elevator was out of order.",
            "My grandson made the honor roll.",
            "Is there a cafeteria here?",
            "Parking cost me twelve dollars.",
            "The Bears lost again.",
        ],
        "ack": ["Alright.", "Thank you, noted.", "Okay, go on.", "Understood."],
        "bye": ["That's everything, thanks doc.", "Okay talk soon."],
    },
    "es": {
        "drugs": [
            ("enalapril", "enalapril"),
            ("paracetamol", "paracetamol"),
            ("simvastatina", "simvastatin"),
            ("levotiroxina", "levothyroxine"),
            ("furosemida", "furosemide"),
            ("warfarina", "warfarin"),
            ("amoxicilina", "amoxicillin"),
        ],
        "allergens": [
            ("ibuprofeno", "ibuprofen"),
            ("amoxicilina", "amoxicillin"),
            ("yodo", "iodine"),
            ("nueces", "nuts"),
            ("huevo", "egg"),
            ("morfina", "morphine"),
            ("picaduras de abeja", "bee-stings"),
        ],
        "reactions": [("se me hincha la cara", "hincha"), ("me pica todo el cuerpo", "pica")],
        "conditions": [
            ("epoc", "copd"),
            ("gota", "gout"),
            ("hipotiroidismo", "hypothyroidism"),
            ("insuficiencia cardíaca", "heart-failure"),
        ],
        "specialties": [("neumología", "pulmonology"), ("oftalmología", "ophthalmology")],
        "procedures": [("resonancia", "mri"), ("endoscopia", "endoscopy")],
        "symptoms": [
            ("se me hinchan los tobillos", "swelling"),
            ("me falta el aire", "shortness-of-breath"),
            ("tengo náuseas", "nausea"),
        ],
        "times": [("11:15", "once y cuarto", "11:15"), ("16:00", "cuatro de la tarde", "16:00")],
        "names": [("Chelo", "Consuelo", "María Consuelo"), ("Paco", "Pancho", "Francisco")],
        "languages": [("francés", "fr"), ("inglés", "en")],
        "care": [("no debo manejar durante 24 horas", "manejar")],
        "preferences": [("prefiero que me llamen por la tarde", "tarde")],
        "freqs": ["en la noche", "tres veces al día", "con el desayuno"],
        "relatives": ["mi suegra", "mi hijo", "mi compadre", "mi abuela"],
        "med_add": ["Estoy con {drug} {dose} {freq}.", "Me recetaron {drug} de {dose} {freq}."],
        "med_change": ["Ahora tomo {dose} de {drug}.", "La doctora me bajó el {drug} a {dose}."],
        "med_restate": ["El {drug} es de {dose}."],
        "med_correct": ["No, me equivoqué, son {dose} y no {old}."],
        "med_stop": ["Dejé el {drug} hace un mes.", "Suspendí el {drug}."],
        "allergy_reaction": ["La {allergen} me hace daño, {reaction}."],
        "allergy_add": ["No puedo tomar {allergen}, soy alérgico.", "Tengo alergia al {allergen}."],
        "allergy_retract": ["Al final no tengo alergia al {allergen}."],
        "confirm_allergy": ["Queda registrada la alergia a {allergen}."],
        "vague": ["la cinta que me pusieron me dejó el brazo rojo"],
        "condition_add": ["Padezco de {cond}.", "Tengo {cond} desde hace tiempo."],
        "appointment_add": ["Tengo cita en {spec} {date} a las {time}."],
        "appointment_move": ["La cita de {spec} la pasaron al {date}."],
        "procedure_add": ["Me van a hacer una {proc} {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["Me dijeron que {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["Dígame {name}.", "Todos me conocen como {name}."],
        "name_change": ["Prefiero que me diga {name} en vez de {old}."],
        "language_add": ["Me siento más cómodo hablando {language}."],
        "relative": [
            "{relative} toma {drug} {dose}.",
            "{relative} es alérgico al {allergen}.",
            "{relative} tiene {cond}.",
        ],
        "question": ["¿El {drug} da sueño?"],
        "negation": ["No estoy tomando {drug}."],
        "chatter": [
            "Traje la tarjeta del seguro.",
            "¿Hay cafetería aquí?",
            "Va a llover toda la semana.",
            "No encontré dónde estacionar.",
        ],
        "ack": ["Perfecto.", "Anotado.", "Claro."],
        "bye": ["Eso es todo, muchas gracias."],
    },
    "fr": {
        "drugs": [
            ("kardégic", "kardegic"),
            ("metformine", "metformin"),
            ("furosémide", "furosemide"),
            ("bisoprolol", "bisoprolol"),
            ("paracétamol", "paracetamol"),
            ("atorvastatine", "atorvastatin"),
            ("ramipril", "ramipril"),
        ],
        "allergens": [
            ("ibuprofène", "ibuprofen"),
            ("amoxicilline", "amoxicillin"),
            ("noix", "nuts"),
            ("codéine", "codeine"),
            ("œufs", "egg"),
            ("morphine", "morphine"),
            ("piqûres de guêpe", "wasp-stings"),
        ],
        "reactions": [("j'ai le visage qui gonfle", "gonfle"), ("ça me gratte partout", "gratte")],
        "conditions": [
            ("bpco", "copd"),
            ("goutte", "gout"),
            ("insuffisance cardiaque", "heart-failure"),
            ("glaucome", "glaucoma"),
        ],
        "specialties": [("pneumologie", "pulmonology"), ("ophtalmologie", "ophthalmology")],
        "procedures": [("irm", "mri"), ("endoscopie", "endoscopy")],
        "symptoms": [
            ("j'ai les chevilles qui gonflent", "swelling"),
            ("je suis essoufflé", "shortness-of-breath"),
            ("j'ai des nausées", "nausea"),
        ],
        "times": [("9h15", "neuf heures et quart", "09:15"), ("16h", "seize heures", "16:00")],
        "names": [("Loulou", "Lulu", "Louise"), ("Fanfan", "Franck", "François")],
        "languages": [("espagnol", "es")],
        "care": [("je ne dois pas conduire pendant 24 heures", "conduire")],
        "preferences": [("je préfère qu'on m'appelle l'après-midi", "après-midi")],
        "freqs": ["matin et soir", "trois fois par jour", "au coucher"],
        "relatives": ["ma belle-mère", "mon fils", "mon voisin", "ma grand-mère"],
        "med_add": ["On m'a prescrit du {drug} {dose} {freq}.", "Je prends {drug} {dose}, {freq}."],
        "med_change": [
            "Maintenant je prends {dose} de {drug}.",
            "La cardiologue a baissé le {drug} à {dose}.",
        ],
        "med_restate": ["Le {drug}, c'est {dose}."],
        "med_correct": ["Non pardon, je me suis trompée, c'est {dose} et pas {old}."],
        "med_stop": ["J'ai arrêté le {drug} le mois dernier.", "Le docteur a supprimé le {drug}."],
        "allergy_reaction": ["L'{allergen} ne me réussit pas, {reaction}."],
        "allergy_add": [
            "Je ne supporte pas l'{allergen}, j'y suis allergique.",
            "Notez que je suis allergique aux {allergen}.",
        ],
        "allergy_retract": ["En fin de compte je ne suis pas allergique à l'{allergen}."],
        "confirm_allergy": ["C'est noté : allergie à {allergen}."],
        "vague": ["le pansement de la dernière fois m'a laissé le bras tout rouge"],
        "condition_add": ["Je souffre de {cond}.", "J'ai une {cond}."],
        "appointment_add": ["J'ai rendez-vous en {spec} {date} à {time}."],
        "appointment_move": ["Le rendez-vous de {spec} a été repoussé au {date}."],
        "procedure_add": ["On doit me faire une {proc} {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["On m'a dit que {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["Tout le monde m'appelle {name}.", "Dites {name}, c'est plus simple."],
        "name_change": ["Je préfère {name} plutôt que {old}."],
        "language_add": ["Je suis plus à l'aise en {language}."],
        "relative": [
            "{relative} prend du {drug} {dose}.",
            "{relative} est allergique aux {allergen}.",
            "{relative} a un {cond}.",
        ],
        "question": ["Le {drug}, ça fait dormir ?"],
        "negation": ["Je ne prends pas de {drug}."],
        "chatter": [
            "J'ai oublié ma carte vitale.",
            "Il y a une cafétéria ?",
            "Il pleut depuis lundi.",
            "Je n'ai pas trouvé de place pour me garer.",
        ],
        "ack": ["Parfait.", "C'est noté.", "Bien sûr."],
        "bye": ["C'est tout pour aujourd'hui, merci."],
    },
    "ar": {
        "drugs": [
            ("لوسارتان", "losartan"),
            ("باراسيتامول", "paracetamol"),
            ("وارفارين", "warfarin"),
            ("ليفوثيروكسين", "levothyroxine"),
            ("فوروسيميد", "furosemide"),
            ("بريدنيزون", "prednisone"),
            ("Eliquis", "eliquis"),
            ("سيمفاستاتين", "simvastatin"),
        ],
        "allergens": [
            ("الإيبوبروفين", "ibuprofen"),
            ("الأموكسيسيلين", "amoxicillin"),
            ("البيض", "egg"),
            ("اليود", "iodine"),
            ("المورفين", "morphine"),
            ("الكودايين", "codeine"),
        ],
        "reactions": [("تورم في الوجه", "تورم")],
        "conditions": [
            ("النقرس", "gout"),
            ("قصور القلب", "heart-failure"),
            ("الغدة الدرقية", "thyroid"),
        ],
        "specialties": [("العيون", "ophthalmology"), ("الصدرية", "pulmonology")],
        "procedures": [("الرنين المغناطيسي", "mri")],
        "symptoms": [
            ("عندي ضيق في التنفس", "shortness-of-breath"),
            ("عندي غثيان", "nausea"),
            ("قدماي متورمتان", "swelling"),
        ],
        "times": [("11:15", "11:15", "11:15"), ("16:00", "16:00", "16:00")],
        "names": [("أم يوسف", "أم حسن", "مريم"), ("أبو عمر", "أبو رامي", "خالد")],
        "languages": [("العربية", "ar"), ("الإنجليزية", "en")],
        "care": [("لا أقود السيارة لمدة 24 ساعة", "أقود")],
        "preferences": [("أفضل أن تتصلوا بي بعد الظهر", "الظهر")],
        "freqs": ["في المساء", "ثلاث مرات يوميا"],
        "relatives": ["زوجتي", "ابني", "جاري", "جدتي"],
        "med_add": ["أنا على {drug} {dose} {freq}.", "وصف لي الطبيب {drug} {dose} {freq}."],
        "med_change": ["صرت آخذ {dose} من {drug}.", "الطبيبة خفضت {drug} إلى {dose}."],
        "med_restate": ["{drug} جرعته {dose}."],
        "med_correct": ["لا عفوا أخطأت، الجرعة {dose} وليست {old}."],
        "med_stop": ["توقفت عن {drug} الشهر الماضي."],
        "allergy_reaction": ["{allergen} يسبب لي {reaction}."],
        "allergy_add": [
            "لا أستطيع تناول {allergen} لأن عندي حساسية.",
            "سجل أن عندي حساسية من {allergen}.",
        ],
        "allergy_retract": ["في النهاية ليس عندي حساسية من {allergen}."],
        "confirm_allergy": ["تم تسجيل الحساسية من {allergen}."],
        "vague": ["اللاصق الذي وضعوه ترك ذراعي حمراء"],
        "condition_add": ["أعاني من {cond}.", "عندي مشكلة {cond}."],
        "appointment_add": ["عندي موعد في {spec} {date} الساعة {time}."],
        "appointment_move": ["نقلوا موعد {spec} إلى {date}."],
        "procedure_add": ["سيعملون لي {proc} {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["قالوا لي {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["الجميع ينادونني {name}.", "قل لي {name}."],
        "name_change": ["أفضل {name} بدلا من {old}."],
        "language_add": ["أرتاح أكثر في الحديث باللغة {language}."],
        "relative": [
            "{relative} يأخذ {drug} {dose}.",
            "{relative} عندها حساسية من {allergen}.",
            "{relative} عنده {cond}.",
        ],
        "question": ["هل {drug} يسبب النعاس؟"],
        "negation": ["لا آخذ {drug}."],
        "chatter": [
            "نسيت بطاقة التأمين.",
            "هل توجد كافتيريا هنا؟",
            "المطر لا يتوقف.",
            "لم أجد موقفا للسيارة.",
        ],
        "ack": ["ممتاز.", "تم.", "طبعا."],
        "bye": ["هذا كل شيء، شكرا جزيلا."],
    },
}
