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

import numpy as np

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


def per_answer(size: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Decorator: ``fn(problem, *arrays)``, a function of the problem and the *values* of the arrays (an answer
    ``(a, λ_n, λ_t)``), kept for the last ``size`` answers per problem object (held weakly), keyed by the arrays'
    shapes and bytes. One solve measures the same answer several times: the polish before and after, the judge's
    check of the answer it leaves, and the cross-check route's answer when its polish lands on the same point.
    What is kept is shared by every later reader, who must not change it. The memo is the wrapper's ``memo``."""

    def decorate(fn: Callable[..., T]) -> Callable[..., T]:
        memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

        @functools.wraps(fn)
        def wrapper(problem, *arrays):
            xs = [np.asarray(x, dtype=float) for x in arrays]
            key = b"".join([str([x.shape for x in xs]).encode(), *(x.tobytes() for x in xs)])
            kept = memo.get(problem)
            if kept is not None:
                for k, v in kept:
                    if k == key:
                        return v
            out = fn(problem, *arrays)
            kept = memo.setdefault(problem, [])
            kept.append((key, out))
            del kept[:-size]
            return out

        wrapper.memo = memo  # type: ignore[attr-defined]
        return wrapper

    return decorate
