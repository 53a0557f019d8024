"""Run inside Pyodide by ``buildsteps/bytecode.mjs`` (never by CPython): compile the core's
sources to the bytecode of Pyodide's own Python, so the page imports the core without
compiling it (a sourceless ``.pyc`` in place of each ``.py``, as Pyodide ships its own packages).

``compile_sources`` takes ``{path: source}`` and returns ``{path: pyc bytes}``. Docstrings
are left out (nothing in the core reads one; they were half of the bytes), asserts and line
numbers kept. The header is a timestamp header of zeros: a sourceless file is never
checked against a source.
"""

import ast
import importlib.util
import marshal

_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _without_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None) if isinstance(node, _DOCUMENTED) else None
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body[0] = ast.copy_location(ast.Pass(), body[0]) if len(body) == 1 else None
            node.body = [statement for statement in body if statement is not None]
    return tree


def compile_sources(sources):
    header = importlib.util.MAGIC_NUMBER + bytes(12)
    return {path: header + marshal.dumps(compile(_without_docstrings(ast.parse(source, path)), path, "exec",
                                                 dont_inherit=True))
            for path, source in sources.items()}


def magic():
    return importlib.util.MAGIC_NUMBER.hex()
