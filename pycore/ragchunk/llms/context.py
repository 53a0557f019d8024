"""The context planner: the parts of one request to an LLM counted, then shared out by :func:`.budget.budget`.

Each part is given as text (counted exactly with the model's tokenizer, or estimated, see
:mod:`.catalog`) or as a number of tokens (taken as it is). The retrieved context is k
chunks of a chunk size, each wrapped in a template whose own tokens are counted once and
added to every chunk.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from ..errors import RagchunkError
from ..settings import DEFAULT_CHUNK_SIZE, MAX_PRICE_PER_MILLION
from ..settings.checks import check_price, check_whole
from ..tokenizers import get_tokenizer
from .budget import ANSWER, RETRIEVED, budget
from .catalog import DEFAULT_LLM, LLM, LLMS, get_llm

DEFAULT_ANSWER_TOKENS = 1000
# Large enough for any window sold today, small enough that every sum stays exact in a JS number.
MAX_WINDOW = 100_000_000
MAX_PART_TOKENS = 1_000_000_000
MAX_K = 1_000_000
MAX_RATIO = 100
TEXT_PLACEHOLDER = "{text}"
SOURCE_PLACEHOLDER = "{source}"
DEFAULT_TEMPLATE = "Source: {source}\n{text}\n"
# The request the planner's page starts from (planner.html, through ragchunk.api.form_spec).
PAGE_DEFAULTS: dict[str, object] = {
    "llm": DEFAULT_LLM, "system": 500, "tools": 0, "turns": 4, "turn_tokens": 200, "question": 50, "k": 5,
    "chunk_tokens": DEFAULT_CHUNK_SIZE, "template": DEFAULT_TEMPLATE, "answer": DEFAULT_ANSWER_TOKENS,
}


def planner_spec() -> dict[str, object]:
    """The planner's defaults, its limits and the LLM catalog (each with ``counted_by``) as plain JSON for the page.

    >>> spec = planner_spec()
    >>> spec["defaults"]["llm"], spec["limits"]["window"], spec["llms"][0]["counted_by"]
    ('gpt-4.1', 100000000, 'o200k_base')
    """
    return {
        "defaults": dict(PAGE_DEFAULTS),
        "limits": {"window": MAX_WINDOW, "part_tokens": MAX_PART_TOKENS, "k": MAX_K,
                   "price_per_million": MAX_PRICE_PER_MILLION, "ratio": MAX_RATIO},
        "llms": [{**llm.to_json(), "counted_by": llm.counted_by} for llm in LLMS],
    }


@dataclass(frozen=True, slots=True)
class Part:
    """One part of the request: ``tokens``, and whether they are ``exact`` (counted with the
    model's own tokenizer, or given as a number) or an estimate; ``given`` is "text" or "count"."""

    name: str
    tokens: int
    exact: bool
    given: str
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "tokens": self.tokens, "exact": self.exact, "given": self.given,
                "detail": self.detail}


@dataclass(frozen=True, slots=True)
class ContextPlan:
    """How ``llm``'s window is shared by one request (see :func:`plan_context`)."""

    llm: str
    window: int
    max_output: int | None
    parts: tuple[Part, ...]
    used: int
    left: int
    over: str | None
    k: int
    chunk_tokens: int
    template_tokens: int
    max_k: int | None
    max_chunk_size: int | None
    input_price: float | None
    output_price: float | None
    cost_per_request: float | None
    cost_per_1000: float | None
    counted_by: str
    ratio: float
    estimate: bool
    notes: tuple[str, ...] = field(default=())

    @property
    def fits(self) -> bool:
        return self.over is None

    def overflow(self) -> RagchunkError | None:
        """The error that says which part passes the window and by how much, or None when it fits."""
        if self.over is None:
            return None
        by = -self.left
        return RagchunkError(
            _FIELDS.get(self.over, self.over),
            f"the request does not fit in {self.llm}'s window of {self.window:,} tokens: the {self.over} passes it by"
            f" {by:,} tokens; make it smaller, or choose a model with a larger window",
            "context_over_window", {"part": self.over, "llm": self.llm, "window": self.window, "over_by": by})

    def to_json(self) -> dict[str, object]:
        """The plan as plain JSON (the keys of ``python -m ragchunk context --json``)."""
        return {
            "llm": self.llm,
            "window": self.window,
            "max_output": self.max_output,
            "parts": [part.to_json() for part in self.parts],
            "used": self.used,
            "left": self.left,
            "fits": self.fits,
            "over": self.over,
            "k": self.k,
            "chunk_tokens": self.chunk_tokens,
            "template_tokens": self.template_tokens,
            "max_k": self.max_k,
            "max_chunk_size": self.max_chunk_size,
            "input_price": self.input_price,
            "output_price": self.output_price,
            "cost_per_request": self.cost_per_request,
            "cost_per_1000": self.cost_per_1000,
            "counted_by": self.counted_by,
            "ratio": self.ratio,
            "estimate": self.estimate,
            "notes": list(self.notes),
        }


