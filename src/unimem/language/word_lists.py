"""The word lists of language detection as written (plain text and tables):
function words and telling letters of each Latin-script language,
interjections, Urdu and Arabic words, Chinese markers, romanized Hindustani,
name particles, dose words, neutral words and drug names. :mod:`.lexicon`
turns them into sets on first use."""

from __future__ import annotations

__all__ = [
    "ARABIC_WORDS",
    "DOSE_WORDS",
    "DRUGS",
    "EVIDENCE",
    "INTERJECTIONS",
    "LETTERS",
    "NAME_PARTICLES",
    "NEUTRAL",
    "ROMAN_HINDUSTANI",
    "URDU_WORDS",
    "ZH_MARKERS",
]


# Function words and very common verbs/nouns, one string per language.
EVIDENCE = {
    "en": """
        one two three four five six seven eight nine ten times once twice
        i me my mine you your he him his she her it its we us our they them their
        a an the this that these those is am are was were be been being have has had
        do does did don't doesn't didn't can can't cannot could would should will won't
        shall may might must not and or but if because so than then when where what
        who whom whose why how which there here of to in on at for from with without
        about into over under after before since until again also just only very too
        much many more most some any all no every other such own same feel feeling
        felt take taking took get got getting go going went need want know think
        tell told said say make made give see seen come came pain hurts hurt since
        day days week weeks night morning today yesterday tomorrow doctor medicine
        pill pills dose blood pressure sugar head stomach chest sleep still yet it's
        i'm i've i'll can't isn't aren't wasn't my having been having help please
        appointment prescription refill side effects dizzy tired worse better
        """,
    "es": """
        uno dos tres cuatro cinco seis siete ocho nueve diez vez veces
        el la los las un una unos unas lo de del al a en con sin por para sobre entre
        y o pero si porque que qué quien quién como cómo cuando cuándo donde dónde
        cuál cual cuánto cuanto cuántas yo tú usted él ella nosotros ellos ellas me te
        se nos le les mi mis tu tus su sus es son está están estoy estás estamos era
        fue ser estar hay había tengo tiene tienes tenemos tienen tenía he ha han has
        hace hacer puedo puede pueden quiero quiere necesito necesita debo debe voy va
        vamos muy más menos mucho mucha muchos poco ya también todavía aún siempre
        nunca hoy ayer mañana noche día días semana semanas desde hasta después antes
        ahora dolor duele cabeza estómago pecho médico medicina pastilla pastillas
        dosis presión azúcar sangre me siento siento mejor peor mareado mareada
        cansado cansada cita receta tomar tomo toma esta este esto eso ese esa otra
        otro cada todo todos nada algo alguien dormir fiebre tos
        """,
    "fr": """
        deux trois quatre cinq six sept huit neuf dix fois
        le la les un une des du de d' l' au aux à en dans sur sous avec sans pour par
        et ou mais si parce que qu' qui quoi quand comment où pourquoi combien quel
        quelle je j' tu il elle on nous vous ils elles me m' te t' se s' lui leur mon
        ma mes ton ta tes son sa ses notre votre nos vos est sont suis es êtes sommes
        était été être ai as a avons avez ont avais avait fait faire peux peut
        pouvez veux veut voudrais dois doit vais va allez ne pas plus très trop
        beaucoup peu encore aussi déjà toujours jamais aujourd'hui hier demain nuit
        jour jours semaine semaines depuis après avant maintenant mal douleur tête
        ventre poitrine médecin médicament médicaments comprimé comprimés dose
        tension sang sucre sens fatigué fatiguée mieux pire rendez-vous ordonnance
        prendre prends prend ce cet cette ces ça cela tout tous rien quelque dormir
        fièvre toux c'est j'ai n'est qu'il
        """,
    "de": """
        eins zwei drei vier fünf sechs sieben acht neun zehn mal einmal zweimal
        der die das den dem des ein eine einen einem einer eines und oder aber wenn
        weil dass ob als wie was wer wo wann warum welche welcher ich du er sie es
        wir ihr mich mir dich dir uns euch ihm ihn ihnen mein meine meinen meinem
        dein deine sein seine ihre unser bin bist ist sind seid war waren gewesen
        habe hast hat haben hatte hatten kann kannst können könnte muss müssen soll
        sollte will möchte darf nicht kein keine keinen auch noch schon nur sehr zu
        zum zur mit ohne für von vom bei nach vor seit bis in im an am auf aus über
        unter heute gestern morgen nacht tag tage woche wochen jetzt immer nie oft
        viel mehr weniger schmerzen schmerz kopf bauch brust arzt ärztin medikament
        medikamente tablette tabletten dosis blutdruck zucker blut fühle mich müde
        schwindelig besser schlechter termin rezept nehmen nehme nimmt schlafen
        fieber husten gibt geht wird werden diese dieser dieses alles etwas nichts
        """,
    "it": """
        uno due tre quattro cinque sei sette otto nove dieci volta volte
        il lo la i gli le un uno una un' di del della dei delle degli da dal dalla in
        nel nella con su sul sulla per tra fra e ed o ma se perché che chi cosa come
        quando dove quale quanto quanti io tu lui lei noi voi loro mi ti si ci vi gli
        mio mia miei mie tuo tua suo sua nostro vostro sono sei è siamo siete era
        stato stata essere ho hai ha abbiamo avete hanno avevo aveva fatto fare posso
        può possiamo voglio vorrei devo deve vado va non più molto molta troppo poco
        ancora anche già sempre mai oggi ieri domani notte giorno giorni settimana
        settimane dopo prima adesso ora male dolore testa pancia stomaco petto
        medico medicina farmaco farmaci pastiglia pastiglie compressa compresse dose
        pressione zucchero sangue sento stanco stanca meglio peggio appuntamento
        ricetta prendere prendo prende questo questa quello quella tutto niente
        qualcosa dormire febbre tosse c'è sto sta stanno
        """,
    "pt": """
        dois duas três quatro cinco seis sete oito nove dez vez vezes
        o a os as um uma uns umas de do da dos das em no na nos nas com sem por pelo
        pela para sobre entre e ou mas se porque que quem como quando onde qual
        quanto quantos eu tu você ele ela nós vocês eles elas me te se lhe nos meu
        minha meus minhas seu sua seus suas é são está estão estou estava era foi ser
        estar há tenho tem temos têm tinha fiz faz fazer posso pode podem quero
        queria preciso precisa devo deve vou vai vamos não muito muita mais menos
        pouco já também ainda sempre nunca hoje ontem amanhã noite dia dias semana
        semanas desde até depois antes agora dor dói cabeça barriga estômago peito
        médico médica remédio remédios comprimido comprimidos dose pressão açúcar
        sangue sinto cansado cansada melhor pior tonto tonta consulta receita tomar
        tomo toma este esta isto isso esse essa outro outra cada tudo nada algo
        dormir febre tosse tô tá
        """,
    "tr": """
        bir iki üç dört beş altı yedi sekiz dokuz on kere kez defa biraz
        ve veya ama fakat çünkü ki da de mi mı mu mü bu şu o bir ben sen biz siz
        onlar beni bana benim seni sana senin onu ona onun bizim sizin ne neden niçin
        nasıl nerede ne zaman hangi kim kaç var yok değil için ile gibi kadar sonra
        önce şimdi bugün dün yarın gece gün günler hafta haftadır hafta çok az daha
        en hep hiç hala hâlâ artık sadece ağrı ağrıyor ağrım başım başı karnım
        göğsüm doktor doktora ilaç ilacı ilaçlar ilacımı hap doz tansiyon şeker kan
        uyuyamıyorum uyku ateş öksürük hissediyorum yorgun başım dönüyor iyi kötü
        randevu reçete alıyorum alıyor aldım alabilir miyim musunuz mısınız
        istiyorum lazım gerek oldu olur olmuyor yapabilir ediyor ediyorum geçti
        kendimi sabah akşam her
        """,
}


