"""The ``heldout4`` split: six dialogues written turn by turn, never tuned on.

Styles the other splits do not use: a rambling phone check-in of an older man
read off a speech recognizer ("hold on i read that off the wrong bottle"), a
Mexican Spanish chat with voice notes ("me dicen lupita", "ahorita"), a French
teleconsultation with insulin in units and a weekly injection, an Arabic chat
in Gulf and Levantine speech ("نادوني أم خالد", Arabic-Indic digits), a German
portal thread ("abgesetzt", "verschoben"), and an Italian voice call. Doses in
micrograms and units, weekly doses, switches said the other way round ("statt
X nehme ich jetzt Y"), corrections that name the medicine and ones that do
not, relatives' and neighbours' medicines with doses, an allergy only the
assistant names, late symptoms, and chatter about parking, insurance, the
weather and the phone line. Drugs, conditions, allergens, procedures and
symptoms are mostly ones no other split uses (ticagrelor, olmesartan,
chlorthalidone, amiloride, doxazosin, hydroxychloroquine, methotrexate,
levothyroxine, sitagliptin, semaglutide, ezetimibe, perindopril,
levetiracetam, gabapentin, dronedarone, edoxaban, montelukast, topiramate,
sertraline; atrial flutter, sleep apnea, lupus, kidney stones, celiac disease;
vancomycin, kiwi, mango, metronidazole, cefuroxime, wasp stings, dust mites;
sleep study, mammogram, EEG, cardioversion; ringing in the ears, hair loss,
mouth sores, itching, tremor, constipation).

A beat is ``(voice, tag, text, expect[, reply])`` as in ``script_heldout3.py``;
chatter from the dialogue's language is put between beats, with a fixed seed,
until the dialogue has at least 100 turns.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from generate import Dialogue, days, weekday_after
from script_heldout3 import allergy, appt, care, cond, language, med, name, pref, proc, symptom

V, T = True, False  # voice, typed

Beat = tuple[Any, ...]

CHATTER = {
    "en": [
        "hang on the tv is too loud let me turn it down",
        "my insurance card changed in july did you get the new one",
        "it's pouring out here they said it'd clear up by noon",
        "the parking garage by the clinic wants eighteen bucks now",
        "sorry you're breaking up a little can you hear me",
        "my daughter usually does this on the computer for me",
        "we had the grandkids all weekend i'm beat",
        "is the billing office the same number as this one",
        "the lady at the front desk last time was real nice",
        "my truck's in the shop so my neighbor's driving me around",
        "do i need to fast for anything or no",
        "the leaves are turning already up here",
    ],
    "es": [
        "perdón se me fue el internet",
        "¿el seguro cubre la consulta en línea o la tengo que pagar?",
        "aquí está haciendo un calorón",
        "ahorita le mando la foto de la receta",
        "el estacionamiento del hospital está carísimo",
        "mi hijo me va a llevar porque no manejo de noche",
        "oiga ¿y la factura sale a mi nombre o al de mi esposo?",
        "disculpe que tarde en contestar estaba haciendo la comida",
        "la señal aquí en el rancho está fatal",
        "¿me puede mandar el enlace otra vez?",
        "ya llegó la temporada de lluvias",
        "la mutualidad me pidió otro papel",
    ],
    "fr": [
        "attendez je mets le haut-parleur",
        "il fait un temps de chien depuis ce matin",
        "ma mutuelle me demande encore une feuille de soins",
        "le stationnement à l'hôpital c'est devenu impossible",
        "excusez ça coupe un peu de mon côté",
        "c'est ma fille qui m'a montré comment faire la vidéo",
        "Est-ce que la carte vitale passe pour la téléconsultation ?",
        "j'ai laissé mes clés chez le voisin ce matin",
        "on annonce de la neige pour la fin de semaine",
        "le bus 12 ne passe plus par chez moi",
        "Vous m'entendez bien maintenant ?",
        "mon chien n'arrête pas d'aboyer pardon",
    ],
    "ar": [
        "معليش النت عندي يقطع",
        "التأمين طلب مني ورقة ثانية",
        "الحر اليوم ما ينطاق",
        "ما لقيت موقف قريب من العيادة",
        "ولدي هو اللي يساعدني بالجوال",
        "هل الاستشارة مغطاة بالتأمين؟",
        "لحظة الجرس يدق",
        "الزحمة كانت قوية الصبح",
        "ممكن ترسلون لي الموعد برسالة؟",
        "الله يعطيكم العافية",
    ],
    "de": [
        "Moment, das Telefon klingelt gerade.",
        "die parkplätze vor der praxis sind immer voll",
        "Übernimmt die Krankenkasse die Videosprechstunde?",
        "bei uns schneit es schon wieder",
        "Entschuldigung, mein Enkel hat mir das eingerichtet.",
        "die bahn hatte heute morgen wieder verspätung",
        "Wo schicke ich die Überweisung hin?",
        "ich hab meine brille im auto vergessen",
        "Das Wetter schlägt mir echt aufs Gemüt.",
        "meine nachbarin nimmt mich nachher mit in die stadt",
    ],
    "it": [
        "scusi un attimo suona il citofono",
        "oggi piove a dirotto qui a bologna",
        "il parcheggio dell'ospedale costa un occhio della testa",
        "mi sente bene o va via la linea",
        "l'assicurazione mi ha chiesto un altro modulo",
        "mio nipote mi ha installato l'app ieri",
        "devo pagare il ticket prima o dopo la visita",
        "c'era uno sciopero dei treni stamattina",
        "ho lasciato gli occhiali in cucina aspetti",
        "mia figlia mi accompagna giovedì",
    ],
}
ACK = {
    "en": ["Okay.", "Sure.", "Got it.", "Mm-hm, go ahead.", "Thanks, noted."],
    "es": ["Claro.", "Muy bien.", "Entendido.", "Adelante."],
    "fr": ["Très bien.", "Oui.", "D'accord, je vous écoute.", "Entendu."],
    "ar": ["أكيد.", "تمام.", "طيب.", "تفضل."],
    "de": ["Alles klar.", "Verstanden.", "Gut.", "Weiter bitte."],
    "it": ["Va bene.", "Certo.", "Capito.", "Prego, continui."],
}
BYE = {
    "en": "alright that's all i got thanks for your time",
    "es": "bueno pues es todo gracias",
    "fr": "Bon, je crois que c'est tout, merci.",
    "ar": "خلاص هذا كل شيء، مشكورين.",
    "de": "Das wäre alles, danke schön.",
    "it": "va bene è tutto grazie mille",
}


def d1(now: datetime) -> list[Beat]:
    """English phone check-in read off a recognizer: a retired trucker, heart rhythm."""
    return [
        (
            V,
            "fact",
            "yeah the name on there is harold but nobody calls me that everybody says bud",
            [name("bud")],
        ),
        (
            V,
            "fact",
            "so the heart guy says i got atrial flutter that's why i'm on all this",
            [cond("atrial-flutter")],
        ),
        (
            V,
            "fact",
            "first one's ticagrelor ninety milligrams morning and night",
            [med("ticagrelor", dose="90 mg", status="taking")],
            "I've noted ticagrelor 90 mg twice a day.",
        ),
        (
            V,
            "fact",
            "then there's the olmesartan twenty milligrams for the pressure",
            [med("olmesartan", dose="20 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "a water pill chlorthalidone twelve and a half milligrams",
            [med("chlorthalidone", dose="12.5 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "and the doxazosin two milligrams at bedtime for my prostate",
            [med("doxazosin", dose="2 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "the prostate thing they call it bph enlarged prostate",
            [cond("benign-prostatic-hyperplasia")],
        ),
        (
            V,
            "fact",
            "oh and sleep apnea i got the machine for that",
            [cond("sleep-apnea")],
        ),
        (
            V,
            "relative",
            "my buddy down the street is on olmesartan too he takes the forty",
            [],
        ),
        (
            V,
            "fact",
            "vancomycin they gave me that in the hospital once and i went red all over and itchy",
            [allergy("vancomycin", reaction="~red")],
        ),
        (
            V,
            "fact",
            "kiwi fruit makes my mouth tingle and my lips puff up",
            [allergy("kiwi", reaction="~tingle")],
        ),
        (V, "question", "can i still have a beer now and then with the ticagrelor", []),
        (V, "negation", "nope never had a stent or nothing like that", []),
        (
            V,
            "relative",
            "my wife's allergic to shellfish so we don't eat it at home",
            [],
        ),
        (
            V,
            "fact",
            "the urology visit is october eighth at ten thirty",
            [appt("urology", date="2027-10-08", time="10:30")],
        ),
        (
            V,
            "fact",
            "and the overnight sleep study is november second",
            [proc("sleep-study", date="2027-11-02")],
        ),
        (
            V,
            "fact",
            "they want blood work next tuesday",
            [proc("blood-test", date=weekday_after(now, 1))],
        ),
        (
            V,
            "fact",
            "this ringing in my ears started two weeks ago maybe",
            [symptom("tinnitus", onset="~two weeks")],
        ),
        (
            V,
            "fact",
            "they want me wearing the cpap every single night",
            [care("cpap")],
        ),
        (
            V,
            "fact",
            "text me instead of calling i don't hear the phone half the time",
            [pref("text")],
        ),
        (
            V,
            "correction",
            "hold on i read that off the wrong bottle the olmesartan is forty not twenty",
            [med("olmesartan", "supersede", dose="40 mg")],
        ),
        (
            V,
            "change",
            "the urologist had me quit the doxazosin i kept getting woozy when i stood up",
            [med("doxazosin", "supersede", status="stopped")],
        ),
        (
            V,
            "relative",
            "my brother in law takes doxazosin four milligrams and he's fine",
            [],
        ),
        (
            V,
            "change",
            "then they took me off the chlorthalidone and put me on amiloride five milligrams",
            [
                med("chlorthalidone", "supersede", status="stopped"),
                med("amiloride", dose="5 mg", status="taking"),
            ],
        ),
        (
            V,
            "change",
            "oh the urology office called they bumped me to the twentieth same time",
            [appt("urology", "supersede", date="2027-10-20")],
        ),
        (
            V,
            "late",
            "one more thing my left hand's been going numb since labor day",
            [symptom("numbness", onset="~labor day")],
            (
                "late",
                "I've also noted the chlorhexidine allergy from your surgery record.",
                [allergy("chlorhexidine")],
            ),
        ),
    ]


def d2(now: datetime) -> list[Beat]:
    """Mexican Spanish chat with voice notes: a woman with lupus."""
    return [
        (
            T,
            "fact",
            "Hola, soy Guadalupe pero todos me dicen Lupita",
            [name("lupita")],
        ),
        (T, "fact", "tengo lupus desde hace como diez años", [cond("lupus")]),
        (
            V,
            "fact",
            "y también hipotiroidismo y me han dado piedras en el riñón",
            [cond("hypothyroidism"), cond("kidney-stones")],
        ),
        (
            T,
            "fact",
            "tomo hidroxicloroquina 200 mg diario",
            [med("hydroxychloroquine", dose="200 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "metotrexato 15 mg los lunes",
            [med("methotrexate", dose="15 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la levotiroxina de cien microgramos en ayunas",
            [med("levothyroxine", dose="100 mcg", status="taking")],
        ),
        (
            T,
            "fact",
            "y prednisona 5 mg en la mañana",
            [med("prednisone", dose="5 mg", status="taking")],
        ),
        (
            V,
            "relative",
            "a mi comadre le recetaron hidroxicloroquina de cuatrocientos",
            [],
        ),
        (
            T,
            "fact",
            "el metronidazol me dio muchísima comezón en todo el cuerpo",
            [allergy("metronidazole", reaction="~comez")],
        ),
        (
            V,
            "fact",
            "ah y el mango me hincha los labios",
            [allergy("mango", reaction="~hincha")],
        ),
        (T, "question", "¿puedo tomar naproxeno para el dolor de las rodillas?", []),
        (T, "negation", "nunca me han puesto biológicos", []),
        (
            V,
            "relative",
            "mi vecina toma levotiroxina de cincuenta y dice que le sube la presión",
            [],
        ),
        (
            T,
            "fact",
            "Mi cita con la reumatóloga es el martes 16 de marzo a las 9:30",
            [appt("rheumatology", date="2027-03-16", time="09:30")],
        ),
        (
            T,
            "fact",
            "y la mamografía me la programaron para el 8 de abril",
            [proc("mammogram", date="2027-04-08")],
        ),
        (
            V,
            "fact",
            "se me está cayendo mucho el pelo desde diciembre",
            [symptom("hair-loss", onset="~diciembre")],
        ),
        (
            T,
            "fact",
            "tengo llagas en la boca desde hace cinco días",
            [symptom("mouth-sores", onset_date=days(now, -5))],
        ),
        (T, "fact", "Prefiero que me escriban en español porfa", [language("es")]),
        (
            T,
            "fact",
            "la doctora me dijo que use bloqueador solar todos los días",
            [care("bloqueador")],
        ),
        (
            T,
            "correction",
            "me equivoqué, el metotrexato son 20 no 15",
            [med("methotrexate", "supersede", dose="20 mg")],
        ),
        (
            V,
            "change",
            "la reumatóloga ya me quitó la prednisona",
            [med("prednisone", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "y me bajaron la levotiroxina a 88 mcg",
            [med("levothyroxine", "supersede", dose="88 mcg")],
        ),
        (
            T,
            "change",
            "Me cambiaron la cita de reumatología para el 23, a la misma hora",
            [appt("rheumatology", "supersede", date="2027-03-23")],
        ),
        (
            V,
            "relative",
            "mi esposo dejó el metotrexato porque le caía mal",
            [],
        ),
        (
            V,
            "late",
            "ahorita que me acuerdo desde anoche me duele el pecho cuando respiro hondo",
            [symptom("chest-pain", onset="~anoche")],
        ),
    ]


def d3(now: datetime) -> list[Beat]:
    """French teleconsultation, voice: a man with type 2 diabetes and kidney disease."""
    return [
        (
            V,
            "fact",
            "bon alors sur le dossier c'est thierry mais tout le monde m'appelle titi",
            [name("titi")],
        ),
        (
            V,
            "fact",
            "j'ai un diabète de type deux et une insuffisance rénale chronique",
            [cond("type-2-diabetes"), cond("chronic-kidney-disease")],
        ),
        (V, "fact", "et puis l'apnée du sommeil aussi", [cond("sleep-apnea")]),
        (
            V,
            "fact",
            "je prends la sitagliptine cent milligrammes le matin",
            [med("sitagliptin", dose="100 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "l'insuline glargine dix-huit unités au coucher",
            [med("insulin-glargine", dose="18 units", status="taking")],
        ),
        (
            V,
            "fact",
            "le périndopril quatre milligrammes",
            [med("perindopril", dose="4 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "et l'ézétimibe dix milligrammes pour le cholestérol",
            [med("ezetimibe", dose="10 mg", status="taking")],
        ),
        (
            V,
            "relative",
            "mon voisin du dessous est sous insuline lui aussi il fait trente unités",
            [],
        ),
        (
            V,
            "fact",
            "le céfuroxime m'a donné des plaques rouges partout sur le torse",
            [allergy("cefuroxime", reaction="~plaques")],
        ),
        (
            V,
            "fact",
            "et les piqûres de guêpe chez moi ça gonfle énormément",
            [allergy("wasp-stings", reaction="~gonfle")],
        ),
        (V, "question", "est-ce que je peux prendre du doliprane quand j'ai mal au dos", []),
        (V, "negation", "non la metformine je n'en ai jamais pris", []),
        (
            V,
            "relative",
            "ma belle-sœur elle prend de l'ézétimibe aussi mais elle c'est avec une statine",
            [],
        ),
        (
            V,
            "fact",
            "le rendez-vous de néphrologie c'est le jeudi quatre novembre à quatorze heures quinze",
            [appt("nephrology", date="2027-11-04", time="14:15")],
        ),
        (
            V,
            "fact",
            "et l'échographie des reins le vingt-huit octobre",
            [proc("ultrasound", date="2027-10-28")],
        ),
        (
            V,
            "fact",
            "ça me gratte partout depuis dix jours",
            [symptom("itching", onset_date=days(now, -10))],
        ),
        (
            V,
            "fact",
            "et les pieds qui fourmillent depuis cet été",
            [symptom("tingling", onset="~été")],
        ),
        (
            V,
            "fact",
            "je dois contrôler ma glycémie quatre fois par jour",
            [care("glycémie")],
        ),
        (
            V,
            "correction",
            "ah non pardon je me suis trompé c'est vingt-deux unités pas dix-huit",
            [med("insulin-glargine", "supersede", dose="22 units")],
        ),
        (
            V,
            "change",
            "le néphrologue a arrêté le périndopril à cause du potassium",
            [med("perindopril", "supersede", status="stopped")],
        ),
        (
            V,
            "change",
            "et on a remplacé la sitagliptine par du sémaglutide zéro virgule cinq"
            " milligramme une fois par semaine",
            [
                med("sitagliptin", "supersede", status="stopped"),
                med("semaglutide", dose="0.5 mg", status="taking"),
            ],
        ),
        (
            V,
            "change",
            "le secrétariat a décalé la néphrologie au dix-huit novembre même heure",
            [appt("nephrology", "supersede", date="2027-11-18")],
        ),
        (
            V,
            "relative",
            "ma femme a arrêté son sémaglutide elle avait trop de nausées",
            [],
        ),
        (
            V,
            "late",
            "ah j'oubliais je suis constipé depuis lundi",
            [symptom("constipation", onset="~lundi")],
        ),
    ]


def d4(now: datetime) -> list[Beat]:
    """Arabic chat, Gulf and Levantine speech, Arabic-Indic digits: a woman with epilepsy."""
    return [
        (T, "fact", "اسمي فاطمة بس الكل ينادوني أم خالد", [name("أم خالد")]),
        (T, "fact", "عندي صرع من وأنا صغيرة", [cond("epilepsy")]),
        (T, "fact", "وعندي ربو كمان", [cond("asthma")]),
        (
            T,
            "fact",
            "آخذ ليفيتيراسيتام ٥٠٠ ملغ مرتين باليوم",
            [med("levetiracetam", dose="500 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "وجابابنتين ٣٠٠ ملغ بالليل",
            [med("gabapentin", dose="300 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "وبانتوبرازول ٤٠ ملغ قبل الفطور",
            [med("pantoprazole", dose="40 mg", status="taking")],
        ),
        (T, "relative", "أختي تاخذ جابابنتين ٦٠٠ ملغ للأعصاب", []),
        (
            T,
            "fact",
            "الأسبرين يسبب لي ضيق تنفس",
            [allergy("aspirin", reaction="~ضيق")],
        ),
        (T, "fact", "وعندي حساسية من السمك", [allergy("fish")]),
        (T, "question", "هل أقدر آخذ بروفين للصداع؟", []),
        (T, "negation", "ما عمري أخذت كورتيزون", []),
        (T, "relative", "زوجي عنده حساسية من البنسلين", []),
        (
            T,
            "fact",
            "موعد الأعصاب يوم ١٢ مايو الساعة ١٠ الصبح",
            [appt("neurology", date="2027-05-12", time="10:00")],
        ),
        (
            T,
            "fact",
            "وتخطيط المخ يوم ٥ مايو",
            [proc("eeg", date="2027-05-05")],
        ),
        (
            T,
            "fact",
            "عندي صداع من ثلاثة أيام",
            [symptom("headache", onset_date=days(now, -3))],
        ),
        (T, "fact", "أفضل الكلام بالعربي لو سمحت", [language("ar")]),
        (T, "fact", "الدكتور قال لازم أنام ثماني ساعات كل ليلة", [care("ساعات")]),
        (
            T,
            "correction",
            "لا لحظة، الجابابنتين ٤٠٠ مو ٣٠٠",
            [med("gabapentin", "supersede", dose="400 mg")],
        ),
        (
            T,
            "change",
            "الدكتور وقف البانتوبرازول",
            [med("pantoprazole", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "وزادوا الليفيتيراسيتام إلى ٧٥٠ ملغ",
            [med("levetiracetam", "supersede", dose="750 mg")],
        ),
        (T, "relative", "أمي وقفت دواء الضغط حقها", []),
        (
            T,
            "change",
            "أجلوا موعد الأعصاب إلى ١٩ مايو نفس الوقت",
            [appt("neurology", "supersede", date="2027-05-19")],
        ),
        (
            T,
            "late",
            "ومن أمس عندي رجفة في يدي",
            [symptom("tremor", onset="~أمس")],
        ),
    ]


def d5(now: datetime) -> list[Beat]:
    """German portal messages with some voice: a man with atrial fibrillation and gout."""
    return [
        (
            T,
            "fact",
            "Ich heiße Wolfgang, aber alle sagen Wolfi zu mir.",
            [name("wolfi")],
        ),
        (
            T,
            "fact",
            "Ich habe Vorhofflimmern und Bluthochdruck.",
            [cond("atrial-fibrillation"), cond("hypertension")],
        ),
        (T, "fact", "Außerdem Gicht, vor allem im großen Zeh.", [cond("gout")]),
        (
            T,
            "fact",
            "Ich nehme Ramipril 5 mg morgens.",
            [med("ramipril", dose="5 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Apixaban 5 mg zweimal täglich.",
            [med("apixaban", dose="5 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Dronedaron 400 mg zum Frühstück und zum Abendessen.",
            [med("dronedarone", dose="400 mg", status="taking")],
        ),
        (
            T,
            "fact",
            "Und Tamsulosin 0,4 mg abends.",
            [med("tamsulosin", dose="0.4 mg", status="taking")],
        ),
        (T, "relative", "Meine Frau nimmt auch Ramipril, aber 10 mg.", []),
        (
            T,
            "fact",
            "Auf Penicillin reagiere ich mit Atemnot.",
            [allergy("penicillin", reaction="~atemnot")],
        ),
        (
            V,
            "fact",
            "und ich bin allergisch gegen hausstaubmilben",
            [allergy("dust-mites")],
        ),
        (T, "question", "Darf ich bei Kopfschmerzen Aspirin nehmen?", []),
        (T, "negation", "Marcumar habe ich nie genommen.", []),
        (V, "relative", "mein nachbar hat auch gicht der nimmt allopurinol dreihundert", []),
        (
            T,
            "fact",
            "Der Termin in der Kardiologie ist am 3. März um 8:30 Uhr.",
            [appt("cardiology", date="2027-03-03", time="08:30")],
        ),
        (
            T,
            "fact",
            "Die Kardioversion ist für den 24. Februar geplant.",
            [proc("cardioversion", date="2027-02-24")],
        ),
        (
            T,
            "fact",
            "Seit Weihnachten habe ich öfter Herzstolpern.",
            [symptom("palpitations", onset="~weihnachten")],
        ),
        (
            V,
            "fact",
            "seit drei tagen sind die knöchel geschwollen",
            [symptom("swelling", onset_date=days(now, -3))],
        ),
        (
            T,
            "fact",
            "Ich soll jeden Morgen mein Gewicht aufschreiben.",
            [care("gewicht")],
        ),
        (T, "fact", "Bitte rufen Sie mich nur vormittags an.", [pref("vormittags")]),
        (
            T,
            "correction",
            "Moment, ich hab mich vertan: Ramipril ist 2,5 mg, nicht 5.",
            [med("ramipril", "supersede", dose="2.5 mg")],
        ),
        (
            T,
            "change",
            "Der Kardiologe hat das Dronedaron abgesetzt.",
            [med("dronedarone", "supersede", status="stopped")],
        ),
        (
            T,
            "change",
            "Statt Apixaban nehme ich jetzt Edoxaban 60 mg einmal täglich.",
            [
                med("apixaban", "supersede", status="stopped"),
                med("edoxaban", dose="60 mg", status="taking"),
            ],
        ),
        (
            T,
            "change",
            "Der Kardiologie-Termin wurde auf den 10. März verschoben, gleiche Uhrzeit.",
            [appt("cardiology", "supersede", date="2027-03-10")],
        ),
        (T, "relative", "Meine Schwester hat ihr Apixaban auch abgesetzt.", []),
        (
            V,
            "late",
            "ach und seit gestern hab ich nasenbluten",
            [symptom("nosebleeds", onset="~gestern")],
        ),
    ]


def d6(now: datetime) -> list[Beat]:
    """Italian voice call: a woman with asthma, migraine and celiac disease."""
    return [
        (
            V,
            "fact",
            "allora mi chiamo giuseppina ma mi chiamano tutti pina",
            [name("pina")],
        ),
        (
            V,
            "fact",
            "ho l'asma e l'emicrania da quando ero ragazza",
            [cond("asthma"), cond("migraine")],
        ),
        (V, "fact", "e sono celiaca", [cond("celiac-disease")]),
        (
            V,
            "fact",
            "prendo il montelukast dieci milligrammi la sera",
            [med("montelukast", dose="10 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "la sertralina cinquanta milligrammi",
            [med("sertraline", dose="50 mg", status="taking")],
        ),
        (
            V,
            "fact",
            "e il topiramato venticinque milligrammi per il mal di testa",
            [med("topiramate", dose="25 mg", status="taking")],
        ),
        (V, "relative", "mia suocera prende la sertralina da cento", []),
        (
            V,
            "fact",
            "sono allergica ai crostacei mi si chiude la gola",
            [allergy("shellfish", reaction="~gola")],
        ),
        (
            V,
            "fact",
            "e la codeina mi fa vomitare",
            [allergy("codeine", reaction="~vomit")],
        ),
        (V, "question", "posso prendere l'ibuprofene con l'asma", []),
        (V, "negation", "non ho mai preso il cortisone per bocca", []),
        (V, "relative", "mio marito è allergico al polline poverino", []),
        (
            V,
            "fact",
            "la visita dal neurologo è il quindici giugno alle undici e mezza",
            [appt("neurology", date="2027-06-15", time="11:30")],
        ),
        (
            V,
            "fact",
            "e la risonanza magnetica il sette giugno",
            [proc("mri", date="2027-06-07")],
        ),
        (
            V,
            "fact",
            "ho la tosse secca da una settimana",
            [symptom("cough", onset_date=days(now, -7))],
        ),
        (V, "fact", "preferisco parlare in italiano", [language("it")]),
        (V, "fact", "per favore scrivetemi su whatsapp non chiamatemi", [pref("whatsapp")]),
        (
            V,
            "fact",
            "il medico dice che devo fare lo spray prima di correre",
            [care("spray")],
        ),
        (
            V,
            "correction",
            "scusi ho sbagliato il topiramato è cinquanta non venticinque",
            [med("topiramate", "supersede", dose="50 mg")],
        ),
        (
            V,
            "change",
            "la sertralina me l'hanno alzata a cento milligrammi",
            [med("sertraline", "supersede", dose="100 mg")],
        ),
        (
            V,
            "change",
            "poi il neurologo mi ha fatto sospendere il topiramato",
            [med("topiramate", "supersede", status="stopped")],
        ),
        (V, "relative", "mia sorella invece il montelukast l'ha smesso", []),
        (
            V,
            "change",
            "hanno spostato la visita dal neurologo al ventidue giugno stessa ora",
            [appt("neurology", "supersede", date="2027-06-22")],
        ),
        (
            V,
            "late",
            "ah mi formicola la mano destra da ieri sera",
            [symptom("tingling", onset="~ieri")],
        ),
    ]


DIALOGUES = [
    ("en", "2027-09-27T14:05:00+00:00", 9401, d1),
    ("es", "2027-03-01T17:30:00+00:00", 9402, d2),
    ("fr", "2027-10-18T10:00:00+00:00", 9403, d3),
    ("ar", "2027-04-28T07:45:00+00:00", 9404, d4),
    ("de", "2027-02-15T09:10:00+00:00", 9405, d5),
    ("it", "2027-05-31T16:20:00+00:00", 9406, d6),
]


def _say(d: Dialogue, role: str, text: str, tag: str, expect: list[Any], voice: bool) -> None:
    d.say(role, text, tag, expect, False)  # written as the recognizer gives it
    d.turns[-1]["style"] = "voice" if voice else "typed"


def build() -> list[dict[str, Any]]:
    """Every dialogue of ``heldout4`` as the JSON of the other splits."""
    out = []
    for number, (lang, now_text, seed, script) in enumerate(DIALOGUES):
        rng = random.Random(seed)
        now = datetime.fromisoformat(now_text)
        d = Dialogue(f"heldout4-{number:02d}-{lang}", lang, now, rng)
        beats = script(now)
        replies = sum(1 for beat in beats if len(beat) > 4 and isinstance(beat[4], tuple))
        room = max(0, (104 - 2 * len(beats) - replies - 2) // 2)
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
            _say(d, "user", text, tag, expect, voice)
            if isinstance(reply, tuple):
                _say(d, "assistant", reply[1], reply[0], reply[2], False)
            else:
                tag = "confirm" if reply else "chatter"
                _say(d, "assistant", reply or rng.choice(ACK[lang]), tag, [], False)
        _say(d, "user", BYE[lang], "chatter", [], BYE[lang] == BYE[lang].lower())
        _say(d, "assistant", rng.choice(ACK[lang]), "chatter", [], False)
        assert len(d.turns) >= 100, (d.ident, len(d.turns))
        out.append(d.as_json("heldout4"))
    return out
