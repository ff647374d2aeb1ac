"""Scales from the data, row by row, against which every residual is judged.

A residual means nothing until it is divided by a magnitude. Dividing by the magnitude of
the answer being judged lets a garbage answer (``|a| ≈ 1e15``) pass; dividing by the largest
row lets a small row (norm 2.6e-6 next to 0.16) violate its constraint unseen. Here every
magnitude comes from the problem's data alone, one per row:

- coordinates are measured in the Jacobi-equilibrated units of the mass matrix,
  ``ã = S⁻¹ a`` with ``S = diag(M)^(-1/2)`` (:class:`gaussqp.linalg.mass.MassFactor.scaling`), where
  a unit of every coordinate carries comparable kinetic energy;
- ``accel`` is the data's magnitude of ``ã``: the larger of the free acceleration
  ``‖M̃⁺ S F‖∞`` and the accelerations the drifts call for, ``|b_i| / ‖(J S)_i‖∞``;
- row ``i`` of a constraint ``J_i a + b_i`` has the scale ``|J_i| S · accel + |b_i|``, the
  magnitude of its terms at an acceleration of the data's size;
- dynamics row ``j`` has the scale ``(|M| S accel + |F| + |J|ᵀ λ_data)_j`` with the data's multipliers
  ``λ_data,i = force / ‖(J S)_i‖∞`` (a massless, unloaded coordinate is still reached by the rows);
- ``work``, the magnitude of the terms of a duality gap ``aᵀMa + Fᵀa + bᵀλ_n + cᵀλ_t`` at those sizes:
  ``(S accel)ᵀ|M|(S accel) + |F|ᵀ S accel + Σ_i λ_data,i |b_i| + Σ_k λ_data,k |c_k|``;
- the force scale ``force = max(‖S F‖∞, λ_max(M̃) · accel)`` measures multipliers:
  ``λ̂_i = λ_i ‖(J S)_i‖∞ / force`` is row i's contribution to the equilibrated dynamics,
  dimensionless and invariant under any scaling of row i, of the coordinates or of the units.

Scales are cached per problem (weakly, as the problem is immutable).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

import gaussqp.settings as settings  # the module (its switch is read at each call), imported downwards

from ..linalg.dense import as_dense, is_plain, plain
from ..linalg.kernel_loading import KernelModule, LoadRule
from ..linalg.mass import solve_mass
from ..settings import SCALE_DENSE_MAX
from .memo import per_problem
from .problem import ContactProblem


@dataclass(frozen=True)
class DataScales:
    """Row-by-row magnitudes of a problem's data (see the module docstring)."""

    coordinate: np.ndarray  # S: equilibrating factors of the coordinates (n,)
    accel: float  # magnitude of the equilibrated acceleration ã
    free_accel: float  # ‖M̃⁺ S F‖∞ alone (without the drifts' accelerations)
    force: float  # magnitude of the equilibrated generalized force S (M a + F)
    normal_row: np.ndarray  # scale of n_i a + b_i (m,)
    normal_weight: np.ndarray  # ‖(J_n S)_i‖∞ (m,)
    tangent_row: np.ndarray  # scale of T_k a + c_k (m (d-1),)
    tangent_weight: np.ndarray  # ‖(J_t S)_k‖∞ (m (d-1),)
    dynamics_row: np.ndarray  # |M| S accel + |F| + |J|ᵀ force/‖(J S)_i‖∞ (n,)
    # the same per row of problem.equalities (bilateral normals, sticking tangents) and problem.inequalities
    # (unilateral normals); the weights with a zero row's 0 replaced by 1, as divisors for equilibration
    equality_row: np.ndarray
    equality_weight: np.ndarray
    inequality_row: np.ndarray
    inequality_weight: np.ndarray
    # the terms of a duality gap aᵀMa + Fᵀa + bᵀλ at the data's sizes (accelerations S accel, multipliers λ_data)
    work: float = 0.0


def _abs_rows_times(A, x: np.ndarray) -> np.ndarray:
    """``|A| x`` for dense or sparse A and a nonnegative vector x."""
    if sp.issparse(A):
        return np.asarray(abs(A) @ x).ravel()
    return np.abs(as_dense(A)) @ x


def _row_inf_norms(A, s: np.ndarray) -> np.ndarray:
    """``‖(A diag(s))_i‖∞`` for every row i."""
    if A.shape[0] == 0:
        return np.zeros(0)
    if sp.issparse(A):
        As = sp.csr_matrix(abs(A) @ sp.diags(s))
        return np.asarray(As.max(axis=1).toarray()).ravel()
    return (np.abs(as_dense(A)) * s[None, :]).max(axis=1, initial=0.0)


def _constraint_force_scale(A, weight: np.ndarray, force: float) -> np.ndarray:
    """``|A|ᵀ (force / weight)``: the generalized force the rows of A exert at multipliers of the data's size
    (``λ_i ~ force / ‖(A S)_i‖∞``), so that a coordinate without mass or load still has a scale."""
    if A.shape[0] == 0:
        return 0.0
    lam = np.divide(force, weight, out=np.zeros_like(weight), where=weight > 0)
    return np.asarray(abs(A).T @ lam).ravel() if sp.issparse(A) else np.abs(as_dense(A)).T @ lam


