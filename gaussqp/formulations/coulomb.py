"""Mode-free Coulomb friction: a globalized nonsmooth Newton method, the convex iteration with a
Newton polish as its fallback.

First, :func:`solve_mode_free` runs the globalized semismooth Newton method of
:mod:`gaussqp.friction.nonsmooth_newton` on the natural map, with W sparse when it is (a global problem with a
sparse M is condensed sparse, :func:`condense_sparse`); its answer is kept when its residual is at most
:data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL`; its damping schedule runs from the Newton's own starts, then, when it
stalls there, from the answer of the convex program with De Saxcé's shift at zero
(:func:`gaussqp.friction.convex_start.convex_start`). Otherwise the proximal-point rounds of
:mod:`gaussqp.friction.proximal_newton` (the Newton on ``W + σΛ``, as Siconos's PROX) run from the Newton's best
point, then from ``r = 0``, within one budget of inner iterations; when they do not reach that residual either (nor
:data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL`), the schedule's last pairs run from the point of projected
Gauss–Seidel sweeps (:func:`gaussqp.friction.splitting_start.sweep_start`), then the route below from scratch, as
before. When its answer too stays above the certificate's bound, the rounds run on
as a last resort, without their halving stall rule and within a budget of their own (:func:`_last_rounds`).

The Coulomb problem in its local (Delassus) form ``u = W r + q``, ``K_μ ∋ r ⟂ u + μ‖u_t‖e_n ∈ K_μ*``
(:mod:`gaussqp.friction.coulomb_law`) is solved in two stages:

1. **Convex iteration** (the fixed point of De Saxcé's shift; Acary, Brémond, Huber 2018 §4.3, "fixed point on
   the friction threshold" / Cadoux's SOCP iteration): with ``s_j = μ_j‖u_t,j‖`` and the skew part
   ``W_k = (W − Wᵀ)/2`` of a non-symmetric W frozen at the previous iterate, the SOCP

       min ½ rᵀ W_s r + (q + W_k r_prev + s e_n)ᵀ r   s.t.  r_j ∈ K_μj

   (``W_s = (W + Wᵀ)/2``, factored ``W_s = LᵀL`` in NumPy) has the optimality conditions
   ``K ∋ r ⟂ W_s r + q + W_k r_prev + s e_n ∈ K*``: at a fixed point (s and r_prev reproduced) they are Coulomb's
   law. The program is built once with ``p = q + W_k r_prev + s e_n`` a cvxpy Parameter (DPP) and re-solved by
   Clarabel with each new ``p``.
2. **Newton polish** on the natural map ``φ_ρ(r) = r − P_K(r − ρ(W r + q + μ‖u_t‖e_n))`` of the true W
   (semismooth Newton with the generalized Jacobian ``I − P_K'(z)(I − ρ D W)`` of
   :func:`~gaussqp.friction.coulomb_law.project_cone_jacobian`, ``D`` the derivative of the De Saxcé shift,
   Armijo backtracking on ``½‖φ_ρ‖²``; a projected step when the Newton step does not descend).
   ``ρ_j = 1/‖W_jj‖`` per contact (the same zeros as ρ = 1, a better-scaled map). The step is regularized
   Levenberg–Marquardt style (a singular W makes the Jacobian singular).
3. A polish that stalls (a stationary point of the merit that is not a zero) goes back to stage 1 from its best
   point for a few SOCPs and polishes again (:data:`~gaussqp.settings.COULOMB_RESTARTS`). Anderson acceleration of
   the shift was not tried: the polish finishes from the iteration's ~1e-6.

The answer is judged by our own recomputed natural-map residual with ρ = 1 (``solved`` only at most
:data:`~gaussqp.settings.COULOMB_RESIDUAL_RTOL` · ‖q‖), never by a backend's report.

An acceleration-level :class:`~gaussqp.ContactProblem` with "coulomb" contacts (FCLIB's global problems read with
``a ≡ v``) is condensed when ``M ≻ 0``: ``W = J M⁻¹ Jᵀ``, ``q = J M⁻¹(−F) + drift`` over the contact blocks
(normal, tangents), which is the dual of F1's program ``min ½aᵀMa + Fᵀa`` with the shifted cones
``(n_i a + b_i + s_i, T_i a + c_i) ∈ K*_μ``; the acceleration is recovered as ``a = M⁻¹(Jᵀr − F)`` and the
dynamics residual is recomputed in the original variables.

Lazy imports (the idiom of :mod:`gaussqp.backends`): cvxpy, ``scipy.linalg`` and ``scipy.sparse.linalg``
are imported inside the functions that use them, not when this module is imported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import scipy.sparse as sp

from ..backends import get_backend, solve_program
from ..friction.coulomb_law import (
    contact_modes,
    de_saxce_shift,
    natural_map,
    natural_map_residual,
    project_cone,
    project_cone_jacobian,
)
from ..friction.coulomb_uniqueness import coulomb_uniqueness
from ..friction.compiled import kernels, loaded, plain
from ..friction.convex_start import convex_start
from ..friction.nonsmooth_newton import contact_components, newton_system, solve_newton, sparse_delassus
from ..friction.proximal_newton import solve_proximal
from ..friction.splitting_start import sweep_start
from ..linalg.mass import cholesky
from ..linalg.csr import csr_from_arrays, matvec as csr_matvec, repeats, transpose as csr_transpose
from ..mechanics.delassus import delassus_of_rows
from ..model.local_problem import LocalContactProblem
from ..model.problem import ContactProblem
from ..model.system_class import SystemClass
from ..certificates.judge import finalize
from ..certificates.natural_map import law_measure
from ..errors import NotApplicableError
from ..results import Solution
from ..settings import (
    COULOMB_ARMIJO,
    COULOMB_BACKTRACK,
    COULOMB_CARRY_COMPILED_COORDINATES_MAX,
    COULOMB_CARRY_COSINE_MIN,
    COULOMB_COMPONENT_UNKNOWNS_MIN,
    COULOMB_DENSE_MAX,
    COULOMB_FALLBACK_UNKNOWNS_MAX,
    COULOMB_DYNAMICS_FLOOR,
    COULOMB_FIXED_POINT_ITER_MAX,
    COULOMB_FIXED_POINT_RTOL,
    COULOMB_HANDOFF_RTOL,
    COULOMB_LM_THETA,
    COULOMB_STEP_MIN,
    COULOMB_NEWTON_ITER_MAX,
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_NN_ITER_MAX,
    COULOMB_NN_REG_THETAS,
    COULOMB_NN_SCHEDULE,
    COULOMB_NN_SCHEDULE_CONVEX_FIRST,
    COULOMB_CONVEX_FIRST_UNKNOWNS_MIN,
    COULOMB_PROX_FALLBACK_SKIP_RTOL,
    COULOMB_PROX_NEAR_WORK_MAX,
    COULOMB_PROX_SIGMA_PER_RESIDUAL,
    COULOMB_PROX_LAST_NO_BEST_ROUNDS,
    COULOMB_PROX_LAST_WORK_MAX,
    COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX,
    COULOMB_PROX_WORK_MAX,
    COULOMB_RESIDUAL_RTOL,
    COULOMB_POLISH_RTOL,
    COULOMB_PSD_RTOL,
    COULOMB_RESTART_ITER,
    COULOMB_RESTARTS,
    COULOMB_SOCP_RTOL,
    COULOMB_SOCP_TIGHT_RESIDUAL_MAX,
    Tolerance,
    get_tolerance,
)
from .base import Formulation, SelfJudgedFormulation


@dataclass
class LocalAnswer:
    """What :func:`solve_local` returns: the reaction, the velocity and how they were reached."""

    r: np.ndarray
    u: np.ndarray
    fixed_point_iterations: int
    #: Newton iterations run to reach the answer: the polish's, or every θ of the schedule and every proximal round's
    newton_iterations: int
    history: list = field(default_factory=list)
    backend: str = ""
    backend_status: str = ""
    times: dict = field(default_factory=dict)
    #: which route answered: ``newton`` (:func:`solve_mode_free`'s first try), ``proximal newton`` (its proximal
    #: rounds) or ``convex iteration`` (the convex iteration + polish of :func:`solve_local`, alone or as the
    #: fallback of both)
    path: str = "convex iteration"
    #: what the nonsmooth Newton kernel reported (iterations, why it stopped, its residual), when it ran
    newton_kernel: dict = field(default_factory=dict)
    #: what the proximal rounds reported (per start: rounds, inner iterations, why they stopped, the residual), when
    #: they ran
    proximal: dict = field(default_factory=dict)


#: the name of the convex iteration's tight SOCP tolerance (:class:`_ShiftSOCP`): not a preset, so no looser preset
#: is retried after it (:func:`gaussqp.backends.base.retry_presets`)
TIGHT_SOCP = "coulomb_socp_tight"


def _dense(W) -> np.ndarray:
    return W.toarray() if sp.issparse(W) else np.asarray(W, dtype=float)


def _psd_factor(Ws: np.ndarray) -> np.ndarray:
    """``L`` with ``LᵀL = W_s`` (eigenvalues below :data:`COULOMB_PSD_RTOL` of the largest clipped to 0)."""
    w, V = np.linalg.eigh(Ws)
    top = max(float(w.max(initial=0.0)), 0.0)
    keep = w > COULOMB_PSD_RTOL * top
    return (V[:, keep] * np.sqrt(w[keep])).T


class _ShiftSOCP:
    """The convex iteration (module docstring, stage 1): the DPP program built once, :meth:`run` from any start."""

    def __init__(self, W: np.ndarray, q: np.ndarray, mu: np.ndarray, d: int, solver, tol: Tolerance):
        import cvxpy as cp

        N, m = q.size, mu.size
        self.W, self.q, self.mu, self.d, self.tol = W, q, mu, d, tol
        # the route's own accuracy for the last decades (the SOCPs' inaccuracy is the floor of the iteration's
        # residual), under a name of its own: no looser preset replaces a tight SOCP's inaccurate point
        self.tight = replace(tol, name=TIGHT_SOCP, solver=min(tol.solver, COULOMB_SOCP_RTOL))
        #: whether the SOCPs are solved to ``tight`` (from the first one that is, on: this program's later runs too)
        self.tightened = False
        self.Wk = (W - W.T) / 2
        L = _psd_factor((W + W.T) / 2)
        # the program in the data's units: r = σ r̃ with σ = ‖q‖/‖W_s‖, the objective divided by σ‖q‖, so the
        # backend's tolerances are relative to O(1) numbers (local_problem_test: r ~ 1e-5, W ~ 700, q ~ 1e-2)
        w_top = float(np.sqrt(np.sum(L * L, axis=1)).max(initial=0.0)) ** 2 if L.shape[0] else 0.0
        w_top = w_top if w_top > 0 else 1.0
        self.qn = max(float(np.linalg.norm(q)), float(np.finfo(float).tiny))
        self.sigma = self.qn / w_top
        L = L / np.sqrt(w_top)
        self.R = cp.Variable((m, d))
        self.p = cp.Parameter(N)
        r_flat = cp.reshape(self.R, (N,), order="C")
        # ½ r̃ᵀ(LᵀL)r̃ as a quadratic objective (Clarabel takes it natively: 3.4× faster per SOCP on Capsules than
        # the second-order cone cvxpy makes of ½‖L r̃‖²); LᵀL is W_s with its round-off negative eigenvalues clipped
        obj = self.p @ r_flat + (0.5 * cp.quad_form(r_flat, cp.psd_wrap(L.T @ L)) if L.shape[0] else 0)
        cons = [self.R[:, 0] >= 0, cp.SOC(cp.multiply(mu, self.R[:, 0]), self.R[:, 1:], axis=1)]
        self.prob = cp.Problem(cp.Minimize(obj), cons)
        self.backend = get_backend(solver, needs="socp")
        self.status = "failed"

    def _answered(self) -> bool:
        """Whether the last SOCP gave a point: a status other than ``failed`` (a backend error leaves cvxpy's
        variables at the previous program's values) and a value."""
        return self.status != "failed" and self.R.value is not None

    def run(self, r0: np.ndarray, max_iter: int, history: list) -> tuple[np.ndarray, int]:
        """At most ``max_iter`` SOCPs from ``r0`` (its shift and skew term); returns (r, SOCPs solved).

        The SOCPs are solved to the preset's tolerance until the residual of the point one starts from is at most
        :data:`~gaussqp.settings.COULOMB_SOCP_TIGHT_RESIDUAL_MAX` or no lower than the one before (the preset's
        inaccuracy is then the floor), and from then on (this program's later runs too) to
        :data:`~gaussqp.settings.COULOMB_SOCP_RTOL` (or the preset's, when tighter), keeping a tight SOCP's inaccurate
        point; the preset's answer only where a tight solve gives none. Each history entry records the tolerance
        asked of the backend for its point (``socp_rtol``; a backend may cap it: SCS at 1e-9)."""
        W, q, mu, d, qn = self.W, self.q, self.mu, self.d, self.qn
        m = mu.size
        r = r0.copy()
        u = W @ r + q
        s = mu * np.linalg.norm(u.reshape(m, d)[:, 1:], axis=1)
        res = natural_map_residual(r, u, q, mu, d).relative
        before = np.inf
        it = 0
        for it in range(1, max_iter + 1):
            shift = np.zeros((m, d))
            shift[:, 0] = s
            self.p.value = (q + self.Wk @ r + shift.ravel()) / qn
            self.tightened = self.tightened or res <= COULOMB_SOCP_TIGHT_RESIDUAL_MAX or res >= before
            tol = self.tight if self.tightened else self.tol
            _, self.status, info = solve_program(self.prob, self.backend, tol, needs="socp")
            if not self._answered() and tol is self.tight:  # no point at all: the preset's (and its looser retry)
                tol = self.tol
                _, self.status, info = solve_program(self.prob, self.backend, tol, needs="socp")
            if not self._answered():
                break
            before = res
            r_new = self.sigma * np.asarray(self.R.value).ravel()
            u = W @ r_new + q
            s_new = mu * np.linalg.norm(u.reshape(m, d)[:, 1:], axis=1)
            moved = (float(np.linalg.norm(s_new - s)) + float(np.linalg.norm(self.Wk @ (r_new - r)))) / qn
            r, s = r_new, s_new
            res = natural_map_residual(r, u, q, mu, d).relative
            history.append(
                {
                    "stage": "fixed_point",
                    "iteration": it,
                    "shift_change": moved,
                    "residual": res,
                    "backend_status": self.status,
                    "socp_rtol": tol.solver,
                }
            )
            if res <= COULOMB_HANDOFF_RTOL or moved <= COULOMB_FIXED_POINT_RTOL:
                break  # accurate already (the polish finishes), or the shift and the skew term no longer move
        return r, it


def _newton(
    W, q: np.ndarray, mu: np.ndarray, d: int, r0: np.ndarray, target: float, history: list, rho_scale: float = 1.0
) -> tuple[np.ndarray, int]:
    """The Newton polish (module docstring, stage 2) from ``r0`` until the ρ = 1 residual is <= ``target``·‖q‖."""
    import scipy.linalg as sla
    import scipy.sparse.linalg as spla

    N, m = q.size, mu.size
    dense = N <= COULOMB_DENSE_MAX
    Wd = _dense(W) if dense else sp.csr_matrix(W)
    diag_blocks = [Wd[j * d : (j + 1) * d, j * d : (j + 1) * d] for j in range(m)]
    rho_c = np.array(
        [1.0 / n if n > 0 else 1.0 for n in (np.linalg.norm(b.toarray() if sp.issparse(b) else b) for b in diag_blocks)]
    )
    rho = np.repeat(rho_c, d)

    def phi(r):
        u = np.asarray(Wd @ r).ravel() + q
        return natural_map(r, u, mu, d, rho_c), u

    r = project_cone(r0, mu, d)
    f, u = phi(r)
    best = (natural_map_residual(r, u, q, mu, d).relative, r.copy())
    k = 0
    theta = COULOMB_LM_THETA
    for k in range(1, COULOMB_NEWTON_ITER_MAX + 1):
        res = natural_map_residual(r, u, q, mu, d).relative
        if res < best[0]:
            best = (res, r.copy())
        if res <= target:
            k -= 1
            break
        U = u.reshape(m, d)
        nut = np.linalg.norm(U[:, 1:], axis=1)
        z = r - rho * de_saxce_shift(u, mu, d)
        Pj = project_cone_jacobian(z, mu, d)
        # D = ∂(u + μ‖u_t‖e_n)/∂u: identity plus μ ê_tᵀ in the normal row's tangent columns
        Dblocks = np.repeat(np.eye(d)[None], m, axis=0)
        slide = nut > 0
        Dblocks[slide, 0, 1:] = (mu[slide] / nut[slide])[:, None] * U[slide, 1:]
        if dense:
            Pd = sla.block_diag(*Pj)
            Dd = sla.block_diag(*Dblocks)
            Jac = np.eye(N) - Pd @ (np.eye(N) - rho[:, None] * (Dd @ Wd))
            # Levenberg–Marquardt-regularized Newton step (a singular W makes the Jacobian singular):
            # (JᵀJ + λ I) δ = −Jᵀφ with λ = θ‖φ‖ (Yamashita–Fukushima: still quadratic under an error bound)
            JtJ = Jac.T @ Jac
            lam = theta * float(np.linalg.norm(f))
            try:
                step = np.linalg.solve(JtJ + lam * np.eye(N), -(Jac.T @ f))
            except np.linalg.LinAlgError:
                step = np.linalg.lstsq(Jac, -f, rcond=None)[0]
        else:
            Pd, Dd = sp.block_diag(list(Pj), format="csr"), sp.block_diag(list(Dblocks), format="csr")
            Jac = sp.csc_matrix(sp.identity(N, format="csc") - Pd @ (sp.identity(N) - sp.diags(rho) @ (Dd @ Wd)))
            lam = theta * float(np.linalg.norm(f))
            try:
                step = spla.spsolve(sp.csc_matrix(Jac.T @ Jac + lam * sp.identity(N)), -(Jac.T @ f))
            except RuntimeError:
                step = np.full(N, np.nan)
        merit = float(f @ f)  # ‖φ‖², twice the merit ½‖φ‖²
        t = 1.0
        accepted = False
        if np.all(np.isfinite(step)):
            while t >= COULOMB_STEP_MIN:
                f_new, u_new = phi(r + t * step)
                if float(f_new @ f_new) <= (1 - 2 * COULOMB_ARMIJO * t) * merit:
                    r, f, u = r + t * step, f_new, u_new
                    accepted = True
                    break
                t *= COULOMB_BACKTRACK
        theta = theta * COULOMB_BACKTRACK if t == 1 else theta / COULOMB_BACKTRACK
        if not accepted:  # a projected (fixed-point) step r ← P_K(r − ρ(u + μ‖u_t‖e_n)), only if it descends
            f_new, u_new = phi(r - f)
            if float(f_new @ f_new) >= merit:
                history.append(
                    {"stage": "newton", "iteration": k, "residual": res, "step": 0.0, "stopped": "no descent"}
                )
                break
            r, f, u = r - f, f_new, u_new
            t = 0.0
        history.append({"stage": "newton", "iteration": k, "residual": res, "step": t})
    res = natural_map_residual(r, u, q, mu, d).relative
    if res < best[0]:
        best = (res, r.copy())
    r = best[1]
    return r, k


def solve_local(
    W,
    q: np.ndarray,
    mu: np.ndarray,
    dimension: int,
    *,
    solver: str | None = None,
    tolerance=None,
    target: float = COULOMB_POLISH_RTOL,
) -> LocalAnswer:
    """Solve ``u = W r + q`` with Coulomb's law (module docstring): the convex iteration, then the Newton polish.

    Parameters
    ----------
    W : (m·d, m·d) array or sparse matrix (any symmetry)
    q : (m·d,) free velocity, blocks (normal, t1[, t2])
    mu : (m,) friction coefficients
    dimension : d >= 2
    solver : the cvxpy backend of the SOCPs (None: the first installed that solves SOCPs, Clarabel)
    tolerance : preset name or :class:`~gaussqp.settings.Tolerance` of the SOCPs
    target : the relative natural-map residual (÷‖q‖) at which the polish stops
    """
    tol = get_tolerance(tolerance)
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    history: list = []
    if q.size == 0:
        return LocalAnswer(np.zeros(0), np.zeros(0), 0, 0, history, "", "solved", {})
    Wd = _dense(W)
    times = {"fixed_point": 0.0, "newton": 0.0}
    t0 = time.perf_counter()
    socp = _ShiftSOCP(Wd, q, mu, d, solver, tol)
    r, fp_it = socp.run(np.zeros(q.size), COULOMB_FIXED_POINT_ITER_MAX, history)
    times["fixed_point"] += time.perf_counter() - t0
    nt_it = 0
    best = (np.inf, r)
    restarted_from = None
    for restart in range(COULOMB_RESTARTS + 1):
        # a stalled polish goes back to the convex iteration from its best point, then polishes again; never twice
        # from the same point (the same programs would only repeat the same run)
        if restart:
            if best[1] is restarted_from:
                break
            restarted_from = best[1]
            t0 = time.perf_counter()
            r, k = socp.run(best[1], COULOMB_RESTART_ITER, history)
            fp_it += k
            times["fixed_point"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        r, k = _newton(W, q, mu, d, r, target, history)
        nt_it += k
        times["newton"] += time.perf_counter() - t0
        res = natural_map_residual(r, np.asarray(Wd @ r).ravel() + q, q, mu, d).relative
        if res < best[0]:
            best = (res, r)
        if res <= target:
            break
    r = best[1]
    u = Wd @ r + q
    return LocalAnswer(r, u, fp_it, nt_it, history, socp.backend.name, socp.status, times)


def solve_mode_free(
    W,
    q: np.ndarray,
    mu: np.ndarray,
    dimension: int,
    *,
    solver: str | None = None,
    tolerance=None,
    guess: np.ndarray | None = None,
    newton_max_iter: int = COULOMB_NN_ITER_MAX,
) -> LocalAnswer:
    """The mode-free route's solve of ``u = W r + q``: the globalized nonsmooth Newton method
    (:func:`gaussqp.friction.nonsmooth_newton.solve_newton`, W kept sparse when it is) first, through the (θ, start)
    pairs of :data:`~gaussqp.settings.COULOMB_NN_SCHEDULE` (its own starts, then the convex program's answer of
    :func:`gaussqp.friction.convex_start.convex_start`, computed once when first needed; the convex start first on a
    connected group of at least :data:`~gaussqp.settings.COULOMB_CONVEX_FIRST_UNKNOWNS_MIN` unknowns solved without a
    guess, :func:`_schedule`; a run that ends within :data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL` stops the
    pairs, and short proximal rounds, :data:`~gaussqp.settings.COULOMB_PROX_NEAR_WORK_MAX` inner iterations, go on from
    its point, the pairs resuming only when they do not converge); when it does not reach
    :data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL` (a stall, its iteration limit), the proximal-point rounds
    (:func:`_proximal_rounds`, from the short rounds' point when it is better than the Newton's, within what the short
    rounds left of the rounds' shared budget); when they do not either and their best point is not within
    :data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL` either, the schedule's ``"sweeps"`` pairs (the Newton from
    the point of projected Gauss–Seidel sweeps, :func:`gaussqp.friction.splitting_start.sweep_start`), then the convex
    iteration + polish of :func:`solve_local` from scratch, today's route, if ``m·d`` is at most
    :data:`~gaussqp.settings.COULOMB_FALLBACK_UNKNOWNS_MAX` (it is dense); above, the best iterate of the Newton or the
    rounds is the answer and ``newton_kernel["fallback"]`` says the fallback did not run; when the fallback ran and the
    best answer is still above the certificate's bound, the rounds run on without their halving rule
    (:func:`_last_rounds`, ``proximal["last_rounds"]``). Every answer is judged afterwards by the same recomputed
    natural-map residual (:func:`_attach`); ``path``, ``newton_kernel`` and ``proximal`` say which one answered and what
    the Newton and the rounds did.

    Contacts that W does not couple are solved separately when the groups are large enough
    (:func:`_groups`, :data:`~gaussqp.settings.COULOMB_COMPONENT_UNKNOWNS_MIN`): each group runs the whole route on
    its own block of W (its convex iteration and last resort included), and the answers are put together
    (:func:`_merged`) when each converged or is within the certificate's bound (:func:`_solved_alone`), else the whole
    problem is solved coupled; the judge recomputes the residual of the whole answer as of any other. A problem of
    several smaller components is solved whole when the schedule's first run converges there, else in groups of that size (:func:`_packed_groups`; the first run's work is counted,
    ``newton_kernel["whole_first"]``).

    Parameters
    ----------
    W, q, mu, dimension, solver, tolerance : as :func:`solve_local` (W dense or scipy.sparse)
    guess : optional start of the Newton (e.g. the previous state's reaction)
    newton_max_iter : the Newton's iteration limit (0: only its starts are evaluated)
    """
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    seen = q.size >= min(2 * COULOMB_COMPONENT_UNKNOWNS_MIN, COULOMB_CONVEX_FIRST_UNKNOWNS_MIN)
    components = contact_components(W, mu.size, d) if seen else None
    groups = _groups(W, mu.size, d, components) if q.size >= 2 * COULOMB_COMPONENT_UNKNOWNS_MIN else None
    # each contact's component's unknowns: a group's schedule, and the whole problem's, go by their largest component
    size = np.bincount(components[1])[components[1]] * d if components is not None else np.zeros(mu.size, dtype=int)
    whole_schedule = _schedule(int(size.max(initial=0)), guess)

    def solve_whole() -> LocalAnswer:  # the problem solved whole, coupled, by the route
        return _solve_connected(
            W,
            q,
            mu,
            d,
            solver=solver,
            tolerance=tolerance,
            guess=guess,
            newton_max_iter=newton_max_iter,
            schedule=whole_schedule,
        )

    first = None
    if groups is None:
        packed = _packed_groups(components, d) if q.size >= 2 * COULOMB_COMPONENT_UNKNOWNS_MIN else None
        if packed is None:
            return solve_whole()
        # several components, fewer than two large enough to be a group alone: solved whole when the schedule's first
        # run converges there (up to its first "starts" pair, which always runs), else apart in groups of the size
        # (one hard component stalls the merit of all)
        upto = next(k for k, (_, start) in enumerate(whole_schedule) if start == "starts")
        first = _solve_connected(
            W,
            q,
            mu,
            d,
            solver=solver,
            tolerance=tolerance,
            guess=guess,
            newton_max_iter=newton_max_iter,
            schedule=whole_schedule[: upto + 1],
            rounds=False,
        )
        if first.backend_status == "converged":
            return first
        groups = packed
    Wg = sp.csr_matrix(W) if sp.issparse(W) else np.asarray(W, dtype=float)
    parts = []
    for contacts in groups:
        iu = (contacts[:, None] * d + np.arange(d)).ravel()
        Wc = Wg[iu][:, iu] if sp.issparse(Wg) else Wg[np.ix_(iu, iu)]
        part = _solve_connected(
            Wc,
            q[iu],
            mu[contacts],
            d,
            solver=solver,
            tolerance=tolerance,
            guess=None if guess is None else np.asarray(guess, dtype=float).ravel()[iu],
            newton_max_iter=newton_max_iter,
            schedule=_schedule(int(size[contacts].max(initial=0)), guess),
        )
        parts.append((contacts, iu, part))
        if not _solved_alone(part, q[iu], mu[contacts], d):  # the whole problem, coupled, by the route
            whole = solve_whole()
            whole.newton_kernel["groups"] = (
                f"group {len(parts) - 1} of {len(groups)} ({contacts.size} contacts) not solved alone "
                f"({part.backend_status}, path {part.path}): the whole problem solved coupled"
            )
            for _, _, tried in parts:  # the work done: the groups' iterations and times too
                whole.newton_iterations += tried.newton_iterations
                for key, value in tried.times.items():
                    whole.times[f"group {key}"] = whole.times.get(f"group {key}", 0.0) + value
            _count_first_run(whole, first, "a group not solved alone: the whole problem solved coupled")
            return whole
    return _count_first_run(_merged(W, q, parts), first, "its components solved in groups")


def _solved_alone(part: LocalAnswer, q: np.ndarray, mu: np.ndarray, d: int) -> bool:
    """Whether a group's answer (``part``, of the group's free velocity ``q``) is kept in the merged answer: its Newton
    or its rounds converged, or the judge's measure of it (:func:`~gaussqp.certificates.natural_map.law_measure`: the
    natural-map residual and the velocity change, ÷ the group's ‖q‖) is within the certificate's
    :data:`~gaussqp.settings.COULOMB_RESIDUAL_RTOL`. The groups are not coupled by W, so the merged answer's map is the
    groups' maps side by side: ‖φ‖² = Σ‖φ_g‖² ≤ tol² Σ‖q_g‖² = tol²‖q‖², and the same for the velocity change; the judge
    still recomputes the whole answer's measure on the whole data."""
    if part.backend_status == "converged":
        return True
    return law_measure(natural_map_residual(part.r, part.u, q, mu, d)) <= COULOMB_RESIDUAL_RTOL


def _count_first_run(ans: LocalAnswer, first: LocalAnswer | None, then: str) -> LocalAnswer:
    """``ans`` with the work of the whole problem's first run (``first``, None when the problem was not tried whole
    before its groups) counted in its iterations (``newton_iterations`` and ``newton_kernel["iterations"]``) and
    times, and ``newton_kernel["whole_first"]`` saying what that run did and what came ``then``."""
    if first is None:
        return ans
    ans.newton_iterations += first.newton_iterations
    ans.newton_kernel["iterations"] = ans.newton_kernel.get("iterations", 0) + first.newton_iterations
    for key, value in first.times.items():
        ans.times[f"whole {key}"] = ans.times.get(f"whole {key}", 0.0) + value
    ans.newton_kernel["whole_first"] = {
        "iterations": first.newton_iterations,
        "reason": first.backend_status,
        "residual": first.newton_kernel.get("residual"),
        "then": then,
    }
    return ans


def _groups(W, m: int, d: int, components: tuple[int, np.ndarray] | None = None) -> list[np.ndarray] | None:
    """The groups of contacts :func:`solve_mode_free` solves separately: each connected component of W
    (:func:`~gaussqp.friction.nonsmooth_newton.contact_components`, or ``components`` when the caller has them) of at
    least :data:`~gaussqp.settings.COULOMB_COMPONENT_UNKNOWNS_MIN` unknowns, and the smaller ones together as one group;
    None when fewer than two components are that large (the problem is solved whole)."""
    count, labels = contact_components(W, m, d) if components is None else components
    if count < 2:
        return None
    big = np.flatnonzero(np.bincount(labels, minlength=count) * d >= COULOMB_COMPONENT_UNKNOWNS_MIN)
    if big.size < 2:
        return None
    groups = [np.flatnonzero(labels == c) for c in big]
    rest = np.flatnonzero(~np.isin(labels, big))
    return groups + ([rest] if rest.size else [])


def _packed_groups(components: tuple[int, np.ndarray] | None, d: int) -> list[np.ndarray] | None:
    """The groups a problem of several components of which fewer than two are a group alone (:func:`_groups` is None)
    is solved in when its first run whole does not converge: its components, in the order of their first contact, put together
    into groups of at least :data:`~gaussqp.settings.COULOMB_COMPONENT_UNKNOWNS_MIN` unknowns, a remainder below it
    joining the last group; each group's contacts in increasing order. None with fewer than two groups."""
    if components is None or components[0] < 2:
        return None
    count, labels = components
    sizes = np.bincount(labels, minlength=count) * d
    group_of = np.empty(count, dtype=np.int64)
    groups, pending, pending_size = 0, [], 0
    for c in range(count):
        pending.append(c)
        pending_size += int(sizes[c])
        if pending_size >= COULOMB_COMPONENT_UNKNOWNS_MIN:
            group_of[pending] = groups
            groups, pending, pending_size = groups + 1, [], 0
    if pending:
        if groups == 0:
            return None
        group_of[pending] = groups - 1
    if groups < 2:
        return None
    of_contact = group_of[labels]
    order = np.argsort(of_contact, kind="stable")
    return np.split(order, np.cumsum(np.bincount(of_contact, minlength=groups))[:-1])


def _schedule(unknowns: int, guess: np.ndarray | None) -> tuple[tuple[float, str], ...]:
    """The damping schedule of a group whose largest connected component has ``unknowns`` (a group of several small
    components, or a problem solved whole, goes by its largest):
    :data:`~gaussqp.settings.COULOMB_NN_SCHEDULE_CONVEX_FIRST` from
    :data:`~gaussqp.settings.COULOMB_CONVEX_FIRST_UNKNOWNS_MIN` unknowns on when no guess is given, else
    :data:`~gaussqp.settings.COULOMB_NN_SCHEDULE`: a guess (a trajectory's previous state) is the start a re-solve
    wants first, and below that size the Newton's own starts, exact at rest, are kept first (the setting says what was
    measured and what was judged)."""
    if guess is None and unknowns >= COULOMB_CONVEX_FIRST_UNKNOWNS_MIN:
        return COULOMB_NN_SCHEDULE_CONVEX_FIRST
    return COULOMB_NN_SCHEDULE


#: the names the attempts of the Newton give the starts that the schedule computes (``newton_kernel["attempts"]``)
_START_NAMES = {"convex": "convex program", "sweeps": "Gauss–Seidel sweeps"}

#: the routes of a group's answer, from the first to the last resort (:func:`_merged` reports the last one any group took)
_PATHS = ("newton", "proximal newton", "convex iteration")


def _merged(W, q: np.ndarray, parts: list) -> LocalAnswer:
    """One answer from the answers of the groups of contacts (``parts``: (contacts, their unknowns, answer) each):
    r put together, ``u = W r + q`` recomputed from the whole data; iterations and times summed; the path the last
    resort any group took; each record of the history, each attempt of the Newton and of the rounds tagged with its
    group; ``newton_kernel`` and ``proximal`` hold each group's report under ``groups``, and the keys of the group
    farthest from a solution (the largest ‖φ‖ of the groups' residuals times their ‖q‖) for its reason."""
    r = np.zeros(q.size)
    for _, iu, part in parts:
        r[iu] = part.r
    u = np.asarray(W @ r).ravel() + q
    worst = max(parts, key=lambda p: p[2].newton_kernel.get("residual", 0.0) * float(np.linalg.norm(q[p[1]])))[2]
    times: dict = {}
    for _, _, part in parts:
        for key, value in part.times.items():
            times[key] = times.get(key, 0.0) + value
    groups = [{"contacts": int(c.size), "unknowns": int(iu.size), "path": a.path} for c, iu, a in parts]
    kernel = {
        **{k: v for k, v in worst.newton_kernel.items() if k not in ("attempts", "iterations", "times")},
        "iterations": sum(a.newton_kernel.get("iterations", 0) for _, _, a in parts),
        "attempts": [
            {"group": g, **t} for g, (_, _, a) in enumerate(parts) for t in a.newton_kernel.get("attempts", [])
        ],
        "times": times,
        "groups": [dict(info, **a.newton_kernel) for info, (_, _, a) in zip(groups, parts)],
    }
    proximal: dict = {}
    if any(a.proximal for _, _, a in parts):
        proximal = {
            "iterations": sum(a.proximal.get("iterations", 0) for _, _, a in parts),
            "attempts": [
                {"group": g, **t} for g, (_, _, a) in enumerate(parts) for t in a.proximal.get("attempts", [])
            ],
            "groups": [dict(info, **a.proximal) for info, (_, _, a) in zip(groups, parts)],
        }
    statuses = [a.backend_status for _, _, a in parts]
    return LocalAnswer(
        r,
        u,
        sum(a.fixed_point_iterations for _, _, a in parts),
        sum(a.newton_iterations for _, _, a in parts),
        [{"group": g, **h} for g, (_, _, a) in enumerate(parts) for h in a.history],
        "+".join(dict.fromkeys(a.backend for _, _, a in parts)),
        next((st for st in statuses if st != "converged"), "converged"),
        times,
        path=max((a.path for _, _, a in parts), key=_PATHS.index),
        newton_kernel=kernel,
        proximal=proximal,
    )


def _solve_connected(
    W,
    q: np.ndarray,
    mu: np.ndarray,
    d: int,
    *,
    solver: str | None = None,
    tolerance=None,
    guess: np.ndarray | None = None,
    newton_max_iter: int = COULOMB_NN_ITER_MAX,
    last_resort: bool = True,
    schedule: tuple[tuple[float, str], ...] | None = None,
    rounds: bool = True,
) -> LocalAnswer:
    """:func:`solve_mode_free` on one group of contacts (the whole problem when it is not split), through the (θ,
    start) pairs of ``schedule`` (:func:`_schedule`; None: :data:`~gaussqp.settings.COULOMB_NN_SCHEDULE`), stopped
    for short rounds by a run within the skip bound (:func:`solve_mode_free`); without ``last_resort``, neither the
    convex iteration nor the last rounds run when the Newton, the rounds and the sweeps' pairs do not converge (the best
    answer of those is returned); without ``rounds``, no rounds run at all, short or not (the Newton's best answer is
    returned: a run whole before the problem is split into groups)."""
    t0 = time.perf_counter()
    runs: list = []
    # the starts computed when first needed ("convex", "sweeps"), their times and the sweeps' report
    points: dict[str, np.ndarray | None] = {}
    point_times: dict[str, float] = {}
    reports: dict = {}
    # W's copy and scales and the starts, shared by the schedule's runs (none at rest: r = 0 solves it, no run needs one)
    system = newton_system(W, q, mu, d) if np.any(q) else None

    def run_pairs(pairs, stop_within: float | None = None) -> list:
        """The damping schedule's ``pairs`` in turn, each (θ, start) only when the runs before it did not converge;
        "starts" are the Newton's own (the guess, every contact sticks, zero), "convex" the convex program's answer
        (the shift at zero), which no spurious stationary point of the merit holds (gaussqp/friction/convex_start.py),
        "sweeps" the point of projected Gauss–Seidel sweeps, where the contacts' modes are settled without a merit
        (gaussqp/friction/splitting_start.py). With ``stop_within``, a run that ends at most that far from a solution
        (÷‖q‖) also stops them. Returns the pairs not run."""
        for k, (theta, start) in enumerate(pairs):
            if start in _START_NAMES:
                if newton_max_iter <= 0:
                    continue
                if start not in points:
                    tc = time.perf_counter()
                    if start == "convex":
                        points[start] = convex_start(W, q, mu, d)
                    else:
                        points[start], reports[start] = sweep_start(W, q, mu, d, system)
                    point_times[start] = time.perf_counter() - tc
                if points[start] is None:
                    continue
                run = solve_newton(
                    W,
                    q,
                    mu,
                    d,
                    r0=points[start],
                    max_iter=newton_max_iter,
                    reg_theta=theta,
                    guess_only=True,
                    stop_cycles=True,
                    system=system,
                )
            else:
                run = solve_newton(
                    W, q, mu, d, r0=guess, max_iter=newton_max_iter, reg_theta=theta, stop_cycles=True, system=system
                )
            runs.append((theta, start, run))
            if run.residual <= COULOMB_NN_ACCEPT_RTOL:
                return []
            if stop_within is not None and run.residual <= stop_within:
                return list(pairs[k + 1 :])
        return []

    info: dict = {}

    def report_runs(theta: float, nt) -> None:
        """``info`` (the answer's ``newton_kernel``) from the runs so far, ``nt`` the Newton's answer (run with ``theta``)."""
        info.update(
            iterations=sum(run.iterations for _, _, run in runs),
            reason=nt.reason,
            residual=nt.residual,
            start=nt.start,
            linear_algebra=nt.linear_algebra,
            times=dict(nt.times),
            reg_theta=theta,
            attempts=[
                {
                    "reg_theta": th,
                    "residual": run.residual,
                    "iterations": run.iterations,
                    "reason": run.reason,
                    **({"start": _START_NAMES[start]} if start in _START_NAMES else {}),
                }
                for th, start, run in runs
            ],
        )
        for start, seconds in point_times.items():
            info["times"][f"{start}_start"] = seconds
        if "sweeps" in reports:
            info["sweeps"] = reports["sweeps"]

    pairs = COULOMB_NN_SCHEDULE if schedule is None else schedule
    # the sweeps' pairs run after the rounds; a run that ends within the skip bound stops the pairs for short rounds
    # from its point (below)
    rest = run_pairs(
        [pair for pair in pairs if pair[1] != "sweeps"], COULOMB_PROX_FALLBACK_SKIP_RTOL if rounds else None
    )
    if not runs:  # no pair ran (computed starts only, with no iteration allowed): the Newton's own starts
        run_pairs([(COULOMB_NN_REG_THETAS[0], "starts")])
    # the short rounds from a run that ended within the skip bound: (answer, report), their best answer (None: not run,
    # or no round), their seconds
    near: tuple | None = None
    short = None
    t_near = 0.0
    if rest:
        tn = time.perf_counter()
        near = _proximal_rounds(W, q, mu, d, (("run within reach", runs[-1][2].r),), COULOMB_PROX_NEAR_WORK_MAX)
        short = near[0]
        t_near = time.perf_counter() - tn
        if short is None or short.residual > COULOMB_NN_ACCEPT_RTOL:
            run_pairs(rest)
    theta, _, nt = min(runs, key=lambda run: run[2].residual)
    t_newton = time.perf_counter() - t0 - t_near
    report_runs(theta, nt)

    def kernel_answer(r, path: str, stage: str, history: list, status: str, iterations: int, times: dict, report=None):
        """The answer of the Newton or of its rounds, ``u`` recomputed from the data (not the kernel's own u)."""
        u = np.asarray(W @ r).ravel() + q
        history = [{"stage": stage, **h} for h in history]
        return LocalAnswer(
            r,
            u,
            0,
            iterations,
            history,
            "nonsmooth_newton",
            status,
            dict(times),
            path=path,
            newton_kernel=info,
            proximal=report or {},
        )

    newton_converged = nt.residual <= COULOMB_NN_ACCEPT_RTOL
    if newton_converged or not rounds:
        if not newton_converged:
            info["fallback"] = "not run: a first run whole (the groups are solved next)"
        # every θ's iterations: the work done, as the proximal path counts it (the short rounds' too)
        return kernel_answer(
            nt.r,
            "newton",
            "nonsmooth_newton",
            nt.history,
            "converged" if newton_converged else nt.reason,
            info["iterations"] + (near[1]["iterations"] if near else 0),
            {"nonsmooth_newton": t_newton, **({"proximal": t_near} if near else {})},
            near[1] if near else None,
        )

    def within_reach(residual: float, measure: float, whose: str) -> bool:
        """Whether an answer whose kernel's ``residual`` and judge's ``measure`` are both within
        :data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL` is the answer (the convex iteration not run; the
        judge decides), saying so in ``info["fallback"]``."""
        if residual <= COULOMB_PROX_FALLBACK_SKIP_RTOL and measure <= COULOMB_PROX_FALLBACK_SKIP_RTOL:
            info["fallback"] = (
                f"not run: {whose} {residual:.1e} is at most COULOMB_PROX_FALLBACK_SKIP_RTOL = "
                f"{COULOMB_PROX_FALLBACK_SKIP_RTOL:g}"
            )
            return True
        return False

    t0 = time.perf_counter()
    if near is not None and short is not None and short.residual <= COULOMB_NN_ACCEPT_RTOL:
        px, proximal = near
    else:
        # from the Newton's best point, or the short rounds' when it is better (they would repeat its first steps), then
        # from zero, within what the short rounds left of the rounds' budget
        first = ("newton best", nt.r)
        if short is not None and short.residual < nt.residual:
            first = ("short rounds' best", short.r)
        spent = near[1]["iterations"] if near is not None else 0
        # last, from zero again with σ following the residual (Siconos's PROX's rule), where the two stall
        second_rule = ("zero, σ from the residual", None, COULOMB_PROX_SIGMA_PER_RESIDUAL)
        px, proximal = _proximal_rounds(
            W, q, mu, d, (first, ("zero", None), second_rule), COULOMB_PROX_WORK_MAX - spent
        )
        if near is not None:  # both rounds' work reported; the better answer kept
            px = min((out for out in (short, px) if out is not None), key=lambda out: out.residual, default=None)
            proximal = {
                "iterations": near[1]["iterations"] + proximal["iterations"],
                "attempts": near[1]["attempts"] + proximal["attempts"],
                "residual": px.residual if px is not None else None,
            }
    t_proximal = time.perf_counter() - t0 + t_near
    times = {"nonsmooth_newton": t_newton, "proximal": t_proximal}
    work = info["iterations"] + proximal["iterations"]
    # the best answer besides the Newton's before the sweeps: the rounds', or a sweeps' run's when its judge's measure
    # is lower; its judge's measure and its kernel's residual
    other: LocalAnswer | None = None
    other_measure = other_residual = float("inf")
    if px is not None:
        status = "converged" if px.residual <= COULOMB_NN_ACCEPT_RTOL else px.reason
        other = kernel_answer(px.r, "proximal newton", "proximal", px.history, status, work, times, proximal)
        other_residual = px.residual
        if px.residual <= COULOMB_NN_ACCEPT_RTOL:
            return other
        # within the certificate's reach (the judge's measure: the residual and the velocity change that makes the
        # answer exact, which μ > √2 can put above the residual): the judge decides
        other_measure = law_measure(natural_map_residual(other.r, other.u, q, mu, d))
        if within_reach(px.residual, other_measure, "the rounds' residual"):
            return other
    # the sweeps' pairs, after the rounds: the Newton from the point of Gauss–Seidel sweeps, for the degenerate groups
    # where every other start and the rounds stall; when they do not converge, their best run is judged as the rounds'
    # answer is (within the skip bound it is the answer; else one more candidate against the convex iteration)
    tried = len(runs)
    t0 = time.perf_counter()
    run_pairs([pair for pair in pairs if pair[1] == "sweeps"])
    swept_runs = runs[tried:]
    if swept_runs or "sweeps" in point_times:
        times["sweeps"] = time.perf_counter() - t0
        if swept_runs and swept_runs[-1][2].residual <= COULOMB_NN_ACCEPT_RTOL:
            th, _, swept = swept_runs[-1]
            report_runs(th, swept)
            work = info["iterations"] + proximal["iterations"]
            return kernel_answer(
                swept.r, "newton", "nonsmooth_newton", swept.history, "converged", work, times, proximal
            )
        report_runs(theta, nt)  # the attempts from the sweeps' point listed; the Newton's answer as before them
        work = info["iterations"] + proximal["iterations"]
        if other is not None:  # their work and time counted in the rounds' answer too
            other.newton_iterations, other.times = work, dict(times)
        if swept_runs:  # their best run, judged as the rounds' answer is
            swept = min((run for _, _, run in swept_runs), key=lambda run: run.residual)
            by_sweeps = kernel_answer(
                swept.r, "newton", "nonsmooth_newton", swept.history, swept.reason, work, times, proximal
            )
            sweeps_measure = law_measure(natural_map_residual(by_sweeps.r, by_sweeps.u, q, mu, d))
            if within_reach(swept.residual, sweeps_measure, "the residual of the Newton from the sweeps' point"):
                return by_sweeps
            if sweeps_measure < other_measure:
                other, other_measure, other_residual = by_sweeps, sweeps_measure, swept.residual
    if q.size > COULOMB_FALLBACK_UNKNOWNS_MAX or not last_resort:  # the best answer so far, judged
        info["fallback"] = (
            f"not run: m·d = {q.size} > COULOMB_FALLBACK_UNKNOWNS_MAX = {COULOMB_FALLBACK_UNKNOWNS_MAX}"
            if last_resort
            else "not run: last_resort=False"
        )
        if other is not None and other_residual < nt.residual:
            return other
        return kernel_answer(nt.r, "newton", "nonsmooth_newton", nt.history, nt.reason, work, times, proximal)
    ans = solve_local(W, q, mu, d, solver=solver, tolerance=tolerance)
    ans.times.update(times)  # the Newton's, the rounds' and the sweeps' stages
    ans.newton_iterations += work  # their work too, as on the other paths (the polish's is the convex iteration's)
    ans.path = "convex iteration"
    ans.newton_kernel = info
    ans.proximal = proximal
    measure = law_measure(natural_map_residual(ans.r, ans.u, q, mu, d))
    if other is not None and other_measure < measure:
        # the rounds' (or the sweeps' run's) best point, when the convex iteration ends farther from a solution (e.g. at
        # 1e-7 where the rounds reached 1e-10 within their budget): the judge decides either by the same recomputed
        # residual
        other.times.update(ans.times)
        other.fixed_point_iterations = ans.fixed_point_iterations
        ans, measure = other, other_measure
    if measure <= COULOMB_RESIDUAL_RTOL:
        return ans
    # the last resort: longer rounds from the best point so far, then from r = 0 (_last_rounds); their work counts
    # whether or not their point is kept, as the rounds' above
    t0 = time.perf_counter()
    last, report = _last_rounds(W, q, mu, d, ans.r)
    ans.times["last rounds"] = time.perf_counter() - t0
    ans.proximal = {**ans.proximal, "last_rounds": report}
    ans.newton_iterations += report["iterations"]
    report["kept"] = last is not None and report["measure"] < measure  # only when the judge's measure is lower
    if not report["kept"]:
        return ans
    return replace(
        ans,
        r=last.r,
        u=np.asarray(W @ last.r).ravel() + q,
        history=ans.history + [{"stage": "last rounds", **h} for h in last.history],
        backend="nonsmooth_newton",
        backend_status=report["status"],
        path="proximal newton",
    )


def _proximal_rounds(W, q: np.ndarray, mu: np.ndarray, d: int, starts: tuple, work_max: int | None = None) -> tuple:
    """The proximal-point rounds (:func:`gaussqp.friction.proximal_newton.solve_proximal`) from each of ``starts``
    ((name, point or None for ``r = 0``[, σ's rule: ``sigma_per_residual``]) tuples) in turn until one reaches
    :data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL`, sharing one budget of ``work_max`` inner iterations (None:
    :data:`~gaussqp.settings.COULOMB_PROX_WORK_MAX`). The route's rounds start from the Newton's best point (or the
    short rounds', when better), then from ``r = 0``, then from ``r = 0`` with σ set from the residual
    (:data:`~gaussqp.settings.COULOMB_PROX_SIGMA_PER_RESIDUAL`) (neither start is better on every problem of the study: the
    quadrupeds converge from the Newton's point, a chain only from 0); its short rounds, from a run that ended within
    the skip bound, with the budget :data:`~gaussqp.settings.COULOMB_PROX_NEAR_WORK_MAX`. Returns (the best
    :class:`~gaussqp.friction.proximal_newton.ProximalResult` or None, what each start reported)."""
    work_max = COULOMB_PROX_WORK_MAX if work_max is None else work_max
    best, attempts, work = None, [], 0
    for start, r0, *rule in starts:
        if work >= work_max:
            break
        # to the route's acceptance bound, not the Newton's round-off target: the rounds converge linearly at best, and
        # their last decades cost as much as the first ones (a pile of 4,248 contacts: 75 of its 299 iterations)
        out = solve_proximal(
            W,
            q,
            mu,
            d,
            r0=r0,
            work_max=work_max - work,
            target=COULOMB_NN_ACCEPT_RTOL,
            sigma_per_residual=rule[0] if rule else None,
        )
        work += out.iterations
        attempts.append(
            {
                "start": start,
                "rounds": out.rounds,
                "iterations": out.iterations,
                "reason": out.reason,
                "residual": out.residual,
                "accelerated": out.accelerated,
            }
        )
        if best is None or out.residual < best.residual:
            best = out
        if out.residual <= COULOMB_NN_ACCEPT_RTOL:
            break
    return best, {"iterations": work, "attempts": attempts, "residual": best.residual if best else None}


def _last_rounds(W, q: np.ndarray, mu: np.ndarray, d: int, best: np.ndarray) -> tuple:
    """The route's last resort when every stage before it left the answer above the certificate's bound
    (:data:`~gaussqp.settings.COULOMB_RESIDUAL_RTOL`): the proximal rounds (:func:`solve_proximal`) without their
    halving stall rule, to :data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL` (half the bound), from the best
    point so far, then, if the judge's measure of their answer (:func:`law_measure`: the residual and the velocity
    change) is still above the bound, from ``r = 0``, sharing a budget of ``COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX //
    (m·d)`` inner iterations, at most :data:`~gaussqp.settings.COULOMB_PROX_LAST_WORK_MAX` (the same answer on any
    machine). On the slowly sliding states of a settling pile (``benchmarks/settling_piles.py``) the rounds converge
    linearly at a rate near 1, and the halving rule stopped them above the bound; run on, they reach it. Each start
    stops when its best residual has not gone down over :data:`~gaussqp.settings.COULOMB_PROX_LAST_NO_BEST_ROUNDS`
    rounds.

    Returns (the :class:`~gaussqp.friction.proximal_newton.ProximalResult` of least judge's measure, or None when no
    start ran; a report: ``iterations``, ``budget``, each start's ``attempts``, the best ``measure`` and a ``status``,
    ``converged`` at :data:`~gaussqp.settings.COULOMB_NN_ACCEPT_RTOL` as everywhere in the route, ``within the
    certificate's reach`` within the bound, else ``above the certificate's bound``, or ``not run``); the caller adds
    ``kept``, whether their point replaced the answer."""
    budget = min(COULOMB_PROX_LAST_WORK_MAX, COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX // max(q.size, 1))
    best_out, best_measure, attempts, work = None, float("inf"), [], 0
    for start, r0 in (("best so far", best), ("zero", None)):
        if work >= budget:
            break
        out = solve_proximal(
            W,
            q,
            mu,
            d,
            r0=r0,
            work_max=budget - work,
            target=COULOMB_PROX_FALLBACK_SKIP_RTOL,
            stall_rounds=None,
            no_best_rounds=COULOMB_PROX_LAST_NO_BEST_ROUNDS,
        )
        work += out.iterations
        judged = law_measure(natural_map_residual(out.r, np.asarray(W @ out.r).ravel() + q, q, mu, d))
        attempts.append(
            {"start": start, "rounds": out.rounds, "iterations": out.iterations, "reason": out.reason,
             "residual": out.residual, "measure": judged}
        )  # fmt: skip
        if judged < best_measure:  # (a NaN measure is never kept)
            best_out, best_measure = out, judged
        if best_measure <= COULOMB_RESIDUAL_RTOL:  # the judge decides; a start more would cost seconds
            break
    status = (
        "not run"
        if best_out is None
        else "converged"
        if best_out.residual <= COULOMB_NN_ACCEPT_RTOL
        else "within the certificate's reach"
        if best_measure <= COULOMB_RESIDUAL_RTOL
        else "above the certificate's bound"  # (each start's own reason is in its attempt)
    )
    report = {"iterations": work, "budget": budget, "attempts": attempts, "measure": best_measure, "status": status}
    return best_out, report


def _uniqueness(W: np.ndarray, mu: np.ndarray, d: int, coordinates: int | None = None) -> tuple[bool | None, str]:
    """A stated sufficient condition for uniqueness, or None: a frictionless problem (μ = 0) with a symmetric
    positive definite W is a strictly convex QP (unique r); with friction, Coulomb's law with a strongly monotone
    map (:func:`gaussqp.friction.coulomb_uniqueness.coulomb_uniqueness`: small μ on a positive definite W)."""
    if np.any(mu > 0):
        return coulomb_uniqueness(W, mu, d, coordinates)
    if sp.issparse(W):
        if W.shape[0] > COULOMB_DENSE_MAX:
            return None, "μ = 0 but W is sparse and large: its definiteness is not checked"
        W = W.toarray()
    if not np.allclose(W, W.T, rtol=0, atol=COULOMB_PSD_RTOL * max(float(np.abs(W).max(initial=0.0)), 1.0)):
        return None, "W is not symmetric"
    w = np.linalg.eigvalsh((W + W.T) / 2)
    if w.size and w.min() > COULOMB_PSD_RTOL * max(float(w.max()), 1.0):
        return True, "μ = 0 and W ≻ 0: a strictly convex QP"
    return None, "μ = 0 but W is singular"


def _attach(
    sol: Solution,
    ans: LocalAnswer,
    q: np.ndarray,
    mu: np.ndarray,
    d: int,
    W: np.ndarray,
    coordinates: int | None = None,
) -> None:
    """The answer ``ans`` on ``sol`` with what the judge needs: the natural-map residual recomputed from r and u,
    the contact modes, the route's intermediates; the judge (:func:`gaussqp.certificates.judge.finalize`) decides
    the status from the residual (``hints.natural_map``). ``coordinates``: n of the acceleration-level problem W was
    condensed from (the uniqueness test's rank bound), None for a local problem."""
    res = natural_map_residual(ans.r, ans.u, q, mu, d)
    sol.status = "solved"  # a claim: the judge decides it by the natural map (certificates/natural_map.py)
    sol.natural_map_residual = res
    if sp.issparse(W) and W.nnz:  # |W|'s largest entry (SciPy's abs sums repeated entries first, and sorts W in place)
        wn = float(abs(W).max()) if repeats(sp.csr_matrix(W)) else float(np.abs(W.data).max())
    else:
        wn = float(np.abs(_dense(W)).max(initial=0.0))
    vs = res.q_norm
    sol.contact_modes = contact_modes(ans.r, ans.u, mu, d, velocity_scale=vs, reaction_scale=vs / wn if wn > 0 else vs)
    sol.route = (
        "nonsmooth Newton"
        if ans.path == "newton"
        else "nonsmooth Newton in proximal-point rounds"
        if ans.path == "proximal newton"
        else "convex iteration + Newton polish" + (" (the nonsmooth Newton's fallback)" if ans.newton_kernel else "")
    )
    sol.hints = replace(sol.hints, polish_allowed=False, natural_map="coulomb")
    sol.extras.update(
        {
            "fixed_point_iterations": ans.fixed_point_iterations,
            "newton_iterations": ans.newton_iterations,
            "history": ans.history,
            "backend_status": ans.backend_status,
            "path": ans.path,
            "nonsmooth_newton": dict(ans.newton_kernel),
            "proximal": dict(ans.proximal),
        }
    )
    sol.residuals["natural_map_relative"] = res.relative
    sol.residuals["natural_map_siconos"] = res.siconos
    u, why = _uniqueness(W, mu, d, coordinates)
    sol.unique = {"acceleration": u, "generalized_force": u, "multipliers": u}
    sol.extras["uniqueness"] = why
    sol.timing.detail.update(ans.times)


def solve_local_problem(
    problem: LocalContactProblem, *, solver: str | None = None, tolerance=None, guess: np.ndarray | None = None
) -> Solution:
    """``gaussqp.solve`` of a :class:`~gaussqp.LocalContactProblem`: ``lambda_normal``/``lambda_tangent`` are the
    reaction r, ``velocity`` is u = W r + q, ``acceleration`` is None. ``guess`` (m·d,): a reaction the Newton
    method also starts from (:class:`gaussqp.Solver`'s re-solve: the last certified answer's reaction); the answer
    is judged by its own recomputed natural map either way."""
    t0 = time.perf_counter()
    ans = solve_mode_free(
        problem.W, problem.q, problem.mu, problem.dimension, solver=solver, tolerance=tolerance, guess=guess
    )
    sol = finalize(local_solution(problem, ans, CoulombFixedPoint.name), get_tolerance(tolerance))
    sol.extras["warm_start"] = guess is not None
    sol.timing.total = time.perf_counter() - t0
    return sol


def local_solution(problem: LocalContactProblem, ans: LocalAnswer, formulation: str) -> Solution:
    """The :class:`~gaussqp.results.Solution` of a local problem whose reaction ``ans.r`` some route found
    (ours, or a peer's in a study): r split into (λ_n, λ_t), u, and the natural-map residual (:func:`_attach`), for
    the judge (:func:`gaussqp.certificates.judge.finalize`)."""
    d, m = problem.dimension, problem.m
    sol = Solution(problem=problem, status="failed", formulation=formulation, solver=ans.backend)
    R = ans.r.reshape(m, d)
    sol.lambda_normal, sol.lambda_tangent, sol.velocity = R[:, 0].copy(), R[:, 1:].copy(), ans.u
    _attach(sol, ans, np.asarray(problem.q), np.asarray(problem.mu), d, problem.W)
    return sol


def contact_blocks(problem: ContactProblem) -> tuple:
    """(J, drift, mu) of the contacts in blocks (normal, tangents): J (m·d × n) sparse, the tangent rows of a
    contact without them are zero (its μ is then 0). One row permutation of ``[J_n; J_t]`` (no per-contact loop:
    it took 10 ms of an 82-contact problem), assembled in CSR directly (:func:`_permuted_rows`)."""
    m, d, n = problem.m, problem.dimension, problem.n
    Jn = sp.csr_matrix(problem.J_n)
    Jt = sp.csr_matrix(problem.J_t) if problem.J_t.shape[0] else sp.csr_matrix((0, n))
    mu = np.where(np.asarray(problem.modes) == "coulomb", problem.friction, 0.0).astype(float)
    has_t = np.asarray(problem.has_tangent, dtype=bool)
    # J_t holds d-1 rows per contact (zero for a contact without tangents); those rows are dropped, not copied
    keep_t = np.repeat(has_t, d - 1) if Jt.shape[0] == m * (d - 1) else np.zeros(Jt.shape[0], dtype=bool)
    normal_pos = np.arange(m) * d
    tangent_pos = (np.arange(m)[:, None] * d + np.arange(1, d)[None, :]).ravel()
    J = _permuted_rows(Jn, Jt, normal_pos, tangent_pos[keep_t], np.flatnonzero(keep_t), m * d)
    drift = np.zeros(m * d)
    drift[normal_pos] = problem.normal_drift
    if keep_t.any():
        drift[tangent_pos[keep_t]] = np.asarray(problem.tangent_drift)[keep_t]
    return J, drift, mu


def _permuted_rows(
    Jn: sp.csr_matrix, Jt: sp.csr_matrix, normal_pos: np.ndarray, tangent_pos: np.ndarray, tangent_rows, rows: int
) -> sp.csr_matrix:
    """The CSR matrix with ``rows`` rows whose row ``normal_pos[i]`` is ``Jn``'s row i, row ``tangent_pos[k]`` is
    ``Jt``'s row ``tangent_rows[k]``, the others empty: the arrays SciPy's product ``P @ [Jn; Jt[tangent_rows]]`` with
    the permutation matrix P gives (each row's entries in reverse order, exact zeros dropped), so that the products
    with J that follow (``W = J M⁻¹ Jᵀ``) add their terms in the same order as before, bit for bit, without building
    P, the stacked rows and the product (~1 ms on a quadruped of 18 contacts). Rows not in SciPy's canonical format
    (unsorted, or with an entry stored twice, which the product sums) take the product itself."""
    n = Jn.shape[1]
    if not (Jn.has_canonical_format and Jt.has_canonical_format):
        stacked = sp.vstack([Jn, Jt[np.asarray(tangent_rows, dtype=np.int64)]], format="csr")
        pos = np.concatenate([normal_pos, tangent_pos])
        P = sp.csr_matrix((np.ones(pos.size), (pos, np.arange(pos.size))), shape=(rows, pos.size))
        return sp.csr_matrix(P @ stacked)
    src_ptr = [Jn.indptr[:-1][: len(normal_pos)], Jt.indptr[np.asarray(tangent_rows, dtype=np.int64)]]
    src_end = [Jn.indptr[1:][: len(normal_pos)], Jt.indptr[np.asarray(tangent_rows, dtype=np.int64) + 1]]
    start = np.zeros(rows, dtype=np.int64)
    end = np.zeros(rows, dtype=np.int64)
    which = np.zeros(rows, dtype=np.int8)  # 0: no row, 1: J_n's, 2: J_t's
    start[normal_pos], end[normal_pos], which[normal_pos] = src_ptr[0], src_end[0], 1
    start[tangent_pos], end[tangent_pos], which[tangent_pos] = src_ptr[1], src_end[1], 2
    length = end - start
    total = int(length.sum())
    row = np.repeat(np.arange(rows), length)
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(length, out=ptr[1:])
    at = end[row] - 1 - (np.arange(total) - ptr[row])  # each row read backwards
    from_n = which[row] == 1
    data = np.where(from_n, Jn.data[np.where(from_n, at, 0)] if Jn.nnz else 0.0, 0.0)
    indices = np.where(from_n, Jn.indices[np.where(from_n, at, 0)] if Jn.nnz else 0, 0)
    if Jt.nnz:
        data = np.where(from_n, data, Jt.data[np.where(from_n, 0, at)])
        indices = np.where(from_n, indices, Jt.indices[np.where(from_n, 0, at)])
    keep = data != 0.0  # the product drops the sums that are exactly zero
    ptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row[keep], minlength=rows), out=ptr[1:])
    return csr_from_arrays(data[keep], indices[keep], ptr, (rows, n))


@dataclass(frozen=True)
class Condensed:
    """The local (Delassus) form of an acceleration-level problem with ``M ≻ 0`` (module docstring): ``W``, ``q``,
    ``mu`` over the contact blocks, and what recovers the acceleration ``a = M⁻¹Jᵀr + a_free``."""

    W: np.ndarray
    q: np.ndarray
    mu: np.ndarray
    MinvJt: np.ndarray
    a_free: np.ndarray


def block_reaction(sol: Solution, m: int) -> np.ndarray | None:
    """The reaction of ``sol`` in the contact blocks (normal, tangents), contact by contact (m·d,), or None when
    ``sol`` has no multipliers for ``m`` contacts."""
    if sol.lambda_normal is None or sol.lambda_tangent is None or len(sol.lambda_normal) != m:
        return None
    return np.hstack([np.asarray(sol.lambda_normal)[:, None], np.asarray(sol.lambda_tangent)]).ravel()


def carried_reaction(previous: ContactProblem, reaction: np.ndarray, problem: ContactProblem) -> np.ndarray | None:
    """A start for the Newton method of ``problem`` from ``reaction`` (m·d, contact blocks: :func:`block_reaction`),
    the certified reaction of ``previous``: another contact set of the same robot (a rollout whose contact set changed,
    :class:`gaussqp.Solver` with ``adapt``), or None when there is nothing to carry.

    Contacts are matched by their normal rows: each contact of ``problem`` takes the reaction of the contact of
    ``previous`` whose row ``J_n,j`` has the largest cosine with its own, when that cosine is at least
    :data:`~gaussqp.settings.COULOMB_CARRY_COSINE_MIN` (greedy by cosine, each contact of ``previous`` used once); its
    tangential part is re-expressed in the new tangent rows by least squares on the generalized force it exerted,
    ``T_i x = T_i T_jᵀ r_t,j`` (the new frame may be rotated about the normal). The others start at 0. Dense rows with
    the same coordinates only. A start, never an answer: the Newton method keeps it only when its residual is small
    (:data:`~gaussqp.settings.COULOMB_NN_GUESS_RTOL`), and every answer is judged on its own data.

    The arithmetic is :func:`carried_blocks_numpy`, or its compiled twin
    :func:`gaussqp.friction.compiled_kernels.carried_blocks` once a route has loaded the kernels (the same numbers bit
    for bit; one call instead of some thirty NumPy calls on arrays of a few hundred entries: ~0.25 ms to ~85 µs a change
    of contact set on the humanoid's rollout) up to :data:`~gaussqp.settings.COULOMB_CARRY_COMPILED_COORDINATES_MAX`
    coordinates; the normal rows' cosines are NumPy's in both (:func:`normal_cosines`)."""
    if (
        previous.n != problem.n
        or previous.dimension != problem.dimension
        or not previous.m
        or not problem.m
        or any(sp.issparse(A) for A in (previous.J_n, previous.J_t, problem.J_n, problem.J_t))
        or reaction.shape != (previous.m * previous.dimension,)
    ):
        return None
    d = problem.dimension
    t = d - 1
    cos = normal_cosines(np.asarray(problem.J_n, dtype=float), np.asarray(previous.J_n, dtype=float))
    if t and problem.J_t.shape[0] == problem.m * t and previous.J_t.shape[0] == previous.m * t:
        # C-ordered copies (when not so already) for both paths: the products of a contact's rows then run as the same
        # BLAS calls in NumPy and in the kernel, whatever the order the problem keeps its rows in
        Tn = plain(np.asarray(problem.J_t, dtype=float).reshape(problem.m, t, -1))
        To = plain(np.asarray(previous.J_t, dtype=float).reshape(previous.m, t, -1))
    else:  # no tangent rows to re-express the tangential reaction in: it starts at 0
        Tn, To = np.zeros((problem.m, 0, problem.n)), np.zeros((previous.m, 0, previous.n))
    old = plain(reaction.reshape(previous.m, d))
    # compiled for contacts of one or two tangent rows (d of 2 or 3; a contact of dimension 4 or 6 runs in NumPy)
    fast = kernels() if t <= 2 and loaded() and problem.n <= COULOMB_CARRY_COMPILED_COORDINATES_MAX else None
    if fast is not None:
        out, hits = fast.carried_blocks(cos, Tn, To, old, COULOMB_CARRY_COSINE_MIN)
    else:
        out, hits = carried_blocks_numpy(cos, Tn, To, old, COULOMB_CARRY_COSINE_MIN)
    return out.ravel() if hits else None


def normal_cosines(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """The cosines ``A_i · B_j / (‖A_i‖ ‖B_j‖)`` of the new contacts' normal rows ``A`` (mn, n) with the old ones'
    ``B`` (mo, n), C-ordered (mn, mo); a zero row has cosine 0. Computed by NumPy for both paths of
    :func:`carried_reaction` (its matching decisions are then the same with or without the compiled kernels, whatever
    the rows' memory order or BLAS's threads)."""
    na, nb = np.linalg.norm(A, axis=1), np.linalg.norm(B, axis=1)
    return np.ascontiguousarray((A @ B.T) / np.maximum(np.outer(na, nb), np.finfo(float).tiny))


def carried_blocks_numpy(
    cos: np.ndarray, Tn: np.ndarray, To: np.ndarray, old: np.ndarray, cmin: float
) -> tuple[np.ndarray, int]:
    """:func:`carried_reaction`'s matching and re-expression (the reference of the compiled
    :func:`gaussqp.friction.compiled_kernels.carried_blocks`, which a loaded route runs: the same numbers bit for bit,
    ``tests/friction/test_carried_reaction.py``). ``cos`` (mn, mo): :func:`normal_cosines` of the new and the old
    normal rows; ``Tn`` (mn, t, n) and ``To`` (mo, t, n): the new and the old tangent rows, C-ordered; ``old`` (mo, d):
    the old reaction; t = d − 1, or 0 (the tangential part starts at 0). Returns the new reaction (mn, d) and how many
    contacts were matched.

    Each new contact i takes the old contact j of largest cosine ``≥ cmin`` (greedy by cosine, ties in index order,
    each old contact used once). Its tangential part solves ``(T_i T_iᵀ) x = T_i f`` with ``f = T_jᵀ r_t,j`` summed in
    order, the Gram entries and right-hand sides by matrix-vector products of each contact's C-ordered rows (dgemv; one
    dot product, ddot, for one tangent row), as the compiled kernel computes them."""
    mn, mo, t = cos.shape[0], cos.shape[1], Tn.shape[1]
    flat = np.flatnonzero(cos >= cmin)  # the pairs above the threshold, best first
    flat = flat[np.argsort(-cos.ravel()[flat], kind="stable")]
    new_of, old_used = [-1] * mn, [False] * mo
    for i, j in zip(*(x.tolist() for x in np.divmod(flat, mo))):
        if new_of[i] < 0 and not old_used[j]:
            new_of[i], old_used[j] = j, True
    src = np.array(new_of, dtype=np.int64)
    hit = np.flatnonzero(src >= 0)
    src = src[hit]
    out = np.zeros((mn, old.shape[1]))
    out[hit, 0] = old[src, 0]
    if t and hit.size:
        force = old[src, 1, None] * To[src, 0]  # T_jᵀ r_t,j, the generalized force exerted (k, n)
        for s in range(1, t):
            force = force + old[src, 1 + s, None] * To[src, s]
        T = Tn[hit]
        rhs = np.matmul(T, force[:, :, None])[:, :, 0]
        gram = np.empty((hit.size, t, t))
        for b in range(t):
            gram[:, :, b] = np.matmul(T, np.ascontiguousarray(T[:, b])[:, :, None])[:, :, 0]
        out[hit, 1:] = _solve_small_spd(gram, rhs)
    return out, int(hit.size)


def _solve_small_spd(G: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``G_k x_k = b_k`` for a stack of Gram matrices (a contact's tangent rows): 1 × 1 and 2 × 2 in closed form, 0
    where ``G_k`` is singular to round-off (``det G_k <= ε tr(G_k)^t``, t the size); larger ones (contacts of dimension
    4 or 6, MuJoCo's condim 4 and 6) by the pseudo-inverse (the least-squares solution of least norm)."""
    t = G.shape[-1]
    if t > 2:
        return (np.linalg.pinv(G) @ b[..., None])[..., 0]
    if t == 1:
        g = G[:, 0, 0]
        ok = np.abs(g) > np.finfo(float).eps * np.abs(g)
        return np.where(ok, b[:, 0] / np.where(ok, g, 1.0), 0.0)[:, None]
    a, c, e = G[:, 0, 0], G[:, 0, 1], G[:, 1, 1]
    det = a * e - c * G[:, 1, 0]
    ok = np.abs(det) > np.finfo(float).eps * (a + e) ** 2
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    return np.stack([(e * b[:, 0] - c * b[:, 1]) * inv, (a * b[:, 1] - G[:, 1, 0] * b[:, 0]) * inv], axis=1)


class LocalPlan:
    """What the mode-free route keeps for the local problems ``u = W r + q`` of one structure (same m, d, W's
    storage and sparsity pattern: :class:`gaussqp.batch.Structure`): only ``guess``, the last *certified* answer's
    reaction, from which the Newton method also starts (W and q are the state: nothing is factored ahead)."""

    def __init__(self, problem: LocalContactProblem):
        self.m = problem.m
        #: the reaction (m·d,) of the last certified state, or None (cold start)
        self.guess: np.ndarray | None = None

    def classify(self, problem) -> None:
        """A local problem has no system class (no mass matrix)."""
        return None

    def reaction(self, sol: Solution) -> np.ndarray | None:
        return block_reaction(sol, self.m)


class CoulombPlan:
    """What the mode-free route keeps for one problem *structure*: :class:`gaussqp.Solver`
    holds one while it re-solves the states of a rollout; :func:`condense` makes a throwaway one per call.

    Kept from the structure (the :class:`gaussqp.batch.Structure`: counts, modes, which contacts have tangents,
    dense or sparse storage): where each row of ``[J_n; J_t]`` goes in the contact blocks (normal, tangents) and
    which contacts are ``"coulomb"`` (μ of the others is 0). Kept while the numbers do not change: the Cholesky
    factor of a dense ``M`` (reused when the next state's ``M`` is equal entry for entry, the same operation
    :func:`~gaussqp.linalg.mass.solve_mass` would redo: same bits). Carried from one state to the
    next: ``guess``, the last *certified* answer's reaction, contact by contact in the blocks (normal, tangents),
    which the Newton method evaluates as one of its starts (:func:`~gaussqp.friction.nonsmooth_newton.solve_newton`:
    kept when its residual is within :data:`~gaussqp.settings.COULOMB_NN_GUESS_RTOL`, else the cold starts are
    evaluated too and the best by merit is taken). Nothing here decides a status: every state is judged by its own
    recomputed residuals."""

    def __init__(self, problem: ContactProblem):
        m, d, n = problem.m, problem.dimension, problem.n
        self.m, self.d, self.n = m, d, n
        #: every matrix stored dense: the contact blocks are gathered densely (no sparse permutation)
        self.dense = not (sp.issparse(problem.M) or sp.issparse(problem.J_n) or sp.issparse(problem.J_t))
        self.coulomb = np.asarray(problem.modes, dtype=str) == "coulomb"
        has_t = np.asarray(problem.has_tangent, dtype=bool)
        nt = problem.J_t.shape[0]
        keep_t = np.repeat(has_t, d - 1) if nt == m * (d - 1) else np.zeros(nt, dtype=bool)
        self.normal_pos = np.arange(m) * d
        self.tangent_rows = np.flatnonzero(keep_t)  # rows of J_t kept (a contact without tangents has zero rows)
        self.tangent_pos = (self.tangent_rows // (d - 1)) * d + 1 + self.tangent_rows % (d - 1)
        self._M = None
        self._chol = None
        #: the reaction (m·d,) of the last certified state, or None (cold start)
        self.guess: np.ndarray | None = None

    def blocks(self, problem: ContactProblem) -> tuple:
        """(J, drift, mu) as :func:`contact_blocks` gives them, J dense (m·d × n) when the problem is stored dense."""
        if not self.dense:
            return contact_blocks(problem)
        m, d = self.m, self.d
        J = np.zeros((m * d, self.n))
        J[self.normal_pos] = problem.J_n
        drift = np.zeros(m * d)
        drift[self.normal_pos] = problem.normal_drift
        if self.tangent_rows.size:
            J[self.tangent_pos] = np.asarray(problem.J_t)[self.tangent_rows]
            drift[self.tangent_pos] = np.asarray(problem.tangent_drift)[self.tangent_rows]
        mu = np.where(self.coulomb, problem.friction, 0.0).astype(float)
        return J, drift, mu

    def mass_cholesky(self, M: np.ndarray):
        """``scipy.linalg.cho_factor(M)`` of a dense M (:func:`~gaussqp.linalg.mass.cholesky`: the same factor), reused
        while M is equal entry for entry to the last one factored. Raises ``numpy.linalg.LinAlgError`` when M is not
        positive definite."""
        if self._M is None or self._M.shape != M.shape or not np.array_equal(self._M, M):
            self._chol = cholesky(np.asarray(M, dtype=float))
            self._M = np.array(M, dtype=float)
        return self._chol

    def reaction(self, sol: Solution) -> np.ndarray | None:
        """The reaction of ``sol`` in the contact blocks (normal, tangents), contact by contact, or None."""
        return block_reaction(sol, self.m)

    def classify(self, problem: ContactProblem):
        """``problem.classify()`` (decided once per problem, by the problem)."""
        return problem.classify()


def condense(problem: ContactProblem, plan: CoulombPlan | None = None) -> Condensed:
    """``W = J M⁻¹ Jᵀ`` (symmetrized: it is symmetric up to round-off), ``q = J M⁻¹(−F) + drift`` over the contact
    blocks (:meth:`CoulombPlan.blocks`: dense rows for a dense problem, :func:`contact_blocks` otherwise), with one
    factorization of M: :func:`gaussqp.mechanics.delassus.delassus_of_rows`, the Cholesky factor of a dense M kept by
    ``plan`` while M does not change. Requires M ≻ 0."""
    plan = plan if plan is not None else CoulombPlan(problem)
    J, drift, mu = plan.blocks(problem)
    factor = plan.mass_cholesky(problem.M) if plan.dense else None
    rd = delassus_of_rows(problem, J, drift, factor=factor)
    return Condensed(W=rd.W, q=rd.q, mu=mu, MinvJt=rd.MinvJt, a_free=rd.a_free)


def condense_sparse(problem: ContactProblem) -> Condensed:
    """:func:`condense` for a sparse M without any dense matrix: ``W = J M⁻¹ Jᵀ`` sparse from M's connected blocks
    (:func:`gaussqp.friction.nonsmooth_newton.sparse_delassus`), ``q = J M⁻¹(−F) + drift``; ``MinvJt`` is the
    operator ``r ↦ M⁻¹Jᵀr`` (a :class:`scipy.sparse.linalg.LinearOperator`). Requires M ≻ 0."""
    import scipy.sparse.linalg as spla

    J, drift, mu = contact_blocks(problem)
    W, Minv = sparse_delassus(problem.M, J)
    a_free = np.asarray(Minv @ (-np.asarray(problem.F, dtype=float))).ravel()
    Jt = csr_transpose(J)  # sp.csr_matrix(J.T)'s arrays
    MinvJt = spla.LinearOperator(
        (problem.n, J.shape[0]), matvec=lambda r: np.asarray(Minv @ (Jt @ r)).ravel(), dtype=float
    )
    return Condensed(W=W, q=np.asarray(J @ a_free).ravel() + drift, mu=mu, MinvJt=MinvJt, a_free=a_free)


def _times(A, x: np.ndarray, transposed: bool = False, magnitudes: bool = False) -> np.ndarray:
    """``A @ x`` (``Aᵀ`` when ``transposed``, ``|A|`` when ``magnitudes``) for a dense or a sparse block of the problem:
    NumPy's product, or SciPy's own routine on the CSR arrays (:func:`gaussqp.linalg.csr.matvec`)."""
    if sp.issparse(A):
        return csr_matvec(sp.csr_matrix(A), x, transposed, magnitudes)
    B = np.abs(A) if magnitudes else A
    return np.asarray((B.T if transposed else B) @ x).ravel()


def global_solution(problem: ContactProblem, cd: Condensed, ans: LocalAnswer, formulation: str) -> Solution:
    """The :class:`~gaussqp.results.Solution`, for the judge, of an acceleration-level problem from the reaction ``ans.r``
    of its condensed form ``cd`` (found by F8, or by a peer in a study): ``a = M⁻¹Jᵀr + a_free``, the dynamics
    residual row by row on the data's scale, and the natural-map residual (:func:`_attach`)."""
    d, m = problem.dimension, problem.m
    W, q, mu = cd.W, cd.q, cd.mu
    F = np.asarray(problem.F, dtype=float)
    sol = Solution(problem=problem, status="failed", formulation=formulation, solver=ans.backend)
    R = ans.r.reshape(m, d)
    sol.lambda_normal = R[:, 0].copy()
    sol.lambda_tangent = R[:, 1:].copy()
    sol.acceleration = cd.MinvJt @ ans.r + cd.a_free
    sol.velocity = ans.u
    Ma = _times(problem.M, sol.acceleration)
    # recomputed from the problem's own rows, not from the condensed blocks J the answer was built on
    # (in this order: SciPy's abs of a block not in its canonical format sorts that block in place first)
    lt = sol.lambda_tangent.ravel()
    jn_abs = _times(problem.J_n, np.abs(sol.lambda_normal), transposed=True, magnitudes=True)
    jt_abs = _times(problem.J_t, np.abs(lt), transposed=True, magnitudes=True)
    gen = _times(problem.J_n, sol.lambda_normal, transposed=True) + _times(problem.J_t, lt, transposed=True)
    scale = _times(problem.M, np.abs(sol.acceleration), magnitudes=True) + np.abs(F) + jn_abs + jt_abs
    floor = COULOMB_DYNAMICS_FLOOR * float(scale.max(initial=0.0))
    scale = np.maximum(scale, floor)
    dyn = float(np.max(np.abs(Ma + F - gen) / np.where(scale > 0, scale, 1.0), initial=0.0))
    sol.residuals["dynamics"] = dyn
    _attach(sol, ans, q, mu, d, W, problem.n)
    return sol


class CoulombFixedPoint(SelfJudgedFormulation):
    name = "coulomb_fixed_point"
    id = "F8"
    crosscheck = "coulomb"
    accepts_local = True
    title = "Mode-free Coulomb friction: convex iteration on De Saxcé's shift + Newton polish"
    source = "Acary, Brémond, Huber 2018 §4 (natural map, fixed point on the threshold)"
    valid_when = "M ≻ 0, unilateral contacts: 'coulomb' or frictionless (stick/slip decided by the solver)"

    def accepts(self, problem: ContactProblem, cls: SystemClass) -> tuple[bool, str]:
        if not len(problem.coulomb):
            return False, "no 'coulomb' contact (this route decides stick/slip)"
        modes = problem.modes
        bad = np.flatnonzero(
            (problem.types != "unilateral") | ((modes != "coulomb") & (modes != "frictionless"))
        ).tolist()
        if bad:
            return False, (
                f"contact(s) {bad[:8]} are bilateral, sticking or sliding: the convex iteration takes "
                "unilateral 'coulomb' and frictionless contacts only"
            )
        if cls.mass != "definite":
            return False, f"needs M ≻ 0 to condense the Delassus form (M has rank {cls.mass_rank} < {cls.n})"
        return True, ""

    #: what this object keeps for one structure (:meth:`for_structure`); None for the registered object
    plan: CoulombPlan | None = None

    def for_structure(self, problem: ContactProblem | LocalContactProblem) -> "CoulombFixedPoint | None":
        """None for a structure without ``"coulomb"`` contacts (F8 does not take it); else a new F8 object for the states of ``problem``'s structure (:class:`gaussqp.Solver`): it keeps a
        :class:`CoulombPlan` (the contact blocks' layout, M's Cholesky factor while M is unchanged) and starts the Newton method from ``plan.guess``, which the Solver sets to the
        last certified answer's reaction. Its answers are judged as the registered object's are."""
        if not len(problem.coulomb):
            return None
        f = type(self)()
        f.plan = _PLANS[problem.form](problem)
        return f

    def solve_local(self, problem: LocalContactProblem, solver: str | None = None, tolerance=None) -> Solution:
        """:func:`solve_local_problem`, started also from this object's ``plan.guess`` (a Solver's re-solve of a
        local problem: the last certified answer's reaction), judged as :func:`gaussqp.solve` judges it."""
        guess = self.plan.guess if self.plan is not None else None
        return solve_local_problem(problem, solver=solver, tolerance=tolerance, guess=guess)

    def solve(
        self,
        problem: ContactProblem | LocalContactProblem,
        solver: str | None = None,
        tolerance=None,
        verdict: bool = True,
    ) -> Solution:  # type: ignore[override]
        if problem.form == "local":  # u = W r + q: no condensation (a study's route, a Solver's re-solve)
            return self.solve_local(cast(LocalContactProblem, problem), solver, tolerance)
        problem = cast(ContactProblem, problem)
        if self.plan is None:
            return super().solve(problem, solver, tolerance, verdict)
        ok, why = self.accepts(problem, self.plan.classify(problem))  # the class the Solver computed, not again
        if not ok:
            raise NotApplicableError(f"formulation {self.name!r} does not accept this problem: {why}")
        return Formulation.solve(self, problem, solver, tolerance, verdict)

    def _solve(self, problem: ContactProblem, solver: str | None, tol: Tolerance) -> Solution:
        """Condense (``W = J M⁻¹ Jᵀ``, ``q = J M⁻¹(−F) + drift``; sparse for a sparse M), :func:`solve_mode_free`
        (the nonsmooth Newton, else the convex iteration), recover ``a = M⁻¹(Jᵀ r − F)``; judged by the
        natural-map residual and the dynamics residual row by row. With a :attr:`plan` (a Solver's re-solve), the
        plan's layout and factor are reused and the Newton method also tries ``plan.guess``."""
        t0 = time.perf_counter()
        # a sparse M stays sparse (W = J M⁻¹ Jᵀ sparse); a dense M (a robot's) is condensed densely
        cd = condense_sparse(problem) if sp.issparse(problem.M) else condense(problem, self.plan)
        guess = self.plan.guess if self.plan is not None else None
        ans = solve_mode_free(cd.W, cd.q, cd.mu, problem.dimension, solver=solver, tolerance=tol, guess=guess)
        sol = global_solution(problem, cd, ans, self.name)
        sol.extras["warm_start"] = guess is not None
        sol.timing.total = time.perf_counter() - t0
        return sol


#: the per-structure plan of F8 by the problem's ``form`` (:meth:`CoulombFixedPoint.for_structure`)
_PLANS: dict = {"global": CoulombPlan, "local": LocalPlan}
