"""Legacy-encoded text files decode to the characters the writer typed.

Citations quote the stored text, so a file in Latin-1 read as cp1257 ("Noėl ą Paris") is
both misquoted and unsearchable. Each case is real writing in the language the code page
was made for, as a one-line file and as a few lines.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from citewise.knowledge.loaders._charsets import _SAMPLE_BYTES, _sample
from citewise.knowledge.loaders.text import TextLoader, decode_text

WESTERN = {
    "fr": "Noël à Paris: crème brûlée, pâté et café au lait. Le garçon a déjà mangé.\n",
    "fr-long": (
        "Le château se dresse au-dessus de la vallée.\n"
        "Après le déjeuner, nous irons à la boulangerie acheter des pâtisseries.\n"
        "Ça coûte cher, mais c'est délicieux. Où est la gare?\n"
    ),
    "it": "Però il caffè è già pronto, perché la città è piccola.\n",
    "it-word": "Però.\n",
    "de": "Grüße aus Köln. Die Straße ist schön, aber übermäßig laut.\n",
    "de-short": "Schöne Grüße\n",
    "de-long": (
        "Sehr geehrte Damen und Herren,\n"
        "wir möchten Sie über die Änderungen unserer Geschäftsbedingungen informieren.\n"
        "Herr Müller traf François und Peña in München.\nMit freundlichen Grüßen\n"
    ),
    "es": "El niño comió jamón en la montaña. ¿Dónde está el señor? ¡Qué año!\n",
    "pt": "A informação está disponível em português. Não há ações pendentes; coração.\n",
    "nl": "De coördinatie van het café was een ideëel succes, zei de reünie.\n",
    "nl-short": "Café één\n",
    "da": "Blåbærgrød og rødgrød med fløde. Søen er smuk på Ærø.\n",
    "sv": "Räksmörgås är gott. Ölet på färjan var för kallt.\n",
    "sv-short": "Hej, hur mår du?\n",
    "no": "Vi bor i Tromsø og går på skøyter på isen.\n",
    "is": "Þetta er íslenska. Ég heiti Þórður og bý á Akureyri.\n",
    "fi": "Hyvää päivää, mitä kuuluu? Kävimme järvellä.\n",
    "ca": "La col·lecció d'en Joan és molt bonica; però l'àvia té raó.\n",
    "en": ("The quarterly report was delivered on time. " * 40) + "Our naïve résumé parser failed.\n",
    "word": "Élève\n",
}


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
@pytest.mark.parametrize("name", sorted(WESTERN))
def test_western_european_text_decodes_as_cp1252(tmp_path: Path, name: str, encoding: str) -> None:
    original = WESTERN[name]
    doc = TextLoader().load(tmp_path / f"{name}.txt", original.encode(encoding))
    assert doc.text == original
    assert doc.metadata["encoding"] == "cp1252"


def test_the_reported_file_is_searchable_at_exact_offsets(tmp_path: Path) -> None:
    original = WESTERN["fr"]
    path = tmp_path / "fr.txt"
    path.write_bytes(original.encode("latin-1"))
    text = TextLoader().load(path, path.read_bytes()).text
    at = text.index("crème")
    assert text[at : at + len("crème brûlée")] == "crème brûlée"


def test_cp1252_punctuation_survives(tmp_path: Path) -> None:
    original = "L’été dernier, j’ai visité l’Œuvre — c’était « magnifique » … 50 €.\n"
    text, encoding = decode_text(tmp_path / "q.txt", original.encode("cp1252"))
    assert (text, encoding) == (original, "cp1252")


OTHER = [
    ("Zażółć gęślą jaźń\n", "cp1250"),
    ("Příliš žluťoučký kůň úpěl ďábelské ódy\n", "cp1250"),
    ("Dobrý den, jak se máte? Děkuji.\n", "cp1250"),
    ("Łódź, Gdańsk i Kraków\n", "cp1250"),
    (
        "W Szczebrzeszynie chrząszcz brzmi w trzcinie i Szczebrzeszyn z tego słynie.\n"
        "Książka leżała na półce obok żółtego kubka. Dziękuję bardzo za pomoc.\n",
        "cp1250",
    ),
    (
        "Praha je hlavní město České republiky. Řeka Vltava protéká středem města.\n"
        "Včera jsme byli v divadle a dnes půjdeme do muzea. Děkuji za pozvání.\n",
        "cp1250",
    ),
    ("Kŕdeľ šťastných ďatľov učí pri ústí Váhu mĺkveho koňa obhrýzať kôru.\n", "cp1250"),
    ("Árvíztűrő tükörfúrógép. A győri úton időben érkeztünk.\n", "cp1250"),
    ("Gojazni đačić s biciklom drži hmelj i finu vatu u džepu nošnje.\n", "cp1250"),
    ("Съешь же ещё этих мягких французских булок, да выпей чаю.\n", "cp1251"),
    ("Привет, мир!\n", "cp1251"),
    ("Чуєш їх, доцю, га? Кумедна ж ти, прощайся без ґольфів!\n", "cp1251"),
    ("Съешь же ещё этих мягких французских булок, да выпей чаю.\n", "koi8-r"),
    ("Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.\n", "cp1253"),
    ("Καλημέρα κόσμε\n", "cp1253"),
    ("Türkçe metin: İstanbul'da güzel bir gün. Şişli'de çay içtik.\n", "cp1254"),
    ("Günaydın, nasılsınız?\n", "cp1254"),
    (
        "עברית היא שפה שמית. ירושלים היא עיר הבירה של ישראל, ותל אביב היא עיר גדולה.\n",
        "cp1255",
    ),
    ("مرحبا بالعالم، هذه جملة باللغة العربية للاختبار.\n", "cp1256"),
    ("Įlinkdama fechtuotojo špaga sublykčiojusi pragręžė apvalų arbūzą.\n", "cp1257"),
    ("Glāžšķūņa rūķīši dzērumā čiepj Baha koncertflīģeļu vākus.\n", "cp1257"),
    ("日本語のテキストです。東京は晴れています。\n", "cp932"),
    ("今日は良い天気ですね。明日も晴れるでしょう。\n", "shift_jis"),
    ("这是一个中文句子。北京今天天气很好。\n", "gb18030"),
    ("我们明天去上海参观博物馆。\n", "gbk"),
]


@pytest.mark.parametrize(("original", "encoding"), OTHER, ids=[f"{e}-{i}" for i, (_, e) in enumerate(OTHER)])
def test_other_legacy_encodings_still_decode(tmp_path: Path, original: str, encoding: str) -> None:
    text, found = decode_text(tmp_path / "x.txt", original.encode(encoding))
    assert text == original
    # Aliases of one code page, or a superset that decodes these bytes alike.
    assert codecs.lookup(found).name in {
        codecs.lookup(encoding).name, "cp932", "gb18030", "iso8859-2", "iso8859-7",
    }


@pytest.mark.parametrize(
    "data",
    [
        "Grüße, Привет, 日本 😀\n".encode(),
        codecs.BOM_UTF8 + "Grüße, Привет\r\n".encode(),
        "Grüße, Привет, 日本 😀\n".encode("utf-16"),
        codecs.BOM_UTF16_BE + "Grüße, Привет\n".encode("utf-16-be"),
    ],
    ids=["utf-8", "utf-8-bom", "utf-16", "utf-16-be"],
)
def test_unicode_files_are_not_guessed(tmp_path: Path, data: bytes) -> None:
    text, encoding = decode_text(tmp_path / "u.txt", data)
    assert text.startswith("Grüße, Привет") and not text.startswith("\ufeff")
    assert encoding.startswith("utf-")


def test_large_file_is_judged_on_the_part_that_has_accents(tmp_path: Path) -> None:
    original = "The quick brown fox jumps over the lazy dog.\n" * 20_000 + WESTERN["fr"] * 3
    data = original.encode("latin-1")
    text, encoding = decode_text(tmp_path / "big.txt", data)
    assert (text == original, encoding) == (True, "cp1252")
    sample = _sample(data)
    assert len(sample) <= _SAMPLE_BYTES and sample.startswith(b"No\xebl")


def test_large_multibyte_file_is_sampled_between_characters(tmp_path: Path) -> None:
    original = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。\n" * 2_000
    data = original.encode("shift_jis")
    sample = _sample(data)
    assert len(sample) <= _SAMPLE_BYTES and sample.endswith(b"\n")
    assert decode_text(tmp_path / "neko.txt", data)[0] == original
