"""Every error a user can meet carries a code the page can say in each of its languages.

The page shows ``error.<code>`` from ``web/i18n/<lang>.json`` with the error's ``params``
(plus ``label``, the field's name); an error without a code, or with a code the catalogs
lack, would be shown in English on a Russian or Hindi page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ragchunk import CharEstimate, RagchunkError, split
from ragchunk.api import Workspace
from ragchunk.tokenizers import check_encoding

CATALOGS = {
    lang: json.loads((Path(__file__).resolve().parents[2] / "web" / "i18n" / f"{lang}.json").read_text("utf-8"))
    for lang in ("en", "ru", "hi")
}
# Filled in by the page itself (web/ui/errors.js errorParams), not by the core.
PAGE_PARAMS = {"label", "what"}


def _raises(call: Callable[[], object]) -> RagchunkError:
    with pytest.raises(RagchunkError) as caught:
        call()
    return caught.value


CASES: dict[str, Callable[[], RagchunkError]] = {
    "emoji wider than the chunk": lambda: _raises(lambda: split("👍🏽" * 3, size=1, overlap=0)),
    "unknown boundary": lambda: _raises(lambda: split("text", by="chapters")),
    "unknown encoding": lambda: _raises(lambda: check_encoding("gpt2_base")),
    "unpaired surrogate": lambda: _raises(lambda: split("a\ud800b", size=8, overlap=0)),
    "size below the estimate's minimum": lambda: _raises(lambda: split("x", size=0, overlap=0, tokenizer=CharEstimate(4))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_error_has_a_code_every_catalog_can_say(case):
    error = CASES[case]().to_json()
    assert error["code"], error
    for lang, catalog in CATALOGS.items():
        template = catalog.get(f"error.{error['code']}")
        assert template, (lang, error["code"])
        missing = set(re.findall(r"\{(\w+)\}", template)) - set(error["params"]) - PAGE_PARAMS
        assert not missing, (lang, error["code"], missing)


def test_english_catalog_says_what_the_core_says():
    # The English template filled with the params is the core's own sentence.
    error = CASES["emoji wider than the chunk"]().to_json()
    template = CATALOGS["en"][f"error.{error['code']}"]
    params = {k: f"{v:,}" if isinstance(v, int) else v for k, v in error["params"].items()}
    assert template.format(**params) == error["message"]


def test_split_errors_reach_the_page_with_their_code():
    workspace = Workspace()
    doc = json.loads(workspace.handle("load", "{}", "👍🏽"))["result"]["doc"]
    reply = json.loads(workspace.handle("split", json.dumps({"doc": doc, "by": "headings", "chunk_size": 1, "overlap": 0})))
    assert reply["ok"] is False
    assert [e["code"] for e in reply["errors"]] == ["chunk_size_below_character"]
    assert reply["errors"][0]["params"]["char"] == "U+1F44D"
