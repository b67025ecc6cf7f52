"""The cue words of the facts rules, per language (English, Spanish, French, Arabic).

Each cue is a regular expression over a turn's folded text (lowercase, Latin
accents dropped, spoken numbers as digits: see :mod:`unimem.facts.vocabulary`).
A turn of another language, or of none known, is read with every language's cues.
"""

# ruff: noqa: E501  (tables of cue words and number words read best one language a line)

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .vocabulary import fold

__all__ = ["CUE_LANGUAGES", "Cues", "about_someone_else", "cues_for"]

CUE_LANGUAGES = ("en", "es", "fr", "ar")

# Words a speaker puts before a question ("so, should I ...", "en fait bon, est-ce que ...").
_LEAD = (
    r"^(?:(?:so|well|like|and|but|okay|ok|oh|hey|also|then|um|pues|bueno|y|pero|entonces|"
    r"en fait|bon|ben|bah|alors|et|mais|este|o sea|طيب|و|يعني)\s+){0,3}"
)

# "no, wait", "no espere": a correction coming, not a negation (in any language's cues)
_NO_AS_CORRECTION = (
    r"(?!,?\s+(?:wait|sorry|actually|hold on|i mean|scratch|espere|espera|perdon|mejor|"
    r"me equivoque))"
)

_RAW: dict[str, dict[str, str]] = {
    "other": {
        "en": r"\b(?:my|our|his|her)\s+(?:\w+\s+)?(?:(?:step|grand|great)[- ]?)?(?:mom|mother|mum|dad|father|husband|"
        r"wife|son|daughter|sister|brother|kids?|children|child|neighbou?r|friend|roommate|partner|"
        r"boyfriend|girlfriend|aunt|uncle|cousin|niece|nephew|grandson|granddaughter|grandma|grandpa|"
        r"grandmother|grandfather|in-laws?|brother-in-law|sister-in-law|mother-in-law|father-in-law|"
        r"coworker|colleague|boss|dog|cat)\b|\b(?:she|he|they)\s+(?:takes?|is|are|has|have|had|was)\b(?!\s+me\b)",
        "es": r"\b(?:mi|mis|su|sus)\s+(?:\w+\s+)?(?:mama|madre|papa|padre|esposo|esposa|marido|mujer|hijos?|hijas?|"
        r"hermanos?|hermanas?|vecinos?|vecinas?|suegros?|suegras?|abuelos?|abuelas?|compadre|comadre|"
        r"amigos?|amigas?|tios?|tias?|primos?|primas?|nietos?|nietas?|novio|novia|cunados?|cunadas?)\b",
        "fr": r"\b(?:ma|mon|mes|sa|son)\s+(?:\w+\s+)?(?:mere|pere|mari|femme|fils|fille|frere|soeur|voisin|voisine|"
        r"belle-mere|beau-pere|grand-mere|grand-pere|ami|amie|copain|copine|oncle|tante|cousin|"
        r"cousine|enfants?|petit-fils|petite-fille|collegue|belle-soeur|beau-frere|belle-fille|beau-fils|"
        r"gendre|neveu|niece|copine|compagnon|compagne)\b",
        "ar": r"(?:أمي|أبي|والدتي|والدي|زوجي|زوجتي|ابني|ابنتي|أخي|أختي|جاري|جارتي|جدتي|جدي|صديقي|"
        r"صديقتي|حماتي|حماي|عمي|عمتي|خالي|خالتي|أولادي)",
    },
    "self": {
        "en": r"\b(?:i|i'm|im|i've|ive|i'd|me|my|mine)\b",
        "es": r"\b(?:yo|me|mi|tengo|tomo|estoy|soy|padezco)\b",
        "fr": r"\b(?:je|j'\w+|moi|me|m'\w+|mon|ma|mes)\b",
        "ar": r"(?:أنا|عندي|لدي|آخذ|أتناول|أعاني|نادني|اسمي|موعدي|قدماي|ي\b)",
    },
    "question": {
        "en": _LEAD
        + r"(?:should|can|could|is|are|do|does|did|what|what's|whats|how|when|will|would|"
        r"which|why|where|may|if i|if i'm|if im)\b|\bwhat if\b",
        "es": _LEAD
        + r"(?:puedo|debo|es|el \w+ da|la \w+ da|que|cuanto|cuando|como|donde|hay|si)\b|\by si\b",
        "fr": _LEAD
        + r"(?:est-ce|puis-je|dois-je|le \w+,? ca|la \w+,? ca|quand|comment|combien|ou|si)\b|\bet si\b",
        "ar": _LEAD + r"(?:هل|ماذا|كيف|متى|أين|لماذا|كم|لو)",
    },
    "negation": {
        "en": r"\b(?:never|not|n't)\b|\bno\b" + _NO_AS_CORRECTION + r"|\bdon't\b|\bdont\b",
        "es": r"\b(?:nunca|jamas)\b|\bno\b" + _NO_AS_CORRECTION,
        "fr": r"\b(?:ne|n'\w+|pas|jamais)\b",
        "ar": r"(?<!\w)و?(?:لا|لم|ليس|ليست|لست)(?!\w)(?!\s+(?:انتظر|عفوا|آسف|اسف))|\bأبدا\b",
    },
    "hedge": {
        "en": r"\b(?:not sure|i think|maybe|might be|i wonder|i don't know)\b",
        "es": r"\b(?:no estoy segur[oa]|creo que|quizas|tal vez)\b",
        "fr": r"\b(?:pas sur|je crois|peut-etre|je ne sais pas)\b",
        "ar": r"(?:لست متأكد|ربما|أظن)",
    },
    "take": {
        "en": r"\b(?:take|takes|taking|took|on|prescribed|started|start|put me on|have me on|using|use)\b",
        "es": r"\b(?:tomo|tomando|tomar|estoy con|recetaron|receto|empece|uso)\b",
        "fr": r"\b(?:prends|prendre|pris|sous|prescrit|prescrite|commence)\b",
        "ar": r"(?:آخذ|اخذ|أتناول|اتناول|على|وصف|أستعمل|آخذه)",
    },
    "stop": {
        "en": r"\b(?:stopped|stop|stopping|quit|quitting|discontinued|discontinue|took me off|taken off|taking me off|off the|came off|got off|"
        r"weaned off|weaning me off|dropped|no longer|anymore|any more|used to take|ran out of|never refilled|pulled me off|"
        r"cut out|done with|gave up|finished)\b",
        "es": r"\b(?:quitaron|quito|ya no|deje|suspendi\w*|suspend\w*|retiraron|dejar de|dejo de|lo deje|la deje|descontinu\w*|"
        r"no (?:lo|la) tomo mas|ya no (?:lo|la) tomo)\b",
        "fr": r"\b(?:arret\w*|ne prends plus|(?:j'en|n'en|en) prends plus|(?:le|la|les) prends plus|prends plus|supprim\w*|stopp\w*|"
        r"plus de|retir\w*|interromp\w*|abandonn\w*)\b",
        "ar": r"(?:أوقفوا|اوقفوا|وقفوا|وقفت|توقفت|أوقف|لم أعد|ما عدت|أوقفت|أوقفها|تركت|قطعت|بطلت|شالوا)",
    },
    "change": {
        "en": r"\b(?:bumped|raised|increased|upped|lowered|decreased|reduced|changed|switched|adjusted|up to|"
        r"down to|now|went up|went down|doubled|halved|cut|dropped it|upping|lowering|increasing)\b",
        "es": r"\b(?:subio|subieron|bajo|bajaron|cambiaron|cambio|aumento|aumentaron|redujo|redujeron|ahora|"
        r"me (?:la|lo) (?:subieron|bajaron|cambiaron|aumentaron)|duplicaron|ajustaron)\b",
        "fr": r"\b(?:augment\w*|baiss\w*|diminu\w*|chang\w*|maintenant|passe\w*|double\w*|reduit\w*|ajust\w*)\b",
        "ar": r"(?:رفع|خفض|خفضت|زاد|صرت|غير|قلل)",
    },
    "correction": {
        "en": r"\b(?:actually|correction|i meant|i mean|sorry|misspoke|wait|my mistake|i was wrong|"
        r"got (?:that|it) wrong|scratch that|hold on|let me correct|that's wrong|thats wrong|that was wrong|"
        r"earlier i said|i said earlier|what i said before|what i wrote before|i told you earlier)\b",
        "es": r"\b(?:en realidad|perdon|me equivoque|quise decir|corrijo|espere|mejor dicho|me confundi|"
        r"estaba equivocad[oa]|lo que (?:le )?dije)\b",
        "fr": r"\b(?:en fait|pardon|je me suis trompee?|je voulais dire|correction|attendez|je reviens sur|"
        r"je rectifie|je corrige|je confondais|erreur de ma part)\b",
        "ar": r"(?:في الحقيقة|عفوا|أخطأت|اخطأت|أقصد|تصحيح|انتظر|غلطت|آسف)",
    },
    "stale": {
        "en": r"\b(?:not|instead of)\s+(?:the\s+|a\s+|an\s+)?(\d+(?:\.\d+)?)",
        "es": r"\b(?:no|en vez de)\s+(?:de\s+|es\s+)?(\d+(?:\.\d+)?)",
        "fr": r"\b(?:pas|et pas|au lieu de)\s+(?:de\s+)?(\d+(?:\.\d+)?)",
        "ar": r"(?:وليس|وليست|ليس|ليست|بدلا من)\s+(\d+(?:\.\d+)?)",
    },
    "switch": {
        "en": r"\b(?:switch\w*|swap\w*|chang\w*|replac\w*|traded|moved me|from|instead of|in place of|rather than)\b",
        "es": r"\b(?:cambi\w*|pas\w* de|sustitu\w*|reemplaz\w*|en vez del?|en lugar del?)\b",
        "fr": r"\b(?:pass\w* du?|remplac\w*|chang\w*|a la place du?|au lieu du?)\b",
        "ar": r"(?:غير\w*|بدل|استبدل\w*|مكان|إلى|الى)",
    },
    "replaced": {
        "en": r"\b(?:instead of|in place of|rather than)\s+(?:the\s+|my\s+)?",
        "es": r"\b(?:en vez|en lugar)\s+(?:de\s+la|del?)\s+",
        "fr": r"\b(?:a la place|au lieu)\s+(?:de\s+la|du|de|des|d')\s*",
        "ar": r"(?:بدلا من|بدلاً من|بدل|مكان)\s+",
    },
    "source": {
        "en": r"\b(?:from|off)\s+(?:the\s+|my\s+)?",
        "es": r"\b(?:de\s+la|del?)\s+",
        "fr": r"\b(?:de\s+la|du|de|d')\s*",
        "ar": r"(?:من)\s+",
    },
    "retract": {
        "en": r"\b(?:scratch|remove|delete|take \w+(?: \w+)? off|cross \w+(?: \w+)? off|was a mistake|was wrong|not actually|no longer|"
        r"(?:came back|tested|test was|tests were) negative)\b",
        "es": r"\b(?:quite|quitar|quiten|borre|borrar|elimine|eliminar|fue un error|ya no)\b",
        "fr": r"\b(?:enlevez|enlever|retirez|retirer|supprimez|effacez|c'etait une erreur|plus)\b",
        "ar": r"(?:احذف|امسح|شيل|ألغ|الغ|كان خطأ|لم يعد|سلبي|سلبية)",
    },
    "allergy": {
        "en": r"\b(?:allergic|allergy|allergies|react(?:s|ion)?(?: badly)? to|intolerant|anaphyla\w*|makes? me (?:sick|ill)|"
        r"made me (?:sick|ill)|(?:doesn't|does not|don't|do not) agree with me)\b",
        "es": r"\b(?:alergic[oa]s?|alergia|alergias|me hace dano|me hacen dano|me sienta mal|me caen? mal)\b",
        "fr": r"\b(?:allergique|allergie|allergies|intolerante?|ne me reussit pas|ne me reussissent pas|ne me convient pas)\b",
        "ar": r"(?:حساسي|تحسس)",
    },
    # "I can't take X, I'm allergic", "je ne supporte pas X": the negation is of
    # taking it, not of the allergy (read before the allergy's negation cue)
    "unable": {
        "en": r"\b(?:can't|cant|cannot|can not|couldn't|could not)\s+(?:take|have|tolerate|eat|use|handle)\b|"
        r"\b(?:doesn't|does not|don't|do not) agree with me\b",
        "es": r"\bno\s+(?:puedo|tolero|soporto|aguanto)\b|\bno me (?:cae|caen|sienta|sientan) bien\b",
        "fr": r"\bne\s+(?:supporte|tolere|peux|peut)\s+pas\b|\bne me (?:reussit|reussissent|convient|conviennent) pas\b",
        "ar": r"(?:لا أستطيع|لا استطيع|لا أقدر|لا اقدر|ما بقدر|لا أتحمل|لا اتحمل)",
    },
    "reaction": {
        "en": r"\b(?:gives? me|gave me|i get|i got|i break out in|breaks? me out in|broke me out in|causes?|caused|"
        r"makes? (?:me|my)(?: break out in)?|made (?:me|my)|i have)\s+(.+)",
        "es": r"\b(?:me da|me dan|me dio|me dieron|me provoca|me provoco|me causa|me causo|me sale|me salen|me salio)\s+(.+)",
        "fr": r"\b(?:ca me donne|me donne|me donnent|m'a donne|m'ont donne|me provoque|m'a provoque|me fait|j'ai|ca me)\s+(.+)",
        "ar": r"(?:تسبب لي|يسبب لي|سبب لي|سببت لي|يعطيني|تعطيني|أعطاني|اعطاني)\s+(.+)",
    },
    "condition": {
        "en": r"\b(?:have|has|had|i've got|got|diagnosed|suffer|history of|living with|with|treated for|dealing with|"
        r"they found|found out i have|told me i have|says it's)\b",
        "es": r"\b(?:tengo|padezco|diagnosticaron|sufro|diagnostico|con|me encontraron|me detectaron|dice que es)\b",
        "fr": r"\b(?:j'ai|ai|souffre|diagnostique\w*|atteinte?|avec|soignee? pour|traitee? pour|on m'a trouve|m'ont trouve|"
        r"(?:dit|dit que|pense que) c'est (?:une?|de la|du)?)\b",
        "ar": r"(?:عندي|أعاني|اعاني|تشخيص|مصاب|لدي|أعالج|اعالج|أتعالج)",
    },
    # "that X allergy was my sister, not me": someone else's, so not the patient's
    "disown": {
        "en": r"\b(?:not me|not mine|wasn't me|wasnt me|isn't mine|isnt mine)\b",
        "es": r"\b(?:no (?:a )?mi|yo no|no (?:es|era) mia?o?)\b",
        "fr": r"\b(?:pas moi|pas a moi|pas la mienne|pas le mien)\b",
        "ar": r"(?:وليس أنا|مش أنا|مو أنا|ليس أنا|وليس انا|مش انا)",
    },
    "appointment": {
        "en": r"\b(?:appointment|appt|see|seeing|visit|follow-up|follow up|booked|scheduled)\b",
        "es": r"\b(?:cita|consulta|turno|veo al?|ver al?)\b",
        "fr": r"\b(?:rendez-vous|rdv|consultation|vois|voir)\b",
        "ar": r"(?:موعد|عيادة)",
    },
    "move": {
        "en": r"\b(?:moved|rescheduled|pushed|changed|postponed|bumped|switched|delayed|brought forward|rebooked)\b",
        "es": r"\b(?:cambiaron|pasaron|movieron|aplazaron|reprogramaron|adelantaron|pospusieron|recorrieron)\b",
        "fr": r"\b(?:deplace\w*|repousse\w*|decale\w*|report\w*|change\w*|avance\w*)\b",
        "ar": r"(?:تأجيل|نقلوا|غيروا|أجلوا|تغيير)",
    },
    "past": {
        "en": r"\b(?:had|did|was done|got done)\b",
        "es": r"\b(?:tuve|me hicieron)\b",
        "fr": r"\b(?:j'ai eu|on m'a fait)\b",
        "ar": r"(?:أجريت|عملت)",
    },
    "name": {
        "en": r"\b(?:call me|calls me|called me|go by|goes by|known as|use|name's|to be called|preferred name is|"
        r"(?:i'd|i would|i) (?:prefer|rather)(?=\s+\S+\s+(?:over|instead of|rather than|not)\s))\s+",
        "es": r"\b(?:llameme|llamame|digame|dime|me dicen|me llaman|conocen como|me diga|me digan)\s+",
        "fr": r"\b(?:appelez-moi|appelle-moi|m'appelle|m'appellent|dites)\s+",
        "ar": r"(?:نادني|ناديني|نادوني|ينادونني|قل لي|قولي لي|ادعوني|سموني)\s+",
    },
    "language": {
        "en": r"\b(?:speak|speaking|talk|prefer|rather|comfortable|easier|in)\b",
        "es": r"\b(?:hablar|hablando|hablo|prefiero|comod[oa]|en)\b",
        "fr": r"\b(?:parler|parle|prefere|a l'aise|en)\b",
        "ar": r"(?:التحدث|الحديث|باللغة|أفضل|أتكلم)",
    },
    "care": {
        "en": r"\b(?:(?:doctor|nurse|surgeon|dentist|pharmacist|they)\s+(?:said|says|told me)(?:\s+that)?\s+"
        r"(?=to\b|i\b|no\b|not\b|never\b|always\b)|i have to (?=fast|avoid|take|keep|stay|rest|drink|eat|"
        r"check|stop|wear|use|not)|i'm not supposed to|im not supposed to|i'm supposed to|i must|"
        r"no (?=driving|lifting|alcohol|food|eating))",
        "es": r"\b(?:tengo que|debo|no debo|me dijeron que|(?:el|la) (?:doctora?|enfermera) (?:me )?dijo que)\s+",
        "fr": r"\b(?:je dois|je ne dois pas|il faut que je|il faut que j'|on m'a dit que|(?:le|la) (?:medecin|docteur|infirmiere) (?:m')?a dit que)\s*",
        "ar": r"(?:يجب أن|يجب|قال الطبيب|قال لي الطبيب|قالت الطبيبة|قالت لي الطبيبة|قالوا لي|ممنوع|لازم)\s*",
    },
    "preference": {
        "en": r"\b(?:i prefer|i'd prefer|i'd rather|i would rather|i like my|i like (?=.+\bbetter\b)|please (?=email|text|send))\s*|"
        r"^(?=.+\b(?:works?|is|are) (?:better|best|easier) for me\b)",
        "es": r"\b(?:prefiero|me gusta mas)\s+",
        "fr": r"\b(?:je prefere|j'aime mieux)\s+",
        "ar": r"(?:أفضل|افضل)\s+",
    },
    "confirm": {
        "en": r"\b(?:i've noted|i have noted|noted|i've recorded|i have recorded|recorded|i'll note|"
        r"i've added|i've updated)\b",
        "es": r"\b(?:he anotado|anotado|anote|queda registrad[oa]|he registrado|registre|tomo nota|tome nota)\b",
        "fr": r"\b(?:j'ai (?:bien )?note|c'est (?:bien )?note|j'ai (?:bien )?enregistre|bien note)\b",
        "ar": r"(?:سجلت|تم تسجيل|دونت)",
    },
    "frequency": {
        "en": r"\b(?:(?:once|twice|three times|four times|\d+ times) (?:a|per) day|daily|nightly|"
        r"every (?:morning|evening|night|day|other day|\d+ hours)|at (?:night|bedtime)|"
        r"with (?:dinner|breakfast|lunch|meals|food)|first thing in the morning|in the morning|"
        r"as needed)\b",
        "es": r"\b(?:(?:una vez|dos veces|tres veces) al dia|cada (?:manana|noche|dia|\d+ horas)|"
        r"en la noche|por la noche|por la manana|con el desayuno|con la comida|diario)\b",
        "fr": r"\b(?:(?:une fois|deux fois|trois fois) par jour|le soir|le matin|matin et soir|"
        r"au coucher|tous les jours|chaque (?:jour|soir|matin))\b",
        "ar": r"(?:مرة في اليوم|مرتين في اليوم|ثلاث مرات يوميا|في المساء|في الصباح|يوميا|قبل النوم)",
    },
}


