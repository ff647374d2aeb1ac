"""Compiled kernels of the semismooth Newton method (:mod:`gaussqp.friction.nonsmooth_newton`), optional.

The Newton method's work per iteration on a small dense problem (a robot's 10–50 contacts) is a few dozen NumPy
calls on arrays of a few hundred entries: the map ``φ_ρ`` and its certificate's ``φ_1`` (one product with W, two
cone projections), the blocks of the generalized Jacobian and the Newton matrix
``J = blockdiag(A) + blockdiag(B) W``. Their time is the calls', not the arithmetic's (~2 µs each, ~250 µs an
iteration on the humanoid's 42 unknowns); on a sparse pile of thousands of contacts the maps' NumPy passes over the
blocks cost as much as a sparse triangular solve. With ``numba`` installed (``pip install 'gaussqp[fast]'``) the maps
and the blocks run as compiled loops over the contacts, the same formulas with the same operations in the same order,
so they give the NumPy kernels' numbers bit for bit (and the route the same answers, with or without numba):

- :func:`natural_maps`: ``u = W r + q``, ``s = u + μ‖u_t‖e_n``, ``z = r − ρ s``, ``φ_ρ = r − P_K(z)``,
  ``φ_1 = r − P_K(r − s)`` (Acary, Brémond, Huber 2018, eq. (12); :func:`gaussqp.friction.coulomb_law.project_cone`);
  ``maps_at`` the same after ``u``, for a sparse W whose product is :func:`csr_velocity` (SciPy's ``csr_matvec``
  summation, row by row in storage order: the sparse Newton's maps);
- :func:`jacobian_blocks`: ``P' = ∂P_K(z)`` (:func:`gaussqp.friction.nonsmooth_newton.cone_projection_jacobian`),
  ``D = ∂s/∂u`` (:func:`~gaussqp.friction.nonsmooth_newton.shift_jacobian`), ``A = I − P' + δP'D``, ``B = ρ P'D``,
  ``A₀ = I − P'``;
- :func:`natural_map_unit`: ``φ_1(r, u)`` of given ``r`` and ``u`` (:func:`gaussqp.friction.coulomb_law.natural_map`
  with ρ = 1: the residual the judge recomputes for every mode-free answer); :func:`natural_map_measures`, the same
  with its norms and each contact's velocity change (:func:`~gaussqp.friction.coulomb_law.natural_map_residual`),
  :func:`velocity_changes` (:func:`~gaussqp.friction.coulomb_law.velocity_change`) and :func:`project_cone_blocks`
  (:func:`~gaussqp.friction.coulomb_law.project_cone`), used by those functions once a route has loaded the kernels;
  :func:`block_norms`, F9's per-contact residuals (``coulomb_mixed.residuals``);
- :func:`stick_start`: the dense start "every contact sticks" (``nonsmooth_newton._System.stick_starts``): its
  regularized solve by one LU, the refinement and the acceptance test;
- :func:`carried_blocks`: a ``Solver``'s start across a change of contact set
  (:func:`gaussqp.formulations.coulomb.carried_reaction`, its reference ``carried_blocks_numpy``): the contacts matched
  by their normal rows' cosines, greedy, and each tangential reaction re-expressed in the new tangent rows;
- :func:`mixed_state`, :func:`mixed_dynamics`, :func:`mixed_coulomb_rows`, :func:`mixed_simple_rows`: F9's map
  (:meth:`gaussqp.friction.mixed_law.MixedSystem.evaluate`): the unknowns and velocities, the dynamics rows, the rows
  of the coulomb contacts and of the frictionless (or told sliding) ones with their Jacobian rows;
- :func:`mixed_newton_loop`: F9's Newton stage (``coulomb_mixed._newton``) as one call where those kernels evaluate
  the whole map (:func:`mixed_evaluate`): the least-squares Newton step by LAPACK's ``gelsy`` (:func:`gelsy_lstsq`,
  as ``scipy.linalg.lstsq``), the Levenberg–Marquardt step's ``JᵀJ`` by BLAS's ``syrk`` (:func:`gram`) and its solve by
  ``getrf``/``getrs``, as :func:`gaussqp.linalg.dense.gram` and :func:`~gaussqp.linalg.dense.gesv` call them through
  SciPy (not NumPy's own BLAS and LAPACK, another build that rounds otherwise on some processors), the backtracking, the
  work budget and the history, in the Python loop's order;
- :func:`gauss_seidel_sweeps`: the projected Gauss–Seidel sweeps of the schedule's ``"sweeps"`` start
  (:func:`gaussqp.friction.splitting_start.sweep_start`; its reference
  :func:`~gaussqp.friction.splitting_start.gauss_seidel_sweeps_numpy`), W's rows read in CSR storage order;
- :func:`newton_loop`: the dense Newton method's iterations (``nonsmooth_newton._compiled_iterate``), each
  :func:`newton_iteration`: the Newton matrix ``blockdiag(A) + blockdiag(B) W`` (:func:`newton_matrix`, each block row
  ``B_j W_j`` by BLAS's dgemm, as NumPy's batched product makes it), its step by LAPACK's ``getrf``/``getrs`` called
  through SciPy's Cython bindings (:func:`lu_solve`: the functions ``scipy.linalg.lapack`` calls without numba; numba's
  own ``gesv`` rounds otherwise under several BLAS threads), the backtracking along the Newton and the projected
  steps; then the nonmonotone reference, the best iterate, the stall and cycle tests. A steepest-descent step (when
  neither step descends) is searched by NumPy between two calls. :func:`line_search_csr` is the same backtracking for
  a sparse W (``nonsmooth_newton._compiled_sparse_search``; its step from SuperLU, as without numba). Any other order
  of the sums would, on a problem whose solutions are not unique, let the route return another member of the set than
  without numba.

Nothing here decides anything: the NumPy functions are the reference (``tests/friction/test_compiled_kernels.py``
checks these against them), the route's answer is judged on its recomputed residual either way. Without numba :func:`kernels` is None and the NumPy path runs. The kernels live in
:mod:`gaussqp.friction.compiled_kernels` (module-level functions, imported only here): compiled on first use and
cached on disk by numba (beside the module, else in the user's cache directory; compiled in each process when neither
is writable).
"""

