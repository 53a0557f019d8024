"""dist/ragchunk-offline.html: every tool and every asset in one file that works opened from disk."""

from __future__ import annotations

import base64
import gzip
import html
import json
import posixpath
import re
from pathlib import Path

from .common import WEB
from .npm import PYODIDE_FILES
from .policy import OFFLINE_POLICY, sha256_source, with_policy_meta

# The single file that works opened from disk (see write_offline_file); the site links to
# it for download, and the service worker does not precache it (it holds every asset).
OFFLINE_FILE = "ragchunk-offline.html"
# web/offline/ is used only inside the offline file (inlined there), so the site's precache
# leaves it out; its entry module is named by its path in dist/, as every module in the file.
OFFLINE_FOLDER = "offline/"
OFFLINE_ENTRY = "offline/offline.js"
# Relative imports of our ES modules; in the offline file they become bare names: the
# module's path in dist/.
RELATIVE_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}/[^"']+)\2""")


def module_name(importer: str, specifier: str) -> str:
    """The path in dist/ of what the module at ``importer`` imports as ``specifier``.

    ``module_name("ui/errors.js", "../i18n/i18n.js")`` is ``"i18n/i18n.js"``; a
    specifier that leaves dist/ is refused.
    """
    name = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    if name.startswith("../"):
        raise SystemExit(f"build.py: {importer} imports {specifier}, which is outside dist/")
    return name


def module_graph(dist: Path, entries: list[str]) -> dict[str, Path]:
    """Every ES module reachable from ``entries`` (paths in ``dist``) by relative imports, by its path in ``dist``.

    Naming a module by its path keeps apart modules of the same file name in different
    folders (each tool's tool.js).
    """
    modules: dict[str, Path] = {}
    pending = list(entries)
    while pending:
        name = pending.pop()
        if name in modules:
            continue
        path = dist / name
        if not path.is_file():
            raise SystemExit(f"build.py: the module {name} is not in dist/")
        modules[name] = path
        for match in RELATIVE_IMPORT.finditer(path.read_text(encoding="utf-8")):
            target = module_name(name, match.group(3))
            if not (dist / target).is_file():
                raise SystemExit(f"build.py: {name} imports {match.group(3)}, which is not in dist/")
            pending.append(target)
    return modules


def bare_imports(source: str, importer: str) -> str:
    """``from "../spec.js"`` in ui/errors.js -> ``from "spec.js"``: paths in dist/, the names of the offline page's import map."""
    return RELATIVE_IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)}{module_name(importer, m.group(3))}{m.group(2)}", source)


def data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def offline_page_parts(page: str, tools: list[dict]) -> tuple[str, str, str]:
    """(head, title, body) of a rendered page (tool_page), with links rewritten for one file."""
    head = page[page.index("<head>") + len("<head>"):page.index("</head>")]
    title = html.unescape(re.search(r"<title>(.*?)</title>", head, re.DOTALL).group(1))
    body = page[page.index("<body>") + len("<body>"):page.index("</body>")]
    # The tools' own links switch between the tools inside the file.
    for tool in tools:
        body = body.replace(f'href="{tool["href"]}"', f'href="?tool={tool["name"]}"')
    # The file needs no link to download itself.
    download = r'<a id="offline-download"[^>]*>.*?</a>'
    body = re.sub(rf"<p>\s*{download}\s*</p>|{download}", "", body, flags=re.DOTALL)
    return head, title, body


