"""Reproducible benchmark corpora from Markdown documents shipped in installed packages.

No network: the documents are the ``*.md`` files that packages installed on this machine
ship, read in sorted path order from these roots, in this order:

1. ``node_modules`` of the checkout (npm packages of the project),
2. the global ``node_modules`` of the system npm (``/usr/lib/node_modules``),
3. ``/usr/share/doc`` (documentation of Debian packages: Node.js API docs and changelogs),
4. the running Python's site-packages.

Files that are licences, empty, not UTF-8 or larger than ``MAX_FILE`` are skipped. The
Markdown corpus takes whole documents, joined by a blank line, until the target size, and
cuts the last one at a line break. Site-packages comes last so that installing the
optional peers of the benchmark (which ship their own ``.md`` files) does not change the
1 MB and 10 MB corpora as long as the roots before it hold enough text.

The prose corpus takes the paragraphs of the same documents that read like sentences
(no code, tables, lists or headings), shuffles them with a fixed seed and cuts to size.

    python3 bench/corpus.py [--write DIR]    # print sizes and hashes (or write the files)
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261130
MAX_FILE = 2_000_000
MB = 1_000_000
SKIP = re.compile(r"(?i)(^|/)(licen[cs]e|copying|notice|authors|code_of_conduct)[^/]*$")


def source_roots() -> list[Path]:
    """Where documents are read from, in order (missing roots are skipped)."""
    roots = [
        ROOT / "node_modules",
        Path("/usr/lib/node_modules"),
        Path("/usr/share/doc"),
        Path(sysconfig.get_paths()["purelib"]),
    ]
    return [root for root in roots if root.is_dir()]


def documents() -> Iterator[tuple[Path, str]]:
    """``(path, text)`` of every usable Markdown file under :func:`source_roots`."""
    for root in source_roots():
        for path in sorted(root.rglob("*.md")):
            if SKIP.search(path.as_posix()) or not path.is_file():
                continue
            try:
                if path.stat().st_size > MAX_FILE:
                    continue
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            text = text.lstrip("\ufeff").strip()
            if text:
                yield path, text


def markdown_corpus(size: int) -> tuple[str, list[str]]:
    """About ``size`` UTF-8 bytes of real Markdown and the paths it was made from."""
    parts: list[str] = []
    used: list[str] = []
    total = 0
    for path, text in documents():
        need = size - total
        data = text.encode("utf-8")
        if len(data) + 2 > need:
            cut = data[:need].decode("utf-8", "ignore")
            cut = cut[: cut.rfind("\n")] if "\n" in cut else cut
            if cut.strip():
                parts.append(cut)
                used.append(str(path))
            break
        parts.append(text)
        used.append(str(path))
        total += len(data) + 2
    return "\n\n".join(parts) + "\n", used


_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _prose_paragraphs(text: str) -> Iterator[str]:
    fenced = False
    lines: list[str] = []
    for line in [*text.splitlines(), ""]:
        if _FENCE.match(line):
            fenced = not fenced
            lines = []
            continue
        if fenced:
            continue
        if line.strip():
            lines.append(line)
            continue
        paragraph = " ".join(part.strip() for part in lines)
        lines = []
        words = paragraph.split()
        if (
            len(words) >= 12
            and paragraph[:1].isalpha()
            and ". " in paragraph + " "
            and "|" not in paragraph
            and sum(1 for w in words if _WORD.fullmatch(w.strip(".,;:!?\"'()"))) / len(words) > 0.75
        ):
            yield paragraph


def prose_corpus(size: int) -> str:
    """About ``size`` UTF-8 bytes of prose paragraphs, shuffled with a fixed seed."""
    paragraphs: list[str] = []
    total = 0
    for _, text in documents():
        for paragraph in _prose_paragraphs(text):
            paragraphs.append(paragraph)
            total += len(paragraph) + 2
        if total > 3 * size:
            break
    random.Random(SEED).shuffle(paragraphs)
    out: list[str] = []
    total = 0
    for paragraph in paragraphs:
        if total + len(paragraph.encode()) + 2 > size:
            break
        out.append(paragraph)
        total += len(paragraph.encode()) + 2
    return "\n\n".join(out) + "\n"


def fingerprint(text: str) -> str:
    """A short hash that tells whether two runs measured the same text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def corpora(sizes: tuple[int, int] = (MB, 10 * MB), prose: int = MB) -> dict[str, str]:
    """The three corpora of the benchmark: ``markdown-1mb``, ``markdown-10mb``, ``prose-1mb``."""
    small, large = sizes
    return {
        "markdown-1mb": markdown_corpus(small)[0],
        "markdown-10mb": markdown_corpus(large)[0],
        "prose-1mb": prose_corpus(prose),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", metavar="DIR", help="also write each corpus to DIR/<name>.md")
    args = parser.parse_args()
    for name, text in corpora().items():
        print(f"{name:14} {len(text.encode()):>10,} bytes  {len(text):>10,} chars  sha256 {fingerprint(text)}")
        if args.write:
            out = Path(args.write)
            out.mkdir(parents=True, exist_ok=True)
            (out / f"{name}.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
