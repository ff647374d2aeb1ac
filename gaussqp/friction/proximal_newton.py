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
[:data:`~gaussqp.settings.COULOMB_PROX_SIGMA_MIN`, :data:`~gaussqp.settings.COULOMB_PROX_SIGMA_MAX`]. With
``sigma_per_residual`` a converged inner solve sets σ to that many times the problem's residual instead (PROX's own rule,
``α = σ · error``), without the floor the divided σ keeps after a failure; σ then changes every round, so Anderson's
memory, which restarts at each change, seldom acts.

**Inexact inner solves** (PROX's adaptive internal tolerance): a round's inner problem is solved to the problem's
current residual divided by :data:`~gaussqp.settings.COULOMB_PROX_INNER_RATIO`, never below
:data:`~gaussqp.settings.COULOMB_PROX_INNER_RTOL`: Rockafellar's inexact proximal point, whose errors shrink with the
residual. Solving every round to 1e-13 spent most of a chain's inner iterations on centres about to be replaced.

**Anderson acceleration of the centres** (Walker, Ni, "Anderson acceleration for fixed-point iterations", SIAM J.
Numer. Anal. 2011, type II; Fu, Zhang, Boyd, "Anderson accelerated Douglas–Rachford splitting", SIAM J. Sci. Comput.
2020, for its safeguarded restarts): under one σ the rounds are the fixed-point iteration ``r_{k+1} = T_σ(r_k)``,
``T_σ`` the proximal map. On degenerate problems it converges linearly with a rate near 1 (a box wall: 0.4 % per
round). With the last ``M + 1`` pairs ``(r_i, T_σ(r_i))``, ``g_i = Λ^{1/2}(T_σ(r_i) − r_i)``, the next centre is
``P_K(T_σ(r_k) − ΔT γ)``, ``γ = argmin ‖g_k − ΔG γ‖`` (``ΔG``, ``ΔT`` the differences of consecutive ``g_i``,
``T_σ(r_i)``; ``M`` = :data:`~gaussqp.settings.COULOMB_PROX_ANDERSON_MEMORY`). Safeguards: the memory restarts
when σ changes, after an inner solve that misses its target, and when ``‖g_k‖`` grows; every accelerated centre is
judged by the problem's own residual like any other iterate (the best iterate is the answer, and the route re-checks
it). A round whose inner solve ends at its start (no Newton iteration: the guess's own step met the inner target)
still counts one iteration of the budget, so the budget bounds the rounds too.

It stops when the problem's own natural-map residual (ρ = 1, ÷‖q‖, the one the certificate recomputes) reaches
``target``, when the inner Newton iterations of all rounds reach ``work_max`` (by default
:data:`~gaussqp.settings.COULOMB_PROX_WORK_MAX`: a deterministic budget: the same answer on any machine), when the best
residual has not halved over :data:`~gaussqp.settings.COULOMB_PROX_STALL_ROUNDS` rounds, or when it has not gone down at
all over :data:`~gaussqp.settings.COULOMB_PROX_NO_BEST_ROUNDS` rounds (rounds that drift away from their best point: on
a pile of 4,248 contacts from 1.3e-7 to 7e-7 over 30 rounds); the route's last resort switches the halving rule off and
waits longer for a new best point (``stall_rounds``, ``no_best_rounds``). Nothing here is a certificate: the route
recomputes the residual and judges it.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..settings import (
    COULOMB_NN_REG_THETA,
    COULOMB_PROX_ANDERSON_MEMORY,
    COULOMB_PROX_ANDERSON_RCOND,
    COULOMB_PROX_INNER_RATIO,
    COULOMB_NN_STALL_FACTOR,
    COULOMB_NN_TARGET_RTOL,
    COULOMB_PROX_CENTER_RTOL,
    COULOMB_PROX_INNER_RTOL,
    COULOMB_PROX_NO_BEST_ROUNDS,
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
    #: rounds whose next centre was Anderson's combination (module docstring)
    accelerated: int = 0


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
    anderson: int = COULOMB_PROX_ANDERSON_MEMORY,
    inner_ratio: float | None = COULOMB_PROX_INNER_RATIO,
    stall_rounds: int | None = COULOMB_PROX_STALL_ROUNDS,
    no_best_rounds: int = COULOMB_PROX_NO_BEST_ROUNDS,
    sigma_per_residual: float | None = None,
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
    work_max : at most this many inner Newton iterations over all rounds (a round counts at least one)
    anderson : Anderson's memory M (module docstring); 0: the plain proximal-point iteration
    inner_ratio : each inner problem is solved to the problem's current residual divided by this (not below
        :data:`~gaussqp.settings.COULOMB_PROX_INNER_RTOL`); None: every inner problem to that floor
    stall_rounds : stop when the best residual has not halved over this many rounds; None: no such stop (the route's
        last resort, :func:`gaussqp.formulations.coulomb._last_rounds`, which converges linearly at a rate near 1)
    no_best_rounds : stop when the best residual has not gone down at all over this many rounds
    sigma_per_residual : after a round whose inner problem converged, σ becomes this times the problem's current
        residual (÷‖q‖) instead of σ / :data:`~gaussqp.settings.COULOMB_PROX_SIGMA_FACTOR`: the proximal term vanishes
        with the residual, the rule of Siconos's PROX (``fc3d_proximal``: ``α = σ · error^ν``, σ = 5, ν = 1); None:
        the division

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
    since_best = 0  # rounds since the best residual last went down at all
    history: list = []
    work, rounds, reason, algebra = 0, 0, MAX_ITER, "dense"
    floor, successes = COULOMB_PROX_SIGMA_MIN, 0  # σ's lower bound for now, converged rounds since it was set
    weight = np.sqrt(lam)  # Anderson's norm: Λ^{1/2}, each contact in its own units
    memory: list = []  # Anderson's (g_i, T_σ(r_i)) under the current σ
    accelerated = 0
    while res > target:
        if work >= work_max:
            reason = MAX_ITER
            break
        rounds += 1
        best_before = best[0]
        shift = sigma * lam
        Wt = Wk + (sp.diags(shift) if sp.issparse(Wk) else np.diag(shift))
        qt = q - shift * center
        qtn = float(np.linalg.norm(qt))
        inner_rtol = COULOMB_PROX_INNER_RTOL if inner_ratio is None else max(COULOMB_PROX_INNER_RTOL, res / inner_ratio)
        inner_target = inner_rtol * qn / qtn if qtn > 0 else inner_rtol
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a singular inner system: the Newton falls back to its other steps
            inner = solve_newton(
                Wt, qt, mu, d, r0=center, target=inner_target, max_iter=work_max - work, reg_theta=COULOMB_NN_REG_THETA
            )
        work += max(inner.iterations, 1)
        algebra = inner.linear_algebra
        un = velocity(inner.r)
        resn = _residual(inner.r, un, mu, d, qn)
        step = "plain"
        if inner.residual * qtn <= COULOMB_PROX_CENTER_RTOL * qn or resn < res:  # the next centre
            nxt, unxt, resnxt = inner.r, un, resn
            if anderson > 0 and inner.converged:
                g = weight * (inner.r - center)
                if memory and float(g @ g) > float(memory[-1][0] @ memory[-1][0]):
                    memory = []  # the fixed-point residual grew: restart
                memory = [*memory, (g, inner.r)][-(anderson + 1) :]
                if len(memory) >= 2:
                    G = np.array([m_[0] for m_ in memory]).T
                    T = np.array([m_[1] for m_ in memory]).T
                    gamma = np.linalg.lstsq(np.diff(G, axis=1), g, rcond=COULOMB_PROX_ANDERSON_RCOND)[0]
                    cand = project_cone(inner.r - np.diff(T, axis=1) @ gamma, mu, d)
                    if np.all(np.isfinite(cand)):
                        nxt, unxt = cand, velocity(cand)
                        resnxt = _residual(cand, unxt, mu, d, qn)
                        step, accelerated = "anderson", accelerated + 1
            center, u, res = nxt, unxt, resnxt
            if resnxt < best[0]:
                best = (resnxt, nxt, unxt)
        history.append(
            {
                "round": rounds,
                "sigma": sigma,
                "inner_iterations": inner.iterations,
                "inner_reason": inner.reason,
                "inner_residual": inner.residual,
                "residual": resn,
                "centre": step,
            }
        )
        if resn < best[0]:
            best = (resn, inner.r, un)
        old_sigma = sigma
        if not inner.converged:  # a harder inner problem than the Newton solves: σ up, and not below it for a while
            sigma = min(COULOMB_PROX_SIGMA_MAX, sigma * COULOMB_PROX_SIGMA_FACTOR)
            floor, successes = sigma, 0
        else:
            successes += 1
            if successes >= COULOMB_PROX_PATIENCE:  # solved at the floor often enough: try below it again
                floor = COULOMB_PROX_SIGMA_MIN
            if sigma_per_residual is None:
                sigma = max(floor, sigma / COULOMB_PROX_SIGMA_FACTOR)
            else:
                sigma = max(COULOMB_PROX_SIGMA_MIN, sigma_per_residual * res)
        if sigma != old_sigma or not inner.converged:  # another map T_σ, or an inexact image: Anderson restarts
            memory = []
        if best[0] ** 2 <= COULOMB_NN_STALL_FACTOR * best_halved**2:  # the residual halved (the Newton's stall rule)
            best_halved, since = best[0], 0
        else:
            since += 1
            if stall_rounds is not None and since >= stall_rounds:
                reason = STALLED
                break
        since_best = 0 if best[0] < best_before else since_best + 1
        if since_best >= no_best_rounds:
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
        accelerated=accelerated,
    )


__all__ = ["ProximalResult", "solve_proximal"]