# The field an error names for each part (the CLI turns it into its flag).
_FIELDS = {"system prompt": "system", "tools": "tools", "history": "history", "question": "question",
           RETRIEVED: "chunks", ANSWER: "answer"}


class _Counter:
    """Counts text for one model: exactly, or as ⌈reference tokens × ratio⌉."""

    def __init__(self, llm: LLM, ratio: float) -> None:
        self.tokenizer = get_tokenizer(llm.counted_by)
        self.exact = llm.exact
        self.ratio = ratio

    def count(self, text: str) -> int:
        counted = self.tokenizer.count(text)
        return counted if self.exact else math.ceil(counted * self.ratio)


def _whole(name: str, label: str, value: object, maximum: int) -> int:
    return check_whole(name, label, value, 0, maximum)


def _text_or_count(counter: _Counter, name: str, label: str, value: str | int) -> Part:
    if isinstance(value, str):
        return Part(label, counter.count(value) if value else 0, counter.exact or not value, "text")
    return Part(label, _whole(name, label, value, MAX_PART_TOKENS), True, "count")


def check_tools(text: str) -> None:
    """Refuse tool definitions that are not JSON, naming the line and column of the fault.

    >>> check_tools('[{"name": "search"}]')
    >>> check_tools('[{"name": "search",}]')
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: tools are not valid JSON at line 1, column 20 (Expecting property name enclosed in double quotes): fix the JSON, or leave the tools out
    """
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        raise RagchunkError(
            "tools", f"tools are not valid JSON at line {err.lineno}, column {err.colno} ({err.msg}): fix the JSON,"
                     " or leave the tools out",
            "tools_not_json", {"line": err.lineno, "column": err.colno, "reason": err.msg}) from None


def _price(name: str, which: str, value: float | None) -> float | None:
    # The shared check, said for this field: "input price per million tokens (-1) must be at least 0 ...".
    try:
        return check_price(value)
    except RagchunkError as err:
        raise RagchunkError(name, err.message.replace("price per million", f"{which} price per million", 1), err.code,
                            err.params) from None


def check_estimate_ratio(ratio: object, reference: str) -> float:
    """A ratio of a model's tokens to ``reference`` tokens: a number above 0, at most 100.

    >>> check_estimate_ratio(1.2, "o200k_base")
    1.2
    >>> check_estimate_ratio(0, "o200k_base")
    Traceback (most recent call last):
    ...
    ragchunk.errors.RagchunkError: ratio (0) must be above 0 and at most 100: give the model's tokens per o200k_base token
    """
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 < ratio <= MAX_RATIO:
        raise RagchunkError("ratio", f"ratio ({ratio}) must be above 0 and at most {MAX_RATIO}: give the model's tokens"
                                     f" per {reference} token", "ratio_out_of_range",
                            {"value": str(ratio), "maximum": MAX_RATIO, "reference": reference})
    return float(ratio)


def _history(counter: _Counter, history: str | int | tuple[int, int]) -> Part:
    if isinstance(history, tuple):
        if len(history) != 2:
            raise RagchunkError("history", f"history ({history!r}) must be (turns, tokens per turn): give two counts",
                                "history_shape", {"value": repr(history)})
        turns = _whole("history", "history turns", history[0], MAX_K)
        each = _whole("history", "tokens per turn", history[1], MAX_PART_TOKENS)
        return Part("history", turns * each, True, "count", f"{turns:,} × {each:,}")
    return _text_or_count(counter, "history", "history", history)


