"""The evaluation page (issue 34), driven as a person would: the sample, paste, drop,
select-to-answer, cancel, three languages, and the results equal to the CLI's."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import own_server
from playwright.sync_api import Page
from ragchunk.evaluate.recommend import label

ROOT = Path(__file__).resolve().parents[2]
# The sample's documents are the repository's copy of chunking-evaluation's corpora (the build
# ships them beside the sample's questions, web/tools/evaluate/sample/questions.csv).
SAMPLE = ROOT / "tests" / "data" / "chunking-evaluation" / "corpora"
SAMPLE_QUESTIONS = ROOT / "web" / "tools" / "evaluate" / "sample" / "questions.csv"
SAMPLE_FILES = ("chatlogs.md", "state_of_the_union.md")


def cli_json(folder: Path, files: list[str], questions: Path, *options: str) -> str:
    """What ``python -m ragchunk evaluate FILES --questions Q --json`` prints, run in ``folder``."""
    command = [sys.executable, "-m", "ragchunk", "evaluate", *files, "--questions", str(questions), "--json", *options]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(ROOT / "pycore"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout


class EvaluatePage:
    """What a person sees and does on evaluate.html."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def open(self, query: str = "") -> EvaluatePage:
        self.page.goto(f"evaluate.html{query}")
        self.page.wait_for_selector('#core-status[data-state="ready"]')
        return self

    def runs(self) -> int:
        return int(self.page.get_attribute("#eval-results", "data-runs") or 0)

    def documents(self) -> int:
        return int(self.page.get_attribute("#drop", "data-documents") or 0)

    def evaluate(self, action=None) -> None:
        """Do ``action`` (default: press Evaluate) and wait for its results."""
        before = self.runs()
        (action or (lambda: self.page.click("#run")))()
        self.page.wait_for_function("n => Number(document.querySelector('#eval-results').dataset.runs ?? 0) > n",
                                    arg=before)

    def set_retrievers(self, *names: str) -> None:
        for box in self.page.query_selector_all('input[name="retriever"]'):
            box.set_checked(box.get_attribute("value") in names)

    def set_ways(self, *names: str) -> None:
        for box in self.page.query_selector_all('input[name="by"]'):
            box.set_checked(box.get_attribute("value") in names)

    def choose_documents(self, files: list[Path]) -> None:
        self.page.set_input_files("#file", files=files)
        self.page.wait_for_function("n => Number(document.querySelector('#drop').dataset.documents ?? 0) === n",
                                    arg=len(files))

    def rows(self) -> list[list[str]]:
        return self.page.eval_on_selector_all("#eval-body tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")

    def download(self, button: str) -> bytes:
        with self.page.expect_download() as info:
            self.page.click(button)
        return Path(info.value.path()).read_bytes()

    def sentences(self) -> list[str]:
        return self.page.eval_on_selector_all("#recommendation .sentence", "s => s.map(e => e.textContent)")


def test_the_sample_gives_a_whole_evaluation_equal_to_the_clis(page: Page):
    tool = EvaluatePage(page).open()
    tool.evaluate(lambda: page.click("#sample"))
    expected = cli_json(SAMPLE, list(SAMPLE_FILES), SAMPLE_QUESTIONS)
    assert tool.download("#download-json").decode("utf-8") == expected
    data = json.loads(expected)
    assert len(tool.rows()) == len(data["results"]) == 12
    # The recommendation, said as the core says it.
    assert tool.sentences() == [data["recommendation"]["bm25"]["sentence"]]
    # The chart: one point per row, the recommended one ringed.
    assert page.locator("#chart svg circle.point[data-setting]").count() == 12
    ringed = page.get_attribute("#chart svg circle.recommended", "data-setting")
    assert ringed == data["recommendation"]["bm25"]["recommended"]
    # The documents read are listed as plain lines, not in the colour of an error.
    lines = page.locator("#doc-list li")
    assert lines.count() == len(SAMPLE_FILES)
    colours = page.eval_on_selector("#doc-list", "list => [getComputedStyle(list.querySelector('li')).color,"
                                    " getComputedStyle(document.body).color]")
    assert colours[0] == colours[1]


GUIDE = ("# Install\n\nRun the installer. Then restart the machine.\n\n"
         "## Windows\n\nOpen PowerShell as an administrator and type setup.exe /quiet.\n\n"
         "# Use\n\nOpen the app and sign in with your work account, not a personal one.\n\n"
         "# Remove\n\nDrag the app to the bin and empty it.\n")
GUIDE_QUESTIONS = ("How do I sign in?\n> sign in with your work account\n"
                   "What do I type on Windows?\tsetup.exe /quiet\n"
                   "How do I remove it?\n> Drag the app to the bin\n")


