"""LLMs and their windows: the catalog (:mod:`.catalog`), the planner's formula (:mod:`.budget`)
and :func:`plan_context`, which counts the parts of a request and shares the window out.

>>> from ragchunk.llms import get_llm, plan_context
>>> get_llm("gpt-4.1").window
1047576
>>> plan_context("gpt-4.1", system=500, question=40, k=5, chunk_tokens=512).max_k
2043
"""

from __future__ import annotations

from .budget import budget
from .catalog import DEFAULT_LLM, LLM, LLMS, get_llm, llm_catalog
from .context import DEFAULT_ANSWER_TOKENS, ContextPlan, Part, check_tools, plan_context

__all__ = ["DEFAULT_ANSWER_TOKENS", "DEFAULT_LLM", "LLM", "LLMS", "ContextPlan", "Part", "budget", "check_tools",
           "get_llm", "llm_catalog", "plan_context"]