# Someone else, in the languages without cues of their own that write in Latin
# script: read for a turn of one of them (or of unknown language), so that a
# relative's medicine ("Meine Mutter nimmt Metformin 500 mg") is not the patient's.
_OTHER_MORE = {
    "de": r"\b(?:meine?[rnms]?|unsere?[rnms]?|seine?[rnms]?|ihre?[rnms]?)\s+(?:\w+\s+)?(?:mutter|vater|mann|frau|"
    r"sohn|tochter|schwester|bruder|nachbarin|nachbar|freundin|freund|oma|opa|gro(?:ss|ß)mutter|gro(?:ss|ß)vater|"
    r"schwiegermutter|schwiegervater|tante|onkel|kinder|kind|kollegin|kollege|enkelin|enkel)\b",
    "it": r"\b(?:mia|mio|mie|miei|sua|suo)\s+(?:\w+\s+)?(?:madre|mamma|padre|papa|marito|moglie|figlio|figlia|"
    r"sorella|fratello|vicina|vicino|amica|amico|nonna|nonno|suocera|suocero|zia|zio|nipote|collega)\b",
    "pt": r"\b(?:minha|meu|minhas|meus|sua|seu)\s+(?:\w+\s+)?(?:mae|pai|marido|esposa|esposo|mulher|filho|filha|"
    r"irma|irmao|vizinha|vizinho|amiga|amigo|avo|sogra|sogro|tia|tio|neta|neto|colega)\b",
}