# Letters that only one of the Latin-script languages uses (¿ and ¡ too).
LETTERS = {
    "tr": "ığşİ",
    "de": "ßä",
    "pt": "ãõ",
    "es": "ñ¿¡",
    "fr": "œùûëïî",
    "it": "ìò",
}


# Interjections, greetings, thanks and fillers: they carry no language.
INTERJECTIONS = """
    ok okay okey okeh k yes yeah yep yup ya no nope nah hmm hm hmmm mm mmm mhm
    uh uhm um umm er erm ah aha ahh oh ooh huh wow hi hello hey bye goodbye
    thanks thx ty please pls sorry sure alright right fine cool great good
    perfect wait well oops thank_you thank_you_very_much good_morning good_night
    all_right got_it i_see see_you oh_ok ok_thanks okay_thanks bye_bye
    thank_you_so_much thanks_so_much thanks_a_lot many_thanks no_problem of_course
    sounds_good that's_fine that's_great see_you_later have_a_nice_day you_too
    you're_welcome
    muchísimas_gracias muy_amable con_gusto merci_bien à_bientôt bonne_journée
    de_rien avec_plaisir vielen_dank bis_dann gern_geschehen schönen_tag
    molto_gentile a_presto di_niente até_logo çok_teşekkürler rica_ederim
    görüşürüz kolay_gelsin
    sí si vale bueno claro gracias muchas_gracias de_nada hola adiós adios perdón
    perdon disculpe eh pues ajá aja oye ya por_favor buenos_días buenos_dias
    buenas buenas_tardes buenas_noches listo exacto venga hasta_luego
    oui ouais non merci merci_beaucoup d'accord daccord bon bah ben euh hein
    bonjour bonsoir salut au_revoir voilà voila s'il_vous_plaît s'il_te_plaît
    super parfait bien très_bien ok_merci
    ja jein nein nee danke danke_schön danke_sehr bitte genau gut ach äh ähm
    hallo tschüss servus naja na_ja stimmt klar alles_klar guten_morgen guten_tag
    sì grazie grazie_mille prego va_bene ciao buongiorno buonasera allora beh boh
    ecco certo perfetto salve ehm mah dai d'accordo
    sim não nao obrigado obrigada muito_obrigado muito_obrigada valeu tá ta bom
    tá_bom ta_bom beleza olá ola oi tchau né então pois certo bom_dia boa_tarde
    boa_noite
    evet hayır hayir tamam teşekkürler teşekkür_ederim teşekkür_ederiz sağol
    sağ_ol merhaba peki hı hıhı efendim tabii tabi olur güle_güle
    نعم لا شكرا شكراً حسنا حسناً طيب أهلا اهلا مرحبا آه اه ايوه أيوه تمام
    السلام_عليكم مع_السلامة يعني ماشي
    جی ہاں جی_ہاں ہاں_جی نہیں شکریہ ٹھیک ٹھیک_ہے اچھا السلام_علیکم خدا_حافظ ہمم
    हाँ हां नहीं धन्यवाद शुक्रिया ठीक ठीक_है अच्छा जी नमस्ते हम्म अरे जी_हाँ
    好 好的 嗯 是 是的 对 对的 谢谢 谢谢你 不 不是 哦 啊 你好 再见 行 可以 没事 嗯嗯 好吧 没问题
    はい いいえ うん ええ ありがとう ありがとうございます どうも すみません こんにちは
    さようなら そう そうですね なるほど えっと あの はあ 了解 わかりました
    네 예 아니요 아니 응 감사합니다 고마워요 고맙습니다 안녕하세요 안녕 네네 음 아
    그래요 좋아요 알겠습니다
    да нет спасибо спасибо_большое хорошо ладно ок ну угу ага привет
    здравствуйте пока понятно ясно конечно
"""


