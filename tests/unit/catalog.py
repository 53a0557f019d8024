"""The page's catalogs (web/i18n/*.json) read from Python: render an error or a note the way
web/i18n/i18n.js does in English (numbers grouped with commas, plural by ``count``, an
empty name said as "the file"), so a test can hold the catalog to the core's own message."""

from __future__ import annotations

import json
import re
from pathlib import Path

I18N = Path(__file__).resolve().parents[2] / "web" / "i18n"
LANGS = ("en", "ru", "hi")


def catalog(lang: str = "en") -> dict:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


def _value(value: object) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return "" if value is None else str(value)


def render(key: str, params: dict, lang: str = "en") -> str:
    """The text of ``key`` with ``params`` filled in, as the English page shows it."""
    text = catalog(lang)[key]
    params = dict(params)
    if "name" in params and not params["name"]:
        params["name"] = catalog(lang)["file.unnamed"]
    if isinstance(text, dict):
        text = text["one"] if params.get("count") == 1 and "one" in text else text["other"]
    return re.sub(r"\{(\w+)\}", lambda m: _value(params[m.group(1)]) if m.group(1) in params else m.group(0), text)


def english(error) -> str:
    """A RagchunkError (or a note dict) as the English page says it from its code and params."""
    if isinstance(error, dict):
        return render(f"note.{error['code']}", error["params"])
    return render(f"error.{error.code}", error.params)
