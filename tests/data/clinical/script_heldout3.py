"""The ``heldout3`` split: seven dialogues written turn by turn in styles the other
splits do not use, and never tuned on.

Styles: a voice transcript with disfluencies and repeated words ("the the
carvedilol is uh"), typed portal messages with typos ("omeprazle", "w",
"appt"), a clinician-led intake (the assistant asks, the patient answers
briefly), a pharmacist's medication reconciliation (box by box, one of them a
husband's), a dialogue mixing Arabic script and Latin drug names, a Spanish
voice transcript, and one in Portuguese. Corrections come far from the
statement they correct ("earlier i said twenty of the torsemide, it's
actually forty"), medicines are stopped and switched, relatives' medicines
carry doses, and most drugs, conditions, allergens and symptoms are outside
the shipped vocabulary (torsemide, eplerenone, mesalamine, nebivolol,
febuxostat, sarcoidosis, ulcerative colitis, fatty liver, nickel, adhesive
tape, heartburn, blurred vision, night sweats ...).

A beat is ``(voice, tag, text, expect[, reply][, ask])``: the user's turn; the
assistant's reply after it (a confirmation, or ``(tag, text, expect)``); and,
for the clinician-led dialogues, ``ask``, the assistant's question said before
it. Chatter from the dialogue's language is put between beats, with a fixed
seed, until the dialogue has at least 96 turns.
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
        "sorry my dog is barking hang on",
        "ok im back, the wifi keeps dropping",
        "did you get the form i uploaded yesterday",
        "uh my grandson set this app up for me",
        "the pharmacy on main closes at six now which is annoying",
        "Is there a way to print the visit notes?",
        "we're going to the lake next month if the weather holds",
        "sorry typing on my phone",
        "i had to take the afternoon off work for this",
        "the hold music on your line is really loud lol",
        "so um yeah the bus was twenty minutes late again",
        "Can my wife log in to see my results too?",
        "the new building is hard to find, the signs are confusing",
        "i'm sitting in my car in the parking lot right now",
    ],
    "es": [
        "perdón se me cortó la llamada",
        "¿me escucha bien? es que aquí no hay buena señal",
        "mi nieto me instaló la aplicación",
        "este pues fíjese que llovió toda la noche",
        "¿La factura me la mandan por correo?",
        "tuve que pedir permiso en el trabajo para venir",
        "la farmacia de la esquina ya cierra a las ocho",
        "ando un poco nervioso con tanto papeleo",
        "¿Hay que pagar el estacionamiento a la salida?",
        "mi hija viene por mí a las doce",
        "ay perdón es que el perro está ladrando",
        "el elevador estaba descompuesto otra vez",
    ],
    "fr": [
        "pardon je cherche mes lunettes",
        "la pharmacie du village ferme le mercredi après-midi",
        "Vous pouvez m'envoyer l'ordonnance par mail ?",
        "mon petit-fils m'a installé l'application",
        "il y avait une grève des bus ce matin",
        "euh attendez je pose mon sac",
        "La salle d'attente est vraiment froide.",
        "j'ai dû poser une demi-journée pour venir",
        "Est-ce que je peux payer par carte ?",
        "ma voisine garde le chat pendant que je suis là",
        "bon ben j'espère que ce ne sera pas trop long",
        "le parking est payant maintenant c'est nouveau",
    ],
    "ar": [
        "آسف الشبكة ضعيفة عندي",
        "ابني هو اللي نزل لي التطبيق",
        "هل أقدر أدفع بالبطاقة؟",
        "الصيدلية القريبة تسكر بدري",
        "الجو غبار اليوم",
        "لحظة أجيب النظارة",
        "أخذت إجازة من الشغل عشان الموعد",
        "المواقف كانت مليانة",
        "هل ترسلون النتائج على الإيميل؟",
        "بنتي تنتظرني تحت",
    ],
    "pt": [
        "desculpa, a internet caiu",
        "meu neto instalou o aplicativo para mim",
        "o estacionamento estava lotado",
        "Posso pagar com cartão?",
        "choveu a noite toda aqui",
        "tive que sair mais cedo do trabalho",
        "a farmácia perto de casa fecha às sete",
        "minha filha vem me buscar",
        "O elevador estava quebrado de novo.",
        "a fila da recepção estava enorme",
    ],
}
ACK = {
    "en": ["Okay.", "Got it, thanks.", "Understood.", "Alright.", "Noted, go on."],
    "es": ["De acuerdo.", "Entiendo.", "Bien, continúe.", "Gracias."],
    "fr": ["D'accord.", "Bien.", "Je note.", "Entendu, continuez."],
    "ar": ["حسنا.", "تمام.", "مفهوم.", "تفضلي."],
    "pt": ["Certo.", "Entendi.", "Tudo bem.", "Pode continuar."],
}
BYE = {
    "en": "ok that's everything i think thank you",
    "es": "pues eso es todo muchas gracias",
    "fr": "Voilà, c'est tout, merci beaucoup.",
    "ar": "هذا كل شيء، شكرا.",
    "pt": "É isso, obrigado doutora.",
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
    """English voice transcript, disfluent: an older woman with heart failure."""
    return [
        (
            V,
            "fact",
            "its uh its margaret on the chart but um please just call me peggy",
            [name("peggy")],
        ),
        (
            V,
            "fact",
            "so i i take torsemide twenty milligrams in the morning",
            [med("torsemide", dose="20 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "and uh eplerenone twenty five milligrams once a day",
            [med("eplerenone", dose="25 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "the the carvedilol is uh six point two five milligrams twice a day",
            [med("carvedilol", dose="6.25 mg", status="taking")],
        ),
        (V, "relative", "my sister's on torsemide too she takes forty milligrams", []),
        (
            V,
            "fact",
            "they told me it's heart failure with the um the low pumping",
            [cond("heart-failure")],
        ),
        (
            V,
            "fact",
            "i also have um sarcoidosis in my lungs since the nineties",
            [cond("sarcoidosis")],
        ),
        (
            V,
            "fact",
            "erythromycin uh that one gives me the worst stomach cramps",
            [allergy("erythromycin", reaction="~cramps")],
        ),
        (
            V,
            "fact",
            "and i'm allergic to adhesive tape it it blisters my skin",
            [allergy("adhesive-tape", reaction="~blisters")],
        ),
        (V, "question", "is it is it safe to take tylenol with all of this", []),
        (V, "negation", "no i've never been on digoxin", []),
        (
            V,
            "fact",
            "the heart doctor follow up is june fourteenth at nine forty five in the morning",
            [appt("cardiology", date="2027-06-14", time="09:45")],
        ),
        (
            V,
            "fact",
            "i've been uh short of breath going up stairs since mother's day",
            [symptom("shortness-of-breath", onset="~mother's day")],
        ),
        (
            V,
            "fact",
            "and my calves um they've been cramping at night for like a week",
            [symptom("cramps", onset_date=days(now, -7))],
        ),
        (
            V,
            "fact",
            "i'm supposed to keep my fluids under two liters a day",
            [care("fluids")],
        ),
        (V, "fact", "mornings are better for phone calls i nap after lunch", [pref("mornings")]),
        (V, "relative", "my husband takes ten milligrams of dapagliflozin for his sugar", []),
        (
            V,
            "change",
            "they they put me on dapagliflozin ten milligrams last week too",
            [med("dapagliflozin", dose="10 mg", status="taking")],
        ),
        (
            V,
            "change",
            "and the nurse said to quit the eplerenone because my potassium was high",
            [med("eplerenone", "supersede", status="stopped")],
        ),
        (
            V,
            "correction",
            "oh wait earlier i said twenty of the torsemide it's actually forty"
            " they doubled it last month",
            [med("torsemide", "supersede", dose="40 mg")],
        ),
        (
            V,
            "change",
            "oh and the heart doctor's office moved me to the seventeenth same time",
            [appt("cardiology", "supersede", date="2027-06-17")],
        ),
        (V, "relative", "my neighbor said her carvedilol is twenty five milligrams", []),
        (
            V,
            "late",
            "um i almost forgot i've had this dry cough since saturday",
            [symptom("cough", onset="~saturday")],
        ),
        (
            V,
            "late",
            "and the the contrast dye they use for scans gives me hives",
            [allergy("iodine-contrast", reaction="~hives")],
        ),
    ]


def d2(now: datetime) -> list[Beat]:
    """English typed portal messages with typos and shorthand: a young man, IBD."""
    return [
        (T, "fact", "Hi its Alexander but pls call me Xander", [name("xander")]),
        (
            T,
            "fact",
            "Im taking mesalamine 1.2 g twice daily",
            [med("mesalamine", dose="1.2 g", status="taking")],
        ),
        (
            T,
            "fact",
            "also azathioprine 50mg every morning",
            [med("azathioprine", dose="50 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "and omeprazle 20 mg b4 breakfast",
            [med("omeprazole", dose="20 mg", status="taking")],
        ),
        (T, "fact", "diagnosed w ulcerative colitis 2 yrs ago", [cond("ulcerative-colitis")]),
        (T, "fact", "also have psoriasis, mild", [cond("psoriasis")]),
        (T, "fact", "alergic to sulfa - gave me a bad rash", [allergy("sulfa", reaction="~rash")]),
        (
            T,
            "fact",
            "amoxicilin makes my throat itchy and swollen",
            [allergy("amoxicillin", reaction="~throat")],
        ),
        (T, "relative", "my brother takes 100mg of azathioprine for his crohns", []),
        (T, "question", "should i be taking folic acid w the azathioprine?", []),
        (T, "negation", "ive never been on prednisone btw", []),
        (
            T,
            "fact",
            "GI appt is on 7/22 at 1:30pm",
            [appt("gastroenterology", date="2027-07-22", time="13:30")],
        ),
        (T, "fact", "colonoscopy scheduled for aug 5th", [proc("colonoscopy", date="2027-08-05")]),
        (
            T,
            "fact",
            "been having joint pain in my knees since last weds",
            [symptom("joint-pain", onset="~weds")],
        ),
        (
            T,
            "fact",
            "and diarrhea like 6x a day for 3 days now",
            [symptom("diarrhea", onset_date=days(now, -3))],
        ),
        (T, "fact", "dr said no NSAIDs at all", [care("nsaids")]),
        (T, "fact", "email is best, i cant take calls at work", [pref("email")]),
        (
            T,
            "change",
            "update: the GI upped my mesalamine to 2.4 g twice daily",
            [med("mesalamine", "supersede", dose="2.4 g")],
        ),
        (
            T,
            "change",
            "stopped the omeprazole, didnt need it anymore",
            [med("omeprazole", "supersede", status="stopped")],
        ),
        (T, "relative", "my mom is allergic to penicillin fyi not me", []),
        (
            T,
            "change",
            "they switched me from azathioprine to ustekinumab, first shot was monday",
            [
                med("azathioprine", "supersede", status="stopped"),
                med("ustekinumab", status="taking"),
            ],
        ),
        (
            T,
            "correction",
            "correction to what i wrote before - the sulfa reaction was hives not a rash",
            [allergy("sulfa", "supersede", reaction="~hives")],
        ),
        (
            T,
            "change",
            "GI office called, appt moved to 7/29 same time",
            [appt("gastroenterology", "supersede", date="2027-07-29")],
        ),
        (T, "relative", "my roommate takes 40mg of omeprazole every day lol", []),
        (
            T,
            "late",
            "forgot to mention - allergic to latex, get welts",
            [allergy("latex", reaction="~welts")],
        ),
    ]


def d3(now: datetime) -> list[Beat]:
    """Spanish clinician-led intake: the assistant asks, the patient answers."""
    return [
        (
            T,
            "fact",
            "Dígame Maru, Mariana es muy largo.",
            [name("maru")],
            None,
            "Buenos días. ¿Cómo prefiere que la llame?",
        ),
        (
            T,
            "fact",
            "Tomo nebivolol de cinco miligramos en la mañana.",
            [med("nebivolol", dose="5 mg", status="taking")],
            None,
            "¿Qué medicamentos toma actualmente?",
        ),
        (
            T,
            "fact",
            "La glimepirida, dos miligramos con el desayuno.",
            [med("glimepiride", dose="2 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Y la atorvastatina de 40 mg en la noche.",
            [med("atorvastatin", dose="40 mg", status="taking")],
            None,
            "¿Algo más, aunque sea sin receta?",
        ),
        (
            T,
            "relative",
            "Mi mamá toma losartán de 50 mg y yo se lo doy.",
            [],
            None,
            "¿Maneja usted los medicamentos de alguien más en casa?",
        ),
        (
            T,
            "fact",
            "Sí, a la eritromicina, me da diarrea muy fuerte.",
            [allergy("erythromycin", reaction="~diarrea")],
            None,
            "¿Tiene alergias a medicamentos?",
        ),
        (
            T,
            "fact",
            "Y al ketorolaco, se me cierra la garganta.",
            [allergy("ketorolac", reaction="~garganta")],
        ),
        (
            T,
            "fact",
            "Diabetes tipo 2 y la presión alta.",
            [cond("type-2-diabetes"), cond("hypertension")],
            None,
            "¿Qué enfermedades le han diagnosticado?",
        ),
        (T, "fact", "Y hace poco me dijeron que tengo hígado graso.", [cond("fatty-liver")]),
        (
            T,
            "fact",
            "Tengo una ecografía de abdomen el 9 de marzo.",
            [proc("ultrasound", date="2027-03-09")],
            None,
            "¿Tiene estudios pendientes?",
        ),
        (
            T,
            "fact",
            "Con el endocrinólogo el jueves 4 de marzo a las diez y cuarto.",
            [appt("endocrinology", date="2027-03-04", time="10:15")],
            None,
            "¿Y citas con especialistas?",
        ),
        (T, "question", "¿Puedo tomar ibuprofeno para la rodilla?", []),
        (T, "negation", "Nunca he usado insulina.", []),
        (
            T,
            "fact",
            "Veo borroso desde hace una semana.",
            [symptom("blurred-vision", onset_date=days(now, -7))],
            None,
            "¿Qué molestias tiene ahora?",
        ),
        (
            T,
            "fact",
            "Y tengo mucha sed desde el mes pasado.",
            [symptom("thirst", onset="~mes pasado")],
        ),
        (
            T,
            "fact",
            "El doctor me dijo que camine treinta minutos diarios.",
            [care("camine")],
        ),
        (T, "fact", "Prefiero que me escriban por WhatsApp.", [pref("whatsapp")]),
        (T, "fact", "Prefiero hablar en español, por favor.", [language("es")]),
        (
            T,
            "change",
            "Ah, el nebivolol ya no, me lo suspendieron la semana pasada.",
            [med("nebivolol", "supersede", status="stopped")],
            None,
            "Repasemos la lista otra vez.",
        ),
        (
            T,
            "change",
            "Me cambiaron la atorvastatina por rosuvastatina de 10 mg.",
            [
                med("atorvastatin", "supersede", status="stopped"),
                med("rosuvastatin", dose="10 mg", status="taking"),
            ],
        ),
        (T, "relative", "Mi esposo es alérgico a la penicilina, yo no.", []),
        (
            T,
            "correction",
            "Doctora, me equivoqué hace rato: la glimepirida es de cuatro miligramos, no de dos.",
            [med("glimepiride", "supersede", dose="4 mg")],
        ),
        (
            T,
            "change",
            "La cita del endocrinólogo la pasaron al 11 de marzo, a la misma hora.",
            [appt("endocrinology", "supersede", date="2027-03-11")],
        ),
        (T, "relative", "Mi hermana toma glimepirida de 2 mg también.", []),
        (
            T,
            "late",
            "Ah, y el látex me da mucha comezón.",
            [allergy("latex", reaction="~comezón")],
            None,
            "¿Algo más que debamos saber?",
        ),
        (
            T,
            "late",
            "Desde anoche tengo un dolor de cabeza que no se me quita.",
            [symptom("headache", onset="~anoche")],
        ),
    ]


def d4(now: datetime) -> list[Beat]:
    """French medication reconciliation with a pharmacist, box by box."""
    return [
        (T, "fact", "Bonjour. Appelez-moi Nanou, comme tout le monde.", [name("nanou")]),
        (
            T,
            "fact",
            "Alors la première boîte c'est du candésartan 16 mg, un le matin.",
            [med("candesartan", dose="16 mg", status="taking")],
            None,
            "On va passer en revue vos boîtes une par une.",
        ),
        (
            T,
            "fact",
            "Ensuite l'indapamide 1,5 mg.",
            [med("indapamide", dose="1.5 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Le fébuxostat 80 mg pour ma goutte.",
            [med("febuxostat", dose="80 mg", status="taking"), cond("gout")],
        ),
        (
            T,
            "fact",
            "Et l'alendronate 70 mg une fois par semaine.",
            [med("alendronate", dose="70 mg", status="taking")],
        ),
        (
            T,
            "relative",
            "Cette boîte-là c'est celle de mon mari, la tamsulosine 0,4 mg, ce n'est pas à moi.",
            [],
        ),
        (
            T,
            "fact",
            "Ah et le baclofène 10 mg trois fois par jour.",
            [med("baclofen", dose="10 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Je suis allergique à la codéine, je vomis tout.",
            [allergy("codeine", reaction="~vomis")],
            None,
            "Des allergies ou des intolérances ?",
        ),
        (
            T,
            "fact",
            "Et au nickel, ça me fait de l'eczéma aux poignets.",
            [allergy("nickel", reaction="~eczéma")],
        ),
        (T, "fact", "J'ai une polyarthrite rhumatoïde.", [cond("rheumatoid-arthritis")]),
        (T, "question", "Est-ce que je peux prendre le fébuxostat avec du café ?", []),
        (T, "negation", "Je n'ai jamais pris de colchicine.", []),
        (
            T,
            "fact",
            "J'ai rendez-vous chez le rhumatologue le 15 octobre à 8h45.",
            [appt("rheumatology", date="2027-10-15", time="08:45")],
        ),
        (
            T,
            "fact",
            "Une ostéodensitométrie est prévue le 3 novembre.",
            [proc("bone-density-scan", date="2027-11-03")],
        ),
        (
            T,
            "fact",
            "J'ai des brûlures d'estomac depuis deux semaines.",
            [symptom("heartburn", onset_date=days(now, -14))],
        ),
        (
            T,
            "fact",
            "Je dois prendre l'alendronate à jeun et rester debout une demi-heure.",
            [care("debout")],
        ),
        (
            T,
            "fact",
            "Appelez plutôt ma ligne fixe, je n'entends pas bien le portable.",
            [pref("fixe")],
        ),
        (T, "relative", "Ma fille prend aussi du lévothyrox, 100 microgrammes.", []),
        (
            T,
            "correction",
            "Je reviens sur le candésartan : c'est 8 mg, pas 16,"
            " je confondais avec l'ancienne boîte.",
            [med("candesartan", "supersede", dose="8 mg")],
        ),
        (
            T,
            "change",
            "Le baclofène, le médecin l'a arrêté il y a dix jours.",
            [med("baclofen", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "L'indapamide a été remplacée par de l'hydrochlorothiazide 12,5 mg.",
            [
                med("indapamide", "supersede", status="stopped"),
                med("hydrochlorothiazide", dose="12.5 mg", status="taking"),
            ],
        ),
        (
            T,
            "change",
            "Le rhumatologue a reporté au 22 octobre, même heure.",
            [appt("rheumatology", "supersede", date="2027-10-22")],
        ),
        (
            T,
            "chatter",
            "La dernière fois à l'hôpital, avec l'antibiotique, j'ai fait une grosse réaction.",
            [],
            ("confirm", "J'ai noté une allergie à la tétracycline.", [allergy("tetracycline")]),
        ),
        (T, "relative", "Mon mari, lui, prend 20 mg de fébuxostat.", []),
        (
            T,
            "late",
            "Et depuis hier j'ai le genou droit tout gonflé.",
            [symptom("swelling", onset="~hier")],
        ),
    ]


def d5(now: datetime) -> list[Beat]:
    """Arabic, typed and voice, drug names in Arabic script and in Latin."""
    return [
        (T, "fact", "نادوني أم خالد لو سمحتم", [name("أم خالد")]),
        (
            T,
            "fact",
            "آخذ تيلميسارتان 40 ملغ في الصباح",
            [med("telmisartan", dose="40 mg", status="taking")],
        ),
        (T, "fact", "وكمان glimepiride 2 mg", [med("glimepiride", dose="2 mg", status="taking")]),
        (
            T,
            "fact",
            "والبيوغليتازون 15 ملغ مع الغداء",
            [med("pioglitazone", dose="15 mg", status="taking")],
        ),
        (V, "relative", "أمي تاخذ الانسولين عشرين وحدة", []),
        (T, "fact", "عندي السكري من عشر سنين", [cond("diabetes")]),
        (T, "fact", "وعندي كسل في الغدة الدرقية", [cond("hypothyroidism")]),
        (
            T,
            "fact",
            "عندي حساسية من الإريثرومايسين، يسبب لي طفح",
            [allergy("erythromycin", reaction="~طفح")],
        ),
        (T, "fact", "والفراولة تعمل لي حكة", [allergy("strawberries", reaction="~حكة")]),
        (T, "question", "هل أقدر آخذ بروفين مع هذه الأدوية؟", []),
        (T, "negation", "ما أخذت الوارفارين أبدا", []),
        (
            T,
            "fact",
            "موعدي مع طبيب العيون يوم ١٢ مايو الساعة ١١:٣٠",
            [appt("ophthalmology", date="2027-05-12", time="11:30")],
        ),
        (
            V,
            "fact",
            "عندي زغللة في النظر من أسبوع",
            [symptom("blurred-vision", onset_date=days(now, -7))],
        ),
        (
            T,
            "fact",
            "وألم في المفاصل منذ ثلاثة أيام",
            [symptom("joint-pain", onset_date=days(now, -3))],
        ),
        (T, "fact", "الدكتور قال لازم أقيس السكر قبل الفطور", [care("أقيس")]),
        (T, "fact", "أفضل الرسائل على الهاتف بدل الاتصال", [pref("الرسائل")]),
        (T, "relative", "زوجي عنده حساسية من البنسلين", []),
        (
            T,
            "correction",
            "تصحيح لما قلته قبل: التيلميسارتان 80 ملغ مش 40",
            [med("telmisartan", "supersede", dose="80 mg")],
        ),
        (
            T,
            "change",
            "وقفوا البيوغليتازون بسبب التورم",
            [med("pioglitazone", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "وبدلوا glimepiride بـ linagliptin 5 mg",
            [
                med("glimepiride", "supersede", status="stopped"),
                med("linagliptin", dose="5 mg", status="taking"),
            ],
        ),
        (
            T,
            "change",
            "تأجل موعد العيون إلى ١٩ مايو",
            [appt("ophthalmology", "supersede", date="2027-05-19")],
        ),
        (V, "relative", "أختي تاخذ linagliptin 5 mg كمان", []),
        (
            V,
            "late",
            "ونسيت أقول عندي حرقة في المعدة من يومين",
            [symptom("heartburn", onset_date=days(now, -2))],
        ),
    ]


def d6(now: datetime) -> list[Beat]:
    """Spanish voice transcript with fillers: an older man with COPD."""
    return [
        (V, "fact", "este pues a mí dígame chuy nomás", [name("chuy")]),
        (
            V,
            "fact",
            "tomo eh la quetiapina de veinticinco miligramos en la noche",
            [med("quetiapine", dose="25 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "y el eh el sotalol ochenta miligramos dos veces al día",
            [med("sotalol", dose="80 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la ranolazina quinientos miligramos",
            [med("ranolazine", dose="500 mg", status="taking")],
        ),
        (V, "relative", "mi compadre toma ranolazina también pero de mil miligramos", []),
        (V, "fact", "tengo epoc desde hace años", [cond("copd")]),
        (V, "fact", "y también la angina de pecho", [cond("angina")]),
        (
            V,
            "fact",
            "la codeína me cae muy mal me da vómito",
            [allergy("codeine", reaction="~vómito")],
        ),
        (
            V,
            "fact",
            "soy alérgico a las fresas me salen ronchas",
            [allergy("strawberries", reaction="~ronchas")],
        ),
        (V, "question", "y puedo tomar paracetamol con la quetiapina", []),
        (V, "negation", "no nunca he tomado amiodarona", []),
        (
            V,
            "fact",
            "la cita con el neumólogo es el martes que viene a las ocho y media",
            [appt("pulmonology", date=weekday_after(now, 1), time="08:30")],
        ),
        (
            V,
            "fact",
            "y la espirometría el veinte de noviembre",
            [proc("spirometry", date="2027-11-20")],
        ),
        (
            V,
            "fact",
            "me falta el aire desde hace como tres días",
            [symptom("shortness-of-breath", onset_date=days(now, -3))],
        ),
        (
            V,
            "fact",
            "y tengo sudores en la noche desde la semana pasada",
            [symptom("night-sweats", onset="~semana pasada")],
        ),
        (V, "fact", "me dijeron que no fume ni un cigarro", [care("fume")]),
        (V, "fact", "mejor llámenle a mi hija para lo de las citas", [pref("hija")]),
        (V, "relative", "mi señora es alérgica a la aspirina", []),
        (
            V,
            "correction",
            "oiga lo del sotalol que le dije hace rato"
            " este no es ochenta es ciento veinte miligramos",
            [med("sotalol", "supersede", dose="120 mg")],
        ),
        (
            V,
            "change",
            "la quetiapina ya me la quitaron porque me dormía todo el día",
            [med("quetiapine", "supersede", status="stopped")],
        ),
        (
            V,
            "change",
            "y me subieron la ranolazina a mil miligramos",
            [med("ranolazine", "supersede", dose="1000 mg")],
        ),
        (
            V,
            "change",
            "me cambiaron la cita del neumólogo para el doce de noviembre a la misma hora",
            [appt("pulmonology", "supersede", date="2027-11-12")],
        ),
        (
            V,
            "late",
            "ah y desde ayer me duele el pecho cuando toso",
            [symptom("chest-pain", onset="~ayer")],
        ),
        (
            V,
            "late",
            "y la penicilina también me hace daño se me hincha la cara",
            [allergy("penicillin", reaction="~cara")],
        ),
    ]


def d7(now: datetime) -> list[Beat]:
    """Portuguese, typed and voice (a language with no cues of its own)."""
    return [
        (T, "fact", "Pode me chamar de Zeca.", [name("zeca")]),
        (
            T,
            "fact",
            "Tomo losartana 50 mg de manhã.",
            [med("losartan", dose="50 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "E sinvastatina 20 mg à noite.",
            [med("simvastatin", dose="20 mg", status="taking")],
        ),
        (T, "relative", "Minha esposa toma metformina 500 mg.", []),
        (
            T,
            "fact",
            "Tenho hipertensão e colesterol alto.",
            [cond("hypertension"), cond("high-cholesterol")],
        ),
        (
            T,
            "fact",
            "Sou alérgico a dipirona, fico com a boca inchada.",
            [allergy("dipyrone", reaction="~inchada")],
        ),
        (T, "question", "Posso tomar ibuprofeno?", []),
        (T, "negation", "Nunca tomei varfarina.", []),
        (
            T,
            "fact",
            "Minha consulta com o cardiologista é dia 14 de setembro às 15h.",
            [appt("cardiology", date="2027-09-14", time="15:00")],
        ),
        (
            V,
            "fact",
            "estou com tontura há dois dias",
            [symptom("dizziness", onset_date=days(now, -2))],
        ),
        (T, "fact", "O médico disse para cortar o sal.", [care("sal")]),
        (
            T,
            "correction",
            "Corrigindo o que falei antes: a sinvastatina é 40 mg, não 20.",
            [med("simvastatin", "supersede", dose="40 mg")],
        ),
        (
            T,
            "change",
            "O médico aumentou a losartana para 100 mg.",
            [med("losartan", "supersede", dose="100 mg")],
        ),
        (V, "relative", "meu irmão toma sinvastatina vinte miligramas", []),
        (
            T,
            "change",
            "Parei a sinvastatina por causa de dor muscular.",
            [med("simvastatin", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "A consulta foi remarcada para 21 de setembro, mesmo horário.",
            [appt("cardiology", "supersede", date="2027-09-21")],
        ),
        (T, "late", "Esqueci: tenho alergia a frutos do mar.", [allergy("shellfish")]),
    ]


DIALOGUES = [
    ("en", "2027-05-20T10:15:00+00:00", 8101, d1),
    ("en", "2027-07-01T19:40:00+00:00", 8102, d2),
    ("es", "2027-02-22T09:00:00+00:00", 8103, d3),
    ("fr", "2027-09-28T15:30:00+00:00", 8104, d4),
    ("ar", "2027-04-26T08:20:00+00:00", 8105, d5),
    ("es", "2027-11-04T12:00:00+00:00", 8106, d6),
    ("pt", "2027-08-30T10:45:00+00:00", 8107, d7),
]


def _say(d: Dialogue, role: str, text: str, tag: str, expect: list[Any], voice: bool) -> None:
    d.say(role, text, tag, expect, False)  # written as the recognizer gives it
    d.turns[-1]["style"] = "voice" if voice else "typed"


def build() -> list[dict[str, Any]]:
    """Every dialogue of ``heldout3`` as the JSON of the other splits."""
    out = []
    for number, (lang, now_text, seed, script) in enumerate(DIALOGUES):
        rng = random.Random(seed)
        now = datetime.fromisoformat(now_text)
        d = Dialogue(f"heldout3-{number:02d}-{lang}", lang, now, rng)
        beats = script(now)
        asks = sum(1 for beat in beats if len(beat) > 5 and beat[5])
        room = max(0, (96 - 2 * len(beats) - asks - 4) // 2)
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
            reply = rest[0] if rest else None
            ask = rest[1] if len(rest) > 1 else None
            if ask:
                _say(d, "assistant", ask, "chatter", [], False)
            _say(d, "user", text, tag, expect, voice)
            if isinstance(reply, tuple):
                _say(d, "assistant", reply[1], reply[0], reply[2], False)
            else:
                tag = "confirm" if reply else "chatter"
                _say(d, "assistant", reply or rng.choice(ACK[lang]), tag, [], False)
        _say(d, "user", BYE[lang], "chatter", [], BYE[lang] == BYE[lang].lower())
        _say(d, "assistant", rng.choice(ACK[lang]), "chatter", [], False)
        assert len(d.turns) >= 90, (d.ident, len(d.turns))
        out.append(d.as_json("heldout3"))
    return out
