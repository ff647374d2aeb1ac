"""Compiled kernels of the judge's per-answer checks, optional: the residuals (tutorial (3)–(5),
:func:`gaussqp.certificates.residuals.kkt_residuals`), the backward error (DESIGN.md §4.3,
:func:`gaussqp.certificates.backward_error.backward_error`) and the errors the forward error's Newton step bounds
(:func:`gaussqp.certificates.instance.forward_error`, its Newton steps whole where every active set's KKT matrix has
full rank) of an answer of a dense problem without sliding contacts.

Every answer a solve returns, and its cross-check route's, passes through the first two, a returned answer through the
third; on a robot's problem (the humanoid: 27 coordinates, 14 contacts) each is ~20–40 NumPy calls on arrays of a few
dozen entries, ~0.1–0.2 ms of call overhead around a few µs of arithmetic. With ``numba`` installed (``pip install
'gaussqp[fast]'``) they run as compiled loops (:mod:`gaussqp.model.compiled_kernels`), the same operations in the
same order, so the same numbers bit for bit and the same decisions. Nothing here decides anything: the NumPy functions
are the reference (``tests/certificates/test_compiled_checks.py``). When they load is
:class:`~gaussqp.linalg.kernel_loading.LoadRule`'s rule with :data:`~gaussqp.settings.CERTIFICATES_COMPILED_AFTER_SECONDS`.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Callable, NamedTuple

import numpy as np

import gaussqp.settings as settings  # the module (its switch is read at each call), imported downwards

from ..linalg.dense import is_plain, plain
from ..linalg.kernel_loading import KernelModule, LoadRule
from ..model.memo import per_problem
from ..model.problem import ContactProblem
from ..model.scales import data_scales

_RULE = LoadRule("CERTIFICATES_COMPILED_AFTER_SECONDS")


def kernels() -> ModuleType | None:
    """The compiled checks (:mod:`gaussqp.model.compiled_kernels`), or None: when
    :data:`~gaussqp.settings.CERTIFICATES_COMPILED` is False or the environment variable ``GAUSSQP_COMPILED`` is ``0``
    (both read at each call), or numba cannot be imported (:func:`unavailable` then says why).

    Returns
    -------
    types.ModuleType or None
    """
    return _MODULE.load()


def loaded() -> bool:
    """Whether this process has loaded (or tried to load) the compiled checks.

    Returns
    -------
    bool
    """
    return _MODULE.tried


def expect_many_calls() -> None:
    """Tell the judge that this process will judge many answers (a :class:`gaussqp.Solver` from its second problem, a
    study): the compiled checks load at their next use."""
    _RULE.expect_many_calls()


def spent_in_numpy(seconds: float) -> None:
    """Count ``seconds`` of wall time spent in a NumPy check the kernels would have run.

    Parameters
    ----------
    seconds : float
    """
    _RULE.spent_in_numpy(seconds)


def kernels_when_worth() -> ModuleType | None:
    """:func:`kernels` when the load rule allows it now, else None (the NumPy checks run and count their time with
    :func:`spent_in_numpy`).

    Returns
    -------
    types.ModuleType or None
    """
    return kernels() if _RULE.worth(loaded()) else None


class DenseArrays(NamedTuple):
    """A problem's arrays as the compiled checks take them (C-ordered float64, writable copies; index arrays int64),
    with the scales of :func:`gaussqp.model.scales.data_scales`."""

    M: np.ndarray
    F: np.ndarray
    J_n: np.ndarray
    b: np.ndarray
    J_t: np.ndarray
    c: np.ndarray
    normal_row: np.ndarray
    dynamics_row: np.ndarray
    normal_weight: np.ndarray
    tangent_row: np.ndarray
    tangent_weight: np.ndarray  # (m, d - 1)
    force: float
    bilateral: np.ndarray
    unilateral: np.ndarray
    sticking_rows: np.ndarray
    frictionless: np.ndarray
    G: np.ndarray  # the unilateral rows (J_n's rows of ``unilateral``) and their drifts g
    g: np.ndarray
    inequality_row: np.ndarray
    accel: float
    free_accel: float
    E: np.ndarray  # the equality rows (bilateral normals, then sticking tangents) and their drifts e
    e: np.ndarray
    coordinate: np.ndarray
    equality_weight: np.ndarray
    inequality_weight: np.ndarray


def _floats(x) -> np.ndarray:
    """``x`` as a new writable C-ordered float64 array (the one argument type the kernels are compiled for)."""
    return np.array(x, dtype=np.float64, order="C")


@per_problem
def applies(problem: ContactProblem) -> bool:
    """Whether the compiled checks apply to ``problem``: dense, without sliding contacts (their law is checked by the
    NumPy code alone), of size ``n + m·d`` at most :data:`~gaussqp.settings.CERTIFICATES_COMPILED_SIZE_MAX` (above,
    the NumPy calls' cost is small against their arithmetic, and the kernels' copies of the data would weigh), its data
    C-ordered float64 (on another layout the kernels' products would not be NumPy's bit for bit). Once per problem.

    Parameters
    ----------
    problem : ContactProblem

    Returns
    -------
    bool
    """
    if problem.sparse or len(problem.sliding):
        return False
    if problem.n + problem.m * problem.dimension > settings.CERTIFICATES_COMPILED_SIZE_MAX:
        return False
    data = (problem.M, problem.J_n, problem.J_t, problem.F, problem.normal_drift, problem.tangent_drift)
    return all(is_plain(x) for x in data) and problem.J_t.shape[0] == problem.m * (problem.dimension - 1)


@per_problem
def dense_arrays(problem: ContactProblem) -> DenseArrays:
    """The :class:`DenseArrays` of a problem the compiled checks apply to (:func:`applies`). Once per problem.

    Parameters
    ----------
    problem : ContactProblem

    Returns
    -------
    DenseArrays
    """
    d1 = problem.dimension - 1
    sc = data_scales(problem)

    def ints(x) -> np.ndarray:
        return np.array(x, dtype=np.int64)  # a writable copy: one compiled signature

    return DenseArrays(
        plain(problem.M),  # writable copies of the problem's read-only arrays, the same numbers: one compiled signature
        plain(problem.F),
        plain(problem.J_n),
        plain(problem.normal_drift),
        plain(problem.J_t),
        plain(problem.tangent_drift),
        _floats(sc.normal_row),
        _floats(sc.dynamics_row),
        _floats(sc.normal_weight),
        _floats(sc.tangent_row),
        _floats(sc.tangent_weight).reshape(problem.m, d1),
        float(sc.force),
        ints(problem.bilateral),
        ints(problem.unilateral),
        ints(problem.tangent_rows(problem.sticking)),
        ints(problem.frictionless),
        _floats(problem.inequalities[0]).reshape(len(problem.unilateral), problem.n),
        _floats(problem.inequalities[1]),
        _floats(sc.inequality_row),
        float(sc.accel),
        float(sc.free_accel),
        _floats(problem.equalities[0]).reshape(-1, problem.n),
        _floats(problem.equalities[1]),
        _floats(sc.coordinate),
        _floats(sc.equality_weight),
        _floats(sc.inequality_weight),
    )


def answer_arrays(arrays: DenseArrays, a, lam_n, lam_t) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(a, λ_n, λ_t)`` as writable C-ordered float64 vectors (``λ_t`` flat) of the problem's sizes, or None when they
    are not given so (the NumPy code then answers: its product on a strided vector, a reversed or a column view, is
    not the one on a copy).

    Parameters
    ----------
    arrays : DenseArrays
    a, lam_n, lam_t : array_like

    Returns
    -------
    tuple or None
    """
    if not (is_plain(a) and is_plain(lam_n) and is_plain(lam_t)):
        return None
    a, lam_n, lam_t = plain(a), plain(lam_n), plain(lam_t).reshape(-1)
    n, m = arrays.M.shape[0], arrays.J_n.shape[0]
    if a.shape != (n,) or lam_n.shape != (m,) or lam_t.shape != (arrays.J_t.shape[0],):
        return None
    return a, lam_n, lam_t


