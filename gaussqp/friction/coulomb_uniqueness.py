"""A sufficient condition for the mode-free Coulomb problem ``u = W r + q`` to have exactly one solution.

In De Saxcé's form the problem is the complementarity problem over the cone ``K_μ``

    K_μ ∋ r ⟂ F(r) ∈ K_μ*,    F(r) = s(W r + q),   s(u) = u + μ‖u_t‖ e_n

(:mod:`gaussqp.friction.coulomb_law`; De Saxcé and Feng 1991, Acary, Brémond, Huber 2018 eq. (7)), i.e. the
variational inequality VI(K_μ, F) on a closed convex cone. When F is continuous and **strongly monotone** the VI
has exactly one solution (Facchinei and Pang, *Finite-Dimensional Variational Inequalities and Complementarity
Problems*, 2003, §2.3). With ``Δ = r − r'`` and ``Δu = W Δ`` (q cancels),

    ⟨F(r) − F(r'), Δ⟩ = Δᵀ W_s Δ + Σ_j μ_j (‖u_t,j‖ − ‖u'_t,j‖) Δ_n,j
                     ≥ λ_min(W_s) ‖Δ‖² − μ_max ‖(WΔ)_t‖ ‖Δ_n‖ ≥ (λ_min(W_s) − μ_max ‖W_t‖₂) ‖Δ‖²

(``W_s = (W + Wᵀ)/2``, ``W_t`` the tangential rows of W; the triangle inequality on each ``‖u_t,j‖``, then
Cauchy–Schwarz). So ``W_s − μ_max ‖W_t‖₂ I ≻ 0`` proves uniqueness — of the reaction r, hence of u = W r + q and of
an acceleration recovered from r. The cone is invariant under a positive scaling of each contact's block, so the test
is made on ``W̃ = D W D`` with D Jacobi per contact (``‖W_jj‖_F^{-1/2}``): the data's own units do not decide it (``d_j s(u_j) = s(d_j u_j)`` for ``d_j > 0``: the scaled problem
``x = D⁻¹r`` is the same law with ``W̃`` and ``Dq``).

The test is a Cholesky factorization of ``W̃_s − (μ_max τ + δ) I`` with ``τ`` an upper bound of ``‖W̃_t‖₂`` (its
Frobenius norm, then, only when that fails and W̃_s is positive definite, the spectral norm itself) and ``δ`` a bound of
the rounding of forming ``W̃_s`` (``4ε`` times the largest row sum of ``|W̃|``) and of the factorization's backward error
(``2(N+1)N ε max_i W̃_ii``, Higham, *Accuracy and Stability of Numerical
Algorithms*, Thm 10.3: a factorization that completes proves the matrix plus a perturbation of at most that size
positive definite). It holds for small μ on a well-conditioned W (piles of few bodies, FCLIB's small problems); a
singular W (redundant contacts: feet of many contacts, towers) never passes it — the answer then says uniqueness is
not decided, as before.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..settings import COULOMB_UNIQUENESS_UNKNOWNS_MAX
from ..linalg.csr import csr_entries, repeats
from .nonsmooth_newton import diagonal_blocks


def coulomb_uniqueness(W, mu: np.ndarray, dimension: int, coordinates: int | None = None) -> tuple[bool | None, str]:
    """``(True, why)`` when the sufficient condition of the module docstring proves that ``u = W r + q`` with
    Coulomb's law has exactly one solution (for every q), else ``(None, why)``: not decided (never ``False``).

    Two exact necessary conditions are checked first, without a factorization: ``W = J M⁻¹ Jᵀ`` with more unknowns
    than ``coordinates`` (n) is singular, and no shift ``μ_max‖W̃_t‖₂`` can be passed when it is at least the least
    diagonal entry of ``W̃_s`` (``‖W̃_t‖₂`` is at least the largest row norm of ``W̃_t``). The factorization itself runs
    on problems of at most :data:`~gaussqp.settings.COULOMB_UNIQUENESS_UNKNOWNS_MAX` unknowns; beyond, the answer
    says the test was not run.

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix, any symmetry
    mu : (m,) friction coefficients
    dimension : d >= 2
    coordinates : n of an acceleration-level problem whose Delassus matrix W is (None: a local problem)
    """
    d = int(dimension)
    mu = np.asarray(mu, dtype=float).ravel()
    m = mu.size
    N = m * d
    if N == 0:
        return True, "no contact"
    if coordinates is not None and N > coordinates:
        return None, (
            f"W = J M⁻¹ Jᵀ has {N} unknowns for n = {coordinates} coordinates: it is singular (redundant contacts), "
            "uniqueness is not decided"
        )
    sparse = sp.issparse(W)
    Wc = sp.csr_matrix(W) if sparse else np.asarray(W, dtype=float)
    nrm = np.linalg.norm(diagonal_blocks(Wc, m, d).reshape(m, -1), axis=1)
    if not np.all(nrm > 0):
        return None, "a contact's diagonal block of W is zero: W is singular"
    s = np.repeat(1.0 / np.sqrt(nrm), d)
    tangent = np.flatnonzero(np.arange(N) % d)
    entries = csr_entries(Wc) if sparse and not repeats(Wc) else None
    if entries is not None:  # each entry stored once: D W D, its diagonal and its rows' norms off W's arrays
        rows, cols = entries
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            vals = s[rows] * Wc.data * s[cols]  # SciPy's diag(s) @ W @ diag(s), entry by entry
        diag = np.zeros(N)
        on = rows == cols
        diag[rows[on]] = vals[on]
        # each row's squares summed in W's storage order
        row_norms = np.sqrt(np.bincount(rows, weights=vals * vals, minlength=N)[tangent])
    else:
        Wt = sp.csr_matrix(sp.diags(s) @ Wc @ sp.diags(s)) if sparse else s[:, None] * Wc * s[None, :]  # D W D
        diag = np.asarray(Wt.diagonal()).ravel()
        T = Wt[tangent]  # the tangential rows of D W D
        row_norms = np.sqrt(np.asarray(T.multiply(T).sum(axis=1)).ravel()) if sparse else np.linalg.norm(T, axis=1)
    mu_max = float(mu.max(initial=0.0))
    if mu_max * float(row_norms.max(initial=0.0)) >= float(diag.min()):
        return None, (
            f"μ_max = {mu_max:.3g} is too large for the strong-monotonicity test (μ_max times a tangential row of W̃ "
            "exceeds a diagonal entry of W̃_s): uniqueness is not decided"
        )
    if N > COULOMB_UNIQUENESS_UNKNOWNS_MAX:
        return None, (
            f"the strong-monotonicity test (a dense factorization) is not run above {COULOMB_UNIQUENESS_UNKNOWNS_MAX} "
            f"unknowns (this problem has {N}): uniqueness is not decided"
        )
    if entries is not None:
        Wd = np.zeros((N, N))
        Wd[rows, cols] = vals
    else:
        Wd = Wt.toarray() if sparse else Wt
    Td = Wd[tangent]
    Ws = (Wd + Wd.T) / 2
    eps = np.finfo(float).eps
    # the factorization's backward error, plus the rounding of forming D W D and (W̃ + W̃ᵀ)/2 (a few ε of each entry:
    # at most 4ε times the largest row sum of |W̃| in the 2-norm, which matters for a large skew part)
    delta = 2.0 * (N + 1) * N * eps * float(np.abs(np.diag(Ws)).max()) + 4.0 * eps * float(np.abs(Wd).sum(axis=1).max())

    def definite(shift: float) -> bool:
        try:
            np.linalg.cholesky(Ws - shift * np.eye(N))
        except np.linalg.LinAlgError:
            return False
        return True

    if not definite(delta):
        return (
            None,
            "W's symmetric part is not positive definite (W singular: redundant contacts): uniqueness is not decided",
        )
    if mu_max == 0.0:
        return True, "μ = 0 and W_s ≻ 0: a strongly monotone linear complementarity problem (one reaction)"
    for kind, tau in (("Frobenius", float(np.linalg.norm(Td))), ("spectral", None)):
        if tau is None:
            tau = float(np.linalg.norm(Td, 2))
        if definite(mu_max * tau + delta):
            return True, (
                f"Coulomb's law with a strongly monotone map: W̃_s − μ_max‖W̃_t‖ I ≻ 0 (μ_max = {mu_max:.3g}, "
                f"‖W̃_t‖ ≤ {tau:.3g} by its {kind} norm; W̃ = DWD, D Jacobi per contact): one reaction "
                "(Facchinei–Pang §2.3)"
            )
    return None, (
        f"μ_max = {mu_max:.3g} is too large for the strong-monotonicity test (W̃_s − μ_max‖W̃_t‖₂ I is not positive "
        "definite): uniqueness is not decided"
    )


__all__ = ["coulomb_uniqueness"]
