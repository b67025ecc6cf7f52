"""Phrasings, drugs and names of the ``tune`` split (rules may be tuned on it)."""

from __future__ import annotations

import random
from typing import Any

from generate import MONTHS, WEEKDAYS, Dialogue, days, thanksgiving, weekday_after

VOICE_SHARE = 0.5
DIALOGUES = [
    ("en", "2026-12-04T15:00:00+00:00", 101),
    ("en", "2027-01-13T09:30:00+00:00", 102),
    ("en", "2026-12-10T11:00:00+00:00", 103),
    ("es", "2026-12-07T10:00:00+00:00", 104),
    ("es", "2027-02-02T16:00:00+00:00", 105),
    ("fr", "2026-12-15T14:00:00+00:00", 106),
    ("fr", "2027-03-03T08:00:00+00:00", 107),
    ("ar", "2026-12-09T12:00:00+00:00", 108),
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
    choice = rng.randrange(3)
    if lang == "en":
        forms = [
            (f"next {wd}", weekday_after(now, day)),
            (f"on {mname} {dom}", iso),
            ("tomorrow", days(now, 1)),
        ]
    elif lang == "es":
        forms = [
            (f"el próximo {wd}", weekday_after(now, day)),
            (f"el {dom} de {mname}", iso),
            ("mañana", days(now, 1)),
        ]
    elif lang == "fr":
        forms = [
            (f"{wd} prochain", weekday_after(now, day)),
            (f"le {dom} {mname}", iso),
            ("demain", days(now, 1)),
        ]
    else:
        forms = [
            (f"يوم {wd} القادم", weekday_after(now, day)),
            (f"في {dom} {mname}", iso),
            ("غدا", days(now, 1)),
        ]
    return forms[choice]


def onset_phrase(d: Dialogue, rng: random.Random) -> tuple[str, dict[str, str]]:
    """When a symptom began, as said, and the checked attributes."""
    lang, now = d.language, d.now
    n = rng.randint(2, 5)
    forms: list[tuple[str, dict[str, str]]]
    if lang == "en":
        tg = thanksgiving(now.year if now.month >= 12 else now.year - 1)
        forms = [
            (f"for {['two', 'three', 'four', 'five'][n - 2]} days", {"onset_date": days(now, -n)}),
            ("since the weekend after thanksgiving", {"onset_date": days(tg, 2)}),
            ("since yesterday", {"onset_date": days(now, -1)}),
        ]
    elif lang == "es":
        forms = [
            (
                f"desde hace {['dos', 'tres', 'cuatro', 'cinco'][n - 2]} días",
                {"onset_date": days(now, -n)},
            ),
            ("desde ayer", {"onset_date": days(now, -1)}),
        ]
    elif lang == "fr":
        forms = [
            (
                f"depuis {['deux', 'trois', 'quatre', 'cinq'][n - 2]} jours",
                {"onset_date": days(now, -n)},
            ),
            ("depuis hier", {"onset_date": days(now, -1)}),
        ]
    else:
        forms = [
            (
                f"منذ {['يومين', 'ثلاثة أيام', 'أربعة أيام', 'خمسة أيام'][n - 2]}",
                {"onset_date": days(now, -n)},
            ),
            ("منذ أمس", {"onset_date": days(now, -1)}),
        ]
    return rng.choice(forms)


LANG: dict[str, dict[str, Any]] = {
    "en": {
        "drugs": [
            ("lisinopril", "lisinopril"),
            ("metformin", "metformin"),
            ("atorvastatin", "atorvastatin"),
            ("levothyroxine", "levothyroxine"),
            ("amlodipine", "amlodipine"),
            ("sertraline", "sertraline"),
            ("omeprazole", "omeprazole"),
            ("gabapentin", "gabapentin"),
            ("warfarin", "warfarin"),
        ],
        "allergens": [
            ("sulfa", "sulfa"),
            ("penicillin", "penicillin"),
            ("latex", "latex"),
            ("codeine", "codeine"),
            ("shellfish", "shellfish"),
            ("aspirin", "aspirin"),
        ],
        "reactions": [("hives", "hives"), ("a rash", "rash"), ("swelling", "swelling")],
        "conditions": [
            ("type 2 diabetes", "type-2-diabetes"),
            ("high blood pressure", "hypertension"),
            ("asthma", "asthma"),
            ("hypothyroidism", "hypothyroidism"),
            ("atrial fibrillation", "atrial-fibrillation"),
            ("sleep apnea", "sleep-apnea"),
        ],
        "specialties": [
            ("cardiology", "cardiology"),
            ("dermatology", "dermatology"),
            ("eye doctor", "ophthalmology"),
        ],
        "procedures": [
            ("colonoscopy", "colonoscopy"),
            ("knee replacement", "knee-replacement"),
            ("cataract surgery", "cataract-surgery"),
        ],
        "symptoms": [
            ("my ankles have been swelling", "swelling"),
            ("i've had headaches", "headache"),
            ("i've been dizzy", "dizziness"),
            ("i've had a cough", "cough"),
        ],
        "times": [
            ("10:30", "ten thirty", "10:30"),
            ("2 pm", "two pm", "14:00"),
            ("9 am", "nine am", "09:00"),
        ],
        "names": [
            ("Bea", "Trixie", "Beatrice"),
            ("Peggy", "Maggie", "Margaret"),
            ("Bill", "Will", "William"),
        ],
        "languages": [("Spanish", "es"), ("French", "fr")],
        "care": [
            ("I have to fast after midnight before the procedure", "fast"),
            ("the doctor said no driving for 24 hours", "driving"),
        ],
        "preferences": [
            ("I prefer morning appointments", "morning"),
            ("I'd rather get text reminders than calls", "text"),
        ],
        "freqs": ["once a day", "twice a day", "every morning", "at night"],
        "relatives": ["my mom", "my husband", "my neighbor", "my sister", "my son"],
        "med_add": [
            "I take {drug} {dose} {freq}.",
            "I'm on {drug}, {dose} {freq}.",
            "I've been taking {drug} {dose} {freq} for years.",
        ],
        "med_change": [
            "The doctor bumped my {drug} up to {dose}.",
            "They changed my {drug} to {dose}.",
        ],
        "med_restate": ["My {drug} is {dose}.", "And the {drug} I take is {dose}."],
        "med_correct": [
            "Actually it's {dose}, not {old}.",
            "Sorry, I misspoke, the {drug} is {dose} not {old}.",
        ],
        "med_stop": ["They stopped the {drug}.", "I don't take the {drug} anymore."],
        "allergy_reaction": [
            "I'm allergic to {allergen}, it gives me {reaction}.",
            "I have a {allergen} allergy, I get {reaction}.",
        ],
        "allergy_add": ["I'm allergic to {allergen}.", "Oh and I have an allergy to {allergen}."],
        "allergy_retract": [
            "Turns out I'm not allergic to {allergen} after all.",
            "The allergist said I'm not actually allergic to {allergen}.",
        ],
        "confirm_allergy": [
            "I've noted a {allergen} allergy.",
            "Okay, I've noted that you're allergic to {allergen}.",
        ],
        "vague": [
            "and those gloves at the last visit made my hands itch like crazy",
            "the nurse said something about the stuff they used on me",
        ],
        "condition_add": ["I have {cond}.", "I was diagnosed with {cond} a few years ago."],
        "appointment_add": [
            "My {spec} appointment is {date} at {time}.",
            "I have a {spec} appointment {date} at {time}.",
        ],
        "appointment_move": [
            "They moved my {spec} appointment to {date}.",
            "My {spec} appointment got rescheduled to {date}.",
        ],
        "procedure_add": ["I'm scheduled for a {proc} {date}.", "I'm having a {proc} {date}."],
        "symptom_add": ["{symptom} {onset}.", "Also {symptom} {onset}."],
        "care_add": ["{care}."],
        "preference_add": ["{pref}."],
        "name_add": ["Please call me {name}.", "My name is {legal} but everyone calls me {name}."],
        "name_change": [
            "Actually, call me {name}, not {old}.",
            "You know what, I'd rather go by {name}.",
        ],
        "language_add": [
            "I'd prefer to speak {language}.",
            "Can we do this in {language}? It's easier for me.",
        ],
        "relative": [
            "{relative} is allergic to {allergen}.",
            "{relative} takes {drug} {dose}.",
            "{relative} has {cond}.",
            "My neighbor takes 20 mg of that.",
        ],
        "question": [
            "Should I take {drug} for the pain?",
            "Is it okay to take {drug} with my other pills?",
        ],
        "negation": [
            "I've never taken {drug}.",
            "I don't think I'm allergic to {allergen}, but I'm not sure.",
        ],
        "chatter": [
            "Where do I park when I come in?",
            "Does my insurance cover this visit?",
            "It's so cold out today.",
            "The parking garage was full again.",
            "My copay went up this year.",
            "How's your day going?",
            "The traffic was terrible this morning.",
            "Do you validate parking?",
        ],
        "ack": [
            "Okay.",
            "Got it, thank you.",
            "Thanks for letting me know.",
            "I understand.",
            "Sure.",
        ],
        "bye": ["Thanks, that's all for today.", "Okay bye now."],
    },
    "es": {
        "drugs": [
            ("metformina", "metformin"),
            ("lisinopril", "lisinopril"),
            ("omeprazol", "omeprazole"),
            ("atorvastatina", "atorvastatin"),
            ("losartán", "losartan"),
            ("ibuprofeno", "ibuprofen"),
            ("insulina", "insulin"),
        ],
        "allergens": [
            ("penicilina", "penicillin"),
            ("sulfa", "sulfa"),
            ("látex", "latex"),
            ("aspirina", "aspirin"),
            ("mariscos", "shellfish"),
            ("codeína", "codeine"),
        ],
        "reactions": [("urticaria", "urticaria"), ("sarpullido", "sarpullido")],
        "conditions": [
            ("diabetes", "diabetes"),
            ("hipertensión", "hypertension"),
            ("asma", "asthma"),
            ("artritis", "arthritis"),
        ],
        "specialties": [("cardiología", "cardiology"), ("dermatología", "dermatology")],
        "procedures": [("colonoscopia", "colonoscopy"), ("cirugía de rodilla", "knee-surgery")],
        "symptoms": [
            ("me duele la cabeza", "headache"),
            ("tengo tos", "cough"),
            ("tengo mareos", "dizziness"),
        ],
        "times": [("10:30", "diez y media", "10:30"), ("9:00", "nueve", "09:00")],
        "names": [("Lupe", "Lupita", "Guadalupe"), ("Pepe", "José", "José Luis")],
        "languages": [("inglés", "en")],
        "care": [("tengo que estar en ayunas desde la medianoche", "ayunas")],
        "preferences": [("prefiero las citas por la mañana", "mañana")],
        "freqs": ["una vez al día", "dos veces al día", "cada mañana"],
        "relatives": ["mi mamá", "mi esposo", "mi vecina", "mi hermano"],
        "med_add": ["Tomo {drug} de {dose} {freq}.", "Estoy tomando {drug} {dose} {freq}."],
        "med_change": [
            "El doctor me subió el {drug} a {dose}.",
            "Me cambiaron el {drug} a {dose}.",
        ],
        "med_restate": ["El {drug} que tomo es de {dose}."],
        "med_correct": ["Perdón, en realidad es {dose}, no {old}."],
        "med_stop": ["Me quitaron el {drug}.", "Ya no tomo {drug}."],
        "allergy_reaction": ["Soy alérgica a la {allergen}, me da {reaction}."],
        "allergy_add": ["Soy alérgico a {allergen}.", "También tengo alergia a {allergen}."],
        "allergy_retract": ["Resulta que no soy alérgica a {allergen}."],
        "confirm_allergy": ["He anotado su alergia a {allergen}."],
        "vague": ["los guantes de la última vez me dieron mucha comezón"],
        "condition_add": ["Tengo {cond}.", "Me diagnosticaron {cond} hace años."],
        "appointment_add": ["Mi cita de {spec} es {date} a las {time}."],
        "appointment_move": ["Me cambiaron la cita de {spec} para {date}."],
        "procedure_add": ["Tengo programada una {proc} para {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["El doctor dijo que {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["Llámeme {name}, por favor.", "Me llamo {legal} pero todos me dicen {name}."],
        "name_change": ["Mejor llámeme {name}, no {old}."],
        "language_add": ["Prefiero hablar en {language}."],
        "relative": [
            "{relative} es alérgica a la {allergen}.",
            "{relative} toma {drug} de {dose}.",
            "{relative} tiene {cond}.",
        ],
        "question": ["¿Puedo tomar {drug} para el dolor?"],
        "negation": ["Nunca he tomado {drug}."],
        "chatter": [
            "¿Dónde me estaciono?",
            "¿Mi seguro cubre esta consulta?",
            "Hace mucho calor hoy.",
            "El tráfico estaba horrible.",
        ],
        "ack": ["De acuerdo.", "Entendido, gracias.", "Muy bien."],
        "bye": ["Gracias, eso es todo."],
    },
    "fr": {
        "drugs": [
            ("metformine", "metformin"),
            ("lisinopril", "lisinopril"),
            ("lévothyrox", "levothyroxine"),
            ("amlodipine", "amlodipine"),
            ("doliprane", "doliprane"),
            ("kardégic", "kardegic"),
            ("oméprazole", "omeprazole"),
        ],
        "allergens": [
            ("pénicilline", "penicillin"),
            ("aspirine", "aspirin"),
            ("latex", "latex"),
            ("arachides", "peanuts"),
            ("iode", "iodine"),
            ("sulfamides", "sulfa"),
        ],
        "reactions": [("de l'urticaire", "urticaire"), ("des plaques rouges", "plaques")],
        "conditions": [
            ("diabète", "diabetes"),
            ("hypertension", "hypertension"),
            ("asthme", "asthma"),
            ("arthrose", "osteoarthritis"),
        ],
        "specialties": [("cardiologie", "cardiology"), ("dermatologie", "dermatology")],
        "procedures": [("coloscopie", "colonoscopy"), ("opération du genou", "knee-surgery")],
        "symptoms": [
            ("j'ai mal à la tête", "headache"),
            ("je tousse", "cough"),
            ("j'ai des vertiges", "dizziness"),
        ],
        "times": [("10h30", "dix heures et demie", "10:30"), ("14h", "quatorze heures", "14:00")],
        "names": [("Mimi", "Michou", "Michèle"), ("Jeannot", "Jean", "Jean-Pierre")],
        "languages": [("anglais", "en"), ("arabe", "ar")],
        "care": [("je dois être à jeun depuis minuit", "jeun")],
        "preferences": [("je préfère les rendez-vous le matin", "matin")],
        "freqs": ["une fois par jour", "deux fois par jour", "le soir"],
        "relatives": ["ma mère", "mon mari", "ma voisine", "mon frère"],
        "med_add": ["Je prends du {drug} {dose} {freq}.", "Je suis sous {drug} {dose} {freq}."],
        "med_change": ["Le médecin a augmenté le {drug} à {dose}."],
        "med_restate": ["Le {drug} que je prends, c'est {dose}."],
        "med_correct": ["En fait c'est {dose}, pas {old}."],
        "med_stop": ["On m'a arrêté le {drug}.", "Je ne prends plus de {drug}."],
        "allergy_reaction": ["Je suis allergique à la {allergen}, ça me donne {reaction}."],
        "allergy_add": ["Je suis allergique à l'{allergen}.", "J'ai une allergie à {allergen}."],
        "allergy_retract": ["Finalement je ne suis pas allergique à {allergen}."],
        "confirm_allergy": ["J'ai noté votre allergie à {allergen}."],
        "vague": ["les gants de la dernière fois m'ont donné des démangeaisons"],
        "condition_add": ["J'ai du {cond}.", "On m'a diagnostiqué un {cond}."],
        "appointment_add": ["Mon rendez-vous de {spec} est {date} à {time}."],
        "appointment_move": ["Mon rendez-vous de {spec} a été déplacé au {date}."],
        "procedure_add": ["J'ai une {proc} prévue {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["Le médecin a dit que {care}."],
        "preference_add": ["{pref}."],
        "name_add": [
            "Appelez-moi {name}, s'il vous plaît.",
            "Je m'appelle {legal} mais tout le monde m'appelle {name}.",
        ],
        "name_change": ["Appelez-moi plutôt {name}, pas {old}."],
        "language_add": ["Je préfère parler en {language}."],
        "relative": [
            "{relative} est allergique à la {allergen}.",
            "{relative} prend du {drug} {dose}.",
            "{relative} a du {cond}.",
        ],
        "question": ["Est-ce que je peux prendre du {drug} pour la douleur ?"],
        "negation": ["Je n'ai jamais pris de {drug}."],
        "chatter": [
            "Où est-ce que je peux me garer ?",
            "Est-ce que ma mutuelle rembourse ?",
            "Il fait un temps horrible.",
            "Le parking était plein.",
        ],
        "ack": ["D'accord.", "Très bien, merci.", "Entendu."],
        "bye": ["Merci, ce sera tout."],
    },
    "ar": {
        "drugs": [
            ("ميتفورمين", "metformin"),
            ("الأنسولين", "insulin"),
            ("أملوديبين", "amlodipine"),
            ("أسبرين", "aspirin"),
            ("أتورفاستاتين", "atorvastatin"),
            ("أوميبرازول", "omeprazole"),
            ("ليسينوبريل", "lisinopril"),
            ("metformin", "metformin"),
        ],
        "allergens": [
            ("البنسلين", "penicillin"),
            ("السلفا", "sulfa"),
            ("اللاتكس", "latex"),
            ("الفول السوداني", "peanuts"),
            ("الأسبرين", "aspirin"),
            ("المأكولات البحرية", "shellfish"),
        ],
        "reactions": [("طفح جلدي", "طفح")],
        "conditions": [
            ("السكري", "diabetes"),
            ("ارتفاع ضغط الدم", "hypertension"),
            ("الربو", "asthma"),
        ],
        "specialties": [("القلب", "cardiology"), ("الجلدية", "dermatology")],
        "procedures": [("منظار القولون", "colonoscopy")],
        "symptoms": [("عندي صداع", "headache"), ("عندي سعال", "cough"), ("عندي دوخة", "dizziness")],
        "times": [("10:30", "10:30", "10:30"), ("9:00", "9:00", "09:00")],
        "names": [("أم أحمد", "أم علي", "فاطمة"), ("أبو سامي", "أبو خالد", "محمود")],
        "languages": [("الإنجليزية", "en"), ("الفرنسية", "fr")],
        "care": [("يجب أن أصوم بعد منتصف الليل", "أصوم")],
        "preferences": [("أفضل المواعيد الصباحية", "الصباحية")],
        "freqs": ["مرة في اليوم", "مرتين في اليوم"],
        "relatives": ["أمي", "زوجي", "جارتي", "أخي"],
        "med_add": ["آخذ {drug} {dose} {freq}.", "أتناول {drug} {dose} {freq}."],
        "med_change": ["الطبيب رفع جرعة {drug} إلى {dose}."],
        "med_restate": ["جرعة {drug} عندي {dose}."],
        "med_correct": ["في الحقيقة هي {dose} وليس {old}."],
        "med_stop": ["أوقفوا {drug}.", "لم أعد آخذ {drug}."],
        "allergy_reaction": ["عندي حساسية من {allergen}، تسبب لي {reaction}."],
        "allergy_add": ["عندي حساسية من {allergen}.", "أنا عندي حساسية ضد {allergen}."],
        "allergy_retract": ["تبين أنه ليس عندي حساسية من {allergen}."],
        "confirm_allergy": ["لقد سجلت حساسيتك من {allergen}."],
        "vague": ["القفازات في المرة الماضية سببت لي حكة"],
        "condition_add": ["عندي {cond}.", "تم تشخيصي بـ{cond}."],
        "appointment_add": ["موعدي في عيادة {spec} {date} الساعة {time}."],
        "appointment_move": ["تم تأجيل موعدي في عيادة {spec} إلى {date}."],
        "procedure_add": ["عندي {proc} {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["قال الطبيب {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["نادني {name} من فضلك.", "اسمي {legal} لكن الجميع ينادونني {name}."],
        "name_change": ["في الحقيقة نادني {name} وليس {old}."],
        "language_add": ["أفضل التحدث باللغة {language}."],
        "relative": [
            "{relative} عندها حساسية من {allergen}.",
            "{relative} يأخذ {drug} {dose}.",
            "{relative} عنده {cond}.",
        ],
        "question": ["هل يمكنني أخذ {drug} للألم؟"],
        "negation": ["لم آخذ {drug} أبدا."],
        "chatter": [
            "أين أوقف السيارة؟",
            "هل يغطي التأمين هذه الزيارة؟",
            "الجو حار جدا اليوم.",
            "كانت زحمة السير شديدة.",
        ],
        "ack": ["حسنا.", "فهمت، شكرا.", "تمام."],
        "bye": ["شكرا، هذا كل شيء."],
    },
}
