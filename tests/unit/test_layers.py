"""The house: the core's imports run one way, down the flow, with no circle (issue 31).

Every import counts, an import inside a function included (an arrow drawn late is still an
arrow). The rooms of ``pycore/ragchunk`` are listed in the order of the flow; a module may
import from its own room or from a room below it, never from one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "pycore" / "ragchunk"

# Bottom first. A room is a top-level module or package of ragchunk.
LAYERS: list[set[str]] = [
    {"errors"},  # every error names the field at fault and the fix
    {"steps", "settings"},  # long work as steps; defaults, limits and the checks against them
    {"text", "tables"},  # text -> its structure; the tokenizers' tables
    {"tokenizers", "readers", "models"},  # exact tokens; bytes -> text; the embedding models
    {"calculator", "llms"},  # fixed-window arithmetic; LLM windows shared by a request (issue 35)
    {"packing"},  # sizing, packer, overlap, context, windows, statistics
    {"options"},  # the settings of a split, validated once
    {"splitter"},  # the one algorithm
    {"results"},  # records and the side-by-side comparison
    {"corpus"},  # many documents, on several cores
    {"evaluate"},  # settings tried on a person's own questions
    {"integrations"},  # LangChain, LlamaIndex, Arrow, Ray, Spark
    {"api", "cli"},  # the front doors: the page's worker and the command line
    {"__init__", "__main__"},  # the library's own front: ragchunk.split, ragchunk.plan ...
]
# 20 after issue 31; the LLM catalog and context planner (issue 35) is one room more.
MAX_ROOMS = 21


def module_names() -> dict[str, Path]:
    names = {}
    for path in CORE.rglob("*.py"):
        parts = path.relative_to(CORE).with_suffix("").parts
        name = ".".join(("ragchunk", *parts)).removesuffix(".__init__")
        names[name] = path
    return names


def imports() -> dict[str, set[str]]:
    """Module -> the ragchunk modules it imports (``from . import x`` names the submodule x)."""
    names = module_names()
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found = sub if sub in names else target
                    if found in names and found != name:
                        graph[name].add(found)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in names and alias.name != name)
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def layer(module: str) -> int:
    name = room(module)
    return next(index for index, rooms in enumerate(LAYERS) if name in rooms)


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of more than one module (Tarjan), iteratively."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def test_the_check_finds_a_circle_and_an_arrow_up():
    """The checks below can fail: a made-up graph with a circle and an upward arrow is caught."""
    graph = {"ragchunk.text.markdown": {"ragchunk.splitter"}, "ragchunk.splitter": {"ragchunk.text.markdown"}}
    assert circles(graph) == [["ragchunk.splitter", "ragchunk.text.markdown"]]
    assert layer("ragchunk.splitter") > layer("ragchunk.text.markdown")


def test_no_import_circle():
    assert circles(imports()) == []


def test_every_room_is_placed_and_every_import_runs_down_the_flow():
    graph = imports()
    placed = set().union(*LAYERS)
    assert {room(module) for module in graph} <= placed
    upward = sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets
                    if room(module) != room(target) and layer(target) >= layer(module))
    assert upward == []


def test_at_most_twenty_one_modules_at_the_top():
    top = sorted(path.name for path in CORE.iterdir()
                 if (path.suffix == ".py") or (path.is_dir() and (path / "__init__.py").exists()))
    assert len(top) <= MAX_ROOMS, top


@pytest.mark.parametrize("name", ["split", "plan", "windows", "sentences", "get_tokenizer", "split_corpus", "plan_context", "get_llm"])
def test_the_public_imports_keep_working(name):
    import ragchunk

    assert callable(getattr(ragchunk, name))


def test_readers_and_integrations_keep_their_public_paths():
    from ragchunk.integrations import arrow, langchain, llama_index
    from ragchunk.readers import read_document

    assert read_document(b"# Title\n\nText.", "a.md").text == "# Title\n\nText."
    assert {arrow.__name__, langchain.__name__, llama_index.__name__} == {
        "ragchunk.integrations.arrow", "ragchunk.integrations.langchain", "ragchunk.integrations.llama_index"}