def write_offline_file(dist: Path, spec: dict, pages: dict[str, str]) -> Path:
    """dist/ragchunk-offline.html: every tool and every asset in one file that works from disk.

    Opened from ``file://`` a page can neither start module workers nor import files, so:
    our modules go into an import map as data: URLs, each named by its path in dist/; the
    pages' bodies into templates (offline.js mounts one); the engine's files into base64
    blocks, gzipped where that pays, which offline.js decodes and hands to Pyodide from memory.
    ``pages`` is each tool's page by its name, as tool_page renders it (without the site's policy).
    """
    tools = spec["tools"]
    parts = {tool["name"]: offline_page_parts(pages[tool["name"]], tools) for tool in tools}
    head = parts[tools[0]["name"]][0]
    head = re.sub(r'\s*<link rel="stylesheet"[^>]*>', "", head)
    head = re.sub(r'\s*<script type="module"[^>]*></script>', "", head)
    head = head.replace('href="favicon.svg"', f'href="{data_url("image/svg+xml", (WEB / "favicon.svg").read_bytes())}"')
    style = (WEB / "style.css").read_text(encoding="utf-8")

    # offline.js imports the chosen tool's module by its name in the import map (its path).
    modules = module_graph(dist, [OFFLINE_ENTRY, *(tool["script"] for tool in tools)])
    imports = {name: data_url("text/javascript", bare_imports(path.read_text(encoding="utf-8"), name).encode())
               for name, path in sorted(modules.items())}

    assets = [f"pyodide/{name}" for name in PYODIDE_FILES]
    assets += ["tiktoken/tiktoken_bg.wasm", spec["wheel"].removeprefix("assets/")]
    # Every encoding's ranks, and the licence notices that travel with some of them.
    assets += sorted(f"encoders/{path.name}" for path in (dist / "assets" / "encoders").iterdir())
    # The open models' tables and the readers' wheels: everything the site can fetch, offline.
    assets += sorted(f"tables/{path.name}" for path in (dist / "assets" / "tables").iterdir())
    assets += [path.removeprefix("assets/") for path in spec["reader_wheels"].values()]
    # BM25's stemmer for the evaluation (its embedding model is the site's alone: 37 MB).
    assets += [path.removeprefix("assets/") for path in spec["evaluate"]["wheels"]]
    blocks = []
    for asset in assets:
        data = (dist / "assets" / asset).read_bytes()
        packed = gzip.compress(data, 9, mtime=0)
        # Zips (the stdlib, the wheel) are compressed already; gzip would only add a step.
        use_gzip = len(packed) < len(data) * 0.9
        blocks.append(
            f'<script type="application/octet-stream" id="asset:{html.escape(asset)}"{" data-gzip" if use_gzip else ""}>'
            f"{base64.b64encode(packed if use_gzip else data).decode()}</script>"
        )

    # i18n.js takes the catalogs from globalThis.ragchunkCatalogs when it cannot fetch them.
    catalogs = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted((WEB / "i18n").glob("*.json"))}
    catalogs_json = json.dumps(catalogs, ensure_ascii=False).replace("</", "<\\/")
    templates = "\n".join(
        f'<template id="tool:{tool}" data-title="{html.escape(title)}">{body}</template>'
        for tool, (_, title, body) in parts.items()
    )
    style = f"\n{style}"
    import_map = json.dumps({"imports": imports})
    entry = f'import "{OFFLINE_ENTRY}";'
    document = (
        "<!doctype html>\n"
        '<html lang="en">\n<head>'
        f"{head.rstrip()}\n"
        f"<style>{style}</style>\n"
        f'<script type="importmap">{import_map}</script>\n'
        "</head>\n<body>\n"
        f"{templates}\n"
        f'<script type="application/json" id="ragchunk-catalogs">{catalogs_json}</script>\n'
        + "\n".join(blocks)
        + f'\n<script type="module">{entry}</script>\n'
        "</body>\n</html>\n"
    )
    # The data blocks (type application/json, application/octet-stream) are never run, so
    # they need no hash; the import map and the entry do.
    policy = {
        **OFFLINE_POLICY,
        "script-src": OFFLINE_POLICY["script-src"].format(hashes=f"{sha256_source(import_map)} {sha256_source(entry)}"),
        "style-src": sha256_source(style),
    }
    target = dist / OFFLINE_FILE
    target.write_text(with_policy_meta(document, policy, OFFLINE_FILE), encoding="utf-8")
    return target
