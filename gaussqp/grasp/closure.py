"""Closure and equilibrium checks of a grasp, each with a certificate either way.

Every check works on the **scaled** grasp map ``G`` of :meth:`~gaussqp.grasp.Grasp.grasp_map` (torque rows divided
by the torque scale ``L``) and the exact cones ``K = Π K_i`` of the contacts, ``K_i = {(f_n, ν) : ‖ν‖ <= f_n}``
(``f_n >= 0`` for a frictionless point). Every ``K_i`` is self-dual, so the dual cone of the conic Farkas lemma is
``K`` again. Contact forces resist an external wrench ``w`` when ``G x + w = 0`` with ``x ∈ K``.

- :func:`equilibrium` — forces ``x ∈ K`` with ``G x + w = 0`` (with a cone margin), or a **separating wrench**
  ``y`` with ``Gᵀy ∈ K`` and ``yᵀw > 0``: then ``yᵀw = −(Gᵀy)ᵀx <= 0`` for every ``x ∈ K`` with ``G x + w = 0``,
  a contradiction (Farkas' lemma for cones, Boyd–Vandenberghe §5.9.4 / Ben-Tal–Nemirovski Prop. 2.4.2).
- :func:`force_closure` — ``G`` of full row rank and an internal force ``G x = 0`` strictly inside every cone
  (Murray–Li–Sastry, *A Mathematical Introduction to Robotic Manipulation*, Prop. 5.2: then every wrench is
  resisted); otherwise a wrench ``y ≠ 0`` with ``Gᵀy ∈ K``: the contacts cannot resist the external wrench ``y``
  (``G x = −y`` would give ``−‖y‖² = yᵀG x = (Gᵀy)ᵀx >= 0``). A rank deficit gives ``y ∈ ker Gᵀ`` (both ``±y``).
- :func:`form_closure` — the same with the normal columns ``G_n`` only (frictionless contacts, an LP).
- :func:`internal_forces` — ``ker G`` and whether given contact forces are the only ones producing their wrench.
- :func:`min_weight` — the min-weight metric of FRoGGeR (Li, Culbertson, Burdick, Ames, arXiv:2302.13687):
  the largest ``s`` such that ``0`` is a convex combination of the primitive wrenches with every weight ``>= s``
  (an LP on inscribed polygons), and the same program on the exact cones (an SOCP).
- :func:`largest_disturbance` — the largest ``s`` with ``G x + s d = 0``, ``x ∈ K``, ``Σ f_n <= 1`` (SOCP), with
  the dual certificate ``λ >= s``.

A certificate's ``holds`` means it was recomputed in NumPy from the data (residuals and cone membership at the
data's scale, :data:`~gaussqp.settings.GRASP_VERIFY_RTOL`); a solver's answer is never trusted as such. The
certificates themselves are created by the builders of :mod:`gaussqp.certificates.grasp`, which
also hold the ``verify`` texts (:data:`~gaussqp.certificates.grasp.GRASP_MAP_TEXT`, still importable from here).

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy is imported inside the functions that use it,
not when this module is imported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..backends import get_backend, solve_program
from ..certificates.grasp import (
    DUAL_CONE_TEXT,  # noqa: F401
    GRASP_MAP_TEXT,  # noqa: F401
    closure_dual_certificate,  # noqa: F401 (texts)
    closure_interior_certificate,
    closure_rank_certificate,
    closure_undecided_certificate,
    equilibrium_forces_certificate,
    equilibrium_separation_certificate,
    equilibrium_undecided_certificate,
    equilibrium_zero_wrench_certificate,
    internal_forces_certificate,
    largest_disturbance_certificate,
    unique_forces_full_rank_certificate,
    unique_forces_trivial_cone_certificate,
    unique_forces_undecided_certificate,
    unique_forces_witness_certificate,
)
from ..errors import ShapeError, UnknownValueError
from ..linalg.dense import rank_and_null_space, rank_tol, singular_value_rank
from ..linalg.polyhedral_cones import UndecidedError, cone_is_trivial
from ..model.validation import real_array
from ..settings import GRASP_MIN_WEIGHT_FACETS, GRASP_STRICT_RTOL, GRASP_VERIFY_RTOL, get_tolerance
from .model import Grasp, GraspCheck

if TYPE_CHECKING:  # annotations only; cvxpy itself is imported inside the functions that build a program
    import cvxpy as cp

SQRT2 = float(np.sqrt(2))


# ---------------------------------------------------------------------------------------------- the conic data
@dataclass
class _Conic:
    """A map ``G`` (w × n) and the sizes of the cone blocks of ``x`` (1: ``f >= 0``; k > 1: ``‖x[1:]‖ <= x[0]``)."""

    G: np.ndarray
    sizes: list

    @cached_property
    def offsets(self) -> list:
        out, k = [], 0
        for s in self.sizes:
            out.append(slice(k, k + s))
            k += s
        return out

    @cached_property
    def normals(self) -> np.ndarray:
        return np.array([s.start for s in self.offsets], dtype=int)

    @cached_property
    def _friction_index(self) -> tuple[np.ndarray, np.ndarray]:
        """(the entries of every ``ν_i`` in ``x``, the block each belongs to)."""
        return _friction_index(tuple(self.sizes))

    @cached_property
    def equilibrated(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row norms of ``G``, the live rows (not round-off at the scale ``‖G‖₂``), the singular values of the live
        rows normalized): the data of :meth:`rank`."""
        norms = np.linalg.norm(self.G, axis=1)
        live = norms > rank_tol(self.scale, self.G.shape)  # a row of round-off is a zero row at the data's scale
        Ge = self.G[live] / norms[live][:, None]
        return norms, live, (np.linalg.svd(Ge, compute_uv=False) if Ge.size else np.zeros(0))

    @cached_property
    def singular_values(self) -> np.ndarray:
        """The singular values of ``G`` (descending)."""
        return np.linalg.svd(self.G, compute_uv=False) if self.G.size else np.zeros(0)

    @cached_property
    def scale(self) -> float:
        """``‖G‖₂`` (the data's force-to-wrench scale; at least the structural floor 1 when G is 0)."""
        s = float(np.max(self.singular_values)) if self.G.size else 0.0
        return s if s > 0 else 1.0

    def _parts(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per block ``(x[0], ‖x[1:]‖)``."""
        idx, owner = self._friction_index
        x = np.asarray(x, dtype=float)
        nv = np.sqrt(np.bincount(owner, weights=x[idx] ** 2, minlength=len(self.sizes)))
        return x[self.normals], nv

    def violation(self, x: np.ndarray) -> np.ndarray:
        """Per block ``max(‖x[1:]‖ − x[0], −x[0], 0)`` (0 inside the cone)."""
        f, nv = self._parts(x)
        return np.maximum(np.maximum(nv - f, -f), 0.0)

    def slack(self, x: np.ndarray) -> np.ndarray:
        """Per block ``x[0] − ‖x[1:]‖`` (the distance-like interior margin)."""
        f, nv = self._parts(x)
        return f - nv

    def rank(self) -> tuple[int, np.ndarray, float]:
        """(rank of the row-equilibrated ``G``, a unit vector of ``ker Gᵀ`` (one column; none at full rank), ``σ_min``
        of ``G`` at full rank else 0): rows of round-off size at the scale ``‖G‖₂`` are zero rows; the others are
        normalized so a torque row and a force row count alike; the rank rule is :func:`~gaussqp.linalg.dense.rank_tol`."""
        w = self.G.shape[0]
        norms, live, s = self.equilibrated
        Ge = self.G[live] / norms[live][:, None]
        r = singular_value_rank(s, Ge.shape)
        if r == w:
            return r, np.zeros((w, 0)), float(self.singular_values[w - 1])
        if not np.all(live):  # a dead row: its unit vector
            y = np.zeros(w)
            y[int(np.argmin(norms))] = 1.0
        else:  # Ge = D G: a left singular vector u of Ge past the rank gives y = D u
            U = np.linalg.svd(Ge)[0]
            y = U[:, -1] / norms
            y /= np.linalg.norm(y)
        return r, y[:, None], 0.0

    def soc(self, x, shift=None) -> list:
        """cvxpy constraints ``x_i ∈ K_i`` (``‖ν_i‖ <= f_i − shift`` with a shift)."""
        import cvxpy as cp

        cons = []
        for s in self.offsets:
            f = x[s.start] if shift is None else x[s.start] - shift
            cons.append(f >= 0 if s.stop - s.start == 1 else cp.SOC(f, x[s.start + 1 : s.stop]))
        return cons

    def lp(self) -> bool:
        return all(k == 1 for k in self.sizes)


@lru_cache(maxsize=512)
def _friction_index(sizes: tuple) -> tuple[np.ndarray, np.ndarray]:
    """For cone blocks of ``sizes``: (the entries of every ``ν_i`` in the stacked ``x``, the block of each)."""
    idx: list[int] = []
    owner: list[int] = []
    k = 0
    for i, sz in enumerate(sizes):
        idx += range(k + 1, k + sz)
        owner += [i] * (sz - 1)
        k += sz
    return np.array(idx, dtype=int), np.array(owner, dtype=int)


def _conics(grasps: list) -> list[_Conic]:
    """The conic data of many grasps, the SVDs of :meth:`_Conic.rank` computed for each structure at once (NumPy's
    stacked SVD runs the same LAPACK routine on each matrix: the values are those of one call per grasp)."""
    out = [_conic(g) for g in grasps]
    groups: dict[tuple, list[int]] = {}
    for i, C in enumerate(out):
        groups.setdefault((C.G.shape, tuple(C.sizes)), []).append(i)
    for (shape, _), idx in groups.items():
        if not (shape[0] and shape[1]):
            continue
        Gs = np.stack([out[i].G for i in idx])
        sv = np.linalg.svd(Gs, compute_uv=False)
        norms = np.linalg.norm(Gs, axis=2)
        for r, i in enumerate(idx):
            out[i].__dict__["singular_values"] = sv[r]
        live = np.array([bool(np.all(norms[r] > rank_tol(out[i].scale, shape))) for r, i in enumerate(idx)])
        if np.any(live):
            sel = np.flatnonzero(live)
            Ge = Gs[sel] / norms[sel][:, :, None]
            se = np.linalg.svd(Ge, compute_uv=False)
            for j, q in enumerate(sel.tolist()):
                out[idx[q]].__dict__["equilibrated"] = (norms[q], np.ones(shape[0], dtype=bool), se[j])
    return out


def _conic(g: Grasp) -> _Conic:
    return _Conic(g.grasp_map(scaled=True), list(g.sizes()))


def _normal_conic(g: Grasp) -> _Conic:
    G = g.grasp_map(scaled=True)
    return _Conic(G[:, [s.start for s in g.offsets()]], [1] * g.m)


def _solve(prob: cp.Problem, conic: _Conic, solver, tolerance) -> tuple[str, dict]:
    needs = "lp" if conic.lp() else "socp"
    _, status, info = solve_program(prob, get_backend(solver, needs=needs), get_tolerance(tolerance), needs=needs)
    return status, info


def _physical(g: Grasp, y: np.ndarray) -> np.ndarray:
    """A scaled wrench back in physical units (torque rows times ``L``)."""
    out = np.array(y, dtype=float)
    out[g.dimension :] *= g.torque_scale
    return out


# ---------------------------------------------------------------------------------------------- verification
def _verify_forces(C: _Conic, x: np.ndarray, b: np.ndarray, smin: float) -> tuple[bool, dict]:
    """Do the forces ``x`` satisfy ``G x + b = 0``, ``x ∈ K``? Exact when ``G`` has full row rank (``σ_min > 0``)
    and every cone slack exceeds ``√2 ‖G⁺ r‖`` (then ``x − G⁺r`` is an exact solution in ``K``); else at the data's
    scale: ``‖r‖ <= GRASP_VERIFY_RTOL (‖G‖ ‖x‖ + ‖b‖)`` and cone violations ``<= GRASP_VERIFY_RTOL max(‖x‖, ‖b‖/‖G‖)``."""
    r = C.G @ x + b
    rn = float(np.linalg.norm(r))
    xn = float(np.linalg.norm(x))
    scale = C.scale * xn + float(np.linalg.norm(b))
    slack = C.slack(x)
    viol = float(np.max(C.violation(x), initial=0.0))
    exact = bool(smin > 0 and float(np.min(slack, initial=np.inf)) > SQRT2 * rn / smin)
    force_scale = max(xn, float(np.linalg.norm(b)) / C.scale)  # the forces, or the least that make b
    ok = exact or (scale > 0 and rn <= GRASP_VERIFY_RTOL * scale and viol <= GRASP_VERIFY_RTOL * force_scale)
    return bool(ok), {
        "residual": rn,
        "relative_residual": rn / scale if scale > 0 else 0.0,
        "cone_violation": viol,
        "min_slack": float(np.min(slack, initial=np.inf)),
        "exact": exact,
    }


def _verify_separator(C: _Conic, y: np.ndarray) -> tuple[bool, dict]:
    """Is ``Gᵀy`` in the (self-dual) cones at the data's scale? Returns the check and ``force_bound``: a wrench
    ``w`` with ``yᵀw > 0`` then needs contact forces of norm at least ``yᵀw / (√2 max violation)`` (infinite when
    the violation is exactly 0): for ``x ∈ K``, ``(Gᵀy)ᵀx >= −√2 Σ viol_i ‖x_i‖``."""
    yn = float(np.linalg.norm(y))
    z = C.G.T @ y
    viol = float(np.max(C.violation(z), initial=0.0))
    ok = yn > 0 and viol <= GRASP_VERIFY_RTOL * C.scale * yn
    return bool(ok), {
        "dual_cone_violation": viol,
        "relative_violation": viol / (C.scale * yn) if yn > 0 else None,
        "GTy": z,
    }


# ---------------------------------------------------------------------------------------------- programs
def _interior(C: _Conic, b: np.ndarray | None, total: float, solver, tolerance):
    """max t s.t. ``G x + b = 0`` (``b`` given: t <= 1, data normalized) or ``G x = 0, Σ f_n = total`` (closure),
    ``‖ν_i‖ <= f_i − t``. Returns (x, t, status, info) in the caller's units."""
    import cvxpy as cp

    n = sum(C.sizes)
    x, t = cp.Variable(n), cp.Variable()
    if b is None:
        cons = [C.G @ x == 0, cp.sum(x[C.normals]) == total]
        cons += C.soc(x, t)
        prob = cp.Problem(cp.Maximize(t), cons)
        status, info = _solve(prob, C, solver, tolerance)
        if x.value is None:
            return None, None, status, info
        return np.asarray(x.value, dtype=float), float(t.value), status, info
    sG, bn = C.scale, float(np.linalg.norm(b))
    cons = [(C.G / sG) @ x + b / bn == 0, t <= 1.0] + C.soc(x, t)
    prob = cp.Problem(cp.Maximize(t), cons)
    status, info = _solve(prob, C, solver, tolerance)
    if x.value is None:
        return None, None, status, info
    return np.asarray(x.value, dtype=float) * bn / sG, float(t.value), status, info


def _separate_wrench(C: _Conic, b: np.ndarray, solver, tolerance):
    """max bᵀy s.t. ``Gᵀy ∈ K``, ``‖y‖ <= 1`` (normalized data): a separating wrench when the optimum is > 0."""
    import cvxpy as cp

    y = cp.Variable(C.G.shape[0])
    z = (C.G / C.scale).T @ y
    cons = C.soc(z) + [cp.norm(y) <= 1.0]
    prob = cp.Problem(cp.Maximize((b / np.linalg.norm(b)) @ y), cons)
    status, info = _solve(prob, C, solver, tolerance)
    return (None if y.value is None else np.asarray(y.value, dtype=float)), status, info


def _unresisted_wrench(C: _Conic, solver, tolerance):
    """A wrench ``y`` (unit) with ``Gᵀy ∈ K``, ``Σ (Gᵀy)_n = 1`` of least norm (the closure dual)."""
    import cvxpy as cp

    y = cp.Variable(C.G.shape[0])
    z = (C.G / C.scale).T @ y
    cons = C.soc(z) + [cp.sum(z[C.normals]) == 1.0]
    prob = cp.Problem(cp.Minimize(cp.norm(y)), cons)
    status, info = _solve(prob, C, solver, tolerance)
    if y.value is None:
        return None, status, info
    v = np.asarray(y.value, dtype=float)
    nv = float(np.linalg.norm(v))
    return (v / nv if nv > 0 else None), status, info


# ---------------------------------------------------------------------------------------------- evidence
def _forces_evidence(g: Grasp, x: np.ndarray) -> dict:
    """Per contact the physical force vector and torsion of the stacked cone coordinates ``x``."""
    phys = g.physical_forces(x)
    return {"forces": [f["force"] for f in phys], "torsions": [f["torsion"] for f in phys], "x": x}


# ---------------------------------------------------------------------------------------------- checks
def _wrench_vector(g: Grasp, name: str, v) -> np.ndarray:
    a = real_array(name, v, 1)
    if a.size != g.wrench_dimension:
        raise ShapeError(name, f"has {a.size} entries", f"give {g.wrench_dimension} (force then torque)")
    return a


def _check_grasp(grasp) -> Grasp:
    if not isinstance(grasp, Grasp):
        raise UnknownValueError("grasp", f"is a {type(grasp).__name__}", "give a gaussqp.grasp.Grasp")
    return grasp


def equilibrium(grasp: Grasp, wrench=None, *, solver: str | None = None, tolerance=None) -> GraspCheck:
    """Can the contacts resist the external ``wrench`` (physical units; default ``grasp.wrench``) with forces in the
    exact cones?

    Solves the SOCP ``max t s.t. G x + w = 0, ‖ν_i‖ <= f_n,i − t c, t <= 1`` (``c = ‖w‖ / ‖G‖₂``, the size of the
    least force that can produce ``w``); ``holds`` when the forces verify (:func:`_verify_forces`), with ``margin =
    t*`` (relative, 1 at the cap). Otherwise the SOCP ``max yᵀw s.t. Gᵀy ∈ K, ‖y‖ <= 1`` gives the separating
    wrench ``y`` (module docstring; scaled coordinates, ``value["separating_wrench"]`` in physical units);
    ``margin = −yᵀw / ‖w‖``. ``holds`` None when neither side verifies (a boundary case at the solver's accuracy).
    """
    g = _check_grasp(grasp)
    t0 = time.perf_counter()
    if wrench is None:
        if g.wrench is None:
            raise ShapeError(
                "wrench", "is not given and the grasp has none", "pass wrench= or build the grasp with wrench="
            )
        wrench = g.wrench
    w_phys = _wrench_vector(g, "wrench", wrench)
    b = g.scaled_wrench(w_phys)
    C = _conic(g)
    _, _, smin = C.rank()
    if float(np.linalg.norm(b)) == 0:
        x = np.zeros(sum(C.sizes))
        cert = equilibrium_zero_wrench_certificate(x, _forces_evidence(g, x))
        return GraspCheck(
            "equilibrium", True, cert, 0.0, {"forces": x}, "zero wrench", {"total": time.perf_counter() - t0}
        )
    x, t, status, info = _interior(C, b, 0.0, solver, tolerance)
    times = {"primal": time.perf_counter() - t0}
    if x is not None and t is not None and t >= -GRASP_STRICT_RTOL:
        ok, data = _verify_forces(C, x, b, smin)
        if ok:
            cert = equilibrium_forces_certificate(t, x, data, status, w_phys, _forces_evidence(g, x))
            return GraspCheck(
                "equilibrium", True, cert, t, {"forces": x, "physical_forces": g.physical_forces(x)}, "", times
            )
    y, status_d, _ = _separate_wrench(C, b, solver, tolerance)
    times["dual"] = time.perf_counter() - t0 - times["primal"]
    if y is not None:
        ok, data = _verify_separator(C, y)
        sep = float(b @ y) / (float(np.linalg.norm(b)) * float(np.linalg.norm(y)))
        ok = ok and sep > GRASP_STRICT_RTOL
        viol = data["dual_cone_violation"]
        bound = float(b @ y) / (SQRT2 * viol) if viol > 0 else float("inf")
        if ok:
            cert = equilibrium_separation_certificate(sep, bound, data, _physical(g, y), y, status_d, b)
            return GraspCheck(
                "equilibrium",
                False,
                cert,
                -sep,
                {"separating_wrench": _physical(g, y), "separating_wrench_scaled": y},
                "",
                times,
            )
    cert = equilibrium_undecided_certificate(t, status)
    return GraspCheck(
        "equilibrium",
        None,
        cert,
        t,
        {} if x is None else {"forces": x},
        f"undecided (primal status {status}, dual status {status_d})",
        times,
    )


def _rank_check(
    C: _Conic, g: Grasp, check: str, cid: str, source: str, rank: int, N: np.ndarray, t0: float
) -> GraspCheck:
    """The closure check's answer on a rank-deficient map: ``y ∈ ker Gᵀ`` (the first column of ``N``), verified."""
    w = C.G.shape[0]
    y = N[:, 0]
    ok, data = _verify_separator(C, y)
    resid = float(np.linalg.norm(C.G.T @ y))
    ok = ok and resid <= GRASP_VERIFY_RTOL * C.scale
    phys = _physical(g, y)
    cert = closure_rank_certificate(check, cid, source, ok, rank, w, resid, data, phys, y)
    return GraspCheck(
        check,
        False if ok else None,
        cert,
        0.0,
        {"rank": rank, "unresisted_wrench": phys, "unresisted_wrench_scaled": y},
        f"the {'normals-only (frictionless) ' if check == 'form_closure' else ''}grasp map has rank {rank} < {w}",
        {"total": time.perf_counter() - t0},
    )


def _closure(C: _Conic, g: Grasp, check: str, cid: str, total: float, solver, tolerance, source: str) -> GraspCheck:
    """Force/form closure on the conic data ``C`` (module docstring): rank, then the margin program, then the dual."""
    t0 = time.perf_counter()
    w = C.G.shape[0]
    rank, N, smin = C.rank()
    times: dict = {}
    if rank < w:
        return _rank_check(C, g, check, cid, source, rank, N, t0)
    x, t, status, info = _interior(C, None, total, solver, tolerance)
    times["primal"] = time.perf_counter() - t0
    if x is not None and t is not None and t > 0:  # the exact slack check below decides, however small t is
        ok, data = _verify_forces(C, x, np.zeros(w), smin)
        ok = ok and data["exact"]
        if ok:
            cert = closure_interior_certificate(
                check,
                cid,
                source,
                float(np.min(C.slack(x))),
                data,
                x,
                smin,
                rank,
                status,
                _forces_evidence(g, x) if check == "force_closure" else None,
            )
            times["total"] = time.perf_counter() - t0
            return GraspCheck(check, True, cert, t, {"internal_force": x, "sigma_min": smin, "rank": rank}, "", times)
    y, status_d, _ = _unresisted_wrench(C, solver, tolerance)
    times["dual"] = time.perf_counter() - t0 - times["primal"]
    if y is not None:
        ok, data = _verify_separator(C, y)
        viol = data["dual_cone_violation"]
        bound = float(y @ y) / (SQRT2 * viol) if viol > 0 else float("inf")
        phys = _physical(g, y)
        cert = closure_dual_certificate(
            check, cid, source, ok, -(0.0 if t is None else max(t, 0.0)), bound, data, phys, y, status_d
        )
        times["total"] = time.perf_counter() - t0
        if ok:
            return GraspCheck(
                check,
                False,
                cert,
                0.0 if t is None else min(t, 0.0),
                {"unresisted_wrench": phys, "unresisted_wrench_scaled": y, "rank": rank},
                "",
                times,
            )
    cert = closure_undecided_certificate(check, cid, source, t, status)
    times["total"] = time.perf_counter() - t0
    return GraspCheck(check, None, cert, t, {"rank": rank}, f"undecided (primal {status}, dual {status_d})", times)


FORCE_CLOSURE_SOURCE = "Murray–Li–Sastry Prop. 5.2 (interior internal force, full rank); conic Farkas lemma"


def force_closure_from(
    grasp: Grasp, *, internal_force=None, unresisted_wrench=None, backend_status: str = "candidate"
) -> GraspCheck | None:
    """Force closure decided from a candidate certificate found elsewhere (the batch path of :mod:`.batch`: an
    alternating projection, a direct Clarabel solve), verified exactly as :func:`force_closure` verifies its own.

    The rank test of :func:`force_closure` runs first (a rank deficit is decided there, whatever the candidates).
    At full rank, ``internal_force`` (stacked cone coordinates) proves closure when its residual ``G x`` and cone
    slacks pass the *exact* test of :func:`force_closure` (every slack above ``√2 ‖G⁺ G x‖``); it is rescaled to
    ``Σ f_n,i = m`` first, so ``margin`` is its least cone slack, a verified lower bound on :func:`force_closure`'s
    ``t*``. ``unresisted_wrench`` (scaled wrench coordinates) proves no closure when ``Gᵀy`` passes the dual-cone
    test of :func:`force_closure` (``margin`` 0: the margin program is not solved).

    Parameters
    ----------
    grasp : Grasp
    internal_force : array (Σ sizes,), optional
    unresisted_wrench : array (w,), optional
    backend_status : str
        Recorded in the certificate (where the candidate came from).

    Returns
    -------
    GraspCheck or None
        The verified verdict with the certificate :func:`force_closure` would give (same ids, same checks), or None
        when neither candidate verifies (then run :func:`force_closure`).
    """
    g = _check_grasp(grasp)
    return _closure_from(_conic(g), g, internal_force, unresisted_wrench, backend_status, time.perf_counter())


def force_closures_from(
    grasps: list, internal_forces: list, unresisted_wrenches: list, backend_status: str = "candidate"
) -> list[GraspCheck | None]:
    """:func:`force_closure_from` for many grasps (``internal_forces[i]`` / ``unresisted_wrenches[i]`` the candidates
    of ``grasps[i]``, None where there is none), the singular values of the rank test computed for all grasps of a
    structure at once; the answers are those of :func:`force_closure_from` one by one.

    Parameters
    ----------
    grasps : list of Grasp
    internal_forces, unresisted_wrenches : lists of arrays or None, one per grasp
    backend_status : str

    Returns
    -------
    list of (GraspCheck or None)
    """
    gs = [_check_grasp(g) for g in grasps]
    if not (len(internal_forces) == len(unresisted_wrenches) == len(gs)):
        raise ShapeError(
            "internal_forces",
            f"has {len(internal_forces)} entries, unresisted_wrenches {len(unresisted_wrenches)}, for {len(gs)} grasps",
            "give one candidate (or None) per grasp",
        )
    t0 = time.perf_counter()
    return [
        _closure_from(C, g, x, y, backend_status, t0)
        for C, g, x, y in zip(_conics(gs), gs, internal_forces, unresisted_wrenches)
    ]


def _closure_from(
    C: _Conic, g: Grasp, internal_force, unresisted_wrench, backend_status: str, t0: float
) -> GraspCheck | None:
    """:func:`force_closure_from` on the conic data ``C`` of ``g``."""
    w = C.G.shape[0]
    rank, N, smin = C.rank()
    if rank < w:
        return _rank_check(C, g, "force_closure", "grasp_force_closure", FORCE_CLOSURE_SOURCE, rank, N, t0)
    if internal_force is not None:
        x = np.asarray(internal_force, dtype=float)
        total = float(np.sum(x[C.normals])) if x.shape == (sum(C.sizes),) else 0.0
        if np.all(np.isfinite(x)) and total > 0:
            x = x * (g.m / total)
            ok, data = _verify_forces(C, x, np.zeros(w), smin)
            if ok and data["exact"]:
                t = float(np.min(C.slack(x)))
                cert = closure_interior_certificate(
                    "force_closure",
                    "grasp_force_closure",
                    FORCE_CLOSURE_SOURCE,
                    t,
                    data,
                    x,
                    smin,
                    rank,
                    backend_status,
                    _forces_evidence(g, x),
                )
                return GraspCheck(
                    "force_closure",
                    True,
                    cert,
                    t,
                    {"internal_force": x, "sigma_min": smin, "rank": rank},
                    "",
                    {"total": time.perf_counter() - t0},
                )
    if unresisted_wrench is not None:
        y = np.asarray(unresisted_wrench, dtype=float)
        ny = float(np.linalg.norm(y)) if y.shape == (w,) and np.all(np.isfinite(y)) else 0.0
        if ny > 0:
            y = y / ny
            ok, data = _verify_separator(C, y)
            if ok:
                viol = data["dual_cone_violation"]
                bound = float(y @ y) / (SQRT2 * viol) if viol > 0 else float("inf")
                phys = _physical(g, y)
                cert = closure_dual_certificate(
                    "force_closure",
                    "grasp_force_closure",
                    FORCE_CLOSURE_SOURCE,
                    True,
                    0.0,
                    bound,
                    data,
                    phys,
                    y,
                    backend_status,
                )
                return GraspCheck(
                    "force_closure",
                    False,
                    cert,
                    0.0,
                    {"unresisted_wrench": phys, "unresisted_wrench_scaled": y, "rank": rank},
                    "",
                    {"total": time.perf_counter() - t0},
                )
    return None


# ---------------------------------------------------------------------------------------------- Clarabel directly
class MarginProgram:
    """The margin SOCP of :func:`force_closure` for one structure (cone ``sizes``, wrench dimension ``w``), sent to
    Clarabel directly (:mod:`gaussqp.grasp.batch`, step 3): ``min −t`` over ``(x, t)`` with the rows ``G x = 0``,
    ``Σ f_n = m`` (zero cone) and per contact ``(f_i − t, ν_i)`` in its cone (Clarabel's ``A z + s = b``). The
    sparsity pattern is built once; each grasp only writes its ``G`` (stored dense) into the data array."""

    def __init__(self, sizes: Sequence[int], w: int):
        import clarabel
        import scipy.sparse as sp

        n = int(sum(sizes))
        rows = [np.hstack([np.ones((w, n)), np.zeros((w, 1))])]
        en = np.zeros(n + 1)
        cones: list = [clarabel.ZeroConeT(w + 1)]
        k = 0
        blocks = []
        for sz in sizes:
            en[k] = 1.0
            blk = np.zeros((sz, n + 1))
            blk[0, k], blk[0, n] = -1.0, 1.0  # s_0 = f − t
            for j in range(1, sz):
                blk[j, k + j] = -1.0  # s_j = ν_j
            blocks.append(blk)
            cones.append(clarabel.NonnegativeConeT(1) if sz == 1 else clarabel.SecondOrderConeT(int(sz)))
            k += sz
        A = sp.csc_matrix(np.vstack(rows + [en[None, :]] + blocks))
        A.sort_indices()
        # every column j < n stores the w entries of G first (rows 0..w−1, the dense block)
        self.g_index = A.indptr[:n][None, :] + np.arange(w)[:, None]
        self.A, self.n, self.w, self.cones = A, n, w, cones
        self.b = np.zeros(A.shape[0])
        self.q = np.zeros(n + 1)
        self.q[n] = -1.0
        self.P = sp.csc_matrix((n + 1, n + 1))
        self.settings = clarabel.DefaultSettings()
        self.settings.verbose = False
        self.clarabel = clarabel

    def candidates(self, G: np.ndarray, m: int) -> tuple[np.ndarray | None, np.ndarray | None, str]:
        """(an internal force when ``t* > 0``, the multiplier of ``G x = 0``, Clarabel's status)."""
        x, z, status, _ = self.solve(G, m)
        return x, z, status

    def solve(self, G: np.ndarray, m: int) -> tuple[np.ndarray | None, np.ndarray | None, str, float | None]:
        """:meth:`candidates` and Clarabel's ``t*`` (None without a solution)."""
        A = self.A.copy()  # the pattern is reused; a copy per call keeps one program safe to share between threads
        A.data[self.g_index] = G
        b = self.b.copy()
        b[self.w] = float(m)
        try:
            sol = self.clarabel.DefaultSolver(self.P, self.q, A, b, self.cones, self.settings).solve()
        except Exception as exc:  # a solver failure is only a missing candidate: the cvxpy path decides
            return None, None, f"error: {type(exc).__name__}", None
        status = str(sol.status)
        if not (status.startswith("Solved") or status.startswith("AlmostSolved")):
            return None, None, status, None
        x = np.asarray(sol.x, dtype=float)
        z = np.asarray(sol.z, dtype=float)
        t = float(x[self.n])
        # t* = m z_m (strong duality) and Gᵀz_G = ζ − z_m e_n with ζ in the cones: a separator when t* <= 0, and
        # still the best candidate at t* ≈ 0 (where an internal force sits on the cones' boundary and cannot verify)
        return (x[: self.n] if t > 0 else None), z[: self.w], status, t


@lru_cache(maxsize=32)
def margin_program(sizes: tuple, w: int) -> MarginProgram:
    """The :class:`MarginProgram` of one structure (cone ``sizes``, wrench dimension ``w``), built once per process
    (shared by :func:`force_closure`, :func:`~gaussqp.grasp.batch.force_closures` and ε's closure probe)."""
    return MarginProgram(sizes, w)


def force_closure(grasp: Grasp, *, solver: str | None = None, tolerance=None) -> GraspCheck:
    """Force closure with the exact cones (module docstring).

    ``G`` must have full row rank (decided on the row-equilibrated scaled ``G``); then the SOCP ``max t s.t. G x = 0,
    Σ f_n,i = m, ‖ν_i‖ <= f_n,i − t`` (frictionless: ``f_n,i >= t``); closure iff ``t* > 0`` (``margin = t*``, the
    interior margin with average normal force 1). A verified interior force makes the certificate exact: its slack
    exceeds ``√2 ‖G⁺(G x)‖``. Otherwise the certificate is a wrench ``y`` (unit, scaled; physical in ``value``) with
    ``Gᵀy`` in the dual cones: the external wrench ``y`` cannot be resisted; on a rank deficit ``y ∈ ker Gᵀ``.

    With neither ``solver`` nor ``tolerance`` given, the SOCP goes to Clarabel directly (the program of
    :func:`~gaussqp.grasp.batch.force_closures`, no cvxpy): its internal force (``margin`` its least cone slack at
    ``Σ f_n,i = m``, i.e. ``t*``) or its multiplier of ``G x = 0`` (``margin = min(t*, 0)``) is judged by
    :func:`force_closure_from`, the same checks; a candidate that does not verify goes to the cvxpy path."""
    g = _check_grasp(grasp)
    if solver is None and tolerance is None:
        t0 = time.perf_counter()
        G = g.grasp_map(scaled=True)
        x, z, status, t = margin_program(tuple(g.sizes()), G.shape[0]).solve(G, g.m)
        chk = force_closure_from(g, internal_force=x, unresisted_wrench=z, backend_status=f"clarabel {status}")
        if chk is not None:
            if chk.holds is False and t is not None and not chk.certificate.id.endswith("_rank"):
                chk.margin = min(t, 0.0)
            chk.times["total"] = time.perf_counter() - t0
            return chk
    return _closure(
        _conic(g), g, "force_closure", "grasp_force_closure", float(g.m), solver, tolerance, FORCE_CLOSURE_SOURCE
    )


def form_closure(grasp: Grasp, *, solver: str | None = None, tolerance=None) -> GraspCheck:
    """Form closure: :func:`force_closure` with every contact frictionless (the normal columns ``G_n`` only, an LP):
    ``G_n`` full row rank and ``G_n f = 0`` with every ``f_i >= t* > 0``; otherwise ``y ≠ 0`` with ``G_nᵀy >= 0``
    (or ``y ∈ ker G_nᵀ``): the external wrench ``y`` cannot be resisted by normal forces alone."""
    g = _check_grasp(grasp)
    return _closure(
        _normal_conic(g),
        g,
        "form_closure",
        "grasp_form_closure",
        float(g.m),
        solver,
        tolerance,
        "first-order form closure (Murray–Li–Sastry §5.4; Gordan/Stiemke alternative)",
    )


def internal_forces(grasp: Grasp, x=None, *, solver: str | None = None, tolerance=None) -> GraspCheck:
    """The internal forces ``ker G`` (dimension and an orthonormal basis, rank decided at ``‖G‖₂``), and with
    contact forces ``x`` (stacked, in the grasp's ``x`` coordinates) whether they are the only forces in the cones
    that produce the wrench ``G x`` (a hyperstatic grasp has others).

    Uniqueness: the set ``{x' ∈ K : G x' = G x}`` is convex, so ``x`` is unique iff no ``d ∈ ker G, d ≠ 0`` keeps
    ``x + d`` in the cones. Proof of uniqueness: ``ker G = {0}``, or the polyhedral cone of directions that are
    feasible to first order (``d_n >= |d_k|`` at an apex, ``d_n >= ν̂ᵀd_ν`` on a cone's boundary, as the
    multiplier-uniqueness test of :func:`gaussqp.certificates.instance.unique_multipliers`) meets ``ker G`` only in
    0 (:func:`gaussqp.linalg.polyhedral_cones.cone_is_trivial`, Stiemke-verified). Proof of non-uniqueness: a witness
    ``d = N α`` (SOCP ``max ±α_j s.t. x + N α ∈ K, ‖α‖∞ <= 1``) with ``x + d`` verified in the cones."""
    import cvxpy as cp

    g = _check_grasp(grasp)
    t0 = time.perf_counter()
    C = _conic(g)
    n = sum(C.sizes)
    rank, N = rank_and_null_space(C.G, scale=C.scale)
    value = {"dimension": int(N.shape[1]), "basis": N, "rank": rank}
    if x is None:
        cert = internal_forces_certificate(int(N.shape[1]), rank, float(np.linalg.norm(C.G @ N)))
        return GraspCheck("internal_forces", True, cert, None, value, "", {"total": time.perf_counter() - t0})
    x = real_array("x", x, 1)
    if x.size != n:
        raise ShapeError("x", f"has {x.size} entries", f"give the {n} stacked contact coordinates (grasp.offsets())")
    xn = float(np.linalg.norm(x))
    viol = C.violation(x)
    if np.max(viol, initial=0.0) > GRASP_VERIFY_RTOL * xn:
        raise UnknownValueError(
            "x",
            f"leaves the cones by {np.max(viol):.3g}",
            "give contact forces inside the friction cones (‖ν_i‖ <= f_n,i)",
        )
    if N.shape[1] == 0:
        cert = unique_forces_full_rank_certificate(float(np.linalg.svd(C.G, compute_uv=False)[-1]))
        value["unique"] = True
        return GraspCheck("internal_forces", True, cert, cert.margin, value, "", {"total": time.perf_counter() - t0})
    # first-order feasible directions (an outer polyhedral cone of the true ones)
    tol = GRASP_STRICT_RTOL * max(xn, float(np.finfo(float).tiny))
    rows = []
    for s in C.offsets:
        k = s.stop - s.start
        f, nu = float(x[s.start]), x[s.start + 1 : s.stop]
        e = np.zeros(n)
        if f <= tol:  # apex: d_i ∈ K_i ⊆ {d_n >= |d_j|}
            e[s.start] = 1.0
            rows.append(e.copy())
            for j in range(1, k):
                for sign in (1.0, -1.0):
                    r = e.copy()
                    r[s.start + j] = -sign
                    rows.append(r)
        elif k > 1 and f - float(np.linalg.norm(nu)) <= tol:  # boundary: d_n >= ν̂ᵀ d_ν
            e[s.start] = 1.0
            e[s.start + 1 : s.stop] = -nu / np.linalg.norm(nu)
            rows.append(e)
    try:
        test = cone_is_trivial(C.G, np.array(rows).reshape(-1, n), n)
    except UndecidedError:
        test = None
    if test is not None and test.trivial:
        cert = unique_forces_trivial_cone_certificate(float(test.margin), test.detail)
        value["unique"] = True
        return GraspCheck("internal_forces", True, cert, cert.margin, value, "", {"total": time.perf_counter() - t0})
    # search a witness: max ±α_j with x + N α in the cones
    k = N.shape[1]
    alpha, c = cp.Variable(k), cp.Parameter(k)
    xs = x / max(xn, float(np.finfo(float).tiny))
    y = xs + N @ alpha
    prob = cp.Problem(cp.Maximize(c @ alpha), C.soc(y) + [cp.norm(alpha, "inf") <= 1.0])
    best = None
    for j in range(k):
        for sign in (1.0, -1.0):
            cv = np.zeros(k)
            cv[j] = sign
            c.value = cv
            status, _ = _solve(prob, C, solver, tolerance)
            if alpha.value is None:
                continue
            a = np.asarray(alpha.value, dtype=float)
            d = N @ a
            if float(np.linalg.norm(d)) > GRASP_STRICT_RTOL and np.max(C.violation(xs + d)) <= GRASP_VERIFY_RTOL:
                best = d * max(xn, float(np.finfo(float).tiny))
                break
        if best is not None:
            break
    if best is not None:
        cert = unique_forces_witness_certificate(
            x, best, float(np.linalg.norm(C.G @ best)), float(np.max(C.violation(x + best)))
        )
        value.update({"unique": False, "witness": best})
        return GraspCheck("internal_forces", False, cert, cert.margin, value, "", {"total": time.perf_counter() - t0})
    cert = unique_forces_undecided_certificate()
    value["unique"] = None
    return GraspCheck("internal_forces", None, cert, None, value, "undecided", {"total": time.perf_counter() - t0})


def min_weight(
    grasp: Grasp,
    *,
    cones: str = "inscribed",
    facets: int = GRASP_MIN_WEIGHT_FACETS,
    solver: str | None = None,
    tolerance=None,
) -> GraspCheck:
    """The min-weight metric of FRoGGeR (Li, Culbertson, Burdick, Ames, "FRoGGeR: Fast Robust Grasp Generation via
    the Min-Weight Metric", IROS 2023, arXiv:2302.13687): with the primitive wrenches ``w_j`` (the scaled wrenches
    of the generators of the inscribed polygonal cones, normal force 1), the largest ``s`` such that
    ``Σ_j α_j w_j = 0``, ``Σ_j α_j = 1``, ``α_j >= s`` (an LP; ``s > 0`` with the ``w_j`` spanning the wrench space
    iff the polygonal grasp is in force closure). ``cones="inscribed"`` (default) is this LP with ``facets``-gons;
    ``cones="exact"`` is its relative on the exact cones, the SOCP ``max s s.t. G x = 0, Σ f_n,i = 1,
    ‖ν_i‖ <= f_n,i − s`` (a different normalization: not the same number). No closure: ``value 0`` and the
    certificate of :func:`force_closure` on those cones (an unresisted wrench)."""
    g = _check_grasp(grasp)
    if cones == "inscribed":
        W, _ = g.primitive_wrenches(facets, "inner")
        C = _Conic(W, [1] * W.shape[1])
        name = f"min-weight LP (inscribed {facets}-gons)"
    elif cones == "exact":
        C = _conic(g)
        name = "min-weight SOCP (exact cones)"
    else:
        raise UnknownValueError("cones", f"is {cones!r}", "use 'inscribed' (the LP of FRoGGeR) or 'exact' (SOCP)")
    chk = _closure(
        C, g, "min_weight", "grasp_min_weight", 1.0, solver, tolerance, "FRoGGeR min-weight metric (arXiv:2302.13687)"
    )
    val = chk.margin if chk.holds else 0.0
    chk.value.update(
        {"min_weight": val, "cones": cones, "program": name, **({"facets": facets} if cones == "inscribed" else {})}
    )
    if chk.holds and "internal_force" in chk.value:
        chk.value["weights"] = chk.value.pop("internal_force")
    return chk


def largest_disturbance(grasp: Grasp, direction, *, solver: str | None = None, tolerance=None) -> GraspCheck:
    """The largest ``s`` such that the contacts resist the external wrench ``s d`` (``d`` the unit scaled wrench
    along ``direction``, physical units) with a unit normal-force budget: ``max s s.t. G x + s d = 0, x ∈ K,
    Σ f_n,i <= 1`` (SOCP, exact cones; the direction-wise relative of the L1 Ferrari–Canny measure).

    Certificates both ways (NumPy): the forces ``x`` give ``s_low = −dᵀG x`` (verified residual); the dual wrench
    ``y`` (``yᵀd = −1``) gives the upper bound ``λ = max(0, max_i (Gᵀy)_n,i + ‖(Gᵀy)_ν,i‖)``, because
    ``s = yᵀG x <= λ Σ f_n``. ``value`` holds ``s``, the bounds and their gap; ``holds`` says ``s > 0``."""
    import cvxpy as cp

    g = _check_grasp(grasp)
    t0 = time.perf_counter()
    d = _wrench_vector(g, "direction", direction)
    d = g.scaled_wrench(d)
    dn = float(np.linalg.norm(d))
    if not dn > 0:
        raise UnknownValueError("direction", "is the zero wrench", "give a nonzero wrench direction")
    d = d / dn
    C = _conic(g)
    n = sum(C.sizes)
    x, s = cp.Variable(n), cp.Variable()
    eq = C.G @ x + s * d == 0
    prob = cp.Problem(cp.Maximize(s), [eq, cp.sum(x[C.normals]) <= 1.0] + C.soc(x))
    status, info = _solve(prob, C, solver, tolerance)
    times = {"socp": time.perf_counter() - t0}
    lower, upper, data = 0.0, float("inf"), {"backend_status": status}
    if x.value is not None:
        xv = np.asarray(x.value, dtype=float)
        s_low = -float(d @ (C.G @ xv))
        r = C.G @ xv + s_low * d
        viol = float(np.max(C.violation(xv)))
        budget = float(np.sum(xv[C.normals]))
        if (
            float(np.linalg.norm(r)) <= GRASP_VERIFY_RTOL * C.scale * max(float(np.linalg.norm(xv)), 1.0)
            and viol <= GRASP_VERIFY_RTOL
            and budget <= 1.0 + GRASP_VERIFY_RTOL
        ):
            lower = max(s_low, 0.0)
            data.update({"forces": xv, "residual": float(np.linalg.norm(r)), "cone_violation": viol})
    if eq.dual_value is not None:
        y = np.asarray(eq.dual_value, dtype=float).ravel()
        yd = float(y @ d)
        if yd != 0:
            y = -y / yd
            z = C.G.T @ y
            upper = max(
                0.0, max(float(z[s_.start]) + float(np.linalg.norm(z[s_.start + 1 : s_.stop])) for s_ in C.offsets)
            )
            data.update({"dual_wrench": _physical(g, y), "dual_wrench_scaled": y})
    gap = upper - lower
    ok = np.isfinite(upper) and gap <= GRASP_STRICT_RTOL * max(upper, 1.0)
    cert = largest_disturbance_certificate(ok, lower, upper, data)
    times["total"] = time.perf_counter() - t0
    return GraspCheck(
        "largest_disturbance",
        bool(lower > GRASP_STRICT_RTOL) if ok else None,
        cert,
        lower,
        {
            "s": lower,
            "lower": lower,
            "upper": upper,
            "gap": gap,
            "direction_scaled": d,
            **({"forces": data["forces"]} if "forces" in data else {}),
        },
        "" if ok else "the bracket did not close to the solver's accuracy",
        times,
    )


__all__ = [
    "FORCE_CLOSURE_SOURCE",
    "MarginProgram",
    "equilibrium",
    "force_closure",
    "force_closure_from",
    "force_closures_from",
    "form_closure",
    "internal_forces",
    "largest_disturbance",
    "margin_program",
    "min_weight",
]