def _free_accel(problem, s: np.ndarray) -> float:
    """``‖M̃⁺ S F‖∞``: the equilibrated free acceleration (pseudo-inverse when M is singular)."""
    fac = problem.mass_factor
    F = np.asarray(problem.F, dtype=float)
    if not np.any(F):
        return 0.0
    if problem.n <= SCALE_DENSE_MAX and not sp.issparse(fac.R):
        R = as_dense(fac.R)
        if fac.definite:  # R S = √w Vᵀ (w, V: M̃'s eigenpairs, all kept): M̃⁻¹ = V w⁻¹ Vᵀ = (R S)ᵀ w⁻² (R S)
            Rs = R * s[None, :]
            w = fac.eigenvalues
            return float(np.abs(Rs.T @ ((Rs @ (s * F)) / (w * w))).max(initial=0.0))  # M̃⁻¹ S F
        y = np.linalg.lstsq(R.T, F, rcond=None)[0]  # R⁺ᵀ F
        a = np.linalg.lstsq(R, y, rcond=None)[0]  # R⁺ R⁺ᵀ F = M⁺ F
        return float(np.abs(a / s).max(initial=0.0))
    # large sparse: bound ‖M̃⁺ S F‖₂ by ‖S F‖₂ / λ_min⁺(M̃)
    w = fac.eigenvalues
    lam = float(w[w > 0].min()) if np.any(w > 0) else 1.0
    return float(np.linalg.norm(s * F)) / lam


def _unit_if_zero(w: np.ndarray) -> np.ndarray:
    return np.where(w > 0, w, 1.0)


def _import_kernels():
    from . import compiled_kernels

    return compiled_kernels


#: the compiled data scales (:func:`gaussqp.model.compiled_kernels.row_scales`), loaded by the judge's checks'
#: switch and rule
_KERNELS = KernelModule(_import_kernels, "the NumPy code of the data scales runs", "CERTIFICATES_COMPILED")
_RULE = LoadRule("CERTIFICATES_COMPILED_AFTER_SECONDS")


def _kernel_applies(problem, fac) -> bool:
    """A dense problem with M ≻ 0 up to :data:`~gaussqp.settings.SCALE_DENSE_MAX` coordinates and
    :data:`~gaussqp.settings.CERTIFICATES_COMPILED_SIZE_MAX` unknowns, its data C-ordered float64 (the kernel's
    products are NumPy's on those layouts)."""
    if not fac.definite or problem.n > SCALE_DENSE_MAX or sp.issparse(fac.R) or fac.scaling is None:
        return False
    if problem.n + problem.m * problem.dimension > settings.CERTIFICATES_COMPILED_SIZE_MAX:
        return False
    data = (problem.M, problem.J_n, problem.J_t, problem.F, problem.normal_drift, problem.tangent_drift, fac.R)
    return all(is_plain(x) for x in data)


def _compiled_kernel():
    """The compiled data scales when switched on and worth loading (the judge's checks' rule,
    :class:`~gaussqp.linalg.kernel_loading.LoadRule`), else None."""
    return _KERNELS.load() if _RULE.worth(_KERNELS.tried) else None


@per_problem
def data_scales(problem) -> DataScales:
    """The :class:`DataScales` of ``problem`` (once per problem): compiled
    (:func:`gaussqp.model.compiled_kernels.row_scales`, the same numbers bit for bit) on a dense problem with
    M ≻ 0 when the kernels are loaded, else in NumPy."""
    fac = problem.mass_factor
    s = fac.scaling if fac.scaling is not None else np.ones(problem.n)
    eligible = _kernel_applies(problem, fac)
    fast = _compiled_kernel() if eligible else None
    b, c = np.abs(problem.normal_drift), np.abs(problem.tangent_drift)
    lam_max = float(fac.eigenvalues.max(initial=0.0))
    if fast is not None:
        wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work = fast.row_scales(
            plain(problem.M), plain(problem.F), plain(problem.J_n), b, plain(problem.J_t), c, plain(s), plain(fac.R),
            plain(fac.eigenvalues), lam_max,
        )  # fmt: skip
        return _scales(problem, s, wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work)
    t0 = time.perf_counter()
    try:
        return _numpy_scales(problem, fac, s, b, c, lam_max)
    finally:
        if eligible:
            _RULE.spent_in_numpy(time.perf_counter() - t0)