def _import_kernels() -> ModuleType:
    from ..model import compiled_kernels

    return compiled_kernels


_MODULE = KernelModule(_import_kernels, "the NumPy code of the judge's checks runs", "CERTIFICATES_COMPILED")


def unavailable() -> str | None:
    """Why the compiled checks could not be loaded (the exception's type and message), or None.

    Returns
    -------
    str or None
    """
    return _MODULE.unavailable


def run_check(problem: ContactProblem, a, lam_n, lam_t, numpy_check: Callable, compiled_check: Callable):
    """``compiled_check(kernels, arrays, a, λ_n, λ_t)`` when the compiled checks apply to ``problem`` (:func:`applies`),
    are loaded (:func:`kernels_when_worth`) and the answer is given as they take it (:func:`answer_arrays`), else
    ``numpy_check(problem, a, λ_n, λ_t)`` (its time counted towards the load rule where the kernels apply).

    Parameters
    ----------
    problem : ContactProblem
    a, lam_n, lam_t : array_like
        the answer
    numpy_check, compiled_check : callable
        the NumPy check (the reference) and its compiled form

    Returns
    -------
    object
        what the check returns.
    """
    if not applies(problem):
        return numpy_check(problem, a, lam_n, lam_t)
    fast = kernels_when_worth()
    arrays = dense_arrays(problem) if fast is not None else None
    answer = answer_arrays(arrays, a, lam_n, lam_t) if arrays is not None else None
    if answer is None:
        t0 = time.perf_counter()
        try:
            return numpy_check(problem, a, lam_n, lam_t)
        finally:
            spent_in_numpy(time.perf_counter() - t0)
    return compiled_check(fast, arrays, *answer)


__all__ = [
    "DenseArrays",
    "answer_arrays",
    "applies",
    "dense_arrays",
    "expect_many_calls",
    "kernels",
    "kernels_when_worth",
    "loaded",
    "run_check",
    "spent_in_numpy",
    "unavailable",
]
