"""A seeded multilingual text generator for the real-tokenizer tests: sentences in 20
languages and scripts, recombined from the words of the sentences below (written for
these tests), with the things tokenizers and their normalisers treat specially mixed in:
numbers with decimal points in Latin, Persian and Arabic-Indic digits, emoji (skin
tones, ZWJ sequences, flags, keycaps), ligatures, full-width and other compatibility
characters NFKC rewrites, decomposed accents, capitals for the lowercasing tokenizers,
tabs, no-break and ideographic spaces, runs of spaces and newlines.

``documents(seed, count, held_out=...)``: the training documents and the held-out ones
differ in seed, and the held-out ones also draw on words and characters the training
text never has, so that tokenizers meet unknown characters and byte fallback.
"""

from __future__ import annotations

import random

SENTENCES = {
    "en": ["The committee approved the new budget after a long debate on Tuesday.",
           "Scientists observed that the river had changed its course since 1850.",
           "She wrote three novels before moving to a small village near the coast.",
           "Most of the early computers filled an entire room and used vacuum tubes.",
           "Honey never spoils if it is stored in a sealed jar away from moisture."],
    "de": ["Der Zug nach München fährt heute wegen Bauarbeiten später ab.",
           "Die Großmutter erzählte den Kindern Märchen über Drachen und Zwerge.",
           "Im Frühling blühen in den Gärten überall Tulpen und Narzissen.",
           "Straßenbahnen gehören in vielen Städten zum öffentlichen Verkehr."],
    "fr": ["Le musée a ouvert une exposition consacrée aux peintres impressionnistes.",
           "Après la pluie, les enfants ont joué dans le jardin jusqu'au soir.",
           "La cathédrale a été construite au XIIᵉ siècle par des artisans locaux.",
           "Ça coûte cher, mais l'œuvre est magnifique et très célèbre."],
    "es": ["El río Ebro atraviesa varias comunidades antes de llegar al mar.",
           "¿Sabías que el pingüino emperador puede bucear a gran profundidad?",
           "La señora compró pan, aceite y naranjas en el mercado del barrio.",
           "¡Qué sorpresa! Nadie esperaba que el equipo ganara el campeonato."],
    "it": ["La città di Firenze è famosa per i suoi musei e le sue chiese.",
           "Perché non sei venuto alla festa di compleanno di Giulia?",
           "Il gelato artigianale si prepara con latte fresco e zucchero."],
    "ca": ["La Sagrada Família és un temple dissenyat per Antoni Gaudí.",
           "Els castellers aixequen torres humanes durant les festes majors.",
           "L'any passat vam visitar el monestir de Montserrat amb la família."],
    "cs": ["Řeka Vltava teče přes Prahu a vlévá se do Labe u Mělníka.",
           "Dobrý den, jak se máte? Čeština má háčky a čárky nad písmeny.",
           "Příliš žluťoučký kůň úpěl ďábelské ódy."],
    "fi": ["Suomessa on tuhansia järviä ja laajoja havumetsiä.",
           "Talvella päivät ovat lyhyitä ja yöt pitkiä pohjoisessa.",
           "Hän joi kupin kahvia ja luki sanomalehden aamulla."],
    "sv": ["Stockholm är byggd på fjorton öar där Mälaren möter Östersjön.",
           "På midsommarafton dansar man kring midsommarstången.",
           "Älgen är Sveriges största landlevande däggdjur."],
    "eu": ["Euskara Europako hizkuntzarik zaharrenetako bat da.",
           "Donostiako hondartzan jende asko ibiltzen da udan.",
           "Gaur goizean mendira joan gara lagunekin."],
    "tr": ["İstanbul, Avrupa ile Asya arasında yer alan büyük bir şehirdir.",
           "Çocuklar bahçede top oynarken yağmur yağmaya başladı.",
           "Işık hızı saniyede yaklaşık üç yüz bin kilometredir."],
    "vi": ["Hà Nội là thủ đô của nước Cộng hòa Xã hội chủ nghĩa Việt Nam.",
           "Phở bò là món ăn truyền thống được nhiều người yêu thích.",
           "Tiếng Việt có sáu thanh điệu khác nhau."],
    "el": ["Η Αθήνα είναι η πρωτεύουσα της Ελλάδας και έχει μακρά ιστορία.",
           "ΟΔΟΣ ΑΡΙΣΤΟΤΕΛΟΥΣ: ο δρόμος οδηγεί στη θάλασσα.",
           "Οι φιλόσοφοι συζητούσαν στην αγορά για την αλήθεια."],
    "ru": ["Москва является столицей России и крупнейшим городом страны.",
           "Зимой в Сибири температура опускается ниже сорока градусов.",
           "Ёжик в тумане — известный мультфильм Юрия Норштейна."],
    "ar": ["القاهرة هي عاصمة جمهورية مصر العربية وأكبر مدنها.",
           "في عام ١٩٤٨ تأسست دولة جديدة في الشرق الأوسط.",
           "يحب الأطفال قراءة القصص قبل النوم كل ليلة."],
    "fa": ["تهران پایتخت ایران و بزرگ‌ترین شهر این کشور است.",
           "میانگین سن شرکت‌کنندگان ۲۸.۵ سال بوده است.",
           "شاعران بزرگی مانند حافظ و سعدی در شیراز زندگی می‌کردند."],
    "hi": ["हिन्दी भारत की सबसे अधिक बोली जाने वाली भाषा है।",
           "गंगा नदी हिमालय से निकलकर बंगाल की खाड़ी में गिरती है।",
           "क्षत्रिय और ज्ञान जैसे शब्दों में संयुक्त अक्षर होते हैं।"],
    "zh": ["北京是中国的首都，也是一座历史悠久的城市。",
           "长江是亚洲最长的河流，全长约六千三百公里。",
           "他每天早上六点起床，然后去公园跑步。"],
    "ja": ["今日はいい天気ですね。散歩に行きましょう。",
           "東京タワーは一九五八年に完成しました。",
           "ラーメンを食べたいけれど、お店はもう閉まっています。"],
    "ko": ["서울은 대한민국의 수도이며 가장 큰 도시입니다.",
           "한글은 세종대왕이 만든 글자입니다.",
           "오늘 저녁에 친구들과 영화를 볼 거예요."],
}

