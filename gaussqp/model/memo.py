"""Quantities computed once per problem object: a function of the data only, asked by several certificates, routes
and checks of one solve, kept while the problem lives.

A :class:`~gaussqp.model.problem.ContactProblem` does not change after construction, so what is derived from it
alone can be kept with it; the memo holds problems weakly, so a problem and what was derived from it go together.
What is kept is shared by every later reader, who must not change it (the Delassus elimination, the sliding
reduction and the certificates' factorizations are read-only arrays).
"""

from __future__ import annotations

import functools
import weakref
from typing import Callable, TypeVar

T = TypeVar("T")


def per_problem(fn: Callable[[object], T]) -> Callable[[object], T]:
    """Decorator: ``fn(problem)`` computed once per problem object, held weakly (``WeakKeyDictionary``). The
    decorated function's memo is its ``memo`` attribute."""
    memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(fn)
    def wrapper(problem):
        hit = memo.get(problem)
        if hit is None:
            hit = memo[problem] = fn(problem)
        return hit

    wrapper.memo = memo
    return wrapper