@dataclass(frozen=True, slots=True)
class Cues:
    """The compiled cues of one language (or of all, for a turn of unknown language)."""

    other: re.Pattern[str]
    self: re.Pattern[str]
    question: re.Pattern[str]
    negation: re.Pattern[str]
    hedge: re.Pattern[str]
    take: re.Pattern[str]
    stop: re.Pattern[str]
    change: re.Pattern[str]
    correction: re.Pattern[str]
    stale: re.Pattern[str]
    switch: re.Pattern[str]
    replaced: re.Pattern[str]
    source: re.Pattern[str]
    retract: re.Pattern[str]
    allergy: re.Pattern[str]
    unable: re.Pattern[str]
    reaction: re.Pattern[str]
    condition: re.Pattern[str]
    disown: re.Pattern[str]
    appointment: re.Pattern[str]
    move: re.Pattern[str]
    past: re.Pattern[str]
    name: re.Pattern[str]
    language: re.Pattern[str]
    care: re.Pattern[str]
    preference: re.Pattern[str]
    confirm: re.Pattern[str]
    frequency: re.Pattern[str]


def base_language(language: str | None) -> str | None:
    """The language of a code without its region or script: ``es`` for ``es-MX``,
    ``pt`` for ``pt_BR``, ``fr`` for ``FR-ca``; ``None`` for none."""
    return language.split("-")[0].split("_")[0].lower() or None if language else None


