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
the factorization's backward error (``2(N+1)N ε max_i W̃_ii``, Higham, *Accuracy and Stability of Numerical
Algorithms*, Thm 10.3: a factorization that completes proves the matrix plus a perturbation of at most that size
positive definite). It holds for small μ on a well-conditioned W (piles of few bodies, FCLIB's small problems); a
singular W (redundant contacts: feet of many contacts, towers) never passes it — the answer then says uniqueness is
not decided, as before.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..settings import COULOMB_DENSE_MAX


def coulomb_uniqueness(W, mu: np.ndarray, dimension: int) -> tuple[bool | None, str]:
    """``(True, why)`` when the sufficient condition of the module docstring proves that ``u = W r + q`` with
    Coulomb's law has exactly one solution (for every q), else ``(None, why)``: not decided (never ``False``).

    Parameters
    ----------
    W : (m·d, m·d) array or scipy.sparse matrix, any symmetry (a sparse W above
        :data:`~gaussqp.settings.COULOMB_DENSE_MAX` unknowns is not tested)
    mu : (m,) friction coefficients
    dimension : d >= 2
    """
    d = int(dimension)
    mu = np.asarray(mu, dtype=float).ravel()
    N = mu.size * d
    if N == 0:
        return True, "no contact"
    if sp.issparse(W):
        if N > COULOMB_DENSE_MAX:
            return None, "W is sparse and large: the strong-monotonicity test (small μ, W ≻ 0) is not run"
        W = W.toarray()
    W = np.asarray(W, dtype=float)
    m = mu.size
    ar = np.arange(m)
    nrm = np.linalg.norm(W.reshape(m, d, m, d)[ar, :, ar, :].reshape(m, -1), axis=1)
    if not np.all(nrm > 0):
        return None, "a contact's diagonal block of W is zero: W is singular"
    s = np.repeat(1.0 / np.sqrt(nrm), d)
    Wt = s[:, None] * W * s[None, :]  # D W D
    Ws = (Wt + Wt.T) / 2
    eps = np.finfo(float).eps
    delta = 2.0 * (N + 1) * N * eps * float(np.abs(np.diag(Ws)).max())
    mu_max = float(mu.max(initial=0.0))

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
    T = Wt.reshape(m, d, N)[:, 1:, :].reshape(-1, N)  # the tangential rows of D W D
    for kind, tau in (("Frobenius", float(np.linalg.norm(T))), ("spectral", None)):
        if tau is None:
            tau = float(np.linalg.norm(T, 2))
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
