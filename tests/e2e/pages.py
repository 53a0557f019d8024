"""Page objects: what a person sees and does on the calculator page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

BOOT_TIMEOUT_MS = 300_000  # a hang guard (conftest.BOOT_TIMEOUT_MS), never a budget


GROUPED = re.compile(r"\d{1,3}(?:,\d{3})*")


def number(text: str) -> int:
    """A whole number as the English page shows it ("11,408"); anything else is an error."""
    assert GROUPED.fullmatch(text.strip()), f"not a number as the page writes one: {text!r}"
    return int(text.replace(",", ""))



def paste_large(page: Page, text: str) -> None:
    """Paste through the clipboard event, as a person's Ctrl+V does."""
    page.evaluate(
        """text => {
            const data = new DataTransfer();
            data.setData('text/plain', text);
            document.querySelector('#text').dispatchEvent(
                new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
        }""",
        text,
    )

def wait_language(page: Page, lang: str) -> None:
    """Wait until the page has loaded ``lang``'s catalog and translated itself."""
    page.wait_for_selector(f'html[data-language="{lang}"]', state="attached")


@dataclass
class ToolPage:
    """What both tools share: opening, readiness, the document panel."""

    page: Page
    path = "./"
    default_mime = "text/plain"

    def open(self, wait_ready: bool = True, query: str = ""):
        self.page.goto(f"{self.path}{query}")
        if wait_ready:
            self.wait_ready()
        return self

    def wait_ready(self) -> None:
        self.page.wait_for_selector('#core-status[data-state="ready"]', timeout=BOOT_TIMEOUT_MS)

    def record_status(self) -> None:
        """From now on, keep every text the status line (``#text-status``) shows; see :meth:`statuses`."""
        self.page.evaluate("""() => {
            const status = document.querySelector('#text-status');
            window.statusTexts = [];
            new MutationObserver(() => window.statusTexts.push(status.textContent))
                .observe(status, {childList: true, characterData: true, subtree: true});
        }""")

    def statuses(self) -> list[str]:
        """The texts the status line has shown since :meth:`record_status`, in order."""
        return self.page.evaluate("window.statusTexts")

    def finished(self) -> int:
        """How many document requests the page has finished (successfully or not)."""
        return int(self.page.get_attribute("#drop", "data-analyses") or 0)

    def after_request(self, action) -> None:
        """Do ``action`` and wait until the page has finished the request it started."""
        before = self.finished()
        action()
        self.page.wait_for_function(
            "n => Number(document.querySelector('#drop').dataset.analyses ?? 0) > n", arg=before
        )

    def choose_file(self, name: str, data: bytes, mime: str | None = None) -> None:
        file = {"name": name, "mimeType": mime or self.default_mime, "buffer": data}
        self.after_request(lambda: self.page.set_input_files("#file", files=[file]))

    def choose_files(self, files: list[Path] | list[tuple[str, bytes]]) -> None:
        """Choose several files at once in "Choose files…" (paths, or names with their bytes)
        and wait for the whole run: the page counts a run once, at its end."""
        chosen = [file if isinstance(file, Path) else
                  {"name": file[0], "mimeType": "application/octet-stream", "buffer": file[1]} for file in files]
        self.after_request(lambda: self.page.set_input_files("#file", files=chosen))

    def choose_folder(self, folder: Path) -> None:
        """Choose a folder in "Choose a folder…" (its files, subfolders too) and wait for the run."""
        self.after_request(lambda: self.page.set_input_files("#folder", files=folder))

    def drop_files(self, files: dict[str, bytes]) -> None:
        """Drop loose files on the panel, as dragged from the desktop, and wait for the run."""
        self.after_request(lambda: self.page.evaluate(
            """files => {
                const transfer = new DataTransfer();
                for (const [name, bytes] of files) transfer.items.add(new File([new Uint8Array(bytes)], name));
                document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
            }""",
            [[name, list(data)] for name, data in files.items()],
        ))

    def text_status(self) -> str:
        """The document panel's status line."""
        return self.page.inner_text("#text-status")

    def rows(self, selector: str) -> list[list[str]]:
        """The cells of each table row ``selector`` matches, as shown."""
        return self.page.eval_on_selector_all(selector, "rows => rows.map(r => [...r.cells].map(c => c.textContent))")

    def download(self, button: str) -> tuple[str, bytes]:
        """Click a download button: the suggested file name and the bytes saved."""
        with self.page.expect_download() as info:
            self.page.click(button)
        return info.value.suggested_filename, Path(info.value.path()).read_bytes()

    def drop_file(self, name: str, data: bytes) -> None:
        """Drop one file on the document panel, as a person drags it from the desktop."""
        self.after_request(lambda: self.page.evaluate(
            """([name, bytes]) => {
                const transfer = new DataTransfer();
                transfer.items.add(new File([new Uint8Array(bytes)], name));
                document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
            }""",
            [name, list(data)],
        ))

    def errors(self) -> dict[str, str]:
        """Every error message the page shows now, by the id of its slot."""
        return self.page.eval_on_selector_all(
            ".error[data-for]",
            "slots => Object.fromEntries(slots.filter(s => s.textContent.trim()).map(s => [s.id, s.textContent]))",
        )

    def notes(self) -> list[str]:
        return self.page.eval_on_selector_all("#text-notes li", "items => items.map(i => i.textContent)")


