"""English, Russian and Hindi: catalogs, labels, numbers, errors, the switcher and the URL."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import origin_of
from pages import CalculatorPage, SplitterPage, wait_language
from ragchunk import plan, tokens_from_chars
from ragchunk.options.fields import FormErrors, read_calc_form
from ragchunk.splitter import split
from ragchunk.errors import RagchunkError
from ragchunk.options import SplitOptions
from ragchunk.readers.formats import read_document
from ragchunk.api import form_spec
from ragchunk.readers.textio import SIGNATURES, ZIP_KINDS, decode_document

I18N = Path(__file__).resolve().parents[2] / "web" / "i18n"
LANGS = ("en", "ru", "hi")
PLURAL_FORMS = {"en": {"one", "other"}, "ru": {"one", "few", "many", "other"}, "hi": {"one", "other"}}
SPEC_DEFAULTS = form_spec()["defaults"]
NO_BREAK_SPACES = ("\u00a0", "\u202f")  # what Intl puts between groups of digits in Russian (by ICU version)


def catalog(lang: str) -> dict:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def russian_group(page) -> str:
    """The browser's Russian digit group separator: a no-break space, narrow in newer ICU."""
    separator = page.evaluate("new Intl.NumberFormat('ru-RU').format(1000).charAt(1)")
    assert separator in NO_BREAK_SPACES
    return separator


def ru(n: int, separator: str) -> str:
    return f"{n:,}".replace(",", separator)


def indian(n: int) -> str:
    """11408 -> 11,408; 12345678 -> 1,23,45,678 (hi-IN grouping, Latin digits)."""
    digits = str(n)
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    groups = []
    while len(head) > 2:
        groups.insert(0, head[-2:])
        head = head[:-2]
    return ",".join([head, *groups, tail])


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def variants(value) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


# --- the catalogs ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ru", "hi"])
def test_every_key_of_english_is_translated_and_nothing_else(lang):
    english, other = catalog("en"), catalog(lang)
    assert sorted(set(english) - set(other)) == [], "missing"
    assert sorted(set(other) - set(english)) == [], "extra"
    for key, value in other.items():
        assert isinstance(value, type(english[key])), key
        if isinstance(value, dict):
            assert set(value) == PLURAL_FORMS[lang], key
            assert set(english[key]) == PLURAL_FORMS["en"], key
        wanted = set().union(*(placeholders(v) for v in variants(english[key])))
        for text in variants(value):
            assert text.strip(), key
            assert placeholders(text) <= wanted, f"{lang} {key} names a param English does not give"
        assert set().union(*(placeholders(v) for v in variants(value))) == wanted, f"{lang} {key} drops a param"


def test_hindi_is_in_devanagari_and_russian_in_cyrillic():
    for lang, script in (("ru", r"[\u0400-\u04ff]"), ("hi", r"[\u0900-\u097f]")):
        prose = [k for k, v in catalog(lang).items() if isinstance(v, str)
                 and re.search(r"[A-Za-z]{4}", re.sub(r"\{\w+\}", "", catalog("en")[k]))
                 and not k.startswith(("filekind.", "kind.", "core.stage", "text.tokens_value", "status.progress"))]
        untranslated = [k for k in prose if not re.search(script, catalog(lang)[k])]
        assert untranslated == [], f"{lang}: {untranslated}"


def test_every_file_kind_has_a_name():
    kinds = {kind for _, _, kind, _ in SIGNATURES} | {kind for _, kind, _ in ZIP_KINDS} | {"binary", "binary_nul"}
    assert {k.removeprefix("filekind.") for k in catalog("en") if k.startswith("filekind.")} == kinds


