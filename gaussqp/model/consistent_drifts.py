"""The smallest drift change that makes a set of rows consistent (the verdict contract).

An imported simulator state carries drifts that are slightly inconsistent: MuJoCo's soft contacts creep, so the
drifts ``b_i = J̇_i q̇`` of a box resting on four corners are ≈ 2.5e-8 apart where rigid contact asks them to agree.
With every contact loaded (a resting box), the rows ``J_A a + b_A = 0`` then have no exact solution, although a
problem within round-off of the data does. The user's question is physical — does the box stick? — and its answer
is the one of the nearest consistent data, reported with the change.

:func:`consistent_drifts` computes that change for the rows taken as equalities (the bilateral normals, the sticking
tangents and the unilateral rows active at an approximate answer): the least-squares correction of the drifts
in the rows' own scales, ``min ‖D⁻¹ Δb‖₂`` subject to ``J_A a + b_A + Δb_A = 0`` having a solution, i.e. ``Δb_A =
-D P D⁻¹ b_A`` with ``P`` the projector onto ``ker (D⁻¹ J_A)ᵀ``, ``D = diag(row scales)``
(:mod:`gaussqp.model.scales`). The change is reported relative to each row's scale, the same measure as the
backward error of an answer (:mod:`gaussqp.certificates.backward_error`), so a corrected problem's certified
answer is judged against the data as given with that change on record — never against silently changed data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg.dense import as_dense
from .problem import ContactProblem
from .scales import data_scales, relative


@dataclass(frozen=True)
class DriftCorrection:
    """The corrected problem and the change: ``relative`` (max over rows of ``|Δb_i| / row_i``), ``absolute``
    (max ``|Δb_i|``), the changes ``delta_normal_drift`` (m,) and ``delta_tangent_drift`` (m (d-1),), and the rows
    taken as equalities (``active_unilateral``: indices into ``problem.unilateral``)."""

    problem: ContactProblem
    relative: float
    absolute: float
    delta_normal_drift: np.ndarray
    delta_tangent_drift: np.ndarray
    active_unilateral: np.ndarray

    def as_dict(self) -> dict:
        return {
            "relative": self.relative,
            "absolute": self.absolute,
            "delta_normal_drift": self.delta_normal_drift.tolist(),
            "delta_tangent_drift": self.delta_tangent_drift.tolist(),
            "active_unilateral": self.active_unilateral.tolist(),
        }


def active_at(problem: ContactProblem, a: np.ndarray, active_rtol: float) -> np.ndarray:
    """The unilateral rows (indices into ``problem.unilateral``) whose slack at ``a`` is at most ``active_rtol`` of
    the row's scale from the data (violated rows included)."""
    G, g = problem.inequalities
    Gd = as_dense(G).reshape(-1, problem.n)
    slack = Gd @ a + g if Gd.shape[0] else np.zeros(0)
    return np.flatnonzero(relative(slack, data_scales(problem).inequality_row) * np.sign(slack) <= active_rtol)


def consistent_drifts(problem: ContactProblem, act: np.ndarray) -> DriftCorrection | None:
    """The least-squares drift change making the equality rows and the unilateral rows ``act`` (indices into
    ``problem.unilateral``) consistent as equalities; None for a sparse problem or when the rows are already
    consistent (no change needed)."""
    p = problem
    if p.sparse or p.m == 0:
        return None
    sc = data_scales(p)
    E, e = p.equalities
    G, g = p.inequalities
    Gd = as_dense(G).reshape(-1, p.n)
    act = np.asarray(act, dtype=int)
    J = np.vstack([as_dense(E).reshape(-1, p.n), Gd[act]])
    b = np.concatenate([e, g[act]])
    D = np.concatenate([sc.equality_row, sc.inequality_row[act]])
    D = np.where(D > 0, D, 1.0)
    if J.shape[0] == 0:
        return None
    Jh, bh = J / D[:, None], b / D
    x = np.linalg.lstsq(Jh, -bh, rcond=None)[0]
    r = Jh @ x + bh  # the part of D⁻¹b outside im(D⁻¹J): removed by the change
    delta = -D * r
    if not np.any(delta):
        return None
    db = np.zeros(p.m)
    dc = np.zeros(p.J_t.shape[0])
    ne_b = len(p.bilateral)
    db[p.bilateral] = delta[:ne_b]
    rt = p.tangent_rows(p.sticking)
    dc[rt] = delta[ne_b : ne_b + len(rt)]
    db[p.unilateral[act]] = delta[ne_b + len(rt) :]
    fixed = p.with_drifts(p.normal_drift + db, p.tangent_drift + dc)
    return DriftCorrection(
        problem=fixed,
        relative=float(np.abs(r).max(initial=0.0)),
        absolute=float(np.abs(delta).max(initial=0.0)),
        delta_normal_drift=db,
        delta_tangent_drift=dc,
        active_unilateral=act,
    )