def cues_for(language: str | None) -> Cues:
    """The cues for a turn of ``language`` (every language's when it has none of
    its own); a regional code (``es-MX``, ``fr-CA``) reads as its language."""
    return _cues_for(base_language(language))


@functools.cache
def _cues_for(language: str | None) -> Cues:
    langs = [language] if language in CUE_LANGUAGES else list(CUE_LANGUAGES)
    if language not in (None, "en") and language in CUE_LANGUAGES:
        langs.append("en")  # code-switching: English cues are common in every language
    tables = {name: [table[lang] for lang in langs] for name, table in _RAW.items()}
    if language not in CUE_LANGUAGES:
        more = [_OTHER_MORE[language]] if language in _OTHER_MORE else list(_OTHER_MORE.values())
        tables["other"] += more
    compiled = {
        name: re.compile("|".join(f"(?:{p})" for p in parts)) for name, parts in tables.items()
    }
    return Cues(**compiled)


_PRONOUNS = ("she ", "he ", "they ")
_OTHER_MAX_WORDS = 16


def about_someone_else(sentence: str) -> bool:
    """A short sentence speaks of someone else ("my mom is allergic to aspirin", "mi
    esposo toma 20 mg"), in the words the rules read as someone else's. A pronoun
    may be the care team ("they have me on"), and an unpunctuated run longer than
    16 words may state the patient's own facts too: neither counts."""
    if len(sentence.split()) > _OTHER_MAX_WORDS:
        return False
    found = cues_for(None).other.search(fold(sentence))
    return found is not None and not found.group(0).startswith(_PRONOUNS)