def test_the_english_in_the_html_is_the_english_catalog(browser, base_url):
    """The HTML is the first paint (and the page without JavaScript): the same words as en.json."""
    english = catalog("en")
    context = browser.new_context(base_url=base_url, java_script_enabled=False)
    try:
        page = context.new_page()
        for path in ("./", "./splitter.html", "./planner.html"):
            page.goto(path)
            shown = page.eval_on_selector_all(
                "[data-i18n], [data-i18n-html]",
                "els => els.map(e => [e.dataset.i18n ?? e.dataset.i18nHtml, e.textContent.replace(/\\s+/g, ' ').trim()])",
            )
            assert len(shown) > 30
            for key, text in shown:
                if "{" in english[key]:
                    continue  # filled in by the page (the worked example)
                assert text == re.sub(r"<[^>]+>", "", english[key]), key
            attributes = page.eval_on_selector_all(
                "[data-i18n-attr]", "els => els.flatMap(e => e.dataset.i18nAttr.split(';').map(p => p.split('=')).map(([a, k]) => [k, e.getAttribute(a)]))"
            )
            assert all(english[key] == value for key, value in attributes), attributes
            assert page.is_visible('a[href="ragchunk-offline.html"][download]')
    finally:
        context.close()


def test_english_error_texts_equal_the_core_messages(page):
    """Rendered from code + params, every English error reads exactly as the core's message."""
    CalculatorPage(page).open(wait_ready=False)
    wait_language(page, "en")
    forms = [
        {"unit": "tokens", "doc": d, "chunk_size": s, "overlap": o, "price": p, "chars_per_token": "4"}
        for d, s, o, p in [("", "0", "x", "-1"), ("1e15", "512.5", "-1", "2e6"), ("10000", "512", "512", ""),
                           ("1000000000000", "10000000", "9999999", ""), ("abc", "", "1,000,000,000", "cheap")]
    ] + [{"unit": "chars", "doc": "4000000000000", "chars_per_token": "0.5", "chunk_size": "512", "overlap": "0", "price": ""},
         {"unit": "chars", "doc": "7.5", "chars_per_token": "0", "chunk_size": "512", "overlap": "0", "price": ""}]
    form_messages = []
    for form in forms:
        try:
            read_calc_form(form)
        except FormErrors as err:
            form_messages += [e.message for e in err.errors]
    core_errors = []
    for magic, offset, _, _ in SIGNATURES:
        try:
            decode_document(b"\x00\x00\x00\x18"[:offset] + magic + bytes(range(256)), "upload.bin")
        except ValueError as err:
            core_errors.append(err.to_json())
    core_errors.append({"field": "text", "code": "text_empty", "params": {},
                        "message": "text is empty: paste some text or drop a file"})
    # The readers' and the models' errors, with numbers the page groups (1,000 pages, 1,024 lines).
    for call in (lambda: read_document(b"%PDF-1.7\n" + bytes(100), "a.pdf"),
                 lambda: read_document(b'{"cells": 3}', ""),
                 lambda: SplitOptions(model="e5-base-v2", size=510, prefix=True, overlap=0),
                 lambda: SplitOptions(model="all-MiniLM-L6-v2", size=300)):
        try:
            call()
        except RagchunkError as err:
            core_errors.append(err.to_json())
    notes = decode_document(b"caf\xe9 caf\xe9", "").note_details + decode_document(b"caf\xe9", "a.txt").note_details
    notes += list(read_document(b"<nav>menu</nav><nav>more</nav><h1>T</h1><p>Body.</p>", "p.html").notes)
    checked = page.evaluate(
        """async ([forms, coreErrors, notes]) => {
            const { readCalcForm } = await import('./core/formula.js');
            const { SPEC } = await import('./spec.js');
            const { errorKey, errorMessage, showNotes } = await import('./ui/errors.js');
            const mirrored = forms.flatMap(form => readCalcForm(SPEC, form).errors ?? []);
            const list = document.createElement('ul');
            showNotes(list, { notes: notes.map(n => n.message), note_details: notes });
            return {
                mirrored: mirrored.map(e => [e.code, errorKey(e), errorMessage(e)]),
                errors: coreErrors.map(e => [e.code, errorKey(e), errorMessage(e), e.message]),
                notes: [...list.children].map(li => li.textContent),
            };
        }""",
        [forms, core_errors, notes],
    )
    # The mirror's errors (web/core/formula.js) hold no sentence: the page says them from the catalog.
    assert len(checked["mirrored"]) == len(form_messages)
    mirrored = [[code, key, shown, message] for (code, key, shown), message in zip(checked["mirrored"], form_messages)]
    codes = set()
    for code, key, shown, message in mirrored + checked["errors"]:
        assert key == f"error.{code}"
        assert shown == message
        codes.add(code)
    assert len(codes) >= 10
    assert checked["notes"] == [n["message"] for n in notes]


