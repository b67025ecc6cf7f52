"""The ``heldout2`` split: seven dialogues written turn by turn (not drawn from a
bank of templates as the other splits are), with other drugs, allergens,
conditions, names, dates, times and phrasings, and never tuned on.

Each dialogue is a list of beats in the order they are said: a user turn
(``voice`` written as a recognizer gives it: lowercase, no punctuation,
fillers; ``typed`` as typed), its tag, and the changes it makes. An assistant
turn follows each user turn (an acknowledgement, or a confirmation when the
beat gives one). Chatter from the dialogue's language is put between beats,
with a fixed seed, until the dialogue has at least 104 turns.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from generate import Dialogue, change, days, weekday_after

V, T = True, False  # voice, typed

Beat = tuple[Any, ...]

CHATTER = {
    "en": [
        "the parking garage on fifth street is full again",
        "Does my copay change if I see the nurse practitioner instead?",
        "it's been raining sideways all morning",
        "I had to circle the lot three times.",
        "uh my insurance switched to a new plan in january so the card might be different",
        "the vending machine ate my dollar",
        "my daughter's driving me home after",
        "Is the valet still free on Tuesdays?",
        "they're doing construction on the bridge so it took forever",
        "you guys still validate parking right",
        "it's supposed to warm up by the weekend",
        "my phone's about to die",
        "the receptionist was really nice",
        "Do you have a restroom on this floor?",
        "so yeah the traffic on ninety four was terrible",
        "I brought my pill bottles in a bag like they asked.",
        "the cubs are actually winning for once",
    ],
    "es": [
        "no había lugar en el estacionamiento",
        "¿Me van a cobrar el copago otra vez?",
        "hace un frío que no se aguanta",
        "el seguro me cambió de plan en enero",
        "vine en camión porque mi hijo se llevó el carro",
        "¿Dónde queda el baño?",
        "pues el tráfico en el periférico estaba horrible",
        "La recepcionista me pidió la credencial del seguro.",
        "está lloviendo desde temprano",
        "mi nieta me ayudó a llenar los papeles",
        "¿Validan el boleto del estacionamiento?",
        "se me olvidaron los lentes en la casa",
    ],
    "fr": [
        "il n'y avait plus de place sur le parking de l'hôpital",
        "Est-ce que la mutuelle rembourse la consultation ?",
        "quel temps de chien ce matin",
        "j'ai pris le tram parce que ma voiture est au garage",
        "La secrétaire m'a demandé ma carte vitale deux fois.",
        "euh il y a des toilettes à cet étage",
        "les bouchons sur le périph c'était l'enfer",
        "Il paraît qu'il va faire beau ce week-end.",
        "ma fille m'attend dans la voiture",
        "le distributeur de café est encore en panne",
        "J'ai apporté toutes mes ordonnances dans une pochette.",
        "bon ben la salle d'attente était pleine",
    ],
    "ar": [
        "ما لقيت مكان أصف السيارة",
        "هل التأمين يغطي هذه الزيارة؟",
        "الجو حار جدا اليوم",
        "الزحمة على الطريق كانت فظيعة",
        "ابني سيأخذني إلى البيت بعد الموعد",
        "وين الحمام لو سمحت",
        "نسيت نظارتي في السيارة.",
        "الموظفة في الاستقبال طلبت بطاقة التأمين",
        "يقولون سيمطر في نهاية الأسبوع",
        "المصعد كان معطلا فطلعت على الدرج",
    ],
}
ACK = {
    "en": ["Okay.", "Got it.", "Thanks for telling me.", "Mm-hm, go on.", "Sure."],
    "es": ["De acuerdo.", "Entendido.", "Muy bien.", "Ajá, siga."],
    "fr": ["D'accord.", "Très bien.", "Je vous écoute.", "Entendu."],
    "ar": ["حسنا.", "تمام.", "فهمت.", "تفضل."],
}
BYE = {
    "en": "alright that's all i had thanks",
    "es": "Eso era todo, gracias doctora.",
    "fr": "c'est tout pour moi merci docteur",
    "ar": "هذا كل شيء، شكرا دكتور.",
}


def med(key: str, op: str = "add", **attrs: str) -> dict[str, Any]:
    return change(op, "medication", f"medication:{key}", **attrs)


def allergy(key: str, op: str = "add", **attrs: str) -> dict[str, Any]:
    return change(op, "allergy", f"allergy:{key}", **attrs)


def cond(key: str) -> dict[str, Any]:
    return change("add", "condition", f"condition:{key}")


def appt(key: str, op: str = "add", **attrs: str) -> dict[str, Any]:
    return change(op, "appointment", f"appointment:{key}", **attrs)


def proc(key: str, **attrs: str) -> dict[str, Any]:
    return change("add", "procedure", f"procedure:{key}", **attrs)


def symptom(key: str, **attrs: str) -> dict[str, Any]:
    return change("add", "symptom", f"symptom:{key}", **attrs)


def name(value: str, op: str = "add") -> dict[str, Any]:
    return change(op, "preferred_name", "preferred_name", value=value)


def language(code: str) -> dict[str, Any]:
    return change("add", "preferred_language", "preferred_language", code=code)


def care(contains: str) -> dict[str, Any]:
    return change("add", "care_instruction", "care_instruction:*", value=f"~{contains}")


def pref(contains: str) -> dict[str, Any]:
    return change("add", "preference", "preference:*", value=f"~{contains}")


def d1(now: datetime) -> list[Beat]:
    """English, mostly voice: an older man, heart and water pills."""
    return [
        (
            V,
            "fact",
            "um yeah walter is what's on the chart but everybody calls me bud",
            [name("bud")],
        ),
        (
            V,
            "fact",
            "so i take rosuvastatin ten milligrams at night",
            [med("rosuvastatin", dose="10 mg", status="taking")],
        ),
        (
            V,
            "relative",
            "my neighbor takes twenty milligrams of that rosuvastatin and swears by it",
            [],
        ),
        (
            V,
            "correction",
            "actually hold on it's twenty milligrams not ten they raised it in january",
            [med("rosuvastatin", "supersede", dose="20 mg")],
        ),
        (
            T,
            "fact",
            "Also spironolactone 25 mg once a day.",
            [med("spironolactone", dose="25 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "and the hydrochlorothiazide twelve point five milligrams every morning",
            [med("hydrochlorothiazide", dose="12.5 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "plus apixaban five milligrams twice a day for the heart rhythm",
            [med("apixaban", dose="5 mg", status="taking")],
        ),
        (V, "fact", "they say i got atrial fibrillation", [cond("atrial-fibrillation")]),
        (V, "relative", "my son in law is on apixaban too after his clot", []),
        (
            V,
            "fact",
            "i had a stent in twenty nineteen it's coronary artery disease",
            [cond("coronary-artery-disease")],
        ),
        (V, "question", "is it okay to have grapefruit with the rosuvastatin", []),
        (
            V,
            "fact",
            "cephalexin makes my lips swell up real bad",
            [allergy("cephalexin", reaction="~lips")],
            "I've noted that cephalexin makes your lips swell.",
        ),
        (T, "fact", "I'm allergic to clindamycin too.", [allergy("clindamycin")]),
        (V, "negation", "i never took warfarin they wanted me to but i said no", []),
        (
            V,
            "fact",
            "my cardiology appointment is next tuesday at two fifteen in the afternoon",
            [appt("cardiology", date=weekday_after(now, 1), time="14:15")],
        ),
        (
            V,
            "fact",
            "the echocardiogram is on the twenty second of march",
            [proc("echocardiogram", date="2027-03-22")],
        ),
        (V, "fact", "my ankles been swollen since sunday", [symptom("swelling", onset="~sunday")]),
        (V, "relative", "my wife was allergic to sulfa god rest her", []),
        (T, "fact", "The nurse said I have to weigh myself every morning.", [care("weigh")]),
        (V, "fact", "i'd rather you call my cell than the house phone", [pref("cell")]),
        (
            V,
            "change",
            "oh they stopped the spironolactone when my potassium went up",
            [med("spironolactone", "supersede", status="stopped")],
        ),
        (
            V,
            "change",
            "and they upped the hydrochlorothiazide to twenty five milligrams",
            [med("hydrochlorothiazide", "supersede", dose="25 mg")],
        ),
        (
            V,
            "change",
            "the heart doctor's office rang they moved me to thursday march eighteenth",
            [appt("cardiology", "supersede", date="2027-03-18")],
        ),
        (
            V,
            "change",
            "that clindamycin thing was my late wife not me so take it off",
            [allergy("clindamycin", "close")],
        ),
        (V, "relative", "my buddy from the legion takes five milligrams of apixaban", []),
        (
            V,
            "late",
            "oh and i've been getting palpitations the last three nights",
            [symptom("palpitations", onset="~three nights")],
        ),
        (
            T,
            "late",
            "One more thing, ciprofloxacin gave me hives last year.",
            [allergy("ciprofloxacin", reaction="~hives")],
        ),
    ]


def d2(now: datetime) -> list[Beat]:
    """English, mostly typed (a patient portal style): neurology and mood."""
    return [
        (T, "fact", "Please call me Gigi, Georgina is so formal.", [name("gigi")]),
        (
            T,
            "fact",
            "Current meds: escitalopram 10 mg daily.",
            [med("escitalopram", dose="10 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Lamotrigine 100 mg twice a day for my seizures.",
            [med("lamotrigine", dose="100 mg", status="taking")],
        ),
        (T, "fact", "I was diagnosed with epilepsy when I was 19.", [cond("epilepsy")]),
        (T, "relative", "My sister takes 50 mg of lamotrigine and she's fine.", []),
        (
            V,
            "fact",
            "and i take naproxen five hundred milligrams when my knee acts up",
            [med("naproxen", dose="500 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Famotidine 20 mg at bedtime.",
            [med("famotidine", dose="20 mg", status="taking")],
        ),
        (T, "question", "Can I take ibuprofen with lamotrigine?", []),
        (
            T,
            "fact",
            "Doxycycline gives me a terrible rash.",
            [allergy("doxycycline", reaction="~rash")],
        ),
        (T, "fact", "Allergic to sesame as well.", [allergy("sesame")]),
        (T, "relative", "My husband is allergic to shellfish, so we never cook it.", []),
        (T, "fact", "I also have depression, it's been under control.", [cond("depression")]),
        (
            T,
            "fact",
            "My neurology appointment is May 27th at 10:30 AM.",
            [appt("neurology", date="2027-05-27", time="10:30")],
        ),
        (
            T,
            "fact",
            "They scheduled a CT scan of my head for next Monday.",
            [proc("ct-scan", date=weekday_after(now, 0))],
        ),
        (
            V,
            "fact",
            "i've had insomnia for about ten days",
            [symptom("insomnia", onset_date=days(now, -10))],
        ),
        (T, "negation", "I've never been on valproate.", []),
        (T, "fact", "No driving until the neurologist clears me.", [care("driving")]),
        (T, "fact", "Text reminders work better for me than phone calls.", [pref("text")]),
        (T, "relative", "My mom only speaks Italian, she might come next time.", []),
        (
            T,
            "fact",
            "I'd like the after-visit summary in Spanish, it's easier for me.",
            [language("es")],
        ),
        (
            T,
            "change",
            "They increased my escitalopram to 15 mg last week.",
            [med("escitalopram", "supersede", dose="15 mg")],
        ),
        (
            T,
            "change",
            "I stopped the naproxen, my stomach couldn't handle it.",
            [med("naproxen", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "Dr. Alvarez took me off famotidine and put me on esomeprazole 40 mg.",
            [
                med("famotidine", "supersede", status="stopped"),
                med("esomeprazole", dose="40 mg", status="taking"),
            ],
        ),
        (
            T,
            "change",
            "Neuro moved me to June 3, same time.",
            [appt("neurology", "supersede", date="2027-06-03")],
        ),
        (
            T,
            "change",
            "Actually, Gina is fine too, use Gina from now on.",
            [name("gina", "supersede")],
        ),
        (T, "relative", "My coworker is on 20 mg of escitalopram.", []),
        (
            V,
            "late",
            "oh and my back pain came back two days ago",
            [symptom("back-pain", onset_date=days(now, -2))],
        ),
        (
            T,
            "late",
            "I forgot to say, tramadol made me throw up for a whole day, I'm allergic to it.",
            [allergy("tramadol")],
        ),
    ]


def d3(now: datetime) -> list[Beat]:
    """English, all voice: a grandmother with diabetes, units of insulin."""
    return [
        (V, "fact", "you can call me sunny it's short for sunita", [name("sunny")]),
        (
            V,
            "fact",
            "um i'm on lantus twenty units at bedtime",
            [med("lantus", dose="20 units", status="taking")],
        ),
        (
            V,
            "fact",
            "and glipizide five milligrams with breakfast",
            [med("glipizide", dose="5 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "empagliflozin ten milligrams in the morning",
            [med("empagliflozin", dose="10 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "valsartan a hundred and sixty milligrams once a day",
            [med("valsartan", dose="160 mg", status="taking")],
        ),
        (
            V,
            "correction",
            "wait that's wrong the valsartan is eighty milligrams not a hundred and sixty",
            [med("valsartan", "supersede", dose="80 mg")],
        ),
        (V, "relative", "my sister takes the same glipizide but ten milligrams", []),
        (V, "fact", "the doctor says i have neuropathy in both feet", [cond("neuropathy")]),
        (V, "fact", "and psoriasis on my elbows for years", [cond("psoriasis")]),
        (V, "fact", "ciprofloxacin gives me hives", [allergy("ciprofloxacin", reaction="~hives")]),
        (V, "fact", "and i'm allergic to naproxen", [allergy("naproxen")]),
        (V, "question", "should i be taking the empagliflozin if i'm not eating much", []),
        (
            V,
            "fact",
            "i see endocrinology a week from friday at nine thirty in the morning",
            [
                appt(
                    "endocrinology",
                    date=days(datetime.fromisoformat(weekday_after(now, 4)), 7),
                    time="09:30",
                )
            ],
        ),
        (V, "fact", "my foot x-ray is on february ninth", [proc("x-ray", date="2027-02-09")]),
        (
            V,
            "fact",
            "i've had numbness in my toes since christmas",
            [symptom("tingling", onset="~christmas")],
        ),
        (V, "negation", "no i've never had insulin pens before the lantus just the vials", []),
        (
            V,
            "fact",
            "i'm supposed to check my feet every night with a mirror",
            [care("check my feet")],
        ),
        (V, "fact", "mornings are better for me for appointments", [pref("mornings")]),
        (
            V,
            "change",
            "they bumped the lantus up to twenty four units",
            [med("lantus", "supersede", dose="24 units")],
        ),
        (
            V,
            "change",
            "the glipizide is gone they stopped it cause my sugars kept dropping",
            [med("glipizide", "supersede", status="stopped")],
        ),
        (
            V,
            "change",
            "endo called and moved it up to this wednesday same time",
            [appt("endocrinology", "supersede", date=weekday_after(now, 2))],
        ),
        (
            V,
            "change",
            "the naproxen allergy on my chart is wrong that was my sister not me",
            [allergy("naproxen", "close")],
        ),
        (
            V,
            "chatter",
            "and that antibiotic the clinda something made my tongue swell up",
            [],
            ("confirm", "I've noted an allergy to clindamycin.", [allergy("clindamycin")]),
        ),
        (
            V,
            "change",
            "oh my grandkids call me nani now use that instead of sunny",
            [name("nani", "supersede")],
        ),
        (V, "relative", "my husband takes eighty milligrams of valsartan too", []),
        (
            V,
            "late",
            "and i've been real dizzy when i stand up since yesterday",
            [symptom("dizziness", onset_date=days(now, -1))],
        ),
    ]


def d4(now: datetime) -> list[Beat]:
    """Spanish (Mexico), voice and typed: rheumatology, pain."""
    return [
        (V, "fact", "dígame lupita guadalupe nomás es para los papeles", [name("lupita")]),
        (
            V,
            "fact",
            "tomo duloxetina de treinta miligramos en la mañana",
            [med("duloxetine", dose="30 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "También pregabalina 75 mg dos veces al día.",
            [med("pregabalin", dose="75 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la rosuvastatina es de diez miligramos",
            [med("rosuvastatin", dose="10 mg", status="taking")],
        ),
        (
            V,
            "correction",
            "no perdón me equivoqué la rosuvastatina es de cinco no de diez",
            [med("rosuvastatin", "supersede", dose="5 mg")],
        ),
        (
            T,
            "fact",
            "Y omeprazol 20 mg en ayunas.",
            [med("omeprazole", dose="20 mg", status="taking")],
        ),
        (V, "relative", "mi comadre toma duloxetina de sesenta y le va bien", []),
        (T, "fact", "Tengo fibromialgia desde hace años.", [cond("fibromyalgia")]),
        (
            V,
            "fact",
            "y me diagnosticaron artritis reumatoide el año pasado",
            [cond("rheumatoid-arthritis")],
        ),
        (
            T,
            "fact",
            "Soy alérgica al Nolotil, me da urticaria.",
            [allergy("nolotil", reaction="~urticaria")],
        ),
        (V, "fact", "también soy alérgica al naproxeno", [allergy("naproxen")]),
        (V, "relative", "mi esposo es alérgico a la penicilina", []),
        (T, "question", "¿La pregabalina engorda?", []),
        (
            V,
            "fact",
            "tengo cita en reumatología el martes que viene a las diez y media",
            [appt("rheumatology", date=weekday_after(now, 1), time="10:30")],
        ),
        (T, "fact", "La ecografía es el 2 de marzo.", [proc("ultrasound", date="2027-03-02")]),
        (
            V,
            "fact",
            "tengo dolor de espalda desde hace cinco días",
            [symptom("back-pain", onset_date=days(now, -5))],
        ),
        (V, "negation", "nunca he tomado metformina", []),
        (V, "fact", "la enfermera me dijo que no me moje la herida", [care("herida")]),
        (T, "fact", "Prefiero que me manden mensajes por WhatsApp.", [pref("whatsapp")]),
        (
            V,
            "fact",
            "mi hija habla inglés pero yo prefiero que me hablen en español",
            [language("es")],
        ),
        (
            V,
            "change",
            "me subieron la duloxetina a sesenta miligramos",
            [med("duloxetine", "supersede", dose="60 mg")],
        ),
        (
            V,
            "change",
            "ya no tomo la pregabalina me la quitaron porque me daba mucho sueño",
            [med("pregabalin", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "Me cambiaron el omeprazol por esomeprazol.",
            [
                med("omeprazole", "supersede", status="stopped"),
                med("esomeprazole", status="taking"),
            ],
        ),
        (
            T,
            "change",
            "Me movieron la cita de reumatología al 9 de marzo.",
            [appt("rheumatology", "supersede", date="2027-03-09")],
        ),
        (
            V,
            "change",
            "lo del naproxeno no es alergia nada más me cae pesado al estómago",
            [allergy("naproxen", "close")],
        ),
        (V, "relative", "mi vecina toma veinte miligramos de eso", []),
        (V, "late", "y tengo fiebre desde anoche", [symptom("fever", onset_date=days(now, -1))]),
        (T, "late", "Ah, y soy alérgica a los mariscos.", [allergy("shellfish")]),
    ]


def d5(now: datetime) -> list[Beat]:
    """French, typed and voice: a woman with Crohn's disease."""
    return [
        (T, "fact", "Appelez-moi Jojo, Josiane c'est pour l'administration.", [name("jojo")]),
        (
            T,
            "fact",
            "Je suis sous valsartan 80 mg le matin.",
            [med("valsartan", dose="80 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "euh et l'escitalopram dix milligrammes",
            [med("escitalopram", dose="10 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Prégabaline 50 mg le soir.",
            [med("pregabalin", dose="50 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la rosuvastatine c'est vingt milligrammes",
            [med("rosuvastatin", dose="20 mg", status="taking")],
        ),
        (
            V,
            "correction",
            "ah non pardon c'est dix milligrammes pas vingt",
            [med("rosuvastatin", "supersede", dose="10 mg")],
        ),
        (
            T,
            "fact",
            "Et aténolol 50 mg une fois par jour.",
            [med("atenolol", dose="50 mg", status="taking")],
        ),
        (V, "relative", "ma sœur prend du valsartan cent soixante", []),
        (T, "fact", "J'ai la maladie de Crohn depuis mes vingt ans.", [cond("crohns")]),
        (
            V,
            "fact",
            "et on m'a trouvé une fibrillation auriculaire l'an dernier",
            [cond("atrial-fibrillation")],
        ),
        (
            T,
            "fact",
            "Je fais une allergie à la céfalexine, ça me donne de l'urticaire.",
            [allergy("cephalexin", reaction="~urticaire")],
        ),
        (V, "fact", "je suis allergique au naproxène aussi", [allergy("naproxen")]),
        (V, "relative", "mon mari est allergique aux arachides", []),
        (T, "question", "Est-ce que l'escitalopram fait grossir ?", []),
        (
            V,
            "fact",
            "j'ai rendez-vous en gastro-entérologie mardi prochain à quatorze heures trente",
            [appt("gastroenterology", date=weekday_after(now, 1), time="14:30")],
        ),
        (T, "fact", "Le scanner est prévu le 12 avril.", [proc("ct-scan", date="2027-04-12")]),
        (
            T,
            "fact",
            "J'ai des palpitations depuis trois jours.",
            [symptom("palpitations", onset_date=days(now, -3))],
        ),
        (V, "negation", "j'ai jamais pris de warfarine", []),
        (T, "fact", "Je dois rester à jeun la veille de l'examen.", [care("jeun")]),
        (T, "fact", "Je préfère être contactée par courriel.", [pref("courriel")]),
        (V, "fact", "je préfère qu'on me parle en français", [language("fr")]),
        (
            T,
            "change",
            "Le psychiatre a augmenté l'escitalopram à 15 mg.",
            [med("escitalopram", "supersede", dose="15 mg")],
        ),
        (
            V,
            "change",
            "euh la prégabaline on l'a arrêtée le mois dernier",
            [med("pregabalin", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "Le cardiologue a remplacé l'aténolol par le bisoprolol.",
            [med("atenolol", "supersede", status="stopped"), med("bisoprolol", status="taking")],
        ),
        (
            V,
            "change",
            "le secrétariat de gastro a décalé le rendez-vous au vingt avril",
            [appt("gastroenterology", "supersede", date="2027-04-20")],
        ),
        (
            T,
            "change",
            "Finalement le naproxène, ce n'était pas une allergie.",
            [allergy("naproxen", "close")],
        ),
        (
            V,
            "chatter",
            "l'antibiotique pour l'acné m'avait donné des plaques partout",
            [],
            ("confirm", "J'ai bien noté une allergie à la doxycycline.", [allergy("doxycycline")]),
        ),
        (T, "change", "Finalement, dites plutôt Josie.", [name("josie", "supersede")]),
        (V, "relative", "mon voisin prend vingt milligrammes de ça", []),
        (V, "late", "et je tousse depuis dimanche", [symptom("cough", onset="~dimanche")]),
    ]


def d6(now: datetime) -> list[Beat]:
    """French, mostly voice: an older man, Parkinson's disease."""
    return [
        (V, "fact", "appelez-moi dédé tout le monde dit dédé pas andré", [name("dédé")]),
        (
            V,
            "fact",
            "je prends du diltiazem cent vingt milligrammes le matin",
            [med("diltiazem", dose="120 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "euh l'apixaban cinq milligrammes deux fois par jour",
            [med("apixaban", dose="5 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la colchicine un milligramme par jour",
            [med("colchicine", dose="1 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "le finastéride dix milligrammes",
            [med("finasteride", dose="10 mg", status="taking")],
        ),
        (
            V,
            "correction",
            "non attendez c'est pas dix c'est cinq milligrammes le finastéride",
            [med("finasteride", "supersede", dose="5 mg")],
        ),
        (
            V,
            "fact",
            "et le lorazépam un milligramme au coucher",
            [med("lorazepam", dose="1 mg", status="taking")],
        ),
        (V, "relative", "ma femme prend de l'apixaban aussi", []),
        (V, "fact", "le neurologue dit que c'est un parkinson", [cond("parkinsons")]),
        (V, "fact", "et j'ai une anémie depuis l'opération", [cond("anemia")]),
        (
            V,
            "fact",
            "la clindamycine m'a donné une diarrhée terrible",
            [allergy("clindamycin", reaction="~diarrhée")],
            "C'est noté : la clindamycine vous a donné une diarrhée.",
        ),
        (V, "relative", "mon frère est allergique à la pénicilline", []),
        (V, "question", "on peut boire du vin avec le diltiazem", []),
        (
            V,
            "fact",
            "le rendez-vous en neurologie c'est le premier juillet à neuf heures et demie",
            [appt("neurology", date="2027-07-01", time="09:30")],
        ),
        (
            V,
            "fact",
            "l'échographie de la vessie le cinq juillet",
            [proc("ultrasound", date="2027-07-05")],
        ),
        (
            V,
            "fact",
            "j'ai des vertiges depuis une quinzaine de jours",
            [symptom("dizziness", onset="~quinzaine")],
        ),
        (V, "negation", "j'ai jamais pris de warfarine moi", []),
        (V, "fact", "il faut que je boive un litre et demi d'eau par jour", [care("eau")]),
        (T, "fact", "Je préfère les rendez-vous le matin.", [pref("matin")]),
        (
            V,
            "change",
            "ils ont baissé le diltiazem à soixante milligrammes",
            [med("diltiazem", "supersede", dose="60 mg")],
        ),
        (
            V,
            "change",
            "la colchicine j'en prends plus depuis la dernière crise",
            [med("colchicine", "supersede", status="stopped")],
        ),
        (
            V,
            "change",
            "le lorazépam on l'a remplacé par la mirtazapine",
            [med("lorazepam", "supersede", status="stopped"), med("mirtazapine", status="taking")],
        ),
        (
            V,
            "change",
            "la neurologie m'a avancé au vingt-huit juin",
            [appt("neurology", "supersede", date="2027-06-28")],
        ),
        (V, "relative", "le voisin en prend vingt milligrammes de ça", []),
        (
            V,
            "late",
            "je dors mal de l'insomnie depuis le début du mois",
            [symptom("insomnia", onset="~début du mois")],
        ),
        (V, "late", "ah et puis je suis allergique aux crustacés", [allergy("shellfish")]),
    ]


def d7(now: datetime) -> list[Beat]:
    """Arabic, typed and voice: diabetes and blood pressure."""
    return [
        (T, "fact", "نادوني أبو سامي، الكل يناديني هكذا.", [name("أبو سامي")]),
        (
            T,
            "fact",
            "آخذ روسوفاستاتين 20 ملغ كل ليلة.",
            [med("rosuvastatin", dose="20 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "وسبيرونولاكتون 25 ملغ الصبح",
            [med("spironolactone", dose="25 mg", status="taking")],
        ),
        (T, "fact", "جليبيزيد 5 ملغ مع الفطور.", [med("glipizide", dose="5 mg", status="taking")]),
        (
            T,
            "fact",
            "أملوديبين 5 ملغ مرة في اليوم.",
            [med("amlodipine", dose="5 mg", status="taking")],
        ),
        (V, "fact", "يعني الديلتيازيم 120 ملغ", [med("diltiazem", dose="120 mg", status="taking")]),
        (
            V,
            "correction",
            "لا عفوا الديلتيازيم 180 ملغ وليس 120",
            [med("diltiazem", "supersede", dose="180 mg")],
        ),
        (T, "relative", "أخي يأخذ 20 ملغ من نفس الدواء.", []),
        (T, "fact", "عندي السكري من عشر سنين.", [cond("diabetes")]),
        (T, "fact", "وعندي ارتفاع ضغط الدم.", [cond("hypertension")]),
        (
            T,
            "fact",
            "عندي حساسية من السيفالكسين، تسبب لي طفح جلدي.",
            [allergy("cephalexin", reaction="~طفح")],
        ),
        (V, "fact", "وعندي حساسية من الفول السوداني", [allergy("peanuts")]),
        (T, "relative", "زوجتي عندها حساسية من البنسلين.", []),
        (T, "question", "هل الروسوفاستاتين يسبب ألم العضلات؟", []),
        (
            T,
            "fact",
            "عندي موعد في الغدد يوم ١٢ أبريل الساعة ١٠:٣٠.",
            [appt("endocrinology", date="2027-04-12", time="10:30")],
        ),
        (T, "fact", "منظار القولون يوم 8 أبريل.", [proc("colonoscopy", date="2027-04-08")]),
        (V, "fact", "عندي صداع منذ ثلاثة أيام", [symptom("headache", onset_date=days(now, -3))]),
        (T, "negation", "ما أخذت وارفارين أبدا.", []),
        (T, "fact", "قال لي الطبيب أن أمشي نصف ساعة كل يوم.", [care("أمشي")]),
        (T, "fact", "أفضل المواعيد الصباحية.", [pref("الصباحية")]),
        (T, "fact", "أفضل أن نتكلم بالعربية.", [language("ar")]),
        (
            T,
            "change",
            "أوقفوا السبيرونولاكتون الأسبوع الماضي.",
            [med("spironolactone", "supersede", status="stopped")],
        ),
        (V, "change", "رفعوا الجليبيزيد إلى 10 ملغ", [med("glipizide", "supersede", dose="10 mg")]),
        (
            T,
            "change",
            "غيروا لي الأملوديبين إلى فالسارتان.",
            [med("amlodipine", "supersede", status="stopped"), med("valsartan", status="taking")],
        ),
        (
            T,
            "change",
            "أجلوا موعد الغدد إلى ١٩ أبريل.",
            [appt("endocrinology", "supersede", date="2027-04-19")],
        ),
        (T, "change", "طلع فحص الحساسية سلبي للفول السوداني.", [allergy("peanuts", "close")]),
        (V, "relative", "جاري ياخذ 20 ملغ من هذا", []),
        (V, "late", "وعندي سعال منذ يومين", [symptom("cough", onset_date=days(now, -2))]),
        (T, "late", "ونسيت أقول: عندي حساسية من المكسرات.", [allergy("nuts")]),
    ]


DIALOGUES = [
    ("en", "2027-03-09T09:30:00+00:00", 7101, d1),
    ("en", "2027-05-14T16:20:00+00:00", 7102, d2),
    ("en", "2027-01-28T11:05:00+00:00", 7103, d3),
    ("es", "2027-02-16T08:40:00+00:00", 7104, d4),
    ("fr", "2027-04-02T14:10:00+00:00", 7105, d5),
    ("fr", "2027-06-21T09:00:00+00:00", 7106, d6),
    ("ar", "2027-03-30T10:00:00+00:00", 7107, d7),
]


def _say(d: Dialogue, role: str, text: str, tag: str, expect: list[Any], voice: bool) -> None:
    d.say(role, text, tag, expect, False)  # written as the recognizer gives it
    d.turns[-1]["style"] = "voice" if voice else "typed"


def build() -> list[dict[str, Any]]:
    """Every dialogue of ``heldout2`` as the JSON of the other splits."""
    out = []
    for number, (lang, now_text, seed, script) in enumerate(DIALOGUES):
        rng = random.Random(seed)
        now = datetime.fromisoformat(now_text)
        d = Dialogue(f"heldout2-{number:02d}-{lang}", lang, now, rng)
        beats = script(now)
        # chatter turns (user + acknowledgement) to put before each beat
        room = max(0, (104 - 2 * len(beats) - 4) // 2)
        before = [0] * len(beats)
        for _ in range(room):
            before[rng.randrange(len(beats))] += 1
        pool = list(CHATTER[lang])
        rng.shuffle(pool)
        said = 0
        for beat, lead in zip(beats, before, strict=True):
            for _ in range(lead):
                line = pool[said % len(pool)]
                said += 1
                _say(d, "user", line, "chatter", [], line == line.lower())
                _say(d, "assistant", rng.choice(ACK[lang]), "chatter", [], False)
            voice, tag, text, expect, *rest = beat
            _say(d, "user", text, tag, expect, voice)
            reply = rest[0] if rest else None
            if isinstance(reply, tuple):
                _say(d, "assistant", reply[1], reply[0], reply[2], False)
            else:
                tag = "confirm" if reply else "chatter"
                _say(d, "assistant", reply or rng.choice(ACK[lang]), tag, [], False)
        _say(d, "user", BYE[lang], "chatter", [], BYE[lang] == BYE[lang].lower())
        _say(d, "assistant", rng.choice(ACK[lang]), "chatter", [], False)
        assert len(d.turns) >= 100, (d.ident, len(d.turns))
        out.append(d.as_json("heldout2"))
    return out
