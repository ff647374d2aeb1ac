"""Polyhedral-cone decisions by LP plus rank tests (FORMULATIONS §3).

All LPs are solved with SciPy's HiGHS (``scipy.optimize.linprog``) and every answer is
re-verified in the original data before it is believed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from .linalg import as_dense, normalize_rows, null_space, rank_and_null_space, smallest_singular_value


@dataclass(frozen=True)
class ConeTest:
    """Outcome of ``{v : E v = 0, G v >= 0} == {0}?``.

    ``trivial`` is the answer; ``margin`` is σ_min of ``G Z`` (Z an orthonormal basis of
    ker E) when the cone is trivial — how far the cone is from opening — and the negative
    LP value (or 0 for a lineality direction) when it is not; ``witness`` is a unit nonzero
    element of the cone when there is one.
    """

    trivial: bool
    margin: float
    witness: np.ndarray | None
    detail: str


def _lp(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None):
    return linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")


def cone_is_trivial(E: np.ndarray, G: np.ndarray, n: int) -> ConeTest:
    """Decide ``{v ∈ Rⁿ : E v = 0, G v >= 0} = {0}`` exactly: a rank test, then one LP.

    With Z a basis of ker E and ``B = G Z``: the cone is ``Z {y : B y >= 0}``. If ``B`` has a
    kernel the cone contains a line (not trivial). Otherwise ``y ↦ B y`` is injective and
    the cone is trivial iff ``max 1ᵀ B y s.t. 0 <= B y <= 1`` is 0.
    """
    E = normalize_rows(as_dense(E).reshape(-1, n))
    G = normalize_rows(as_dense(G).reshape(-1, n))
    Z = null_space(E, scale=max(1.0, float(np.linalg.norm(E, 2)) if E.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return ConeTest(True, float("inf"), None, "ker E = {0}")
    B = G @ Z
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]
        return ConeTest(False, 0.0, v / np.linalg.norm(v), "the cone contains a line (rank test)")
    res = _lp(-B.sum(axis=0), A_ub=np.vstack([-B, B]), b_ub=np.concatenate([np.zeros(B.shape[0]), np.ones(B.shape[0])]),
              bounds=[(None, None)] * k)
    if res.status != 0:
        raise RuntimeError(f"cone LP failed: {res.message}")
    val = -float(res.fun)
    if val <= 1e-9:
        return ConeTest(True, smallest_singular_value(B), None, "pointed and LP value 0")
    v = Z @ res.x
    return ConeTest(False, -val, v / np.linalg.norm(v), "LP found a nonzero cone element")


def min_linear_on_cone(E: np.ndarray, G: np.ndarray, f: np.ndarray, n: int) -> tuple[float, np.ndarray | None]:
    """min fᵀv over the cone ``{E v = 0, G v >= 0}`` normalized by ``1ᵀ G v = 1`` (pointed cones).

    Used for the variants "Fᵀv > 0 for all nonzero v in the cone" (singular Props 3(ii),
    4(ii), 6(ii)). Returns (value, argmin); a line in the cone returns ``-|fᵀv|`` for a line
    direction (the strict condition fails on one of ±v).
    """
    En = normalize_rows(as_dense(E).reshape(-1, n))
    Gn = normalize_rows(as_dense(G).reshape(-1, n))
    Z = null_space(En, scale=max(1.0, float(np.linalg.norm(En, 2)) if En.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return float("inf"), None
    B = Gn @ Z
    rank, K = rank_and_null_space(B, scale=1.0)  # one SVD, one cut: a rank deficit has a kernel vector
    if rank < k:
        v = Z @ K[:, 0]
        v = v / np.linalg.norm(v)
        fv = float(f @ v)
        return -abs(fv), (v if fv <= 0 else -v)
    fz = Z.T @ f
    res = _lp(fz, A_ub=-B, b_ub=np.zeros(B.shape[0]), A_eq=B.sum(axis=0)[None, :], b_eq=[1.0],
              bounds=[(None, None)] * k)
    if res.status != 0:
        raise RuntimeError(f"cone LP failed: {res.message}")
    return float(res.fun), Z @ res.x


def farkas_vector(E: np.ndarray, e: np.ndarray, G: np.ndarray, g: np.ndarray):
    """A Farkas vector proving ``{a : E a + e = 0, G a + g >= 0} = ∅``, or None.

    Finds ``y = (y_E free, y_G >= 0)`` with ``Eᵀy_E + Gᵀy_G = 0`` and ``eᵀy_E + gᵀy_G = -1``,
    minimizing ‖y‖₁. (If a were feasible, ``0 = yᵀ(J a) = yᵀ(J a + b) - yᵀb >= 1``.)
    """
    E, G = as_dense(E), as_dense(G)
    pe, pg = E.shape[0], G.shape[0]
    if pe + pg == 0:
        return None
    J = np.vstack([E, G])
    b = np.concatenate([e, g])
    # variables: y_E = u - v (u, v >= 0), y_G >= 0
    A_eq = np.vstack([np.hstack([J[:pe].T, -J[:pe].T, J[pe:].T]),
                      np.concatenate([b[:pe], -b[:pe], b[pe:]])[None, :]])
    b_eq = np.concatenate([np.zeros(J.shape[1]), [-1.0]])
    res = _lp(np.ones(2 * pe + pg), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * (2 * pe + pg))
    if res.status != 0:
        return None
    x = res.x
    return np.concatenate([x[:pe] - x[pe:2 * pe], x[2 * pe:]])


def unbounded_ray(R: np.ndarray, F: np.ndarray, E: np.ndarray, G: np.ndarray):
    """A ray ``v`` with ``M v = 0`` (``R v = 0``), ``E v = 0``, ``G v >= 0``, ``Fᵀv = -1``, or None.

    Along it ``½ aᵀMa + Fᵀa`` decreases without bound from any feasible point: the failure
    of C3(ii) (singular Props 3, 4, 6).
    """
    n = F.size
    Eall = np.vstack([normalize_rows(as_dense(R).reshape(-1, n)), normalize_rows(as_dense(E).reshape(-1, n))])
    Z = null_space(Eall, scale=max(1.0, float(np.linalg.norm(Eall, 2)) if Eall.size else 1.0))
    k = Z.shape[1]
    if k == 0:
        return None
    B = as_dense(G).reshape(-1, n) @ Z
    fz = Z.T @ F
    # y = u - w, min 1ᵀ(u + w) s.t. B(u - w) >= 0, fzᵀ(u - w) = -1
    res = _lp(np.ones(2 * k), A_ub=np.hstack([-B, B]) if B.shape[0] else None,
              b_ub=np.zeros(B.shape[0]) if B.shape[0] else None,
              A_eq=np.concatenate([fz, -fz])[None, :], b_eq=[-1.0], bounds=[(0, None)] * (2 * k))
    if res.status != 0:
        return None
    return Z @ (res.x[:k] - res.x[k:])