# --- Russian ---------------------------------------------------------------------------


def test_russian_calculator(page):
    calc = CalculatorPage(page).open(query="?lang=ru")
    wait_language(page, "ru")
    sep = russian_group(page)
    assert page.get_attribute("html", "lang") == "ru"
    assert page.inner_text('label[for="chunk_size"]') == "Размер чанка (токенов)"
    assert page.inner_text("h1") == "Калькулятор чанков для RAG"
    assert page.title().startswith("Калькулятор чанков")
    assert "Как это считается" in page.inner_text("#how-title")
    assert f"1 + ⌈9{sep}488 ÷ 448⌉ = 23" in page.inner_text("#how-example")
    assert page.inner_text("#offline-download") == "Скачать для работы офлайн"
    # The text box names every kind of file the calculator reads, not only .txt and .md.
    assert "PDF, Word, EPUB" in page.get_attribute("#text", "placeholder")
    assert "reStructuredText, HTML, PDF" in page.inner_text(".text-tool .hint")
    calc.wait_core_numbers()
    assert calc.results() == {
        "chunks": "23",
        "total": f"11{sep}408",
        "repeated": f"1{sep}408 (12,3 % от общего числа)",
        "extra": "14,1 %",
        "cost": "укажите цену",
    }
    assert "Готово" in page.inner_text("#core-stage")
    # The comma is the decimal mark in Russian, spaces group digits; Python and the mirror agree.
    calc.unit("chars")
    calc.set("doc", "40 000")
    calc.set("chars_per_token", "3,5")
    calc.set("price", "0,02")
    calc.wait_core_numbers()
    expected = plan(tokens_from_chars(40_000, 3.5), 512, 64, 0.02)
    assert calc.result("total") == ru(expected.total_tokens, sep)
    assert calc.result("cost") == f"{expected.cost:.3g}".replace(".", ",") + " при цене 0,02 за миллион токенов"
    assert f"{ru(expected.doc_tokens, sep)} токенов — оценка по числу символов" in page.inner_text("#r-detail")
    calc.unit("tokens")
    calc.set("doc", "10000")
    calc.set("price", "")
    calc.set("chunk_size", "abc")
    calc.wait_core_numbers()
    assert calc.error("size") == "«размер чанка»: abc — не число; введите цифры, например 512"
    # The example is the field's own, written as Russian writes decimals.
    calc.set("price", "дёшево")
    calc.wait_core_numbers()
    assert calc.error("price") == "«цена за миллион токенов»: дёшево — не число; введите цифры, например 0,02"
    calc.set("price", "")
    calc.set("chunk_size", "512")
    calc.set("overlap", "600")
    calc.wait_core_numbers()
    assert calc.error("overlap") == "перекрытие (600) должно быть меньше размера чанка (512): уменьшите перекрытие"
    assert calc.result("chunks") == "—"


def test_russian_from_the_browser_preference(browser, base_url):
    context = browser.new_context(base_url=base_url, locale="ru-RU", service_workers="block")
    errors: list[str] = []
    foreign: list[str] = []
    origin = origin_of(base_url)

    def guard(route):
        if origin_of(route.request.url) == origin or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto("./")
        wait_language(page, "ru")
        assert page.get_attribute("html", "lang") == "ru"
        assert page.input_value("#lang") == "ru"
        assert page.inner_text('label[for="overlap"]') == "Перекрытие (токенов)"
        assert page.inner_text("#r-total") == f"11{russian_group(page)}408"
        assert "lang=" not in page.url
        # A link to the other tool needs no lang: the browser chooses Russian there too.
        assert "lang=" not in page.get_attribute('nav a[href*="splitter"]', "href")
        page.goto("./splitter.html")
        wait_language(page, "ru")
        assert page.inner_text('label[for="by"]') == "Резать по"
    finally:
        context.close()
    assert not errors and not foreign


