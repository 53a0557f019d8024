"""Long work as generators: each yields a step between two pieces of work and returns its
result, so the worker can report progress and stop between steps; :func:`drive` runs one to
the end for the callers that just want the result.

>>> def work():
...     yield ("counting", 1, 2)
...     yield ("counting", 2, 2)
...     return "done"
>>> seen = []
>>> drive(work(), seen.append), seen
('done', [('counting', 1, 2), ('counting', 2, 2)])
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TypeVar

__all__ = ["drive"]

Step = TypeVar("Step")
Result = TypeVar("Result")


def drive(steps: Generator[Step, None, Result], each: Callable[[Step], object] | None = None) -> Result:
    """Run ``steps`` to the end and return what it returns; ``each(step)`` hears every step."""
    while True:
        try:
            step = next(steps)
        except StopIteration as finished:
            return finished.value
        if each is not None:
            each(step)