# Words and characters only the held-out text has.
HELD_OUT_WORDS = {
    "en": ["lighthouse", "quarrelsome", "Zanzibar", "marmalade"],
    "de": ["Quittengelee", "Schwarzwälder", "Föhnsturm"],
    "fr": ["bouquinistes", "Strasbourgeois", "éphémère"],
    "es": ["alcornoque", "Guadalquivir", "zarzuela"],
    "cs": ["zmrzlina", "Třeboň", "čtvrtek"],
    "fi": ["revontulet", "Äänekoski", "höyrylaiva"],
    "el": ["ΨΥΧΗ", "ξωτικό", "ωκεανός"],
    "ru": ["Щёлково", "подъезд", "ЭЛЕКТРИЧКА"],
    "ar": ["الإسكندرية", "مكتبة", "ذُرة"],
    "fa": ["اصفهان", "گُل", "پژوهش"],
    "hi": ["ऋषिकेश", "त्रिपुरा", "ध्वनि"],
    "zh": ["鳗鱼", "龘", "饕餮"],
    "ja": ["鰻重", "ヴァイオリン", "ぢ"],
    "ko": ["꿻", "뷁", "똠방각하"],
}
HELD_OUT_CHARS = ["🦩", "🪐", "🧑🏿‍🚀", "🇳🇵", "⌘", "∮", "🜁", "ꙮ", "𓀀", "𝔘𝔫𝔦"]

NUMBERS = ["28.5", "1.5", "3,14", "1 250", "۲۸.۵", "۱۴۰۲", "١٩٤٨", "٣.٧", "२०२४",
           "42%", "$5.99", "12:30", "2024-05-01", "०.५"]
EMOJI = ["😀", "😀😃😄😁", "👍🏽", "👩🏽‍💻", "🏳️‍🌈", "🇩🇪", "🇯🇵 🇨🇿", "1️⃣", "❤️",
         "✅", "🎉!", "👨‍👩‍👧‍👦"]
# NFKC rewrites these (ligatures, full-width forms, superscripts, compatibility signs).
COMPAT = ["ﬁnal", "ﬂour", "oﬀice", "ＡＢＣ", "１２３", "x²", "Ⅻ", "㎞", "①", "Å",
          "ｶﾀｶﾅ", "ſ", "…", "™"]
DECOMPOSED = ["cafe\u0301", "nai\u0308ve", "Tie\u0302\u0301ng", "man\u0303ana"]
SPACES = [" "] * 30 + ["  ", "\n", "\n\n", "\t", "\u00a0", " \n", "\u3000", "   "]


def _sentence(rng: random.Random, lang: str, held_out: bool) -> str:
    if rng.random() < 0.3:
        return rng.choice(SENTENCES[lang])
    words = [w for s in SENTENCES[lang] for w in s.split()]
    if held_out and lang in HELD_OUT_WORDS:
        words += HELD_OUT_WORDS[lang] * 3
    out = [rng.choice(words) for _ in range(rng.randint(3, 14))]
    for i in range(len(out)):
        roll = rng.random()
        if roll < 0.03:
            out[i] = rng.choice(NUMBERS)
        elif roll < 0.05:
            out[i] = rng.choice(EMOJI)
        elif roll < 0.065:
            out[i] = rng.choice(COMPAT)
        elif roll < 0.075:
            out[i] = rng.choice(DECOMPOSED)
        elif roll < 0.085:
            out[i] = out[i].upper()
        elif held_out and roll < 0.095:
            out[i] = rng.choice(HELD_OUT_CHARS)
    if lang not in ("zh", "ja"):
        text = out[0]
        for w in out[1:]:
            text += rng.choice(SPACES) + w
    else:
        text = "".join(out)
    return text[0].upper() + text[1:] if rng.random() < 0.7 else text


def documents(seed: int, count: int, *, held_out: bool = False) -> list[str]:
    """``count`` documents of 1-6 sentences, each mostly in one language."""
    rng = random.Random(seed)
    langs = sorted(SENTENCES)
    docs = []
    for _ in range(count):
        lang = rng.choice(langs)
        parts = []
        for _ in range(rng.randint(1, 6)):
            use = lang if rng.random() < 0.85 else rng.choice(langs)
            parts.append(_sentence(rng, use, held_out))
        text = parts[0]
        for p in parts[1:]:
            text += rng.choice([" ", " ", "\n", "\n\n", "  "]) + p
        docs.append(text)
    return docs
