"""Write the name-focused PHI sets ``names_tune.txt`` and ``names_heldout.txt``.

Each set is made from its own sentence templates and its own name lists (no
template, first name or surname is shared between the two), filled in with a
fixed random seed, so the held-out set tests the rules on names and phrasings
they were not written for. Run from the repository root::

    python tests/data/phi/make_name_sets.py
    python -m unimem.privacy.phi_eval tests/data/phi

The templates mark PHI as ``[[value|TYPE]]``; ``$f``/``$F`` is a first name
(lowercase in transcripts, capitalized in typed text), ``$l``/``$L`` a surname
(``$U`` in capitals),
``$w``/``$W`` a first name that is also a common English word, ``$sp`` the
surname spelled out letter by letter, ``$age`` a spoken age over 89, ``$phone``,
``$ssn`` and ``$dob`` typed identifiers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Recipe:
    """What one set is made of."""

    name: str
    seed: int
    header: str
    first: tuple[str, ...]
    last: tuple[str, ...]
    word_names: tuple[str, ...]
    ages: tuple[str, ...]
    #: (style, template, how many sentences to make from it)
    templates: tuple[tuple[str, str, int], ...]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


TUNE = Recipe(
    name="names_tune",
    seed=1601,
    header=(
        "# Name-focused PHI set the rules were developed on (tuned on).\n"
        "# Made by make_name_sets.py from its own templates and name lists.\n"
    ),
    first=_words(
        "gertrude priscilla harriet desmond wilhelmina gwendolyn quentin ida thomas robert "
        "eleanor walter beatrice clarence mildred herbert lorraine vernon rosalind eugene "
        "agatha cornelius winifred lionel maxine roland bernadette floyd imogen percival"
    ),
    last=_words(
        "halloran hoffman okonkwo vance feldman okafor drake pierce blackwood anderson "
        "castellano whitfield marchetti lindqvist abernathy kowalczyk delacroix fairbanks "
        "nakagawa osei pemberton ruiz-diaz sorensen tremblay vasquez winslow yablonski "
        "zimmerman oyelaran haverford"
    ),
    word_names=_words("grace hope will faith rose mark bill june dawn ray"),
    ages=("ninety", "ninety two", "ninety five", "ninety eight", "a hundred"),
    templates=(
        ("spoken", "hi i'm calling about my appointment my name is [[$f $l|PERSON]]", 4),
        ("spoken", "my name is [[$w $l|PERSON]] and i need a refill", 4),
        ("spoken", "yes my first name is [[$w|PERSON]]", 3),
        ("spoken", "you can call me [[$w|PERSON]] everybody does", 2),
        ("spoken", "hello it's [[$f $l|PERSON]] i'm [[$age|AGE_OVER_89]]", 4),
        ("spoken", "hi this is [[$f $l|PERSON]] calling about my prescription", 4),
        ("spoken", "this is [[$w $l|PERSON]] from apartment six", 2),
        ("spoken", "my name is [[$f $l|PERSON]] spelled [[$sp|PERSON]]", 4),
        ("spoken", "the last name is [[$sp|PERSON]]", 2),
        ("spoken", "my son [[$f|PERSON]] drives me to the clinic", 2),
        ("spoken", "i talked to [[$f $l|PERSON]] at the front desk", 3),
        ("spoken", "i hope it will get better by june", 1),
        ("spoken", "it's will power mostly with the diet", 1),
        ("spoken", "this is my third visit this month", 1),
        ("spoken", "it's the metformin again it upsets my stomach", 1),
        ("spoken", "i will mark it on the calendar", 1),
        ("spoken", "by the grace of god the rash is gone", 1),
        ("spoken", "the doctor said parkinson's runs in my family", 1),
        ("spoken", "i take two hundred milligrams of ibuprofen at night", 1),
        ("spoken", "it's hope that keeps me going honestly", 1),
        ("spoken", "this is about the bill from june", 1),
        ("spoken", "hi it's me again about the blood test", 1),
        ("typed", "Please ask for Mrs. [[$F $L|PERSON]] at the front desk.", 3),
        ("typed", "Dr. [[$L|PERSON]] wants to see you next week.", 3),
        ("typed", "I'm writing about the account of [[$F $L|PERSON]].", 3),
        ("typed", "Chart: patient [[$F $L|PERSON]], SSN [[$ssn|SSN]]", 3),
        ("typed", "spoke with [[$F $L|PERSON]] about the refill", 3),
        ("typed", "[[$F $L|PERSON]] is allergic to penicillin.", 3),
        ("typed", "Thanks [[$F $L|PERSON]], we will call you at [[$phone|PHONE]].", 3),
        ("typed", "My name is [[$W $L|PERSON]].", 2),
        ("typed", "Mr. [[$F $L|PERSON]] missed his appointment.", 2),
        ("typed", "Patient has Parkinson's disease and Graves disease.", 1),
        ("typed", "Bell's palsy on the left side, resolving.", 1),
        ("typed", "Candida on the tongue, started Diflucan 150 mg.", 1),
        ("typed", "Take Tylenol 500 mg every 6 hours as needed.", 1),
        ("typed", "Lipitor 40 mg at bedtime, continue Norvasc 5 mg.", 1),
        ("typed", "Grace period for the insurance ends Friday.", 1),
        ("typed", "Will the pharmacy be open on Monday?", 1),
        ("typed", "Hope the new dose works better.", 1),
        ("typed", "Follow up with Cardiology in two weeks.", 1),
        ("typed", "Alzheimer's disease, early stage; donepezil 5 mg nightly.", 1),
        ("typed", "The Medicare Part D plan covers Eliquis.", 1),
        ("typed", "[[$F $L|PERSON]] called about the bill.", 3),
        ("typed", "Prof. [[$L|PERSON]] reviewed the scan.", 2),
        ("typed", "Attendees: [[$F $L|PERSON]] and her son.", 2),
        ("typed", "MRS. [[$U|PERSON]] CALLED ABOUT HER REFILL.", 2),
        ("spoken", "i am calling for my husband [[$f $l|PERSON]]", 2),
        ("spoken", "so [[$f $l|PERSON]] told me to come in", 2),
        ("typed", "Adam's apple feels swollen.", 1),
        ("typed", "Tommy John surgery went well.", 1),
        ("typed", "Baker's cyst behind the left knee.", 1),
        ("spoken", "my adam's apple hurts when i swallow", 1),
        ("typed", "Seen by [[$F $L|PERSON]] today.", 3),
        ("spoken", "hiya this is [[$f $l|PERSON]] about the forms", 3),
        ("typed", "Started Tresiba FlexTouch 10 units nightly.", 1),
        ("typed", "My Fitbit Charge shows poor sleep.", 1),
        ("typed", "The Cleveland Clinic protocol says otherwise.", 1),
        ("typed", "Quest Diagnostics drew the labs.", 1),
    ),
)

HELDOUT = Recipe(
    name="names_heldout",
    seed=8817,
    header=(
        "# Name-focused held-out PHI set: never tuned on (rules were not written against it).\n"
        "# Made by make_name_sets.py from templates and name lists not used for names_tune.\n"
    ),
    first=_words(
        "marjorie thaddeus ifeoma bartholomew siobhan marisol reginald constance oluwaseun "
        "lucinda ambrose henrietta dmitri ingeborg cedric philippa augustin rosemary "
        "barnaby millicent horace evangeline archibald yolanda leopold jacinta mortimer "
        "perpetua ezekiel rowena"
    ),
    last=_words(
        "mcallister brannigan adeyemi thistlewood kaczmarek fontaine-oyelowo galloway "
        "nwachukwu ellingsworth vandermeer quintanilla ashcombe babatunde rutherford "
        "szymanski hargreaves lindgren okwuosa petrakis fairweather montgomery haddad "
        "delgado-ruiz birchall cavanaugh strickland wojcik oduya pendleton carmichael"
    ),
    word_names=_words("joy april iris ivy pearl ruby violet holly hazel penny"),
    ages=("ninety one", "ninety three", "ninety six", "ninety nine", "one hundred and two"),
    templates=(
        ("spoken", "um yeah hi so my name is [[$f $l|PERSON]] and i'm a patient there", 4),
        ("spoken", "the name is [[$f $l|PERSON]] i have an appointment at two", 3),
        ("spoken", "good morning this is [[$f $l|PERSON]] returning your call", 4),
        ("spoken", "hey it's [[$f $l|PERSON]] again about the test results", 4),
        ("spoken", "hi it's [[$f $l|PERSON]] i'm [[$age|AGE_OVER_89]] and i live alone", 3),
        ("spoken", "my name is [[$w $l|PERSON]] i'm a new patient", 4),
        ("spoken", "my first name's [[$w|PERSON]] like the flower", 2),
        ("spoken", "it's [[$w $l|PERSON]] calling for my mother", 2),
        ("spoken", "my last name is [[$l|PERSON]] that's [[$sp|PERSON]]", 4),
        ("spoken", "surname [[$sp|PERSON]] first name [[$f|PERSON]]", 2),
        ("spoken", "my granddaughter [[$f|PERSON]] set up this app for me", 2),
        ("spoken", "i'm [[$f $l|PERSON]] the patient's daughter", 3),
        ("spoken", "i was talking with [[$f $l|PERSON]] from the pharmacy", 2),
        ("spoken", "it's ivy i think poison ivy on my legs", 1),
        ("spoken", "this is the pharmacy line right", 1),
        ("spoken", "hi it's about the prescription for my inhaler", 1),
        ("spoken", "it's my knees again they ache when it rains", 1),
        ("spoken", "i'm doing okay just tired from the chemo", 1),
        ("spoken", "the joy of getting old is all the pills", 1),
        ("spoken", "i take five milligrams of amlodipine every morning", 1),
        ("spoken", "my sugar was one forty this morning", 1),
        ("spoken", "i think it's crohn's acting up again", 1),
        ("spoken", "this is really hard for me to talk about", 1),
        ("spoken", "i'm worried about the huntington's test", 1),
        ("typed", "Ms. [[$F $L|PERSON]] called to reschedule.", 3),
        ("typed", "Message from [[$F $L|PERSON]]: please refill my inhaler.", 3),
        ("typed", "Per Dr. [[$F $L|PERSON]], increase lisinopril to 20 mg.", 3),
        ("typed", "[[$F $L|PERSON]] (DOB [[$dob|DATE]]) was seen for chest pain.", 3),
        ("typed", "Note: [[$F $L|PERSON]] prefers morning appointments.", 2),
        ("typed", "Called [[$F $L|PERSON]] back, no answer.", 3),
        ("typed", "[[$F $L|PERSON]] takes warfarin 5 mg daily.", 3),
        ("typed", "Hi [[$F|PERSON]], your lab results are ready.", 3),
        ("typed", "You're welcome, [[$F $L|PERSON]]! See you on Friday.", 2),
        ("typed", "Left voicemail for [[$F $L|PERSON]] at [[$phone|PHONE]].", 3),
        ("typed", "Referred to [[$F $L|PERSON]], MD, cardiology.", 2),
        ("typed", "Emergency contact: [[$F $L|PERSON]] (son), [[$phone|PHONE]]", 2),
        ("typed", "Record for [[$F $L|PERSON]], SSN [[$ssn|SSN]], reviewed.", 2),
        ("typed", "Hashimoto's thyroiditis, on Synthroid 75 mcg.", 1),
        ("typed", "Tourette syndrome since childhood.", 1),
        ("typed", "Crohn's flare last month; Humira restarted.", 1),
        ("typed", "Raynaud's phenomenon in both hands.", 1),
        ("typed", "Cushing syndrome was ruled out.", 1),
        ("typed", "Zoloft 50 mg daily and Flonase as needed.", 1),
        ("typed", "Started Ozempic 0.5 mg weekly.", 1),
        ("typed", "Stool culture negative for Salmonella and Listeria.", 1),
        ("typed", "Holter monitor for 48 hours, then Epley maneuver.", 1),
        ("typed", "Blue Cross denied the claim; appeal sent.", 1),
        ("typed", "Pick up the Benadryl at Walgreens.", 1),
        ("typed", "Ruby red rash on both arms since Tuesday.", 1),
        ("typed", "Joy and relief after the biopsy came back benign.", 1),
    ),
)

BLIND = Recipe(
    name="names_blind",
    seed=4242,
    header=(
        "# Name-focused blind PHI set, made after the name rules were written and scored\n"
        "# once (never tuned on). Made by make_name_sets.py from templates and name lists\n"
        "# used for neither names_tune nor names_heldout.\n"
    ),
    first=_words(
        "theodora benedict ottoline fitzgerald magdalena ignatius araminta florian "
        "hortense casimir esmeralda lazarus clementine octavia desiree gunnar "
        "anastasia wendell seraphina malachi temperance bertram marguerite emeric "
        "chidinma rasmus dagny tobias ludmila hamish"
    ),
    last=_words(
        "whitlock okoro mastroianni van-der-berg featherstone nakamura-lee brightwater "
        "kozlowski adebayo thorncroft esposito gallagher lindstrom achterberg rourke "
        "ferreira-lima blanchette obi kirkpatrick halvorsen mbeki devereaux spellman "
        "quigley ashworth novakova ibekwe castellanos whitcombe"
    ),
    word_names=_words("summer autumn sky destiny crystal amber jewel star sunny honey"),
    ages=("ninety", "ninety four", "ninety seven", "a hundred and one", "ninety nine"),
    templates=(
        ("spoken", "hi there um my name's [[$f $l|PERSON]] i'm ringing about my results", 4),
        ("spoken", "okay so this is [[$f $l|PERSON]] i had a missed call from you", 4),
        ("spoken", "yeah it's [[$f $l|PERSON]] here i'm [[$age|AGE_OVER_89]] next month", 3),
        ("spoken", "my name is [[$w $l|PERSON]] and my knee is worse", 3),
        ("spoken", "i go by [[$w|PERSON]] by the way", 2),
        ("spoken", "that's [[$l|PERSON]] [[$sp|PERSON]] with the dashes", 1),
        ("spoken", "you spell it [[$sp|PERSON]]", 3),
        ("spoken", "my nephew [[$f|PERSON]] will bring me in", 2),
        ("spoken", "i already told [[$f $l|PERSON]] about my allergy", 3),
        ("spoken", "is [[$f $l|PERSON]] still my doctor", 2),
        ("spoken", "the crystal clear fluid came out of my ear", 1),
        ("spoken", "sunny days make my arthritis better", 1),
        ("spoken", "this is the second time the inhaler failed", 1),
        ("spoken", "it's about my mom's dementia getting worse", 1),
        ("spoken", "i'm on three hundred milligrams of gabapentin", 1),
        ("typed", "Dear Dr. [[$L|PERSON]], thank you for seeing me.", 3),
        ("typed", "Mrs [[$F $L|PERSON]] prefers a female provider.", 3),
        ("typed", "Appointment booked for [[$F $L|PERSON]] with Dr. [[$L|PERSON]].", 3),
        ("typed", "[[$F $L|PERSON]] reports dizziness after the new dose.", 3),
        ("typed", "Forwarded to [[$F $L|PERSON]] for review.", 2),
        ("typed", "Best regards, [[$F $L|PERSON]]", 3),
        ("typed", "Patient: [[$F $L|PERSON]]; phone [[$phone|PHONE]]", 3),
        ("typed", "I'm [[$F $L|PERSON]], born [[$dob|DATE]].", 2),
        ("typed", "Sorry [[$F|PERSON]], the clinic is closed today.", 2),
        ("typed", "Caller [[$F $L|PERSON]] asked about the copay.", 2),
        ("typed", "Meniere's disease with tinnitus.", 1),
        ("typed", "Addison's disease on hydrocortisone.", 1),
        ("typed", "Lyme disease after the camping trip.", 1),
        ("typed", "Stevens-Johnson syndrome risk with lamotrigine.", 1),
        ("typed", "Wegovy 2.4 mg weekly, Jardiance 10 mg daily.", 1),
        ("typed", "Crystal clear urine, no blood.", 1),
        ("typed", "Summer camp form signed.", 1),
        ("typed", "Honey and lemon for the cough.", 1),
        ("typed", "Amber discharge from the wound.", 1),
    ),
)


def _spelled(surname: str) -> str:
    return " ".join(c for c in surname if c.isalpha())


def _phone(rng: random.Random) -> str:
    area = rng.choice(("212", "404", "617", "312", "503", "713", "919"))
    return f"{area}-555-{rng.randint(100, 9999):04d}"


def _ssn(rng: random.Random) -> str:
    return f"{rng.randint(100, 665):03d}-{rng.randint(10, 99):02d}-{rng.randint(1000, 9999):04d}"


def _dob(rng: random.Random) -> str:
    return f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(1926, 1990)}"


def _cap(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-"))


def make(recipe: Recipe) -> list[str]:
    """The set's lines (``lang<TAB>style<TAB>marked text``)."""
    rng = random.Random(recipe.seed)
    lines: list[str] = []
    for style, template, count in recipe.templates:
        for _ in range(count):
            first = rng.choice(recipe.first)
            last = rng.choice(recipe.last)
            word = rng.choice(recipe.word_names)
            text = Template(template).substitute(
                f=first,
                l=last,
                w=word,
                F=_cap(first),
                L=_cap(last),
                W=_cap(word),
                U=last.upper(),
                sp=_spelled(last),
                age=rng.choice(recipe.ages),
                phone=_phone(rng),
                ssn=_ssn(rng),
                dob=_dob(rng),
            )
            line = f"en\t{style}\t{text.replace('[[', '{{').replace(']]', '}}')}"
            if line not in lines:
                lines.append(line)
    return lines


def main() -> None:
    """Write both sets next to this file."""
    recipes = (TUNE, HELDOUT, BLIND)
    for i, a in enumerate(recipes):
        for b in recipes[i + 1 :]:
            assert not set(a.first) & set(b.first)
            assert not set(a.last) & set(b.last)
            assert not set(a.word_names) & set(b.word_names)
            assert not {t for _, t, _ in a.templates} & {t for _, t, _ in b.templates}
    header = "# Format: lang<TAB>style<TAB>text, with PHI marked as {{value|TYPE}}.\n"
    for recipe in recipes:
        lines = make(recipe)
        (HERE / f"{recipe.name}.txt").write_text(
            recipe.header + header + "\n".join(lines) + "\n", "utf-8"
        )
        print(f"{recipe.name}.txt: {len(lines)} cases")


if __name__ == "__main__":
    main()
