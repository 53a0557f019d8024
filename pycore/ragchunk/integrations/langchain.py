"""LangChain: :class:`RagchunkTextSplitter`, a real ``langchain_text_splitters.TextSplitter``.

It cuts with :func:`ragchunk.splitter.split_with` and takes each chunk's fields from
:func:`ragchunk.results.records.records`, so its chunks are those of :func:`ragchunk.split` with
the same settings. ``chunk_size`` and ``chunk_overlap`` (LangChain's names) are
:func:`ragchunk.split`'s ``size`` and ``overlap``, in tokens of ``tokenizer`` (a registry
name, a :class:`ragchunk.CharEstimate`, or any object with ``count(text)``) or of
``model``'s tokenizer; ``by``, ``model``, ``prefix`` and ``context`` are the library's.

>>> from ragchunk.integrations.langchain import RagchunkTextSplitter
>>> splitter = RagchunkTextSplitter(chunk_size=10, chunk_overlap=4, by="sentences")
>>> splitter.split_text("# Setup\\n\\nInstall it. Then run it.\\n\\nDone.")
['# Setup\\n\\nInstall it. Then run it.', 'Then run it.\\n\\nDone.']
>>> from langchain_core.documents import Document
>>> [chunk.metadata for chunk in splitter.split_documents([Document("# A\\n\\nOne. Two.", metadata={"source": "a.md"})])]
... # doctest: +NORMALIZE_WHITESPACE
[{'source': 'a.md', 'heading': 'A', 'heading_path': ['A'], 'start_index': 0, 'tokens': 7, 'overlap_tokens': 0}]

Each chunk's metadata is the document's own metadata, then ``heading``, ``heading_path``,
``start_index`` (code-point offset of the chunk in the document's text, as Python slices),
``tokens`` and ``overlap_tokens`` (the exact counts of the chunk and of the overlap it
repeats from the previous chunk), and with ``model=`` / ``context="headings"`` the
record's ``model``, ``embed_text`` and ``embed_tokens`` (embed ``embed_text`` then), and
``sections`` (the heading path of each section) for a chunk that holds several. The
page content is the chunk's text, a verbatim slice; ``ragchunk.results.records.langchain_json``
writes records of the CLI or the page as LangChain documents.

Needs ``langchain-text-splitters`` (``pip install "ragchunk[langchain]"``), imported when
:class:`RagchunkTextSplitter` is first used.
"""

from __future__ import annotations

import copy
from typing import Any

from ..errors import RagchunkError
from ..packing.context import DEFAULT_CONTEXT
from ..results.records import records
from ..splitter import split_with
from . import OPTIONAL_METADATA, lazy_class, require
from ._options import counter, split_options

# RagchunkTextSplitter is made by __getattr__ below.
__all__ = ["CHUNK_METADATA", "OPTIONAL_METADATA", "RagchunkTextSplitter", "chunk_metadata"]  # noqa: F822

CHUNK_METADATA = ("heading", "heading_path", "start_index", "tokens", "overlap_tokens")


def chunk_metadata(record: dict[str, Any]) -> dict[str, Any]:
    """The LangChain metadata a chunk adds to its document's: :data:`CHUNK_METADATA` from its record,
    then its ``model``, ``embed_text``, ``embed_tokens`` and ``sections`` when it has them.

    >>> from ragchunk import split
    >>> from ragchunk.results.records import records
    >>> chunk_metadata(next(records(split("# A\\n\\nOne.", size=64, overlap=0))))
    {'heading': 'A', 'heading_path': ['A'], 'start_index': 0, 'tokens': 5, 'overlap_tokens': 0}
    """
    metadata = {"heading": record["heading"], "heading_path": list(record["heading_path"]),
                "start_index": record["start"], "tokens": record["tokens"], "overlap_tokens": record["overlap_tokens"]}
    metadata.update((name, record[name]) for name in OPTIONAL_METADATA if name in record)
    return metadata


def _splitter_class() -> type:
    base = require("langchain_text_splitters", "langchain").TextSplitter
    document_type = require("langchain_core.documents", "langchain").Document

    class RagchunkTextSplitter(base):
        """ragchunk's structural splitter as a LangChain ``TextSplitter`` (see the module's docstring).

        Raises :class:`ragchunk.errors.RagchunkError` (a ``ValueError``) for bad settings,
        here, and for a text that cannot be split, when splitting.
        """

        def __init__(self, chunk_size: int | None = None, chunk_overlap: int | None = None, *,
                     by: str = "headings", tokenizer: Any = None, model: str | None = None, prefix: bool = False,
                     context: str = DEFAULT_CONTEXT) -> None:
            options = split_options(by=by, size=chunk_size, overlap=chunk_overlap, tokenizer=tokenizer, model=model,
                                    prefix=prefix, context=context)
            # Chunks are verbatim slices with exact offsets: nothing is stripped or searched for.
            super().__init__(chunk_size=options.size, chunk_overlap=options.overlap, length_function=counter(options),
                             add_start_index=True, strip_whitespace=False)
            self.options = options

        def __getstate__(self) -> dict[str, Any]:
            # The length function holds the built tokenizer; the options rebuild it where unpickled.
            state = dict(self.__dict__)
            del state["_length_function"]
            return state

        def __setstate__(self, state: dict[str, Any]) -> None:
            self.__dict__.update(state)
            self._length_function = counter(self.options)

        def split_text(self, text: str) -> list[str]:
            return [chunk.text for chunk in split_with(text, self.options).chunks]

        def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Any]:
            metadatas = metadatas or [{}] * len(texts)
            documents = []
            for text, metadata in zip(texts, metadatas, strict=True):
                for record in records(split_with(text, self.options)):
                    documents.append(document_type(page_content=record["text"],
                                                   metadata={**copy.deepcopy(metadata), **chunk_metadata(record)}))
            return documents

        @classmethod
        def from_tiktoken_encoder(cls, encoding_name: str = "cl100k_base", model_name: str | None = None,
                                  allowed_special: Any = None, disallowed_special: Any = "all",
                                  **kwargs: Any) -> RagchunkTextSplitter:
            """A splitter counting tokens of ``encoding_name`` (special-token text counts as ordinary text)."""
            if model_name is not None:
                raise RagchunkError("model_name", f"model_name ({model_name}) is not read by ragchunk: pass"
                                                  " encoding_name= (e.g. cl100k_base) instead")
            return cls(tokenizer=encoding_name, **kwargs)

        @classmethod
        def from_huggingface_tokenizer(cls, tokenizer: Any, **kwargs: Any) -> RagchunkTextSplitter:
            """Not available: ragchunk counts with its own exact tokenizers (``tokenizer=``, ``model=``)."""
            raise RagchunkError("tokenizer", "a Hugging Face tokenizer object is not read by ragchunk: pass"
                                             " tokenizer= (a registry name) or model= instead")

    RagchunkTextSplitter.__module__ = __name__
    RagchunkTextSplitter.__qualname__ = "RagchunkTextSplitter"
    return RagchunkTextSplitter


__getattr__ = lazy_class(globals(), "RagchunkTextSplitter", _splitter_class)
