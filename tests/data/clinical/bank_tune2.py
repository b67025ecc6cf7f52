"""Phrasings, drugs and names of the ``tune2`` split (rules may be tuned on it).

Written, before any rule was changed for it, to differ from ``bank_tune.py``:
other drugs, allergens, conditions, names, dates ("this coming friday", "the
day after tomorrow", "in two weeks", "3/14"), times ("quarter past nine",
"noon"), and the ways people switch ("they switched me from X to Y"), stop
("the doctor took me off", "ran out and quit"), correct ("no wait, scratch
that"), retract an allergy and ask ("should I stop the X?").
"""

from __future__ import annotations

import random
from typing import Any

from generate import MONTHS, WEEKDAYS, Dialogue, days, weekday_after

VOICE_SHARE = 0.55
DIALOGUES = [
    ("en", "2026-11-18T10:00:00+00:00", 201),
    ("en", "2027-02-22T13:30:00+00:00", 202),
    ("en", "2027-04-06T17:00:00+00:00", 203),
    ("es", "2026-10-29T09:00:00+00:00", 204),
    ("es", "2027-05-11T12:00:00+00:00", 205),
    ("fr", "2027-01-25T15:30:00+00:00", 206),
    ("fr", "2026-11-03T10:00:00+00:00", 207),
    ("ar", "2027-03-16T11:00:00+00:00", 208),
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
    th = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(dom, "th")
    if lang == "en":
        forms = [
            (f"this coming {wd}", weekday_after(now, day)),
            ("the day after tomorrow", days(now, 2)),
            ("in two weeks", days(now, 14)),
            (f"on the {dom}{th} of {mname}", iso),
            (f"on {month}/{dom}", iso),
        ]
    elif lang == "es":
        forms = [
            (f"el {wd} que viene", weekday_after(now, day)),
            ("pasado mañana", days(now, 2)),
            ("dentro de dos semanas", days(now, 14)),
            (f"el {dom}/{month}", iso),
        ]
    elif lang == "fr":
        forms = [
            (f"{wd} qui vient", weekday_after(now, day)),
            ("après-demain", days(now, 2)),
            ("dans deux semaines", days(now, 14)),
            (f"le {dom}/{month}", iso),
        ]
    else:
        forms = [
            (f"{wd} المقبل", weekday_after(now, day)),
            ("بعد غد", days(now, 2)),
            ("بعد أسبوعين", days(now, 14)),
            (f"في {dom}/{month}", iso),
        ]
    return rng.choice(forms)


def onset_phrase(d: Dialogue, rng: random.Random) -> tuple[str, dict[str, str]]:
    """When a symptom began, as said, and the checked attributes."""
    lang, now = d.language, d.now
    n = rng.randint(2, 5)
    forms: list[tuple[str, dict[str, str]]]
    if lang == "en":
        forms = [
            ("for about a week", {"onset_date": days(now, -7)}),
            ("since the day before yesterday", {"onset_date": days(now, -2)}),
            (
                f"for the last {['two', 'three', 'four', 'five'][n - 2]} days",
                {"onset_date": days(now, -n)},
            ),
        ]
    elif lang == "es":
        forms = [
            ("desde anteayer", {"onset_date": days(now, -2)}),
            ("desde hace una semana", {"onset_date": days(now, -7)}),
        ]
    elif lang == "fr":
        forms = [
            ("depuis avant-hier", {"onset_date": days(now, -2)}),
            ("depuis une semaine", {"onset_date": days(now, -7)}),
        ]
    else:
        forms = [
            ("منذ أسبوع", {"onset_date": days(now, -7)}),
            ("منذ أول أمس", {"onset_date": days(now, -2)}),
        ]
    return rng.choice(forms)


LANG: dict[str, dict[str, Any]] = {
    "en": {
        "drugs": [
            ("simvastatin", "simvastatin"),
            ("losartan", "losartan"),
            ("pantoprazole", "pantoprazole"),
            ("furosemide", "furosemide"),
            ("prednisone", "prednisone"),
            ("citalopram", "citalopram"),
            ("tamsulosin", "tamsulosin"),
            ("clopidogrel", "clopidogrel"),
            ("allopurinol", "allopurinol"),
            ("carvedilol", "carvedilol"),
        ],
        "allergens": [
            ("amoxicillin", "amoxicillin"),
            ("ibuprofen", "ibuprofen"),
            ("eggs", "egg"),
            ("bee stings", "bee-stings"),
            ("morphine", "morphine"),
            ("contrast dye", "iodine-contrast"),
            ("tree nuts", "nuts"),
        ],
        "reactions": [("hives", "hives"), ("welts", "welts"), ("trouble breathing", "breathing")],
        "conditions": [
            ("copd", "copd"),
            ("gout", "gout"),
            ("high cholesterol", "high-cholesterol"),
            ("migraines", "migraine"),
            ("glaucoma", "glaucoma"),
            ("chronic kidney disease", "chronic-kidney-disease"),
        ],
        "specialties": [
            ("kidney doctor", "nephrology"),
            ("neurologist", "neurology"),
            ("orthopedic", "orthopedics"),
        ],
        "procedures": [
            ("mri", "mri"),
            ("stress test", "stress-test"),
            ("hip replacement", "hip-replacement"),
        ],
        "symptoms": [
            ("i've been short of breath", "shortness-of-breath"),
            ("i keep getting nosebleeds", "nosebleeds"),
            ("my feet have been tingling", "tingling"),
            ("i've been really tired", "fatigue"),
            ("i've been nauseous", "nausea"),
        ],
        "times": [
            ("3:15 pm", "three fifteen pm", "15:15"),
            ("noon", "noon", "12:00"),
            ("8:45 am", "eight forty five am", "08:45"),
        ],
        "names": [
            ("Kate", "Katie", "Katherine"),
            ("Rob", "Bobby", "Robert"),
            ("Liz", "Beth", "Elizabeth"),
        ],
        "languages": [("Portuguese", "pt"), ("Arabic", "ar")],
        "care": [
            ("no heavy lifting for two weeks after the surgery", "lifting"),
            ("I'm supposed to keep my leg elevated at night", "elevated"),
        ],
        "preferences": [
            ("please email me instead of calling", "email"),
            ("I like afternoon visits better", "afternoon"),
        ],
        "freqs": ["two a day", "every evening", "with breakfast", "three times daily"],
        "relatives": ["my wife", "my dad", "my brother", "my daughter", "my roommate"],
        "med_add": [
            "The doctor has me on {drug} {dose} {freq}.",
            "I'm taking {drug}, {dose}, {freq}.",
            "Oh and {drug}, {dose}, {freq}, that's one of mine.",
        ],
        "med_change": [
            "They upped my {drug} to {dose}.",
            "My {drug} went from {old} to {dose}.",
            "The new dose for the {drug} is {dose}.",
            "They adjusted the {drug}, it's {dose} now.",
        ],
        "med_restate": ["Oh, the {drug}, that one's {dose}.", "For the {drug} it's {dose}."],
        "med_correct": [
            "No wait, scratch that, the {drug} is {dose}, not {old}.",
            "Sorry, it was {dose}, not {old}.",
            "Hold on, I got that wrong, it's {dose} of the {drug}.",
        ],
        "med_stop": [
            "The doctor took me off the {drug}.",
            "I ran out of {drug} and just quit.",
            "I'm no longer on {drug}.",
            "I stopped taking the {drug} last month.",
        ],
        "med_switch": [
            "They switched me from {drug} to {drug2}.",
            "I'm on {drug2} now instead of the {drug}.",
            "The doctor swapped my {drug} for {drug2}.",
        ],
        "allergy_reaction": [
            "{allergen} makes me break out in {reaction}.",
            "I can't have {allergen}, I get {reaction}.",
        ],
        "allergy_add": [
            "I react badly to {allergen}.",
            "Put down that I'm allergic to {allergen}.",
            "Oh, {allergen} allergy too.",
        ],
        "allergy_retract": [
            "I got tested and I'm not allergic to {allergen}.",
            "Please take {allergen} off my allergies, that was a mistake.",
            "Scratch the {allergen} allergy, I was wrong about that.",
        ],
        "confirm_allergy": [
            "Noted: allergic to {allergen}.",
            "I've added {allergen} to your allergies.",
        ],
        "vague": [
            "the tape they put on me last time left welts everywhere",
            "something they gave me at the hospital didn't agree with me",
        ],
        "condition_add": [
            "I've got {cond}.",
            "They told me last year I have {cond}.",
            "I'm being treated for {cond}.",
        ],
        "appointment_add": [
            "I see the {spec} {date} at {time}.",
            "My appointment with the {spec} is {date} at {time}.",
        ],
        "appointment_move": [
            "The {spec} appointment is now {date}.",
            "They pushed my {spec} appointment to {date}.",
        ],
        "procedure_add": ["My {proc} is booked for {date}.", "I go in for the {proc} {date}."],
        "symptom_add": ["{symptom} {onset}.", "And {symptom} {onset}, I forgot to say."],
        "care_add": ["The nurse said {care}."],
        "preference_add": ["{pref}."],
        "name_add": [
            "Everyone calls me {name}.",
            "It's {legal} on the chart but I go by {name}.",
        ],
        "name_change": [
            "Actually I'd prefer {name} over {old}.",
            "Could you call me {name} from now on?",
        ],
        "language_add": [
            "I'm more comfortable in {language}.",
            "Could we switch to {language}?",
        ],
        "relative": [
            "{relative} just got put on {drug} {dose}.",
            "{relative}'s allergic to {allergen}.",
            "{relative} was diagnosed with {cond}.",
            "{relative} stopped taking {drug}.",
        ],
        "question": [
            "Should I stop the {drug}?",
            "Can I switch from {drug} to something cheaper?",
            "What if I'm allergic to {allergen}?",
            "Do I need to keep taking {drug}?",
        ],
        "negation": [
            "I'm not on {drug}.",
            "No, I've never been allergic to {allergen}.",
            "I don't take {drug}.",
        ],
        "chatter": [
            "Hold on, my dog is barking.",
            "Sorry, can you hear me okay?",
            "I'm taking the bus home after this.",
            "My phone is at 5 percent.",
            "Do you take Medicare?",
            "I'm running a bit late, sorry.",
            "I'll take a number at the front desk.",
            "It's been raining all week.",
        ],
        "ack": ["Alright.", "Thanks.", "Noted.", "Okay, go on.", "Mm-hm."],
        "bye": ["Alright, talk soon.", "That's everything, thanks."],
    },
    "es": {
        "drugs": [
            ("simvastatina", "simvastatin"),
            ("pantoprazol", "pantoprazole"),
            ("furosemida", "furosemide"),
            ("prednisona", "prednisone"),
            ("enalapril", "enalapril"),
            ("paracetamol", "paracetamol"),
            ("clopidogrel", "clopidogrel"),
            ("alopurinol", "allopurinol"),
        ],
        "allergens": [
            ("huevo", "egg"),
            ("ibuprofeno", "ibuprofen"),
            ("amoxicilina", "amoxicillin"),
            ("picaduras de abeja", "bee-stings"),
            ("frutos secos", "nuts"),
            ("yodo", "iodine"),
        ],
        "reactions": [("ronchas", "ronchas"), ("hinchazón", "hinchazón")],
        "conditions": [
            ("gota", "gout"),
            ("colesterol alto", "high-cholesterol"),
            ("epoc", "copd"),
            ("hipotiroidismo", "hypothyroidism"),
        ],
        "specialties": [("neumología", "pulmonology"), ("nefrología", "nephrology")],
        "procedures": [("resonancia", "mri"), ("ecografía", "ultrasound")],
        "symptoms": [
            ("tengo náuseas", "nausea"),
            ("estoy muy cansada", "fatigue"),
            ("me falta el aire", "shortness-of-breath"),
        ],
        "times": [("16:00", "cuatro de la tarde", "16:00"), ("11:15", "once y cuarto", "11:15")],
        "names": [("Paco", "Pancho", "Francisco"), ("Charo", "Rosario", "María del Rosario")],
        "languages": [("francés", "fr"), ("portugués", "pt")],
        "care": [("no debo comer nada seis horas antes", "comer")],
        "preferences": [("prefiero que me escriban por whatsapp", "whatsapp")],
        "freqs": ["en la noche", "con el desayuno", "tres veces al día"],
        "relatives": ["mi hija", "mi papá", "mi cuñada", "mi abuela"],
        "med_add": [
            "El médico me tiene con {drug} {dose} {freq}.",
            "Uso {drug}, {dose}, {freq}.",
        ],
        "med_change": [
            "Me aumentaron el {drug} a {dose}.",
            "El {drug} pasó de {old} a {dose}.",
        ],
        "med_restate": ["Del {drug} tomo {dose}."],
        "med_correct": [
            "No, espere, me equivoqué, son {dose}, no {old}.",
            "Perdón, era {dose} y no {old}.",
        ],
        "med_stop": [
            "El doctor me suspendió el {drug}.",
            "Se me acabó el {drug} y lo dejé.",
        ],
        "med_switch": [
            "Me cambiaron de {drug} a {drug2}.",
            "Ahora tomo {drug2} en vez de {drug}.",
        ],
        "allergy_reaction": ["El {allergen} me da {reaction}."],
        "allergy_add": ["Anote que soy alérgica al {allergen}.", "Me hace daño el {allergen}."],
        "allergy_retract": [
            "Me hicieron la prueba y no soy alérgica al {allergen}.",
            "Quite lo del {allergen}, fue un error.",
        ],
        "confirm_allergy": ["Anotado: alergia a {allergen}."],
        "vague": ["la cinta que me pusieron la otra vez me dejó marcas"],
        "condition_add": ["Padezco de {cond}.", "Me dijeron que tengo {cond}."],
        "appointment_add": ["Tengo cita en {spec} {date} a las {time}."],
        "appointment_move": ["La cita de {spec} ahora es {date}."],
        "procedure_add": ["La {proc} me la hacen {date}."],
        "symptom_add": ["{symptom} {onset}.", "Ah, y {symptom} {onset}."],
        "care_add": ["La enfermera dijo que {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["Todos me dicen {name}.", "Soy {legal}, pero dígame {name}."],
        "name_change": ["Prefiero que me diga {name}, no {old}."],
        "language_add": ["Me siento más cómoda en {language}."],
        "relative": [
            "{relative} es alérgica al {allergen}.",
            "A {relative} le recetaron {drug} de {dose}.",
            "{relative} padece de {cond}.",
        ],
        "question": ["¿Debo dejar el {drug}?", "¿Y si soy alérgica al {allergen}?"],
        "negation": ["No tomo {drug}.", "Nunca he sido alérgica al {allergen}."],
        "chatter": [
            "Perdón, se me corta la llamada.",
            "¿Aceptan mi seguro?",
            "Vine en autobús.",
            "Está lloviendo mucho.",
        ],
        "ack": ["Vale.", "Anotado.", "Bien, siga."],
        "bye": ["Listo, hasta luego."],
    },
    "fr": {
        "drugs": [
            ("simvastatine", "simvastatin"),
            ("furosémide", "furosemide"),
            ("ramipril", "ramipril"),
            ("bisoprolol", "bisoprolol"),
            ("tramadol", "tramadol"),
            ("prednisolone", "prednisolone"),
            ("pantoprazole", "pantoprazole"),
        ],
        "allergens": [
            ("œufs", "egg"),
            ("ibuprofène", "ibuprofen"),
            ("amoxicilline", "amoxicillin"),
            ("piqûres d'abeille", "bee-stings"),
            ("noix", "nuts"),
            ("lait", "milk"),
        ],
        "reactions": [("des boutons", "boutons"), ("un œdème", "œdème")],
        "conditions": [
            ("goutte", "gout"),
            ("cholestérol", "high-cholesterol"),
            ("bpco", "copd"),
            ("glaucome", "glaucoma"),
        ],
        "specialties": [("pneumologue", "pulmonology"), ("ophtalmo", "ophthalmology")],
        "procedures": [("irm", "mri"), ("échographie", "ultrasound")],
        "symptoms": [
            ("j'ai des nausées", "nausea"),
            ("je suis très fatiguée", "fatigue"),
            ("j'ai des fourmillements dans les pieds", "tingling"),
        ],
        "times": [("9h15", "neuf heures et quart", "09:15"), ("15h", "quinze heures", "15:00")],
        "names": [("Loulou", "Lulu", "Louise"), ("Manu", "Emmanuel", "Emmanuel Dupré")],
        "languages": [("espagnol", "es"), ("portugais", "pt")],
        "care": [("je ne dois pas conduire pendant 24 heures", "conduire")],
        "preferences": [("je préfère être appelée l'après-midi", "après-midi")],
        "freqs": ["matin et soir", "au coucher", "trois fois par jour"],
        "relatives": ["ma fille", "mon père", "ma belle-sœur", "mon cousin"],
        "med_add": [
            "Le docteur m'a mis sous {drug} {dose} {freq}.",
            "Je prends {drug}, {dose}, {freq}.",
        ],
        "med_change": [
            "On m'a monté le {drug} à {dose}.",
            "Le {drug} est passé de {old} à {dose}.",
        ],
        "med_restate": ["Pour le {drug}, c'est {dose}."],
        "med_correct": [
            "Non attendez, je me suis trompée, c'est {dose} et pas {old}.",
            "Pardon, c'était {dose}, pas {old}.",
        ],
        "med_stop": [
            "Le médecin m'a retiré le {drug}.",
            "J'ai arrêté le {drug} le mois dernier.",
        ],
        "med_switch": [
            "On m'a fait passer du {drug} au {drug2}.",
            "Je prends du {drug2} maintenant à la place du {drug}.",
        ],
        "allergy_reaction": ["Les {allergen}, ça me donne {reaction}."],
        "allergy_add": [
            "Notez que je suis allergique aux {allergen}.",
            "Je réagis mal au {allergen}.",
        ],
        "allergy_retract": [
            "J'ai fait les tests et je ne suis pas allergique à {allergen}.",
            "Enlevez {allergen} de mes allergies, c'était une erreur.",
        ],
        "confirm_allergy": ["C'est noté : allergie à {allergen}."],
        "vague": ["le pansement de la dernière fois m'a laissé des marques"],
        "condition_add": ["Je suis soignée pour un {cond}.", "On m'a dit que j'ai un {cond}."],
        "appointment_add": ["Je vois le {spec} {date} à {time}."],
        "appointment_move": ["Le rendez-vous chez le {spec} est maintenant {date}."],
        "procedure_add": ["Mon {proc} est prévue {date}."],
        "symptom_add": ["{symptom} {onset}.", "Et aussi, {symptom} {onset}."],
        "care_add": ["L'infirmière a dit que {care}."],
        "preference_add": ["{pref}."],
        "name_add": [
            "On m'appelle {name}.",
            "C'est {legal} sur le dossier, mais je préfère {name}.",
        ],
        "name_change": ["Dites plutôt {name}, pas {old}."],
        "language_add": ["Je suis plus à l'aise en {language}."],
        "relative": [
            "{relative} est allergique aux {allergen}.",
            "{relative} vient de commencer le {drug} {dose}.",
            "{relative} a un {cond}.",
        ],
        "question": [
            "Est-ce que je dois arrêter le {drug} ?",
            "Et si j'étais allergique aux {allergen} ?",
        ],
        "negation": [
            "Je ne prends pas de {drug}.",
            "Je n'ai jamais été allergique aux {allergen}.",
        ],
        "chatter": [
            "Pardon, le réseau coupe.",
            "Vous prenez la carte vitale ?",
            "Je suis venue en bus.",
            "Il pleut depuis ce matin.",
        ],
        "ack": ["Bien.", "C'est noté.", "Je vous écoute."],
        "bye": ["Bon, à bientôt."],
    },
    "ar": {
        "drugs": [
            ("سيمفاستاتين", "simvastatin"),
            ("فوروسيميد", "furosemide"),
            ("بيسوبرولول", "bisoprolol"),
            ("باراسيتامول", "paracetamol"),
            ("لوسارتان", "losartan"),
            ("وارفارين", "warfarin"),
            ("losartan", "losartan"),
        ],
        "allergens": [
            ("البيض", "egg"),
            ("المكسرات", "nuts"),
            ("الحليب", "milk"),
            ("اليود", "iodine"),
            ("البنسلين", "penicillin"),
            ("اللاتكس", "latex"),
        ],
        "reactions": [("حكة", "حكة")],
        "conditions": [
            ("النقرس", "gout"),
            ("فقر الدم", "anemia"),
            ("القلق", "anxiety"),
        ],
        "specialties": [("العيون", "ophthalmology"), ("العظام", "orthopedics")],
        "procedures": [("الرنين المغناطيسي", "mri"), ("منظار", "endoscopy")],
        "symptoms": [("عندي غثيان", "nausea"), ("عندي ضيق في التنفس", "shortness-of-breath")],
        "times": [("11:00", "11:00", "11:00"), ("16:30", "16:30", "16:30")],
        "names": [("أبو يوسف", "أبو عمر", "حسن"), ("أم سارة", "أم ليلى", "مريم")],
        "languages": [("الإسبانية", "es"), ("الإنجليزية", "en")],
        "care": [("لا يجب أن أحمل أشياء ثقيلة", "ثقيلة")],
        "preferences": [("أفضل الرسائل النصية", "الرسائل")],
        "freqs": ["ثلاث مرات في اليوم", "في المساء"],
        "relatives": ["ابنتي", "أبي", "زوجتي", "خالتي"],
        "med_add": ["الطبيب وصف لي {drug} {dose} {freq}.", "أستعمل {drug} {dose} {freq}."],
        "med_change": ["زادوا جرعة {drug} إلى {dose}.", "صارت جرعة {drug} {dose}."],
        "med_restate": ["{drug} آخذه {dose}."],
        "med_correct": ["لا انتظر، أخطأت، هي {dose} وليست {old}."],
        "med_stop": ["الطبيب أوقف لي {drug}.", "توقفت عن {drug} الشهر الماضي."],
        "med_switch": ["غيروا لي {drug} إلى {drug2}.", "صرت آخذ {drug2} بدل {drug}."],
        "allergy_reaction": ["{allergen} يسبب لي {reaction}."],
        "allergy_add": ["سجل أن عندي حساسية من {allergen}.", "أتحسس من {allergen}."],
        "allergy_retract": ["عملت الفحص وليس عندي حساسية من {allergen}."],
        "confirm_allergy": ["تم تسجيل حساسية من {allergen}."],
        "vague": ["اللاصق في المرة الماضية ترك علامات على جلدي"],
        "condition_add": ["أعالج من {cond}.", "قالوا لي إن عندي {cond}."],
        "appointment_add": ["موعد {spec} {date} الساعة {time}."],
        "appointment_move": ["صار موعد {spec} {date}."],
        "procedure_add": ["سأعمل {proc} {date}."],
        "symptom_add": ["{symptom} {onset}."],
        "care_add": ["قالت الممرضة {care}."],
        "preference_add": ["{pref}."],
        "name_add": ["الكل يناديني {name}.", "اسمي في الملف {legal} لكن ناديني {name}."],
        "name_change": ["أفضل أن تناديني {name} بدلا من {old}."],
        "language_add": ["أرتاح أكثر في الكلام {language}."],
        "relative": [
            "{relative} عندها حساسية من {allergen}.",
            "{relative} بدأ يأخذ {drug} {dose}.",
            "{relative} عندها {cond}.",
        ],
        "question": ["هل يجب أن أوقف {drug}؟", "ماذا لو كانت عندي حساسية من {allergen}؟"],
        "negation": ["لا آخذ {drug}.", "لم تكن عندي حساسية من {allergen} أبدا."],
        "chatter": [
            "عفوا الخط يقطع.",
            "هل تقبلون تأميني؟",
            "جئت بالحافلة.",
            "المطر لم يتوقف.",
        ],
        "ack": ["طيب.", "تم.", "تفضل."],
        "bye": ["مع السلامة."],
    },
}
