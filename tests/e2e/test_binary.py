"""Files that are not text, damaged documents, empty files and documents over the page's
limit, on both tools.

Each is refused with a message that says what it is (in the page's language): the same
message the core gives for those bytes (a PNG is "not text", a damaged PDF is "damaged or
truncated"), and the document already in the page stays: its results, its status line, the
text in the box, and in the core (a new setting still works on it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pages import CalculatorPage, SplitterPage, wait_language
from ragchunk import get_tokenizer, split
from ragchunk.api import _read_document
from ragchunk.errors import RagchunkError
from ragchunk.settings import MAX_PAGE_DOCUMENT_BYTES
from test_readers_hostile import load, reasoned_archives
from test_textio import SAMPLE_NAMES, binary_samples

# A .zip is a corpus in the page (its documents are read; tests/e2e/test_corpus.py), not a refusal.
REFUSED = [name for name in SAMPLE_NAMES if not name.endswith(".zip")]

ROOT = Path(__file__).resolve().parents[2]
WS = (ROOT / "tests" / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
TYPED = "Typed text stays in the box. Привет, мир! 👍🏽 नमस्ते दुनिया।\n" * 20
EN = json.loads((ROOT / "web" / "i18n" / "en.json").read_text(encoding="utf-8"))
RU = json.loads((ROOT / "web" / "i18n" / "ru.json").read_text(encoding="utf-8"))
HI = json.loads((ROOT / "web" / "i18n" / "hi.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return binary_samples(tmp_path_factory.mktemp("samples"))


def core_error(name: str, data: bytes) -> RagchunkError:
    with pytest.raises(RagchunkError) as caught:
        _read_document(data, name, name)
    return caught.value


def refusal(catalog: dict, name: str, data: bytes) -> str:
    """What the page says for these bytes: the core's error, in the catalog's language."""
    error = core_error(name, data)
    code, params = error.code, dict(error.params)
    if code == "not_text":
        params["what"] = catalog[f"filekind.{params['kind']}"]
    if (reason := f"reason.{code}.{params.get('reason')}") in catalog:
        params["detail"] = catalog[reason].format(**params)  # the core's detail is English
    return catalog[f"error.{code}"].format(**params)


def calculator_state(page) -> dict:
    return {
        "status": page.inner_text("#text-status"),
        "tokens": page.inner_text("#t-tokens"),
        "windows": page.eval_on_selector_all("#windows li .window-text", "items => items.map(i => i.textContent)"),
        "box": page.input_value("#text"),
        "doc": page.input_value("#doc"),
    }


def splitter_state(page) -> dict:
    return {
        "status": page.inner_text("#text-status"),
        "chunks": page.inner_text("#s-chunks"),
        "total": page.inner_text("#s-total"),
        "cards": page.eval_on_selector_all("#chunk-list .chunk-card .window-text", "cards => cards.map(c => c.textContent)"),
        "visible": page.is_visible("#split-results"),
    }


def drop_bytes(page, name: str, data: bytes) -> None:
    """Drop a file on #drop the way a person drags one from the desktop."""
    page.evaluate(
        """([name, bytes]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([new Uint8Array(bytes)], name));
            document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
        }""",
        [name, list(data)],
    )


def test_the_calculator_refuses_every_kind_and_keeps_its_document(page, samples):
    calc = CalculatorPage(page).open()
    calc.paste(TYPED)
    before = calculator_state(page)
    assert before["tokens"].startswith(f"{get_tokenizer().count(TYPED):,}")
    for index, name in enumerate(REFUSED):
        data, _ = samples[name]
        if index % 2:
            calc.choose_file(name, data, "application/octet-stream")
        else:
            calc.after_request(lambda: drop_bytes(page, name, data))
        assert page.inner_text("#text-error") == refusal(EN, name, data), name
        assert calculator_state(page) == before, name
        assert page.get_attribute("#text", "aria-invalid") == "true"
    # The core still holds the typed text: a new chunk size re-cuts it.
    calc.after_request(lambda: calc.set("chunk_size", "400"))
    assert calculator_state(page)["tokens"] == before["tokens"]
    assert page.inner_text("#text-error") == ""