from __future__ import annotations

import os
from functools import lru_cache
from types import ModuleType

import gaussqp.settings as settings  # the module (its switch is read at each call), imported downwards

from ..linalg.dense import plain  # the kernels' one argument type (defined with the linear algebra, shared)
from ..linalg.kernel_loading import LoadRule, load_kernels

_ENVIRON = os.environ


def kernels() -> ModuleType | None:
    """The compiled kernels' module (:mod:`gaussqp.friction.compiled_kernels`: ``natural_maps``, ``maps_at``, ``jacobian_blocks``,
    ``newton_matrix``, ``lu_solve``, ``newton_iteration``, ``newton_loop``, ``line_search_csr``, ``csr_velocity``,
    ``natural_map_unit``, ``natural_map_measures``, ``velocity_changes``, ``block_norms``, ``project_cone_blocks``,
    ``stick_start``, ``carried_blocks``, ``mixed_state``, ``mixed_dynamics``, ``mixed_coulomb_rows``,
    ``mixed_simple_rows``, ``mixed_evaluate``, ``mixed_newton_loop``, ``gelsy_lstsq``, ``gram``,
    ``gauss_seidel_sweeps``), or
    None: when :data:`~gaussqp.settings.COULOMB_NN_COMPILED` is False or the environment variable ``GAUSSQP_COMPILED``
    is ``0`` (both read at each call), or
    numba cannot be imported (not installed, or broken: :data:`unavailable` then says why), the NumPy kernels run.

    Returns
    -------
    types.ModuleType or None
        the module of the compiled functions, or None.
    """
    if not settings.COULOMB_NN_COMPILED or _ENVIRON.get("GAUSSQP_COMPILED", "").strip() == "0":
        return None
    return _load()


def loaded() -> bool:
    """Whether this process has loaded the compiled kernels already (:func:`kernels` then costs nothing more).

    Returns
    -------
    bool
    """
    return _load.cache_info().currsize > 0 and _load() is not None


#: when the dense routes load the kernels (:func:`worth_loading`)
_RULE = LoadRule("COULOMB_NN_COMPILED_AFTER_SECONDS")


def expect_many_calls() -> None:
    """Tell the routes that this process will solve many mode-free problems (a :class:`gaussqp.Solver` from its second
    problem: a rollout; a study): the compiled kernels load at their next use instead of after
    :data:`~gaussqp.settings.COULOMB_NN_COMPILED_AFTER_SECONDS` of NumPy kernels."""
    _RULE.expect_many_calls()


def spent_in_numpy(seconds: float) -> None:
    """Count ``seconds`` of wall time spent by a dense route without the kernels (a dense Newton run, an evaluation
    of F9's map) towards :func:`worth_loading`'s rule.

    Parameters
    ----------
    seconds : float
    """
    _RULE.spent_in_numpy(seconds)


def worth_loading() -> bool:
    """Whether a dense route may load the compiled kernels now (:class:`~gaussqp.linalg.kernel_loading.LoadRule` with
    :data:`~gaussqp.settings.COULOMB_NN_COMPILED_AFTER_SECONDS`): loaded already, numba running already, many calls
    announced (:func:`expect_many_calls`), or the dense routes have run that long without them in this process.

    Returns
    -------
    bool
    """
    return _RULE.worth(loaded())


def kernels_when_worth() -> ModuleType | None:
    """:func:`kernels` when :func:`worth_loading`, else None (the NumPy kernels run, and should count their time with
    :func:`spent_in_numpy`).

    Returns
    -------
    types.ModuleType or None
    """
    return kernels() if worth_loading() else None


#: why the compiled kernels could not be loaded (the exception's type and message), or None
unavailable: str | None = None


@lru_cache(maxsize=1)
def _load() -> ModuleType | None:
    global unavailable

    def importer():
        from . import compiled_kernels

        return compiled_kernels

    module, unavailable = load_kernels(
        importer, "the NumPy kernels of the Newton method run", "gaussqp.settings.COULOMB_NN_COMPILED"
    )
    return module


__all__ = [
    "expect_many_calls",
    "kernels",
    "kernels_when_worth",
    "loaded",
    "plain",
    "spent_in_numpy",
    "unavailable",
    "worth_loading",
]
