"""The built wheel, installed into a fresh virtualenv, works with the network blocked.

Every table the core needs travels inside the wheel: the CLI counts, previews and splits
without touching the network (a ``sitecustomize`` in the virtualenv makes any socket
connection raise), outside any checkout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIKTOKEN = next(line for line in (ROOT / "tests" / "requirements.txt").read_text().splitlines()
                if line.startswith("tiktoken=="))
NO_NETWORK = '''
import socket

def _refuse(*args, **kwargs):
    raise OSError("network blocked by the ragchunk install test")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
'''
DOCUMENT = "# Install\n\nRun the installer. Then restart the machine.\n\n## Use\n\nOpen the page. Привет, мир!\n"


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory) -> Path:
    """A virtualenv with tiktoken and nothing of the checkout but the wheel; its python."""
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(home)
    python = home / "bin" / "python"
    wheel = next((dist / "python").glob("ragchunk-*-py3-none-any.whl"))
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", TIKTOKEN], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "sitecustomize.py").write_text(NO_NETWORK, encoding="utf-8")
    return python


def run(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # -I: no user site, no PYTHONPATH, no current directory on the path (nothing of the checkout).
    return subprocess.run([python, "-I", "-m", "ragchunk", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)}, timeout=300)


def test_the_network_really_is_blocked(installed, tmp_path):
    probe = subprocess.run([installed, "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9/')"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert probe.returncode != 0 and "network blocked" in probe.stderr


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "p50k_base", "r50k_base", "llama3", "qwen2", "deepseek",
                                      "bert-base-uncased", "xlm-roberta"])
def test_tokens_preview_and_split_need_no_network(installed, tmp_path, encoding):
    sys.path.insert(0, str(ROOT / "pycore"))
    import ragchunk
    import ragchunk.results.records

    document = tmp_path / "doc.md"
    document.write_text(DOCUMENT, encoding="utf-8")
    tokens = run(installed, "tokens", str(document), "--encoding", encoding, "--json", cwd=tmp_path)
    assert tokens.returncode == 0, tokens.stderr
    assert json.loads(tokens.stdout)["tokens"] == ragchunk.get_tokenizer(encoding).count(DOCUMENT)
    preview = run(installed, "preview", str(document), "--size", "8", "--overlap", "2", "--encoding", encoding,
                  "--json", cwd=tmp_path)
    assert preview.returncode == 0, preview.stderr
    assert [json.loads(line)["text"] for line in preview.stdout.splitlines()] == [
        w.text for w in ragchunk.windows(DOCUMENT, 8, 2, ragchunk.get_tokenizer(encoding))][:5]
    split = run(installed, "split", str(document), "--size", "16", "--overlap", "4", "--encoding", encoding,
                cwd=tmp_path)
    assert split.returncode == 0, split.stderr
    assert split.stdout == ragchunk.to_jsonl(ragchunk.split(DOCUMENT, size=16, overlap=4, tokenizer=encoding),
                                             ragchunk.results.records.Document(str(document), DOCUMENT))


@pytest.mark.parametrize(("model", "limit"), [("bge-small-en-v1.5", 512), ("multilingual-e5-small", 512)])
def test_a_models_count_limit_and_split_need_no_network(installed, tmp_path, model, limit):
    sys.path.insert(0, str(ROOT / "pycore"))
    import ragchunk

    document = tmp_path / "doc.md"
    document.write_text(DOCUMENT, encoding="utf-8")
    tokens = run(installed, "tokens", str(document), "--model", model, "--json", cwd=tmp_path)
    assert tokens.returncode == 0, tokens.stderr
    counted = json.loads(tokens.stdout)
    assert counted["model"] == model and counted["limit"] == limit and counted["special_tokens"] == 2
    assert counted["tokens"] == ragchunk.get_tokenizer(ragchunk.get_model(model).tokenizer).count(DOCUMENT)
    refused = run(installed, "split", str(document), "--model", model, "--size", str(limit), cwd=tmp_path)
    assert refused.returncode == 2 and model in refused.stderr and "Traceback" not in refused.stderr
    split = run(installed, "split", str(document), "--model", model, "--size", "16", "--overlap", "4", cwd=tmp_path)
    assert split.returncode == 0, split.stderr
    assert [json.loads(line)["text"] for line in split.stdout.splitlines()] == [
        c.text for c in ragchunk.split(DOCUMENT, size=16, overlap=4, model=model).chunks]


@pytest.mark.parametrize("table", ["tiktoken-cl100k_base", "bert-uncased-vocab", "xlmr-automaton"])
def test_the_installed_package_reads_its_tables_from_itself(installed, tmp_path, table):
    where = subprocess.run([installed, "-I", "-c", "import ragchunk, ragchunk.tables as t; print(ragchunk.__file__);"
                            f"print(len(t.read({table!r})))"], capture_output=True, text=True, cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    location, size = where.stdout.split()
    assert "site-packages" in location and str(ROOT) not in location
    assert int(size) > 100_000


def test_a_damaged_table_is_one_line_naming_the_file_and_the_fix(installed, tmp_path):
    site = subprocess.run([installed, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    table = Path(site) / "ragchunk" / "tables" / "data" / "r50k_base.json"
    original = table.read_bytes()
    document = tmp_path / "doc.md"
    document.write_text(DOCUMENT, encoding="utf-8")
    try:
        table.write_bytes(original[:-10])
        damaged = run(installed, "tokens", str(document), "--encoding", "r50k_base", cwd=tmp_path)
        table.unlink()
        missing = run(installed, "tokens", str(document), "--encoding", "r50k_base", cwd=tmp_path)
    finally:
        table.write_bytes(original)
    for result, what in ((damaged, "is not the pinned file"), (missing, "is missing from the installed ragchunk")):
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert result.stderr.startswith("ragchunk: error: --encoding: the table r50k_base.json ")
        assert what in result.stderr and "reinstall ragchunk" in result.stderr