def test_the_splitter_refuses_every_kind_and_keeps_its_chunks(page, samples):
    splitter = SplitterPage(page).open()
    splitter.choose_file("ws-README.md", WS.encode("utf-8"))
    before = splitter_state(page)
    assert before["chunks"] == f"{len(split(WS, by='headings', size=512, overlap=64).chunks):,}"
    for name in REFUSED:
        data, _ = samples[name]
        splitter.after_request(lambda: drop_bytes(page, name, data))
        assert page.inner_text("#text-error") == refusal(EN, name, data), name
        assert splitter_state(page) == before, name
    # The snippets still name the document the chunks come from, and a setting re-splits it.
    assert "ws-README.md" in page.text_content("#cli-snippet")
    splitter.set("chunk_size", "256")
    assert page.input_value("#overlap") == "32"  # the page's own overlap follows the size
    assert splitter.stat("chunks") == f"{len(split(WS, by='headings', size=256, overlap=32).chunks):,}"
    assert "ws-README.md" in page.inner_text("#text-status")


@pytest.mark.parametrize("lang", ["ru", "hi"])
def test_the_refusal_is_said_in_the_page_language(page, samples, lang):
    splitter = SplitterPage(page).open(query=f"?lang={lang}")
    wait_language(page, lang)
    damaged, _ = reasoned_archives(load("guide.docx"))["part_damaged"]
    files = {name: samples[name][0] for name in ("letter.docx", "photo.png")} | {"damaged.docx": damaged}
    for name, data in files.items():
        splitter.after_request(lambda: drop_bytes(page, name, data))
        error = page.inner_text("#text-error")
        assert name in error and error == refusal({"ru": RU, "hi": HI}[lang], name, data)
        assert error != refusal(EN, name, data)
    # Why the damaged one (dropped last) is damaged is said in the page's language too, not in the core's English.
    assert core_error("damaged.docx", damaged).params["detail"] not in error
    assert not page.is_visible("#split-results")


@pytest.mark.parametrize("tool", [CalculatorPage, SplitterPage])
def test_an_empty_file_is_said_to_be_empty(page, tool):
    view = tool(page).open()
    view.choose_file("notes.md", WS.encode("utf-8"))
    before = calculator_state(page) if tool is CalculatorPage else splitter_state(page)
    view.choose_file("empty.md", b"")
    assert page.inner_text("#text-error") == "empty.md is empty (0 bytes): drop a file that holds text"
    assert (calculator_state(page) if tool is CalculatorPage else splitter_state(page)) == before


DROP_HUGE = """([size]) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array(size)], 'huge.md'));
    document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
}"""

PASTE_HUGE = """([size]) => {
    const data = new DataTransfer();
    data.setData('text/plain', 'a'.repeat(size));
    document.querySelector('#text').dispatchEvent(
        new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
}"""


@pytest.mark.parametrize("tool", [CalculatorPage, SplitterPage])
def test_documents_over_the_limit_are_refused_before_they_are_read(page, watch, tool):
    view = tool(page).open()
    view.choose_file("notes.md", WS.encode("utf-8"))
    state = calculator_state if tool is CalculatorPage else splitter_state
    before, finished = state(page), view.finished()
    size = MAX_PAGE_DOCUMENT_BYTES + 1
    page.evaluate(DROP_HUGE, [size])
    page.wait_for_selector("#text-error:not(:empty)")
    assert page.inner_text("#text-error") == (
        f"huge.md is too large for the page ({size:,} bytes): the page handles up to {MAX_PAGE_DOCUMENT_BYTES:,} "
        "bytes; use the command line: python -m ragchunk split FILE"
    )
    assert state(page) == before
    page.evaluate("() => { document.querySelector('#text-error').textContent = ''; }")
    page.evaluate(PASTE_HUGE, [size])
    page.wait_for_selector("#text-error:not(:empty)")
    assert page.inner_text("#text-error").startswith(
        f"the pasted text is too large for the page ({size:,} characters): the page handles up to "
        f"{MAX_PAGE_DOCUMENT_BYTES:,} bytes; save it as a file and use the command line"
    )
    assert state(page) == before
    assert view.finished() == finished, "nothing was sent to the core"
    assert MAX_PAGE_DOCUMENT_BYTES == page.evaluate("async () => (await import('./spec.js')).SPEC.limits.document_bytes")