class CalculatorPage(ToolPage):
    def wait_core_numbers(self) -> None:
        """Wait until the numbers shown were computed by the Python core."""
        self.page.wait_for_selector('#results[data-source="core"]')

    def set(self, field: str, value: str) -> None:
        self.page.fill(f"#{field}", value)

    def unit(self, unit: str) -> None:
        self.page.check(f'input[name="unit"][value="{unit}"]')

    def result(self, name: str) -> str:
        return self.page.inner_text(f"#r-{name}")

    def results(self) -> dict[str, str]:
        return {name: self.result(name) for name in ("chunks", "total", "repeated", "extra", "cost")}

    def error(self, slot: str) -> str:
        return self.page.inner_text(f"#{slot}-error") if self.page.is_visible(f"#{slot}-error") else ""

    def paste(self, text: str) -> None:
        self.after_request(lambda: self.page.fill("#text", text))

    def token_count(self) -> int:
        return int(self.page.inner_text("#t-tokens").split(" ")[0].replace(",", ""))

    def choose_model(self, model: str, recount: bool = False) -> None:
        """Choose ``model`` in #model; ``recount``: a text is there and the model's tokenizer is
        another, so wait until the page has counted it again."""
        if recount:
            self.after_request(lambda: self.page.select_option("#model", model))
        else:
            self.page.select_option("#model", model)
        self.wait_core_numbers()

    def shown(self, selector: str) -> str:
        """The text of ``selector`` when it is visible, None when it is hidden."""
        return self.page.inner_text(selector) if self.page.is_visible(selector) else None

    def windows(self) -> list[dict[str, str]]:
        return self.page.eval_on_selector_all(
            "#windows li",
            """items => items.map(li => ({
                index: Number(li.dataset.index),
                tokens: Number(li.dataset.tokens),
                head: li.querySelector('mark.overlap')?.textContent ?? '',
                text: li.querySelector('.window-text').textContent,
                meta: li.querySelector('.meta').textContent,
            }))""",
        )


class SplitterPage(ToolPage):
    path = "./splitter.html"
    default_mime = "text/markdown"

    def set(self, field: str, value: str) -> None:
        self.after_request(lambda: self.page.fill(f"#{field}", value))

    def select(self, field: str, value: str) -> None:
        self.after_request(lambda: self.page.select_option(f"#{field}", value))

    def stat(self, name: str) -> str:
        return self.page.inner_text(f"#s-{name}")

    def cards(self) -> list[dict]:
        return self.page.eval_on_selector_all(
            "#chunk-list .chunk-card",
            """cards => cards.map(c => ({
                id: Number(c.dataset.id),
                meta: c.querySelector('.meta').textContent,
                head: c.querySelector('mark.overlap')?.textContent ?? '',
                text: c.querySelector('.window-text').textContent,
            }))""",
        )

    def cards_loaded(self) -> list[dict]:
        """The cards drawn now whose chunk has come (not those still loading), with their token count."""
        return self.page.eval_on_selector_all(
            "#chunk-list .chunk-card:not([data-pending])",
            """cards => cards.map(c => ({
                id: Number(c.dataset.id),
                meta: c.querySelector('.meta').textContent,
                head: c.querySelector('mark.overlap')?.textContent ?? '',
                text: c.querySelector('.window-text').textContent,
            }))""",
        )

    def all_cards(self) -> list[dict]:
        """Every chunk's card, scrolled into view in turn (the list draws only what is in view);
        ``tokens`` is the count its line shows."""
        total = int(self.stat("chunks").replace(",", ""))
        seen: dict[int, dict] = {}
        while len(seen) < total:
            wanted = min(set(range(total)) - seen.keys())
            self.page.eval_on_selector(
                "#chunk-list",
                "(list, [i, n]) => { list.scrollTop = i * document.querySelector('#chunk-spacer').offsetHeight / n; }",
                [wanted, total],
            )
            self.page.wait_for_selector(f'#chunk-list .chunk-card[data-id="{wanted}"]:not([data-pending])')
            for card in self.cards_loaded():
                card["tokens"] = int(re.search(r"· ([\d,]+) tokens?", card["meta"]).group(1).replace(",", ""))
                seen[card["id"]] = card
        return [seen[i] for i in range(total)]

    def download_text(self, button: str, folder: Path) -> tuple[str, str]:
        """Click a download button; the file's suggested name and its text (UTF-8)."""
        with self.page.expect_download() as info:
            self.page.click(f"#{button}")
        saved = folder / info.value.suggested_filename
        info.value.save_as(saved)
        return info.value.suggested_filename, saved.read_text(encoding="utf-8")

    def extracted_text(self) -> str:
        """Open "The text read from the file" and return what it shows."""
        self.page.click("#extracted summary")
        self.page.wait_for_function("() => document.querySelector('#extracted-text').textContent.length > 0")
        return self.page.text_content("#extracted-text")

    def compare(self) -> list[list[str]]:
        """Open the comparison, run it, and return its rows as the cells' texts (method first)."""
        if not self.page.eval_on_selector("#compare", "d => d.open"):
            self.page.click("#compare summary")
        before = self.text_status()
        self.page.click("#compare-run")  # says "Comparing…" at once, until the core answers
        self.page.wait_for_function("() => document.querySelector('#compare-status').textContent !== 'Comparing…'")
        assert self.page.inner_text("#compare-status") == "", self.page.inner_text("#compare-status")
        # The comparison's progress went to the document's status line; it says again what it said.
        assert (self.text_status(), self.page.is_visible("#cancel")) == (before, False)
        assert self.page.is_visible("#compare-table")
        return self.page.eval_on_selector_all(
            "#compare-body tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
