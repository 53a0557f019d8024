"""ragchunk inside other tools: Ray Data, Spark, LangChain and LlamaIndex.

Each adapter only translates: the chunks come from :func:`ragchunk.corpus.split_document`
or from :func:`ragchunk.splitter.split_with` and :func:`ragchunk.results.records.records`, so they
are the chunks, the guarantees and the record schema of the library and the CLI.

=======================================  ==========================  ==============================
module                                   gives                       install
=======================================  ==========================  ==============================
:mod:`ragchunk.integrations.ray`         ``split_dataset``           ``pip install ragchunk[ray]``
:mod:`ragchunk.integrations.spark`       ``split_dataframe``         ``pip install ragchunk[spark]``
:mod:`ragchunk.integrations.langchain`   ``RagchunkTextSplitter``    ``pip install ragchunk[langchain]``
:mod:`ragchunk.integrations.llama_index` ``RagchunkNodeParser``      ``pip install ragchunk[llama-index]``
:mod:`ragchunk.integrations.arrow`       the Arrow schema, Parquet   ``pip install ragchunk[parquet]``
=======================================  ==========================  ==============================

The engines are imported when an adapter is used, never by ``import ragchunk``; a missing
one raises :class:`ragchunk.errors.RagchunkError` naming the extra to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..errors import RagchunkError

__all__ = ["OPTIONAL_METADATA", "lazy_class", "require"]

#: Record fields a chunk has with some settings or some chunks only (model=, context=, a chunk
#: that holds several sections): the LangChain and LlamaIndex adapters keep them in a chunk's
#: metadata when present.
OPTIONAL_METADATA = ("model", "embed_text", "embed_tokens", "sections")


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``, or say which extra of ragchunk brings it.

    >>> require("json", "parquet").__name__
    'json'
    >>> require("no_such_engine", "ray")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: no_such_engine is not installed: pip install "ragchunk[ray]"
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = err.name or module
        if module == missing or module.startswith(missing + "."):
            raise RagchunkError("extra", f'{module} is not installed: pip install "ragchunk[{extra}]"',
                                "extra_missing", {"module": module, "extra": extra}) from None
        raise RagchunkError("extra", f'{module} cannot be imported ({missing} is missing): pip install "ragchunk[{extra}]"',
                            "extra_import_failed", {"module": module, "missing": missing, "extra": extra}) from None


def lazy_class(namespace: dict[str, Any], name: str, make: Callable[[], type]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that makes the class ``name`` with ``make()`` when first asked
    for and keeps it in ``namespace`` (the module's globals): an adapter's class derives from
    its framework's, so importing the adapter (and ragchunk) never needs the framework.

    >>> namespace = {"__name__": "adapter"}
    >>> getattr_ = lazy_class(namespace, "Made", lambda: type("Made", (), {}))
    >>> getattr_("Made") is namespace["Made"]
    True
    >>> getattr_("Other")
    Traceback (most recent call last):
    ...
    AttributeError: module 'adapter' has no attribute 'Other'
    """
    def __getattr__(attribute: str) -> Any:
        if attribute != name:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {attribute!r}")
        made = namespace[name] = make()
        return made

    return __getattr__