def plan_context(llm: str | LLM = DEFAULT_LLM, *, system: str | int = 0, tools: str | int = 0,
                 history: str | int | tuple[int, int] = 0, question: str | int = 0, k: int = 0,
                 chunk_tokens: int = 0, template: str = "", source: str = "", answer: int = DEFAULT_ANSWER_TOKENS,
                 window: int | None = None, input_price: float | None = None, output_price: float | None = None,
                 ratio: float | None = None) -> ContextPlan:
    """How one request shares ``llm``'s window: each part's tokens, what is left, the largest k
    at this chunk size and the largest chunk size at this k, and the cost per request.

    Text parts (``system``, ``tools``, ``history``, ``question``: a ``str``) are counted with
    the model's tokenizer, or estimated for a model without a public one; numbers are taken
    as tokens; ``history`` may also be (turns, tokens per turn). ``k`` chunks of
    ``chunk_tokens`` each are wrapped in ``template`` (``{text}`` is where the chunk goes,
    ``{source}`` is filled with ``source``), whose tokens are added to each chunk. ``window``
    and the prices default to the model's; ``ratio`` replaces the catalog's estimate ratio.

    >>> plan = plan_context("gpt-4.1", system="You answer from the sources.", history=(8, 300), question=40,
    ...                     k=5, chunk_tokens=512, template="Source: {source}\\n{text}\\n", source="guide.md")
    >>> [(p.name, p.tokens) for p in plan.parts]
    [('system prompt', 6), ('tools', 0), ('history', 2400), ('question', 40), ('retrieved context', 2585), ('answer', 1000)]
    >>> plan.left, plan.max_k, plan.max_chunk_size, round(plan.cost_per_1000, 2)
    (1041545, 2019, 208821, 18.06)

    A request that does not fit is a plan too (``fits`` is False, ``over`` names the part,
    :meth:`ContextPlan.overflow` says it). Raises :class:`RagchunkError` naming the field for
    an unknown model, a negative or too large count, tools that are not JSON (line and
    column), a template without ``{text}``, an answer larger than the window or than the
    model writes.
    """
    model = llm if isinstance(llm, LLM) else get_llm(llm)
    size = model.window if window is None else check_whole("window", "window", window, 1, MAX_WINDOW)
    reserved = _whole("answer", "answer", answer, MAX_PART_TOKENS)
    if reserved > size:
        raise RagchunkError(
            "answer", f"answer ({reserved:,} tokens) is larger than the window ({size:,}): reserve less for the"
                      " answer, or choose a model with a larger window",
            "answer_over_window", {"answer": reserved, "window": size})
    if model.max_output is not None and reserved > model.max_output:
        raise RagchunkError(
            "answer", f"answer ({reserved:,} tokens) is more than {model.id} writes at once ({model.max_output:,}):"
                      f" reserve at most {model.max_output:,}",
            "answer_over_model", {"answer": reserved, "llm": model.id, "maximum": model.max_output})
    used_ratio = model.ratio if ratio is None else check_estimate_ratio(ratio, model.counted_by)
    counter = _Counter(model, used_ratio)
    if isinstance(tools, str) and tools.strip():
        check_tools(tools)
    count = _whole("chunks", "k", k, MAX_K)
    chunk = _whole("chunks", "chunk size", chunk_tokens, MAX_PART_TOKENS)
    if template and TEXT_PLACEHOLDER not in template:
        shown = repr(template[:40])
        raise RagchunkError("template", f"template ({shown}) has no {TEXT_PLACEHOLDER}: put {TEXT_PLACEHOLDER} where each"
                                        " chunk goes", "template_without_text",
                            {"value": shown, "placeholder": TEXT_PLACEHOLDER})
    wrapper = template.replace(TEXT_PLACEHOLDER, "").replace(SOURCE_PLACEHOLDER, source)
    wrap = counter.count(wrapper) if wrapper else 0
    fixed = [_text_or_count(counter, "system", "system prompt", system),
             _text_or_count(counter, "tools", "tools", tools),
             _history(counter, history),
             _text_or_count(counter, "question", "question", question)]
    prices = (_price("input_price", "input", model.input_price if input_price is None else input_price),
              _price("output_price", "output", model.output_price if output_price is None else output_price))
    shared = budget(size, reserved, [(part.name, part.tokens) for part in fixed], count, chunk, wrap, *prices)
    retrieved = Part(RETRIEVED, count * (chunk + wrap), counter.exact or not wrapper, "count",
                     f"{count:,} × ({chunk:,} + {wrap:,})")
    notes = []
    if not model.exact:
        notes.append(f"{model.id} has no tokenizer here: its text is estimated as {model.counted_by} tokens ×"
                     f" {used_ratio:g} ({model.ratio_source if ratio is None else 'your ratio'})")
    if model.notes:
        notes.append(model.notes)
    return ContextPlan(
        llm=model.id, window=size, max_output=model.max_output,
        parts=(*fixed, retrieved, Part(ANSWER, reserved, True, "count")),
        used=shared["used"], left=shared["left"], over=shared["over"], k=count, chunk_tokens=chunk,
        template_tokens=wrap, max_k=shared["max_k"], max_chunk_size=shared["max_chunk_size"],
        input_price=prices[0], output_price=prices[1], cost_per_request=shared["cost_per_request"],
        cost_per_1000=shared["cost_per_1000"], counted_by=model.counted_by, ratio=used_ratio,
        estimate=not model.exact, notes=tuple(notes))