def _numpy_scales(problem, fac, s, b, c, lam_max) -> DataScales:
    """:func:`data_scales` in NumPy (the reference of :func:`gaussqp.model.compiled_kernels.row_scales`)."""
    wn = _row_inf_norms(problem.J_n, s)
    wt = _row_inf_norms(problem.J_t, s)
    drift_acc = [
        np.divide(b, wn, out=np.zeros_like(b), where=wn > 0).max(initial=0.0),
        np.divide(c, wt, out=np.zeros_like(c), where=wt > 0).max(initial=0.0),
    ]
    free = _free_accel(problem, s)
    accel = max(free, *drift_acc)
    force = max(float(np.abs(s * problem.F).max(initial=0.0)), max(lam_max, 1.0) * accel)
    if accel == 0.0 and force == 0.0:  # no load, no drift: the answer is zero; any unit judges it
        accel = force = 1.0
    elif force == 0.0:
        force = accel
    elif accel == 0.0:
        accel = force
    acc_coord = s * accel
    normal_row = _abs_rows_times(problem.J_n, acc_coord) + b if problem.m else np.zeros(0)
    tangent_row = _abs_rows_times(problem.J_t, acc_coord) + c if problem.J_t.shape[0] else np.zeros(0)
    lam_n = np.divide(force, wn, out=np.zeros_like(wn), where=wn > 0)
    lam_t = np.divide(force, wt, out=np.zeros_like(wt), where=wt > 0)
    mass_terms = _abs_rows_times(problem.M, acc_coord)  # |M| S accel: in the work and in the dynamics rows
    work = float(acc_coord @ mass_terms) + float(np.abs(problem.F) @ acc_coord) + float(lam_n @ b) + float(lam_t @ c)
    dynamics_row = (
        mass_terms
        + np.abs(problem.F)
        + _constraint_force_scale(problem.J_n, wn, force)
        + _constraint_force_scale(problem.J_t, wt, force)
    )
    return _scales(problem, s, wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work)


def _scales(problem, s, wn, wt, free, accel, force, normal_row, tangent_row, dynamics_row, work) -> DataScales:
    """The :class:`DataScales` of these row scales, with those of ``problem.equalities`` and
    ``problem.inequalities``."""
    B, U, rt = problem.bilateral, problem.unilateral, problem.tangent_rows(problem.sticking)
    out = DataScales(  # the scalars as Python floats on both paths
        coordinate=s,
        accel=float(accel),
        free_accel=float(free),
        force=float(force),
        normal_row=normal_row,
        normal_weight=wn,
        tangent_row=tangent_row,
        tangent_weight=wt,
        dynamics_row=dynamics_row,
        equality_row=np.concatenate([normal_row[B], tangent_row[rt]]),
        equality_weight=_unit_if_zero(np.concatenate([wn[B], wt[rt]])),
        inequality_row=normal_row[U],
        inequality_weight=_unit_if_zero(wn[U]),
        work=float(work),
    )
    return out


def relative(values: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """``values / scales`` row by row; a row whose scale is zero is judged absolutely (its terms are zero)."""
    values = np.abs(np.asarray(values, dtype=float))
    scales = np.asarray(scales, dtype=float)
    return np.where(scales > 0, values / np.where(scales > 0, scales, 1.0), values)


def acceleration_scale(problem: ContactProblem) -> float:
    """An acceleration unit taken from the data alone, never from an answer being judged.

    The largest of: the free acceleration ``‖M⁺F‖∞`` (the least-squares solution of ``M a + F = 0``:
    Cholesky when M ≻ 0, a dense least-squares solve up to :data:`SCALE_DENSE_MAX` coordinates, else
    the Jacobi estimate ``max_j |F_j|/M_jj``), and, row by row, the accelerations the drifts ask for,
    ``|b_i|/‖n_i‖₂`` (normal rows) and ``|c_j|/‖t_j‖₂`` (tangent rows); zero rows are skipped (they
    ask for no acceleration). 0 only when F, b and c all vanish (then a = 0 is the natural answer
    and 0 is the right unit: any nonzero acceleration is a genuine difference)."""
    p = problem
    F = np.asarray(p.F, dtype=float)
    free = 0.0
    if np.any(F):
        x = None
        try:
            if p.mass_factor.definite:
                x = solve_mass(p.M, F)
            elif not sp.issparse(p.M) and p.n <= SCALE_DENSE_MAX:
                x = np.linalg.lstsq(as_dense(p.M), -F, rcond=None)[0]
        except (np.linalg.LinAlgError, RuntimeError, ValueError):
            x = None
        if x is None or not np.all(np.isfinite(x)):
            d = np.abs(np.asarray(p.M.diagonal()).ravel())
            x = np.where(d > 0, np.abs(F) / np.where(d > 0, d, 1.0), 0.0)
        free = float(np.abs(x).max(initial=0.0))
    out = [free]
    for A, r in ((p.J_n, p.normal_drift), (p.J_t, p.tangent_drift)):
        if A.shape[0] == 0:
            continue
        norms = (
            np.sqrt(np.asarray(A.multiply(A).sum(axis=1)).ravel())
            if sp.issparse(A)
            else np.linalg.norm(np.asarray(A, dtype=float), axis=1)
        )
        nz = norms > 0
        if np.any(nz):
            out.append(float((np.abs(np.asarray(r, dtype=float)[nz]) / norms[nz]).max()))
    return max(out)
