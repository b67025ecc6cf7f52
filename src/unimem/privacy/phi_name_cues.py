"""The cues of a person name (introductions, titles, relations, patient labels) and
the word lists around them, in English, Spanish, French and Arabic."""

from __future__ import annotations

import re

from .phi_doc import words

__all__: list[str] = []


_KINDS: dict[tuple[str, ...], str] = {}


def _phrases(kind: str, phrases: str) -> None:
    for phrase in phrases.split(","):
        _KINDS[tuple(phrase.split())] = kind


# strong: whatever follows is a name unless it is a common word.
_phrases(
    "strong",
    "my name is,name is,my name's,name's,call me,calls me,named,name :,first name,last name,"
    "surname,family name,given name,goes by,go by,under the name,in the name of,me llamo,"
    "mi nombre es,"
    "nombre es,se llama,je m'appelle,m'appelle,mon nom est,nom est,s'appelle,nombre :,nom :,"
    "اسمي,إسمي,اسمه,اسمها,إسمه,ich heiße,ich heisse,mein name ist,mi chiamo,il mio nome è,"
    "meu nome é,me chamo,chamo-me,mijn naam is,ik heet",
)


# object: the person a request is about ("tell bartholomew", "ask siobhan to call",
# "it's under takahashi"): a listed name, or a word no word list has.
_phrases("object", "tell,ask,let,remind,page,told,asked,reminded,paged,under,ask for")


# weak: only a known given name (or a capitalized word in typed text) follows.
# patient: a known name follows ("Patient Nguyen Van An", not "Patient Portal").
_phrases("patient", "patient,pt,caller,paciente,patiente,المريض,المريضة")


# with: a known given name that is no word, then a surname, listed or not
# ("an appointment with mei tanaka", "calling for beatriz olmedo").
_phrases("with", "with,for,about,para,con,avec,pour")


_phrases(
    "weak",
    "يا,i'm,i am,im,this is,it's,soy,je suis,c'est,ici,أنا,انا,hi,hello,hey,hola,bonjour,"
    "thanks,thank you,dear,spoke with,spoke to,talked to,talked with,talking to,"
    "talking with,speak with,speak to,from :,to :,cc :,attn :,attention :,signed :,"
    "regards,sincerely,cheers,sorry",
)


_phrases(
    "title",
    "dr,dr .,doctor,doctora,nurse practitioner,physician assistant,dra,dra .,docteur,"
    "mr,mr .,mrs,mrs .,ms,ms .,miss,mx,nurse,prof,"
    "professor,sr,sr .,sra,sra .,srta,señor,señora,señorita,don,doña,monsieur,madame,mme,"
    "mlle,الدكتور,الدكتورة,د .,السيد,السيدة,الأستاذ,الاستاذ,dr,herr,frau,signor,"
    "signora,dottore,dottoressa,dott,dott .,senhor,senhora,doutor,doutora,meneer,mevrouw",
)


_RELATIONS = words(
    "wife husband son daughter mother mom mum father dad brother sister friend neighbor "
    "neighbour caregiver grandson granddaughter grandmother grandfather grandma grandpa "
    "partner cousin aunt uncle nephew niece boyfriend girlfriend hijo hija esposa esposo "
    "marido mujer madre padre mamá papá hermano hermana abuela abuelo vecino vecina amigo "
    "amiga nieto nieta fille fils femme mari mère père frère sœur soeur voisin voisine ami "
    "amie"
)


for _rel in _RELATIONS:
    for _owner in ("my", "mi", "ma", "mon"):
        _KINDS[(_owner, _rel)] = "relation"


for _rel in words("زوجتي زوجي ابني ابنتي بنتي أمي امي أبي ابي أخي اخي أختي اختي جاري صديقي"):
    _KINDS[(_rel,)] = "relation"


#: Longest cue starting with each word, so most tokens are skipped at once.
_LONGEST: dict[str, int] = {}


for _key in _KINDS:
    _LONGEST[_key[0]] = max(_LONGEST.get(_key[0], 0), len(_key))


_CUE_FIRST = frozenset(_LONGEST)


#: The second words of the cues of two words or more, by first word.
_SECOND: dict[str, frozenset[str]] = {
    first: frozenset(k[1] for k in _KINDS if len(k) > 1 and k[0] == first) for first in _LONGEST
}


_ARABIC_RE = re.compile("[\u0600-\u06ff]")


_TITLE_WORDS = frozenset(k[0] for k, kind in _KINDS.items() if kind == "title")


_PARTICLES = frozenset(words("de del la van von der bin ben al el da di du le"))


_MEDICAL_NEXT = frozenset(
    words(
        "disease diseases syndrome palsy lymphoma sign test procedure disorder's disorder "
        "maladie enfermedad síndrome syndrome's tumor tumour"
    )
)


_SKIP_AFTER_CUE = frozenset({",", ":", "is", "es", "est", "was", "'s", "."})


# A given name after these is a place or an institution ("in virginia",
# "saint mary's hospital"), not a person, unless a cue says otherwise.
_PLACE_BEFORE = frozenset(words("in near saint st san santa mount mt fort port"))


_PLACE_AFTER = frozenset(
    words("hospital clinic medical center centre street avenue road county city university")
)


#: A title after these is a role ("the nurse drew blood"), not a form of address.
_ARTICLES = frozenset(words("the a an this that"))


#: Determiners of the other languages: no name follows one without a cue
#: ("une belle fontaine", "la rosa del jardín", "der Koch").
_DETERMINERS = frozenset(
    words(
        "un une le la les des el los las una unos unas il lo gli der die das den dem ein "
        "eine einen einem einer o os as um uma het een"
    )
)


#: A weak introduction followed by one word and then these (or nothing) introduces
#: that word alone as a name: "this is chidi from the pharmacy".
_INTRO_CUES = frozenset({("this", "is"), ("it's",), ("its",)})
_AFTER_INTRO = frozenset(
    words("from calling here speaking again and i i'm im with returning . , ! ?")
)


#: Words after a relation that are not its name: "my son will drive", "my wife drew".
_NOT_AFTER_RELATION = frozenset(
    words(
        "will may can might must shall would could should drew rose in an so see soon son "
        "my many else long ok al del le les ma mi su ta tu un una era esta"
    )
)


#: "Mark from billing", "April at reception": a given name and where the person works.
_WORKPLACES = frozenset(
    words(
        "billing reception records scheduling radiology pharmacy lab laboratory admissions "
        "triage insurance accounts cardiology oncology front desk office clinic"
    )
)


_SCORES = {
    "patient": 0.8,
    "strong": 0.9,
    "title": 0.85,
    "relation": 0.8,
    "weak": 0.8,
    "bare": 0.7,
    "object": 0.75,
    "with": 0.7,
}


#: Words after "call me", "calls me" that are no nickname ("call me back").
_NOT_NICKNAMES = frozenset(
    words(
        "back later tomorrow today tonight soon anytime again often sometimes once twice "
        "anything something everything nothing crazy old names whenever whatever directly "
        "first asap instead sir ma'am maybe please"
    )
)


#: Words before a name spelled out letter by letter ("spelled o k o n k w o").
_SPELL_CUES = frozenset(
    words("spelled spelt spell spelling spells name surname name's letters deletreo s'écrit")
)


_VOWELS = frozenset("aeiouy")
