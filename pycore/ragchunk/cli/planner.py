"""``python -m ragchunk llms`` (the catalog of LLMs) and ``python -m ragchunk context`` (the context planner).

``context`` takes each part of a request as a file (its text is counted) or a number of
tokens, prints how the model's window is shared, and exits 2 naming the part that passes
the window when the request does not fit (after printing the budget, so the overflow is
seen). ``--max-k`` / ``--max-size`` print only the two inversions, one number a line.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import TextIO

from ..errors import RagchunkError
from ..llms import LLMS, ContextPlan, get_llm, llm_catalog, plan_context
from .commands import DocumentError
from .files import cannot_read
from .parser import UsageError

__all__ = ["run_context", "run_llms"]

WHOLE = re.compile(r"[+-]?[0-9][0-9,_]*")
NUMBER = re.compile(r"[+-]?(?:[0-9][0-9,_]*(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# "8x300", "8 × 300": the classes do not overlap and a run is read once from its start, so a long
# hostile value is read in linear time.
TURNS = re.compile(r"(?<![^x×*\s])([^x×*\s]++)[ \t]*+[x×*][ \t]*+([^x×*\s]++)")
# The escapes a template may hold on the command line, where a shell passes "\n" as two characters.
ESCAPES = {"\\n": "\n", "\\t": "\t", "\\\\": "\\"}
ESCAPE = re.compile(r"\\[nt\\]")


def run_llms(args: argparse.Namespace, out: TextIO) -> int:
    if args.json:
        print(json.dumps(llm_catalog(), ensure_ascii=False, indent=2), file=out)
        return 0
    print(f"{'llm':<18}{'window':>11}{'answer':>9}{'$ in/M':>8}{'$ out/M':>9}  {'checked':<9}counted", file=out)
    for llm in LLMS:
        answer = f"{llm.max_output:,}" if llm.max_output is not None else "window"
        price_in = f"{llm.input_price:.2f}" if llm.input_price is not None else "open"
        price_out = f"{llm.output_price:.2f}" if llm.output_price is not None else "open"
        counted = llm.tokenizer if llm.exact else f"estimate: {llm.reference} × {llm.ratio:g}"
        flagged = f" (not verified: {', '.join(llm.unverified)})" if llm.unverified else ""
        print(f"{llm.id:<18}{llm.window:>11,}{answer:>9}{price_in:>8}{price_out:>9}  {llm.checked:<9}{counted}{flagged}",
              file=out)
    print("answer: the largest answer the model writes; prices in US dollars per million tokens, as published in the"
          " month checked; where each fact comes from: llms --json (source)", file=out)
    return 0


def _number(flag: str, raw: str, whole: bool = True) -> int | float:
    text = raw.strip()
    if whole and WHOLE.fullmatch(text):
        return int(text.replace(",", "").replace("_", ""))
    if NUMBER.fullmatch(text):
        value = float(text.replace(",", "").replace("_", ""))
        return int(value) if whole and value.is_integer() else value
    kind = "a whole number of tokens, e.g. 512" if whole else "a number, e.g. 1.2"
    raise UsageError(f"{flag} ({raw}) is not a number: enter {kind}")


def _text_or_tokens(flag: str, raw: str | None) -> str | int:
    """A part given as FILE (its text) or N (tokens): a path that exists is read, a number is tokens."""
    if raw is None:
        return 0
    path = Path(raw)
    if path.is_file():
        try:
            return path.read_bytes().decode("utf-8")
        except OSError as err:
            raise DocumentError(RagchunkError(flag.lstrip("-"), cannot_read(raw, err))) from None
        except UnicodeDecodeError:
            raise DocumentError(RagchunkError(flag.lstrip("-"), f"{raw} is not UTF-8 text: save it as UTF-8")) from None
    if NUMBER.fullmatch(raw.strip()):
        return _number(flag, raw)
    raise UsageError(f"{flag} ({raw}) is neither a file nor a number of tokens: give the file of the text, or its"
                     " length in tokens")


def _history(raw: str | None) -> str | int | tuple[int, int]:
    if raw is not None and not Path(raw).is_file() and (turns := TURNS.fullmatch(raw.strip())):
        return (_number("--history", turns.group(1)), _number("--history", turns.group(2)))
    return _text_or_tokens("--history", raw)


def _chunks(raw: str | None) -> tuple[int, int]:
    if raw is None:
        return 0, 0
    shape = TURNS.fullmatch(raw.strip())
    if shape is None:
        raise UsageError(f"--chunks ({raw}) is not k x size: write it as 5x512 (5 chunks of 512 tokens)")
    return _number("--chunks", shape.group(1)), _number("--chunks", shape.group(2))


def unescape(template: str) -> str:
    r"""The template as typed on the command line, with \n, \t and \\ read as what they stand for.

    >>> unescape(r"Source: {source}\n{text}\n")
    'Source: {source}\n{text}\n'
    """
    return ESCAPE.sub(lambda found: ESCAPES[found.group(0)], template)


def run_context(args: argparse.Namespace, out: TextIO) -> int:
    k, size = _chunks(args.chunks)
    prices = {}
    for name in ("input_price", "output_price"):
        raw = getattr(args, name)
        if raw is not None:
            prices[name] = _number(f"--{name.replace('_', '-')}", raw, whole=False)
    plan = plan_context(
        get_llm(args.llm), system=_text_or_tokens("--system", args.system),
        tools=_text_or_tokens("--tools", args.tools), history=_history(args.history),
        question=_text_or_tokens("--question", args.question), k=k, chunk_tokens=size,
        template=unescape(args.template), source=args.source, answer=_number("--answer", args.answer),
        window=None if args.window is None else _number("--window", args.window),
        ratio=None if args.ratio is None else _number("--ratio", args.ratio, whole=False), **prices)
    if args.max_k or args.max_size:
        for wanted, value in ((args.max_k, plan.max_k), (args.max_size, plan.max_chunk_size)):
            if wanted:
                print("" if value is None else value, file=out)
    elif args.json:
        print(json.dumps(plan.to_json(), ensure_ascii=False), file=out)
    else:
        print(format_context(plan), file=out)
    overflow = plan.overflow()
    if overflow is not None:
        raise overflow
    return 0


def format_context(plan: ContextPlan) -> str:
    """The budget as the CLI prints it: one line a part, what is left, the inversions and the cost."""
    counted = f"exact, {plan.counted_by}" if not plan.estimate else f"≈ estimate: {plan.counted_by} × {plan.ratio:g}"
    answer = f"answers up to {plan.max_output:,}" if plan.max_output is not None else "the answer shares the window"
    lines = [f"{plan.llm}: window {plan.window:,} tokens, {answer} ({counted})"]
    for part in plan.parts:
        mark = "" if part.exact else "≈"
        detail = part.detail or ("reserved" if part.name == "answer" else part.given if part.tokens else "")
        lines.append(f"  {part.name:<19}{mark:>1}{part.tokens:>12,}  {detail}".rstrip())
    share = plan.used / plan.window * 100
    lines.append(f"  {'used':<20}{plan.used:>12,}  {share:.1f}% of the window")
    lines.append(f"  {'left':<20}{plan.left:>12,}" + ("" if plan.fits else f"  over, at the {plan.over}"))
    if plan.max_k is not None:
        lines.append(f"largest k at {plan.chunk_tokens:,} + {plan.template_tokens:,} tokens a chunk: {plan.max_k:,}")
    if plan.max_chunk_size is not None:
        lines.append(f"largest chunk size at k = {plan.k:,}: {plan.max_chunk_size:,} tokens")
    if plan.cost_per_request is not None:
        lines.append(f"cost: ${plan.cost_per_request:,.4f} per request, ${plan.cost_per_1000:,.2f} per 1,000 requests"
                     f" (${plan.input_price:,.2f} in, ${plan.output_price:,.2f} out per million tokens; the answer reserved"
                     " counted as written in full)")
    else:
        lines.append("cost: no price (an open-weight model: give --input-price and --output-price for your host's)")
    lines.extend(f"note: {note}" for note in plan.notes)
    return "\n".join(lines)

