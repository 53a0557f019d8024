"""LlamaIndex: :class:`RagchunkNodeParser`, a real LlamaIndex ``NodeParser``.

It cuts each node's text with :func:`ragchunk.splitter.split_with` and takes each chunk's
fields from :func:`ragchunk.results.records.records`, so its nodes hold the chunks of
:func:`ragchunk.split` with the same settings. ``chunk_size`` and ``chunk_overlap``
(LlamaIndex's names) are :func:`ragchunk.split`'s ``size`` and ``overlap``, in tokens of
``tokenizer`` (a registry name, a :class:`ragchunk.CharEstimate`, or any object with
``count(text)``) or of ``model``'s tokenizer; ``by``, ``model``, ``prefix`` and
``context`` are the library's.

>>> from llama_index.core import Document
>>> from ragchunk.integrations.llama_index import RagchunkNodeParser
>>> parser = RagchunkNodeParser(chunk_size=10, chunk_overlap=4, by="sentences")
>>> nodes = parser.get_nodes_from_documents([Document(text="# Setup\\n\\nInstall it. Then run it.\\n\\nDone.")])
>>> [(n.start_char_idx, n.end_char_idx, n.metadata["heading_path"]) for n in nodes]
[(0, 33, ['Setup']), (21, 40, ['Setup'])]
>>> nodes[1].prev_node.node_id == nodes[0].node_id
True

Every node has ``start_char_idx`` / ``end_char_idx`` (code-point offsets into the parsed
node's text: ``text[start_char_idx:end_char_idx]`` is the node's text, also where the
same words occur twice), the metadata ``heading``, ``heading_path``, ``tokens`` and
``overlap_tokens`` on top of its document's (with ``model=`` / ``context="headings"``
also ``model``, ``embed_text`` and ``embed_tokens``; ``sections`` for a chunk that holds
several), and PREVIOUS / NEXT relationships between
consecutive chunks of one document. These keys are left out of what LlamaIndex
embeds and shows an LLM: ``tokens`` counts the chunk's text alone, and the chunk stays
within ``chunk_size`` only as long as nothing is added to it (the document's own metadata
is embedded unless its keys are in ``excluded_embed_metadata_keys``).

Needs ``llama-index-core`` (``pip install "ragchunk[llama-index]"``), imported when
:class:`RagchunkNodeParser` is first used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..packing.context import DEFAULT_CONTEXT
from ..results.records import records
from ..splitter import split_with
from . import OPTIONAL_METADATA, lazy_class, require
from ._options import split_options

# RagchunkNodeParser is made by __getattr__ below.
__all__ = ["NODE_METADATA", "OPTIONAL_METADATA", "RagchunkNodeParser"]  # noqa: F822

NODE_METADATA = ("heading", "heading_path", "tokens", "overlap_tokens")


def _parser_class() -> type:
    require("llama_index.core", "llama-index")
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.node_utils import build_nodes_from_splits
    from llama_index.core.schema import MetadataMode
    from llama_index.core.utils import get_tqdm_iterable

    class RagchunkNodeParser(NodeParser):
        """ragchunk's structural splitter as a LlamaIndex ``NodeParser`` (see the module's docstring).

        Raises :class:`ragchunk.errors.RagchunkError` (a ``ValueError``) for bad settings,
        when made, and for a text that cannot be split, when parsing.
        """

        chunk_size: int | None = None
        chunk_overlap: int | None = None
        by: str = "headings"
        tokenizer: Any = None
        model: str | None = None
        prefix: bool = False
        context: str = DEFAULT_CONTEXT

        def __init__(self, **data: Any) -> None:
            # Checked before pydantic sees the values, so that a bad one raises RagchunkError
            # itself rather than inside a pydantic ValidationError.
            self._settings(data)
            super().__init__(**data)

        @property
        def options(self) -> Any:
            """The :class:`ragchunk.options.SplitOptions` of the fields as they are now
            (made on each use, so ``model_copy(update=...)`` and assignments count)."""
            return self._settings(self.__dict__)

        @staticmethod
        def _settings(data: dict[str, Any]) -> Any:
            return split_options(by=data.get("by", "headings"), size=data.get("chunk_size"),
                                 overlap=data.get("chunk_overlap"), tokenizer=data.get("tokenizer"),
                                 model=data.get("model"), prefix=data.get("prefix", False),
                                 context=data.get("context", DEFAULT_CONTEXT))

        @classmethod
        def class_name(cls) -> str:
            return "RagchunkNodeParser"

        def _parse_nodes(self, nodes: Sequence[Any], show_progress: bool = False, **kwargs: Any) -> list[Any]:
            made: list[Any] = []
            options = self.options
            for node in get_tqdm_iterable(nodes, show_progress, "Splitting nodes"):
                chunk_records = list(records(split_with(node.get_content(metadata_mode=MetadataMode.NONE),
                                                        options)))
                children = build_nodes_from_splits([r["text"] for r in chunk_records], node, id_func=self.id_func)
                for child, record in zip(children, chunk_records, strict=True):
                    child.start_char_idx = record["start"]
                    child.end_char_idx = record["end"]
                    added = {name: record[name] for name in (*NODE_METADATA, *OPTIONAL_METADATA) if name in record}
                    child.metadata.update(added)
                    # New lists: the nodes share their parent's.
                    child.excluded_embed_metadata_keys = [*child.excluded_embed_metadata_keys, *added]
                    child.excluded_llm_metadata_keys = [*child.excluded_llm_metadata_keys, *added]
                made.extend(children)
            return made

        def _postprocess_parsed_nodes(self, nodes: list[Any], parent_doc_map: dict[str, Any]) -> list[Any]:
            # LlamaIndex looks each node's text up in its document again (str.find from just
            # after the previous node's start), which finds an earlier copy of repeated text;
            # the offsets the split gave are exact, so they are put back.
            spans = [(node.start_char_idx, node.end_char_idx) for node in nodes]
            nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
            for node, (start, end) in zip(nodes, spans, strict=True):
                node.start_char_idx, node.end_char_idx = start, end
            return nodes

    RagchunkNodeParser.__module__ = __name__
    RagchunkNodeParser.__qualname__ = "RagchunkNodeParser"
    return RagchunkNodeParser


__getattr__ = lazy_class(globals(), "RagchunkNodeParser", _parser_class)