# --- Hindi -----------------------------------------------------------------------------


def test_hindi_calculator(page):
    calc = CalculatorPage(page).open(query="?lang=hi")
    wait_language(page, "hi")
    assert page.get_attribute("html", "lang") == "hi"
    assert page.inner_text('label[for="chunk_size"]') == "चंक का आकार (टोकन)"
    assert page.inner_text("#results-title") == "परिणाम"
    assert page.inner_text("#offline-download") == "ऑफ़लाइन इस्तेमाल के लिए डाउनलोड करें"
    calc.wait_core_numbers()
    assert calc.result("total") == "11,408"
    assert calc.result("repeated") == "1,408 (कुल का 12.3 %)"
    calc.set("doc", "12345678")
    calc.wait_core_numbers()
    expected = plan(12_345_678, 512, 64)
    assert calc.result("total") == indian(expected.total_tokens)
    assert calc.result("chunks") == indian(expected.chunks)
    calc.set("doc", "")
    calc.wait_core_numbers()
    assert calc.error("doc") == "दस्तावेज़ की लंबाई खाली है: कोई संख्या दर्ज करें"
    # Hindi groups with commas, as English does: "," is not a decimal mark there.
    calc.set("doc", "1,00,000")
    calc.wait_core_numbers()
    assert calc.result("total") == indian(plan(100_000, 512, 64).total_tokens)


@pytest.mark.parametrize("lang", LANGS)
def test_the_worked_example_says_the_core_plan_in_each_language(page, lang):
    CalculatorPage(page).open(query=f"?lang={lang}", wait_ready=False)
    wait_language(page, lang)
    d = SPEC_DEFAULTS
    p = plan(d["doc_tokens"], d["chunk_size"], d["overlap"])
    separator = russian_group(page) if lang == "ru" else ","

    def grouped(n: int) -> str:
        return indian(n) if lang == "hi" else f"{n:,}".replace(",", separator)

    def share(x: float) -> str:
        return catalog(lang)["format.percent"].replace("{n}", f"{x * 100:.1f}".replace(".", "," if lang == "ru" else "."))

    numbers = {"doc": p.doc_tokens, "size": p.chunk_size, "overlap": p.overlap, "step": p.step,
               "rest": p.doc_tokens - p.chunk_size, "chunks": p.chunks, "more": p.chunks - 1, "total": p.total_tokens,
               "repeated": p.repeated_tokens}
    shown = {**{name: grouped(n) for name, n in numbers.items()}, "share": share(p.repeated_share),
             "extra": share(p.extra_share)}
    expected = re.sub(r"\{(\w+)\}", lambda m: shown[m.group(1)], catalog(lang)["how.example"])
    assert page.inner_text("#how-example") == expected


# --- the switcher and the URL ----------------------------------------------------------