def test_a_pasted_document_and_typed_questions_equal_the_cli_on_the_same_file(page: Page, tmp_path: Path):
    tool = EvaluatePage(page).open()
    page.fill("#text", GUIDE)
    page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '1'")
    page.fill("#questions", GUIDE_QUESTIONS)
    page.fill("#sizes", "16, 32")
    tool.evaluate()
    (tmp_path / "pasted.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "q.txt").write_text(GUIDE_QUESTIONS, encoding="utf-8")
    expected = cli_json(tmp_path, ["pasted.md"], tmp_path / "q.txt", "--size", "16,32")
    assert tool.download("#download-json").decode("utf-8") == expected
    rows = json.loads(expected)["results"]
    csv = tool.download("#download-csv").decode("utf-8").splitlines()
    assert len(csv) == len(rows) + 1 and csv[1].startswith(f"{rows[0]['by']},{rows[0]['size']},{rows[0]['overlap']}")
    # Each question's top chunks, the answer marked inside the first one that holds it.
    marks = page.eval_on_selector_all("#per-question mark", "m => m.map(e => e.textContent)")
    assert any("sign in with your work account" in mark for mark in marks)
    # "Plan the context": the recommended setting's tokens read per question, at the evaluation's k.
    data = json.loads(expected)
    chosen = next(row for row in rows if row["retriever"] == "bm25"
                  and label(row) == data["recommendation"]["bm25"]["recommended"])
    read = math.floor(chosen["tokens_read"] + 0.5)  # as JavaScript's Math.round
    assert parse_qs(urlsplit(page.get_attribute("#plan-link", "href")).query) == {"read": [str(read)],
                                                                                 "k": [str(data["k"])]}
    page.click("#plan-link")
    page.wait_for_selector('#plan-results[data-state="ok"]')
    assert page.input_value("#k") == str(data["k"]) and page.input_value("#chunk_size") == str(math.ceil(read / data["k"]))


def test_dropped_files_and_a_questions_file_equal_the_cli(page: Page, tmp_path: Path):
    tool = EvaluatePage(page).open()
    files = {name: (SAMPLE / name).read_bytes() for name in SAMPLE_FILES}
    page.evaluate(
        """files => {
            const transfer = new DataTransfer();
            for (const [name, bytes] of files) transfer.items.add(new File([new Uint8Array(bytes)], name));
            document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
        }""",
        [[name, list(data)] for name, data in files.items()],
    )
    page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '2'")
    page.set_input_files("#questions-file", files=[SAMPLE_QUESTIONS])
    page.wait_for_function("() => document.querySelector('#questions').value.length > 1000")
    tool.set_ways("headings", "sentences")
    page.fill("#sizes", "256")
    page.fill("#k", "3")
    tool.evaluate()
    expected = cli_json(SAMPLE, list(SAMPLE_FILES), SAMPLE_QUESTIONS, "--by", "headings,sentences",
                        "--size", "256", "--k", "3")
    assert tool.download("#download-json").decode("utf-8") == expected
    # The table sorts by a column, and the other way on a second press.
    page.click("#eval-table button[data-sort='recall']")
    recalls = [row[2] for row in tool.rows()]
    assert recalls == sorted(recalls, key=lambda text: float(text.split()[0]), reverse=True)


def test_selected_text_of_a_document_becomes_a_questions_answer(page: Page):
    tool = EvaluatePage(page).open()
    page.fill("#text", GUIDE)
    page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '1'")
    page.fill("#questions", "How do I remove it?\nWhat do I type on Windows?")
    page.click("#doc-view-box summary")
    page.select_option("#answer-for", label="What do I type on Windows?")
    page.evaluate("""() => {
        const view = document.querySelector('#doc-view');
        const text = view.firstChild;
        const at = text.data.indexOf('Open PowerShell');
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + 'Open PowerShell as an administrator'.length);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
    }""")
    page.click("#set-answer:not([disabled])")
    assert page.input_value("#questions") == (
        "How do I remove it?\nWhat do I type on Windows?\n> Open PowerShell as an administrator")
    page.fill("#sizes", "32")
    tool.evaluate()
    # One question has an answer: every row is scored on it.
    assert all(row[2] != "—" for row in tool.rows())
    assert page.locator("#per-question mark", has_text="Open PowerShell as an administrator").count() >= 1


def test_cancel_stops_the_evaluation_and_keeps_the_documents(page: Page):
    tool = EvaluatePage(page).open()
    tool.evaluate(lambda: page.click("#sample"))
    page.fill("#sizes", "64, 128, 256, 512, 1024")
    page.click("#run")
    page.wait_for_selector("#run-status:has-text('Chunking')")
    page.click("#cancel")
    page.wait_for_selector("#run-status:has-text('Cancelled')")
    assert page.is_hidden("#cancel") and tool.documents() == 2
    page.fill("#sizes", "256")
    tool.evaluate()
    assert len(tool.rows()) == 4


@pytest.mark.parametrize(("lang", "heading", "words"), [
    ("ru", "Оценка на ваших вопросах", "С поиском BM25 настройка"),
    ("hi", "अपने प्रश्नों पर मूल्यांकन", "BM25 के साथ"),
])
def test_the_page_speaks_russian_and_hindi(page: Page, lang: str, heading: str, words: str):
    tool = EvaluatePage(page).open(f"?lang={lang}")
    page.wait_for_selector(f'html[data-language="{lang}"]', state="attached")
    tool.evaluate(lambda: page.click("#sample"))
    assert page.inner_text("h1") == heading
    assert tool.sentences()[0].startswith(words)
    assert page.inner_text("#eval-results h2") != "Which settings find your answers"


def test_bad_settings_are_said_next_to_their_field(page: Page):
    EvaluatePage(page).open()
    page.fill("#text", GUIDE)
    page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '1'")
    page.fill("#questions", "Why?")
    page.fill("#sizes", "4")
    page.click("#run")
    page.wait_for_selector("#sizes-error:not(:empty)")
    assert "chunk size" in page.inner_text("#sizes-error")
    page.fill("#sizes", "128")
    page.fill("#questions", "Why?\n> a quote found nowhere")
    page.click("#run")
    page.wait_for_selector("#questions-error:not(:empty)")
    assert "no answer was found" in page.inner_text("#questions-error")


FIGURES = ("recall", "precision", "iou", "hit_rate", "mrr", "precision_omega")


def test_minilm_in_the_worker_is_within_half_a_point_of_the_cli(page: Page, tmp_path: Path):
    lines = (SAMPLE_QUESTIONS).read_text(encoding="utf-8").splitlines(keepends=True)
    questions = tmp_path / "questions.csv"
    questions.write_text(lines[0] + "".join(line for line in lines[1:] if line.rstrip().endswith(",state_of_the_union")),
                         encoding="utf-8")
    tool = EvaluatePage(page).open()
    tool.choose_documents([SAMPLE / "state_of_the_union.md"])
    page.set_input_files("#questions-file", files=[questions])
    page.wait_for_function("() => document.querySelector('#questions').value.length > 1000")
    tool.set_ways("paragraphs")
    page.fill("#sizes", "512")
    tool.set_retrievers("bm25", "minilm", "hybrid")
    assert "MB" in page.inner_text("#model-note")
    page.evaluate("""() => {
        window.runTexts = [];
        const status = document.querySelector('#run-status');
        new MutationObserver(() => window.runTexts.push(status.textContent))
            .observe(status, {childList: true, characterData: true, subtree: true});
    }""")
    tool.evaluate()
    said = page.evaluate("window.runTexts")
    assert any(text.startswith("Embedding paragraphs 512/64:") for text in said), said
    ours = json.loads(tool.download("#download-json"))
    cli = json.loads(cli_json(SAMPLE, ["state_of_the_union.md"], questions, "--by", "paragraphs", "--size", "512",
                              "--retriever", "bm25,minilm,hybrid"))
    assert [row["retriever"] for row in ours["results"]] == ["bm25", "minilm", "hybrid"]
    assert ours["results"][0] == cli["results"][0]  # BM25: the same row
    for mine, theirs in zip(ours["results"][1:], cli["results"][1:], strict=True):
        for figure in FIGURES:
            assert abs(mine[figure] - theirs[figure]) <= 0.005, (mine["retriever"], figure, mine[figure], theirs[figure])
        assert (mine["chunks"], mine["tokens_to_embed"], mine["chunks_past_model"]) == (
            theirs["chunks"], theirs["tokens_to_embed"], theirs["chunks_past_model"])
    assert [s.split(",")[0] for s in tool.sentences()] == ["With bm25", "With minilm", "With hybrid"]


def test_the_model_works_offline_after_one_visit_that_chose_it(browser, dist: Path, watch):
    with own_server(dist) as (server, base_url):
        context = browser.new_context(base_url=base_url)
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
            page.on("request", lambda r: watch.foreign.append(r.url)
                    if not r.url.startswith((base_url, "blob:", "data:")) else None)
            tool = EvaluatePage(page).open()
            page.wait_for_selector('#offline-status[data-state="ready"]')

            def run_model() -> None:
                page.fill("#text", GUIDE)
                page.wait_for_function("() => document.querySelector('#drop').dataset.documents === '1'")
                page.fill("#questions", GUIDE_QUESTIONS)
                page.fill("#sizes", "32")
                tool.set_ways("headings")
                tool.set_retrievers("minilm")
                tool.evaluate()
                assert [row[1] for row in tool.rows()] == ["minilm"]

            run_model()
            page.wait_for_selector('#model-note[data-kept="4"]', state="attached")
            server.shutdown()
            server.server_close()

            page.reload()
            tool.open()
            # Served by the service worker, the page is cross-origin isolated: the model may use every core.
            assert page.evaluate("() => crossOriginIsolated") is True
            run_model()
        finally:
            context.close()
    watch.check()