# Function words of Urdu and of Arabic, to tell the two apart.
URDU_WORDS = "ہے ہیں میں کا کی کے نہیں ہوں مجھے آپ اور یہ وہ کو سے تھا تھی کیا"


ARABIC_WORDS = "في من على إلى عن هذا هذه أنا أن ما هل عندي لدي كان منذ مع"


# Chinese characters Japanese does not write (function characters and
# simplified forms): a short Han-only text is Chinese only if it has one, as
# "頭痛" or "発熱" may be Japanese written without kana.
ZH_MARKERS = (
    "的了吗呢吧我你他她们这那很没也都就要想能疼头药发烧么说会时过还对应该检结压饭觉现"
    "请问让开给听见东车长门间题为难经样点从体晕疗务儿妈爷奶喂几哪里吃"
)


# Hindi/Urdu written in Latin letters: not one of the 14 as such (and Hindi and
# Urdu cannot be told apart in it), so a text led by these words gets no
# language rather than a wrong one ("mein" would otherwise count as German).
ROMAN_HINDUSTANI = """
    hai hain mujhe mera meri mere kya nahi nahin aap ke ki ka ko se mein main
    hoon hun raha rahi rahe tha thi bahut kar karna karo theek thik acha accha
    kaise kyun kab kahan yeh woh abhi phir dard dawai dawa bukhar
"""


# Particles inside person names ("Juan de la Cruz", "Ludwig van Beethoven").
NAME_PARTICLES = "de del della di da dos das van von der den la le el al bin ibn y e"


