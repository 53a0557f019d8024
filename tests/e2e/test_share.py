"""Settings live in the URL (never the text); "Copy as Python" reproduces the page's numbers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from pages import CalculatorPage, SplitterPage, wait_language
from ragchunk import CharEstimate, plan, split

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}


def run_python(code: str, cwd: Path) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd, env=ENV).stdout


def query(page) -> dict[str, list[str]]:
    # page.url follows history.replaceState only later; read the address bar itself.
    return parse_qs(urlsplit(page.evaluate("location.href")).query)


def test_calculator_settings_come_from_and_go_to_the_url(page):
    page.goto("./?doc=50000&size=1000&overlap=100&price=0.13&enc=o200k_base")
    calc = CalculatorPage(page)
    calc.wait_ready()
    expected = plan(50_000, 1000, 100, 0.13)
    assert calc.result("chunks") == f"{expected.chunks:,}"
    assert page.input_value("#encoding") == "o200k_base"
    calc.set("overlap", "200")
    assert query(page)["overlap"] == ["200"]
    calc.set("overlap", "64")
    assert "overlap" not in query(page), "a default value is left out of the URL"
    calc.paste("Secret text that must stay out of the address bar.")
    assert "Secret" not in page.evaluate("location.href") and "text" not in query(page)


def test_a_field_the_page_sets_goes_into_the_url_with_the_change_that_set_it(page):
    """Before, the link was written before the page's own handlers ran: it held the overlap of
    the size before (the splitter's overlap follows the size) and the price of the model before."""
    calc = CalculatorPage(page).open()
    page.select_option("#model", "text-embedding-3-small")
    calc.wait_core_numbers()
    assert query(page)["price"] == [page.input_value("#price")] == ["0.02"]
    page.select_option("#model", "all-MiniLM-L12-v2")
    calc.wait_core_numbers()
    assert page.input_value("#price") == "" and "price" not in query(page)
    assert query(page)["model"] == ["all-MiniLM-L12-v2"] and query(page)["enc"] == ["bert-base-uncased"]

    page.goto("./splitter.html")
    SplitterPage(page).wait_ready()
    page.fill("#chunk_size", "256")
    page.fill("#chunk_size", "1000")
    assert page.input_value("#overlap") == "125"
    assert (query(page)["size"], query(page)["overlap"]) == (["1000"], ["125"])
    page.goto(page.evaluate("location.href"))
    SplitterPage(page).wait_ready()
    assert (page.input_value("#chunk_size"), page.input_value("#overlap")) == ("1000", "125")


def test_copy_as_python_reproduces_the_calculator(page, tmp_path):
    calc = CalculatorPage(page).open()
    calc.unit("chars")
    calc.set("doc", "123,456")
    calc.set("chars_per_token", "3.7")
    calc.set("chunk_size", "300")
    calc.set("overlap", "45")
    calc.set("price", "0.13")
    calc.wait_core_numbers()
    page.click("summary:has-text('Python')")
    snippet = page.inner_text("#python-snippet")
    chunks, total, repeated, share, extra, cost = run_python(snippet, tmp_path).split()
    assert calc.result("chunks") == f"{int(chunks):,}"
    assert calc.result("total") == f"{int(total):,}"
    assert calc.result("repeated") == f"{int(repeated):,} ({share.replace('%', ' %')} of the total)"
    assert calc.result("extra") == extra.replace("%", " %")
    assert float(cost) > 0 and calc.result("cost").startswith(f"{float(cost):.3g}"[:4])
    cli = page.inner_text("#cli-snippet").split()
    assert cli[:3] == ["python", "-m", "ragchunk"]
    out = subprocess.run([sys.executable, *cli[1:], "--json"], capture_output=True, text=True, check=True, env=ENV).stdout
    assert f'"chunks": {chunks},' in out


def test_splitter_settings_in_the_url_and_its_python_snippet(page, tmp_path):
    doc = ROOT / "tests" / "data" / "md" / "ws-README.md"
    page.goto("./splitter.html?by=sentences&size=64&overlap=8")
    splitter = SplitterPage(page)
    page.wait_for_selector('#core-status[data-state="ready"]')
    assert page.input_value("#by") == "sentences"
    splitter.choose_file(doc.name, doc.read_bytes())
    page.click("summary:has-text('Python')")
    (tmp_path / doc.name).write_bytes(doc.read_bytes())
    chunks, total, overlap = run_python(page.inner_text("#python-snippet"), tmp_path).split()
    assert splitter.stat("chunks") == f"{int(chunks):,}"
    assert splitter.stat("total") == f"{int(total):,}"
    assert splitter.stat("overlap").startswith(f"{int(overlap):,} (")
    assert (tmp_path / "ws-README.chunks.jsonl").is_file()
    cli = page.inner_text("#cli-snippet").split()
    subprocess.run([sys.executable, *cli[1:]], capture_output=True, check=True, cwd=tmp_path, env=ENV)
    with page.expect_download() as info:
        page.click("#download")
    info.value.save_as(tmp_path / "page.jsonl")
    assert (tmp_path / "page.jsonl").read_bytes() == (tmp_path / "ws-README.chunks.jsonl").read_bytes()


def test_a_number_typed_with_a_decimal_comma_makes_a_link_every_language_reads(page):
    """Before, "3,5" typed in Russian went into the link as "3,5": opened in English it was
    refused ("a comma that does not group thousands") and no chunk was made."""
    doc = ROOT / "tests" / "data" / "md" / "ws-README.md"
    page.goto("./splitter.html?lang=ru&sizer=estimate")
    wait_language(page, "ru")
    splitter = SplitterPage(page)
    page.wait_for_selector('#core-status[data-state="ready"]')
    page.fill("#chars_per_token", "3,5")
    page.fill("#chunk_size", "1 000")
    page.fill("#overlap", "100")
    assert query(page)["cpt"] == ["3.5"] and query(page)["size"] == ["1000"]
    link = page.evaluate("location.href").replace("lang=ru", "lang=en")
    page.goto(link)
    wait_language(page, "en")
    page.wait_for_selector('#core-status[data-state="ready"]')
    assert (page.input_value("#chars_per_token"), page.input_value("#chunk_size")) == ("3.5", "1000")
    splitter.choose_file(doc.name, doc.read_bytes())
    expected = split(doc.read_text(encoding="utf-8"), size=1000, overlap=100, tokenizer=CharEstimate(3.5))
    assert splitter.stat("chunks") == f"{len(expected.chunks):,}"
    assert splitter.errors() == {}
