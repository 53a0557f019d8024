"""dist/: the pages, spec.js, the engine's files, the wheels and tables, the service worker and build.json.

The site's values come from the core (its version, ragchunk.api.form_spec and
ragchunk.calculator.plan), imported here; the only other step that imports the core is
tables (ragchunk.tables).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
from pathlib import Path

from .common import DIST, NODE_MODULES, PYCORE, ROOT, WEB, core_on_path, log
from .models import ON_DEMAND, write_model_assets
from .npm import PYODIDE_FILES, TIKTOKEN_FILES, ensure_npm
from .offline import OFFLINE_FILE, OFFLINE_FOLDER, write_offline_file
from .planner_page import planner_values
from .policy import SITE_POLICY, with_policy_meta
from .tables import encoder_tables, notice_path, pypi_archive, prepare_tables, table_catalog, table_path, table_source
from .wheel import build_wheel, site_wheel

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
SAMPLE_SOURCE = ROOT / "tests" / "data" / "chunking-evaluation"
SAMPLE_FILES = ("LICENSE", "corpora/chatlogs.md", "corpora/state_of_the_union.md")
TOOL_REGISTRY = TOOLS / "tools.json"
# The words of the shell come from the English catalog, the page's first paint.
ENGLISH = WEB / "i18n" / "en.json"
# kind -> (package, version, sha256 of its py3-none-any wheel): readers' libraries for the page.
READER_WHEELS = {
    "pdf": ("pypdf", "7.1.1", "04c5680d4b4cfa04ab505b09393fc949860c34a4dad6565284d11a2f5c3ce8b1"),
}


def pyodide_build_id() -> str:
    """The BUILD_ID of the npm Pyodide (in pyodide.mjs): the page keys its boot snapshots by it (core/snapshot.js)."""
    source = (NODE_MODULES / "pyodide" / "pyodide.mjs").read_text(encoding="utf-8")
    found = re.search(r'BUILD_ID:"([0-9a-f]{16,})"', source)
    if not found:
        raise SystemExit("build.py: no BUILD_ID in node_modules/pyodide/pyodide.mjs: has Pyodide changed? see web/core/snapshot.js")
    return found.group(1)


def core_version() -> str:
    core_on_path()
    import ragchunk

    return ragchunk.__version__


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
    core_on_path()
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
    core_on_path()
    from ragchunk.api import form_spec

    spec = form_spec()
    defaults = spec["defaults"]
    planner = spec["planner"]
    result = default_plan()
    values = {f"default.{key}": f"{value:g}" if isinstance(value, float) else str(value)
              for key, value in defaults.items()}
    values.update({
        # A data-i18n-html text: the catalogs' markup is ours.
        "how.example": english_example(),
        # The tools' "same in Python and on the command line" box (web/ui/code-export.html;
        # no .html of web/ ships as a file of its own).
        "code_export": (WEB / "ui" / "code-export.html").read_text(encoding="utf-8").rstrip("\n"),
        "result.chunks": f"{result.chunks:,}",
        "result.total_tokens": f"{result.total_tokens:,}",
        "result.repeated_tokens": f"{result.repeated_tokens:,}",
        "result.repeated_share": f"{result.repeated_share * 100:.1f}",
        "result.extra_share": f"{result.extra_share * 100:.1f}",
        "result.last_chunk_tokens": f"{result.last_chunk_tokens:,}",
        "result.step": f"{result.step:,}",
        # The choices of what a chunk does with small sections, the core's default selected.
        "siblings_options": "\n".join(
            f'      <option value="{value}"{" selected" if value == defaults["siblings"] else ""}'
            f' data-i18n="split.siblings_{value}">{label}</option>'
            for value, label in (("pack", "Pack them together while they fit"), ("apart", "Keep each section to itself"))
        ),
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
        # The LLMs of the planner's choice (tools/planner/tool.js says them in the page's language).
        "llm_options": "\n".join(
            f'<option value="{html.escape(llm["id"])}"{" selected" if llm["id"] == planner["defaults"]["llm"] else ""}>'
            f'{html.escape(llm["name"])} — {llm["window"]:,} tokens{"" if llm["exact"] else " (≈ estimate)"}</option>'
            for llm in planner["llms"]
        ),
        **{f"plan.{key}": html.escape(str(value)) for key, value in planner["defaults"].items()},
        "model_options": "\n".join(
            f'<option value="model:{html.escape(model["id"])}">{html.escape(model["id"])} — {model["tokenizer"]},'
            f' {model["limit"]:,} tokens</option>'
            for model in spec["models"]
        ),
    })
    # The planner's default budget, written as its page says it in English.
    values.update(planner_values())
    return values


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


def copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


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
    # Every BPE encoding's rank table (OpenAI's as npm tiktoken has them), with the licence
    # notice an open LLM's vocabulary must travel with.
    for name, table in encoder_tables().items():
        copy(table_path(table), assets / "encoders" / f"{name}.json")
        if table.notice:
            copy(notice_path(table), assets / "encoders" / table.notice)
    # The whole wheel (pip install dist/python/ragchunk-*.whl) and the page's smaller one.
    full = build_wheel(DIST / "python", core_version())
    wheel = site_wheel(full, DIST / "tmp-wheel")
    wheel_hash = hashlib.sha256(wheel.read_bytes()).hexdigest()[:12]
    # A directory named by content keeps browsers from reusing a stale wheel of the same version.
    wheel_dir = assets / "wheels" / wheel_hash
    wheel_dir.mkdir(parents=True)
    wheel.rename(wheel_dir / wheel.name)
    shutil.rmtree(DIST / "tmp-wheel")

    core_on_path()
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
    spec = {**form_spec(), "version": core_version(), "wheel": f"assets/wheels/{wheel_hash}/{wheel.name}",
            "runtime_build": pyodide_build_id(), "tools": tools, "reader_wheels": reader_wheels,
            "example": worked_example(), "evaluate": write_model_assets(DIST)}
    # Each table's size on the site, so the page counts a family's load in bytes (one table
    # of XLM-R is most of its megabytes); the core knows no files, build.py does.
    for tokenizer in spec["tokenizers"].values():
        for table in tokenizer["tables"]:
            table["bytes"] = (assets / "tables" / table["file"]).stat().st_size
    values = page_values()
    # Rendered once: the site's files and the offline file's templates.
    pages = {tool["name"]: tool_page(tool, tools, values) for tool in tools}
    for tool in tools:
        (DIST / tool["page"]).write_text(with_policy_meta(pages[tool["name"]], SITE_POLICY, tool["page"]), encoding="utf-8")
    for path in sorted(WEB.rglob("*")):
        name = path.relative_to(WEB).as_posix()
        # Pages are made above, the service worker once every other file is in place.
        if path.is_dir() or path.suffix == ".html" or path == TOOL_REGISTRY or name == SERVICE_WORKER:
            continue
        if name == EMBED_SCRIPT:
            (DIST / name).write_text(render(path.read_text(encoding="utf-8"), embed_values(tools)), encoding="utf-8")
        else:
            copy(path, DIST / name)
    # The evaluation's sample: its questions are in web/, its documents and their licence are
    # the repository's one copy of chunking-evaluation (tests/data), not a second one.
    for name in SAMPLE_FILES:
        copy(SAMPLE_SOURCE / name, DIST / "tools" / "evaluate" / "sample" / Path(name).name)
    (DIST / "spec.js").write_text(
        "// Written by build.py from ragchunk.api.form_spec() (defaults and limits of the core),\n"
        "// web/tools/tools.json (the tools), ragchunk.calculator.plan (the worked example) and the\n"
        "// sizes of the tables under assets/tables/.\n"
        f"export const SPEC = {json.dumps(spec, indent=2)};\n",
        encoding="utf-8",
    )
    # The worker protocol (pycore/ragchunk/api/protocol.json) as a module: core/messages.js checks with it.
    protocol = (PYCORE / "ragchunk" / "api" / "protocol.json").read_text(encoding="utf-8").rstrip()
    (DIST / "core" / "protocol.js").write_text(f"export const PROTOCOL = {protocol};\n", encoding="utf-8")
    offline = write_offline_file(DIST, spec, pages)
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
    # The evaluation's model and runtime (ON_DEMAND) are fetched when a person first chooses
    # the model; the service worker keeps them then.
    precache = ["./"] + [
        name for name in manifest["files"]
        if not name.startswith(("python/", OFFLINE_FOLDER, *ON_DEMAND)) and name != OFFLINE_FILE
    ]
    worker = (WEB / SERVICE_WORKER).read_text(encoding="utf-8")
    worker = worker.replace("{{build.hash}}", manifest["hash"]).replace("{{build.precache}}", json.dumps(precache))
    worker = worker.replace("{{build.on_demand}}", json.dumps(list(ON_DEMAND)))
    (DIST / SERVICE_WORKER).write_text(worker, encoding="utf-8")
    manifest["precache"] = precache
    (DIST / "build.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    log(f"built {DIST} ({len(manifest['files'])} files, {sum(manifest['files'].values()):,} bytes, hash {manifest['hash']})")
    log(f"wrote {offline.name} ({offline.stat().st_size:,} bytes)")
    return DIST