# Spelled-out numbers, units and frequencies: a turn made only of these is a
# dose ("five hundred milligrams", "dos veces"), whatever language it is in.
DOSE_WORDS = """
    zero one two three four five six seven eight nine ten eleven twelve fifteen
    twenty thirty forty fifty hundred thousand half quarter point times once twice
    daily milligram milligrams microgram micrograms gram grams units unit puffs drops
    cero uno una dos tres cuatro cinco seis siete ocho nueve diez doce quince veinte
    treinta cuarenta cincuenta cien ciento quinientos mil medio media vez veces
    miligramo miligramos microgramos gramos unidades gotas
    zéro un une deux trois quatre cinq six sept huit neuf dix douze quinze vingt
    trente quarante cinquante cent mille demi fois milligramme milligrammes
    gramme grammes unités gouttes
    null eins zwei drei vier fünf sechs sieben acht neun zehn zwölf fünfzehn zwanzig
    dreißig vierzig fünfzig hundert tausend halb halbe mal einmal zweimal milligramm
    gramm einheiten tropfen
    due tre quattro cinque sei sette otto nove dieci dodici quindici venti trenta
    quaranta cinquanta cento mille mezzo mezza volta volte milligrammi grammi unità
    gocce
    dois duas três quatro oito nove dez doze quinze vinte trinta quarenta cinquenta
    cem quinhentos meio meia vezes miligramas gramas gotas
    sıfır bir iki üç dört beş altı yedi sekiz dokuz on yirmi otuz kırk elli yüz bin
    yarım kere kez defa miligram gram ünite damla
    tablet tablets pill pills capsule capsules pastilla pastillas comprimido
    comprimidos cápsula cápsulas comprimé comprimés gélule gélules tablette
    tabletten kapsel kapseln compressa compresse pastiglia pastiglie capsula
    tabletler hap kapsül
"""


# Titles and units: neutral in every language.
NEUTRAL = """
    dr dr. doctor doktor docteur doctora dott dott. prof mr mrs ms mme mlle sr sra
    herr frau señor señora sig sig.ra bay bayan
    mg mcg µg ug ml l g kg mmhg mmol mg/dl dl iu ui cc mm cm bpm °c °f x
"""


# Generic and brand names seen in outpatient conversations. Suffix rules in
# detect.py catch most others (-pril, -sartan, -olol, ...).
DRUGS = """
    acetaminophen paracetamol ibuprofen aspirin naproxen diclofenac metamizol
    dipyrone tramadol codeine morphine oxycodone hydrocodone fentanyl
    metformin insulin glargine lispro aspart glipizide glyburide gliclazide
    glimepiride sitagliptin empagliflozin dapagliflozin liraglutide semaglutide
    ozempic januvia jardiance lantus humalog novorapid
    amlodipine nifedipine lisinopril enalapril ramipril losartan valsartan
    candesartan irbesartan telmisartan olmesartan hydrochlorothiazide
    chlorthalidone furosemide torsemide spironolactone metoprolol atenolol
    bisoprolol carvedilol propranolol nebivolol diltiazem verapamil clonidine
    hydralazine atorvastatin simvastatin rosuvastatin pravastatin lovastatin
    ezetimibe lipitor crestor zocor warfarin coumadin apixaban eliquis
    rivaroxaban xarelto dabigatran clopidogrel plavix heparin enoxaparin
    digoxin amiodarone nitroglycerin levothyroxine synthroid euthyrox
    omeprazole esomeprazole pantoprazole lansoprazole famotidine ranitidine
    nexium prilosec ondansetron metoclopramide loperamide
    amoxicillin augmentin azithromycin clarithromycin doxycycline ciprofloxacin
    levofloxacin cephalexin ceftriaxone clindamycin metronidazole nitrofurantoin
    penicillin fluconazole acyclovir valacyclovir oseltamivir tamiflu
    prednisone prednisolone methylprednisolone dexamethasone hydrocortisone
    albuterol salbutamol ventolin fluticasone budesonide montelukast
    cetirizine loratadine fexofenadine diphenhydramine zyrtec claritin
    sertraline fluoxetine escitalopram citalopram paroxetine venlafaxine
    duloxetine bupropion mirtazapine trazodone amitriptyline zoloft prozac
    lexapro alprazolam lorazepam diazepam clonazepam xanax valium zolpidem
    quetiapine olanzapine risperidone aripiprazole lithium lamotrigine
    levetiracetam gabapentin pregabalin lyrica carbamazepine valproate
    phenytoin topiramate sumatriptan donepezil memantine levodopa carbidopa
    allopurinol colchicine methotrexate hydroxychloroquine adalimumab humira
    tamsulosin finasteride sildenafil tadalafil viagra cialis
    alendronate calcium vitamin d3 b12 folic ferrous iron potassium magnesium
    tylenol advil motrin panadol nurofen aleve benadryl
"""
