"""The evaluation page (issue 34), driven as a person would: the sample, paste, drop,
select-to-answer, cancel, three languages, and the results equal to the CLI's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "web" / "tools" / "evaluate" / "sample"
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
    expected = cli_json(SAMPLE, list(SAMPLE_FILES), SAMPLE / "questions.csv")
    assert tool.download("#download-json").decode("utf-8") == expected
    data = json.loads(expected)
    assert len(tool.rows()) == len(data["results"]) == 12
    # The recommendation, said as the core says it.
    assert tool.sentences() == [data["recommendation"]["bm25"]["sentence"]]
    # The chart: one point per row, the recommended one ringed.
    assert page.locator("#chart svg circle.point[data-setting]").count() == 12
    ringed = page.get_attribute("#chart svg circle.recommended", "data-setting")
    assert ringed == data["recommendation"]["bm25"]["recommended"]