def test_the_switcher_changes_language_and_url_in_place(page):
    calc = CalculatorPage(page).open()
    assert page.get_attribute("html", "lang") == "en"
    assert "lang=" not in page.url
    calc.set("chunk_size", "0")
    calc.wait_core_numbers()
    assert calc.error("size") == "chunk size (0) must be at least 1: enter a larger number"
    page.select_option("#lang", "hi")
    wait_language(page, "hi")
    assert "lang=hi" in page.url
    assert page.get_attribute("html", "lang") == "hi"
    # The error already shown is said again in Hindi, the field label included.
    assert calc.error("size") == "चंक का आकार: मान (0) कम से कम 1 होना चाहिए; बड़ी संख्या दर्ज करें"
    assert "lang=hi" in page.get_attribute('nav a[href*="splitter"]', "href")
    calc.set("chunk_size", "512")
    calc.wait_core_numbers()
    assert calc.result("total") == "11,408"
    page.select_option("#lang", "ru")
    wait_language(page, "ru")
    assert "lang=ru" in page.url
    assert calc.result("total") == f"11{russian_group(page)}408"
    assert calc.result("extra") == "14,1 %"
    page.reload()
    wait_language(page, "ru")
    assert page.input_value("#lang") == "ru"
    page.select_option("#lang", "en")
    wait_language(page, "en")
    assert "lang=" not in page.url
    assert calc.result("extra") == "14.1 %"
    assert page.inner_text('label[for="chunk_size"]') == "Chunk size (tokens)"
    # The worked example, filled in from the defaults, reads as the HTML's English does.
    assert page.inner_text("#how-example") == (
        "Example: 10,000 tokens, chunks of 512 with 64 overlap → step 448, 1 + ⌈9,488 ÷ 448⌉ = 23 chunks, "
        "10,000 + 22 × 64 = 11,408 tokens, of which 1,408 (12.3 %) are repeated: 14.1 % more than the document."
    )


MARKDOWN = """# Введение

Первый абзац про чанки. Второй абзац про перекрытие.

## Детали

Ещё немного текста, чтобы получилось несколько чанков. И ещё одно предложение.
"""


def test_splitter_in_russian_and_hindi(page):
    splitter = SplitterPage(page).open(query="?lang=ru")
    wait_language(page, "ru")
    assert page.get_attribute("html", "lang") == "ru"
    assert page.inner_text('label[for="sizer"]') == "Чем считать токены"
    assert page.inner_text('#by option[value="sentences"]') == "Предложениям"
    splitter.after_request(lambda: page.fill("#text", MARKDOWN * 40))
    expected = split(MARKDOWN * 40, by="headings", size=512, overlap=64, tokenizer="cl100k_base")
    assert splitter.stat("chunks") == str(len(expected.chunks))
    assert splitter.stat("total") == ru(expected.stats.total_tokens, russian_group(page))
    assert "точное число токенов cl100k_base" in page.inner_text("#s-tokenizer")
    assert "разбиение по заголовкам" in page.inner_text("#s-tokenizer")
    first = expected.chunks[0].tokens
    noun = "токен" if first % 10 == 1 and first % 100 != 11 else "токена" if first % 10 in (2, 3, 4) and first % 100 not in (12, 13, 14) else "токенов"
    assert f"· {ru(first, russian_group(page))} {noun}" in splitter.cards()[0]["meta"]
    splitter.set("overlap", "600")
    assert "перекрытие (600) должно быть меньше размера чанка (512)" in page.inner_text("#overlap-error")
    splitter.set("overlap", "64")
    # The estimate's ratio typed with a decimal comma.
    splitter.select("sizer", "estimate")
    splitter.set("chars_per_token", "3,5")
    assert "3,5 символа на токен" in page.inner_text("#s-tokenizer")
    page.select_option("#lang", "hi")
    wait_language(page, "hi")
    assert "lang=hi" in page.url
    assert page.inner_text('label[for="sizer"]') == "टोकन किससे गिनें"
    assert "शीर्षकों पर काटा गया" in page.inner_text("#s-tokenizer")
    splitter.set("chunk_size", "x")
    assert page.inner_text("#size-error") == "चंक का आकार (x) संख्या नहीं है: अंक दर्ज करें, जैसे 512"


def test_a_damaged_pdf_is_refused_in_russian(page):
    splitter = SplitterPage(page).open(query="?lang=ru")
    splitter.choose_file("slides.pdf", b"%PDF-1.7\n" + bytes(range(256)), "application/pdf")
    assert page.inner_text("#text-error") == (
        "slides.pdf повреждён или обрезан и не читается как PDF: экспортируйте его снова или восстановите"
        " (например, qpdf in.pdf repaired.pdf)"
    )
