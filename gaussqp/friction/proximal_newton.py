"""The proximal-point iteration around the nonsmooth Newton method, for degenerate mode-free Coulomb problems.

The problem is the local form ``u = W r + q`` with Coulomb's law in De Saxcé's form
(:mod:`gaussqp.friction.coulomb_law`). When W is rank-deficient with a nonzero spectrum spread over decades (a
quadruped's four feet of many contacts each, a chain, a tall stack), the solution set is degenerate and the
globalized Newton method of :mod:`gaussqp.friction.nonsmooth_newton` stalls near 1e-7 whatever its damping. The
proximal-point algorithm (Rockafellar, "Monotone operators and the proximal point algorithm", SIAM J. Control
Optim. 1976) replaces the problem by a sequence of well-conditioned ones: given a centre ``r_k``, find ``r`` with

    ũ = (W + σΛ) r + (q − σΛ r_k),   Coulomb's law between r and ũ,

``Λ = diag(‖W_jj‖_F)`` contact by contact (each contact's own scale, so that σ is dimensionless), and take the
answer as the next centre. A fixed point ``r = r_k`` is a solution of the problem (``ũ = W r + q``). This is the
scheme of Siconos's PROX solver (``fc3d_proximal``; Acary, Cadoux, Lemaréchal, Malick, "A formulation of the
linear discrete Coulomb friction problem via convex optimization", ZAMM 2011, and the comparison of Acary,
Brémond, Huber, "On solving contact problems with Coulomb friction: formulations and numerical comparisons",
2018, §5): its inner problems are solved here by :func:`~gaussqp.friction.nonsmooth_newton.solve_newton`, whose
regularized Jacobian is nonsingular and whose local convergence is fast once ``σΛ`` lifts W's small eigenvalues.

**Adaptive σ** (as PROX adapts its proximal parameter): an inner solve that reaches its target divides σ by
:data:`~gaussqp.settings.COULOMB_PROX_SIGMA_FACTOR` (the sequence then approaches the unregularized problem
quickly); one that does not multiplies it (a better-conditioned inner problem next time) and keeps the centre unless
the inner answer lowers the problem's own residual. σ stays within
[:data:`~gaussqp.settings.COULOMB_PROX_SIGMA_MIN`, :data:`~gaussqp.settings.COULOMB_PROX_SIGMA_MAX`].

It stops when the problem's own natural-map residual (ρ = 1, ÷‖q‖, the one the certificate recomputes) reaches
``target``, when the inner Newton iterations of all rounds reach :data:`~gaussqp.settings.COULOMB_PROX_WORK_MAX` (a
deterministic budget: the same answer on any machine), or when the best residual has not halved over
:data:`~gaussqp.settings.COULOMB_PROX_STALL_ROUNDS` rounds. Nothing here is a certificate: the route recomputes the
residual and judges it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..settings import (
    COULOMB_NN_REG_THETA,
    COULOMB_NN_STALL_FACTOR,
    COULOMB_NN_TARGET_RTOL,
    COULOMB_PROX_CENTER_RTOL,
    COULOMB_PROX_INNER_RTOL,
    COULOMB_PROX_PATIENCE,
    COULOMB_PROX_SIGMA_FACTOR,
    COULOMB_PROX_SIGMA_MAX,
    COULOMB_PROX_SIGMA_MIN,
    COULOMB_PROX_SIGMA_START,
    COULOMB_PROX_STALL_ROUNDS,
    COULOMB_PROX_WORK_MAX,
)
from .coulomb_law import natural_map, project_cone
from .nonsmooth_newton import CONVERGED, MAX_ITER, STALLED, contact_scales, solve_newton


@dataclass
class ProximalResult:
    """What :func:`solve_proximal` returns.

    ``r``, ``u = W r + q`` the best iterate (least ρ = 1 residual of the problem itself), ``residual`` its
    ``‖φ_1‖/‖q‖``, ``converged`` whether it reached the target, ``reason`` why it stopped (``converged``,
    ``max_iter``: the work budget, ``stalled``), ``rounds`` proximal rounds, ``iterations`` inner Newton iterations
    of all rounds, ``history`` one dict per round (σ, the inner solve's outcome, the problem's residual), ``times``
    (seconds), ``linear_algebra`` of the inner solves."""

    r: np.ndarray
    u: np.ndarray
    residual: float
    converged: bool
    reason: str
    rounds: int
    iterations: int
    history: list = field(default_factory=list)
    times: dict = field(default_factory=dict)
    linear_algebra: str = "dense"


def _residual(r: np.ndarray, u: np.ndarray, mu: np.ndarray, d: int, qn: float) -> float:
    """The natural-map residual with ρ = 1, ``‖r − P_K(r − s(u))‖ / ‖q‖`` (the certificate's measure)."""
    return float(np.linalg.norm(natural_map(r, u, mu, d))) / (qn if qn > 0 else 1.0)


def solve_proximal(
    W,
    q: np.ndarray,
    mu: np.ndarray,
    dimension: int,
    *,
    r0: np.ndarray | None = None,
    target: float = COULOMB_NN_TARGET_RTOL,
    sigma: float = COULOMB_PROX_SIGMA_START,
    work_max: int = COULOMB_PROX_WORK_MAX,
) -> ProximalResult:
    """Solve ``u = W r + q``, Coulomb's law in De Saxcé's form, by the proximal-point iteration of the module
    docstring, each round's problem ``((W + σΛ), q − σΛ r_k)`` solved by the globalized nonsmooth Newton method.

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix, any symmetry, possibly singular
    q : (m·d,) free velocity, blocks (normal, t1[, t2])
    mu : (m,) friction coefficients (0: frictionless)
    dimension : d >= 2
    r0 : the first centre (projected on the cones); None: ``r = 0``
    target : stop once the problem's ``‖φ_1(r)‖ <= target · ‖q‖``
    sigma : the first σ (dimensionless: the proximal term is ``σ ‖W_jj‖_F`` on contact j)
    work_max : at most this many inner Newton iterations over all rounds

    Returns
    -------
    ProximalResult
        The best iterate and why the iteration stopped; ``converged`` is a claim the caller re-checks.
    """
    t_start = time.perf_counter()
    q = np.asarray(q, dtype=float).ravel()
    mu = np.asarray(mu, dtype=float).ravel()
    d = int(dimension)
    N = q.size
    m = N // d
    qn = float(np.linalg.norm(q))
    Wk = sp.csr_matrix(W) if sp.issparse(W) else np.asarray(W, dtype=float)
    lam = np.repeat(contact_scales(Wk, m, d), d)  # Λ, contact by contact

    def velocity(r: np.ndarray) -> np.ndarray:
        return np.asarray(Wk @ r).ravel() + q

    center = np.zeros(N) if r0 is None else project_cone(np.asarray(r0, dtype=float).ravel(), mu, d)
    u = velocity(center)
    res = _residual(center, u, mu, d, qn)
    best = (res, center, u)
    best_halved, since = res, 0
    history: list = []
    work, rounds, reason, algebra = 0, 0, MAX_ITER, "dense"
    floor, successes = COULOMB_PROX_SIGMA_MIN, 0  # σ's lower bound for now, converged rounds since it was set
    while res > target:
        if work >= work_max:
            reason = MAX_ITER
            break
        rounds += 1
        shift = sigma * lam
        Wt = Wk + (sp.diags(shift) if sp.issparse(Wk) else np.diag(shift))
        qt = q - shift * center
        qtn = float(np.linalg.norm(qt))
        inner_target = COULOMB_PROX_INNER_RTOL * qn / qtn if qtn > 0 else COULOMB_PROX_INNER_RTOL
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a singular inner system: the Newton falls back to its other steps
            inner = solve_newton(
                Wt, qt, mu, d, r0=center, target=inner_target, max_iter=work_max - work, reg_theta=COULOMB_NN_REG_THETA
            )
        work += inner.iterations
        algebra = inner.linear_algebra
        un = velocity(inner.r)
        resn = _residual(inner.r, un, mu, d, qn)
        history.append(
            {
                "round": rounds,
                "sigma": sigma,
                "inner_iterations": inner.iterations,
                "inner_reason": inner.reason,
                "inner_residual": inner.residual,
                "residual": resn,
            }
        )
        if inner.residual * qtn <= COULOMB_PROX_CENTER_RTOL * qn or resn < res:  # the next centre
            center, u, res = inner.r, un, resn
        if resn < best[0]:
            best = (resn, inner.r, un)
        if not inner.converged:  # a harder inner problem than the Newton solves: σ up, and not below it for a while
            sigma = min(COULOMB_PROX_SIGMA_MAX, sigma * COULOMB_PROX_SIGMA_FACTOR)
            floor, successes = sigma, 0
        else:
            successes += 1
            if successes >= COULOMB_PROX_PATIENCE:  # solved at the floor often enough: try below it again
                floor = COULOMB_PROX_SIGMA_MIN
            sigma = max(floor, sigma / COULOMB_PROX_SIGMA_FACTOR)
        if best[0] ** 2 <= COULOMB_NN_STALL_FACTOR * best_halved**2:  # the residual halved (the Newton's stall rule)
            best_halved, since = best[0], 0
        else:
            since += 1
            if since >= COULOMB_PROX_STALL_ROUNDS:
                reason = STALLED
                break
    res, r, u = best
    return ProximalResult(
        r=r,
        u=u,
        residual=res,
        converged=res <= target,
        reason=CONVERGED if res <= target else reason,
        rounds=rounds,
        iterations=work,
        history=history,
        times={"proximal": time.perf_counter() - t_start},
        linear_algebra=algebra,
    )


__all__ = ["ProximalResult", "solve_proximal"]
