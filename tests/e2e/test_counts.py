"""Numbers with their nouns: "1 token", "1 character", Russian forms by the last digits
("161 токен", "85 токенов"), the models' menus in the page's language and digit grouping,
and a large paste labelled with the characters the core counts (code points)."""

from __future__ import annotations

from pages import CalculatorPage, SplitterPage, paste_large, wait_language
from ragchunk import get_tokenizer, split
from ragchunk.models import get_model
from ragchunk.api import form_spec

RUSSIAN_TEXT = "Слово за словом. " * 20  # 161 cl100k_base tokens, 340 characters


def russian(n: int, one: str, few: str, many: str) -> str:
    """A Russian count: 1, 21, 101 -> one; 2-4, 22-24 -> few; 5-20, 11-14, 25 ... -> many."""
    if n % 10 == 1 and n % 100 != 11:
        return one
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return few
    return many


def grouped(page, n: int) -> str:
    """``n`` as the page's language groups it (Intl of the browser, Latin digits)."""
    return page.evaluate("n => new Intl.NumberFormat(document.documentElement.lang, {numberingSystem: 'latn'}).format(n)", n)


def test_one_is_said_in_the_singular(page):
    calc = CalculatorPage(page).open()
    calc.paste("a")
    assert calc.text_status() == "1 token, 1 character."
    assert calc.windows()[0]["meta"] == "Chunk 1 · 1 token (0–1)"
    assert page.inner_text("#t-ratio") == "1.00 (the 4-characters rule would estimate 1 token)"
    calc.set("doc", "10000")
    calc.set("chunk_size", "1")
    calc.set("overlap", "0")
    calc.wait_core_numbers()
    page.wait_for_function("() => document.querySelector('#r-chunks').textContent === '10,000'")
    assert calc.result("detail") == "Step 1 token; the last chunk holds the remaining 1 token."

    splitter = SplitterPage(page).open()
    splitter.after_request(lambda: page.fill("#text", "a"))
    assert page.inner_text("#text-status") == "1 chunk from 1 character."
    assert page.inner_text("#histogram .bin-count") == "1 chunk"
    assert splitter.cards()[0]["meta"] == "#1 · 1 token"
    splitter.set("chunk_size", "1")
    assert page.input_value("#overlap") == "0"
    assert page.inner_text("#s-tokenizer") == (
        "Sizes are exact cl100k_base token counts of each chunk's final text. Target 1 token, overlap up to 0, cut at headings.")


def test_russian_counts_take_the_form_of_their_last_digits(page):
    tokens = get_tokenizer("cl100k_base").count(RUSSIAN_TEXT)
    chars = len(RUSSIAN_TEXT)
    assert (tokens, chars) == (161, 340)
    calc = CalculatorPage(page).open(query="?lang=ru")
    wait_language(page, "ru")
    calc.paste(RUSSIAN_TEXT)
    assert calc.text_status() == "161 токен, 340 символов."
    assert calc.windows()[0]["meta"] == "Чанк 1 · 161 токен (0–161)"
    assert page.inner_text("#t-ratio") == "2,11 (правило «4 символа на токен» дало бы 85 токенов)"
    calc.set("chunk_size", "150")
    calc.set("overlap", "50")
    page.wait_for_function("() => document.querySelector('#r-chunks').textContent === '2'")
    assert calc.result("detail") == "Шаг — 100 токенов; в последнем чанке — остаток: 61 токен."

    model = get_model("text-embedding-3-small")
    calc.choose_model(model.id)
    assert page.inner_text("#model-hint") == (
        f"{model.id} читает {grouped(page, 8191)} токен (из них 0 — служебные) и даёт векторы"
        f" ({grouped(page, 1536)} измерений); ваш текст считается токенизатором cl100k_base.")
    assert page.inner_text("#r-vectors").endswith(f"× {grouped(page, 1536)} измерений")
    calc.set("chunk_size", "9000")
    calc.wait_core_numbers()
    page.wait_for_selector("#model-warning:visible")
    assert page.inner_text("#model-warning").startswith(
        f"{model.id} отбрасывает всё, что в чанке идёт за пределом ({grouped(page, 8191)} токен)")

    splitter = SplitterPage(page).open(query="?lang=ru")
    wait_language(page, "ru")
    splitter.after_request(lambda: page.fill("#text", RUSSIAN_TEXT))
    assert page.inner_text("#text-status") == "1 чанк, в тексте 340 символов."
    first = split(RUSSIAN_TEXT, by="headings", size=512, overlap=64).chunks[0].tokens  # the trailing space goes
    assert splitter.cards()[0]["meta"] == f"№1 · {first} {russian(first, 'токен', 'токена', 'токенов')}"
    assert "Цель — 512 токенов" in page.inner_text("#s-tokenizer")


def test_the_model_menus_are_in_the_language_of_the_page(page):
    models = form_spec()["models"]
    forms = {
        "en": (lambda n: "token" if n == 1 else "tokens", lambda n: "dimension" if n == 1 else "dimensions"),
        "ru": (lambda n: russian(n, "токен", "токена", "токенов"), lambda n: russian(n, "измерение", "измерения", "измерений")),
        "hi": (lambda n: "टोकन", lambda n: "आयाम"),
    }
    for lang, (tokens, dims) in forms.items():
        CalculatorPage(page).open(query=f"?lang={lang}")
        wait_language(page, lang)
        shown = page.eval_on_selector_all("#model option", "options => options.slice(1).map(o => o.textContent)")
        assert shown == [
            f"{m['id']} — {grouped(page, m['limit'])} {tokens(m['limit'])}, {grouped(page, m['dimensions'])} {dims(m['dimensions'])}"
            for m in models], lang
        SplitterPage(page).open(query=f"?lang={lang}")
        wait_language(page, lang)
        shown = page.eval_on_selector_all('#sizer option[value^="model:"]', "options => options.map(o => o.textContent)")
        assert shown == [f"{m['id']} — {m['tokenizer']}, {grouped(page, m['limit'])} {tokens(m['limit'])}" for m in models], lang
    # The switcher re-says them in place.
    page.select_option("#lang", "ru")
    wait_language(page, "ru")
    assert page.inner_text('#sizer option[value="model:bge-m3"]') == f"bge-m3 — xlm-roberta, {grouped(page, 8192)} токена"


def test_a_large_paste_is_labelled_with_the_characters_the_core_counts(page):
    # Each emoji is one character (code point) and two UTF-16 units.
    text = "Emoji 😀 and a line of text. " * 8_000
    assert len(text.encode("utf-16-le")) // 2 > 200_000 and len(text) == 224_000
    calc = CalculatorPage(page).open()
    calc.after_request(lambda: paste_large(page, text))
    tokens = get_tokenizer("cl100k_base").count(text)
    assert calc.text_status() == (
        f"Pasted text (224,000 characters, kept out of the box so the page stays responsive): {tokens:,} tokens,"
        " 224,000 characters.")
    assert page.inner_text("#t-chars") == "224,000"
