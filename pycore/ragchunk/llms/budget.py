"""The context planner's formula: how a window is shared, in whole tokens, with no tokenizer.

Small and pure on purpose, so that a JavaScript mirror can follow it line for line (as
``web/core/formula.js`` follows the calculator): every input is a whole number of tokens
or a price, every step is integer arithmetic except the two costs, which are one float
expression each, written in the same order a mirror must use.

For a window W, an answer reserved A, fixed parts F (system prompt, tools, history,
question: their sum), k retrieved chunks of C tokens each and T tokens of template around
each chunk:

- retrieved context R = k × (C + T); used = F + R + A; left = W − used (negative: it
  does not fit, and ``over`` names the first part, in the order of the request, that
  passes the window);
- room for retrieved context = W − F − A; largest k = ⌊room ÷ (C + T)⌋; largest chunk at
  this k = ⌊room ÷ k⌋ − T (neither below 0; the largest chunk is None when k is 0, the
  largest k None when C + T is 0);
- cost per request = ((F + R) × input price + A × output price) ÷ 1,000,000, the answer
  taken as written in full (an upper bound); per 1,000 requests: that × 1,000.

>>> shared = budget(1_047_576, 1000, [("system", 500), ("question", 40)], 5, 512, 8, 2.0, 8.0)
>>> shared["left"], shared["max_k"], shared["max_chunk_size"]
(1043436, 2011, 209199)
>>> shared["cost_per_request"], shared["cost_per_1000"]
(0.01428, 14.28)
>>> budget(8000, 1000, [("system", 6000)], 4, 512, 0, None, None)["over"]
'retrieved context'
"""

from __future__ import annotations

RETRIEVED = "retrieved context"
ANSWER = "answer"


def budget(window: int, answer: int, fixed: list[tuple[str, int]], k: int, chunk_tokens: int, template_tokens: int,
           input_price: float | None, output_price: float | None) -> dict[str, object]:
    """The window shared between ``fixed`` parts (name, tokens), ``k`` chunks and the answer.

    Takes checked whole numbers (see :func:`ragchunk.plan_context`, which checks them);
    returns plain JSON: ``parts`` (name, tokens) in the order of the request, ``used``,
    ``left``, ``over`` (the part that passes the window, or None), ``room`` (tokens left
    for retrieved context), ``max_k``, ``max_chunk_size``, ``input_tokens``,
    ``cost_per_request`` and ``cost_per_1000`` (None without both prices).
    """
    fixed_tokens = sum(tokens for _, tokens in fixed)
    per_chunk = chunk_tokens + template_tokens
    retrieved = k * per_chunk
    parts = [*fixed, (RETRIEVED, retrieved), (ANSWER, answer)]
    over = None
    running = 0
    for name, tokens in parts:
        running += tokens
        if running > window:
            over = name
            break
    used = fixed_tokens + retrieved + answer
    room = window - fixed_tokens - answer
    max_k = None if per_chunk == 0 else max(room, 0) // per_chunk
    max_chunk_size = None if k == 0 else max(max(room, 0) // k - template_tokens, 0)
    input_tokens = fixed_tokens + retrieved
    cost = None
    if input_price is not None and output_price is not None:
        cost = (input_tokens * input_price + answer * output_price) / 1_000_000
    return {
        "parts": [{"name": name, "tokens": tokens} for name, tokens in parts],
        "used": used,
        "left": window - used,
        "over": over,
        "room": room,
        "max_k": max_k,
        "max_chunk_size": max_chunk_size,
        "input_tokens": input_tokens,
        "cost_per_request": cost,
        "cost_per_1000": None if cost is None else cost * 1000,
    }
