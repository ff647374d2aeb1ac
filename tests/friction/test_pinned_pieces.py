"""Pieces of the enumeration whose square equalities pin one point are decided in NumPy, cones included, only where the
decision does not depend on the solve's round-off; the others go to the program. Checked against the exact point of
the float data (60-digit arithmetic) on ill-conditioned pieces, and against the program on well-conditioned ones."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp.friction.enumeration as enumeration
from gaussqp.linalg.dense import ruiz_scaling, scaled_solve
from gaussqp.model.problem import Contact, ContactProblem

mp = pytest.importorskip("mpmath", reason="the exact points are computed with mpmath (the test extra)")


def two_sticking_one_sliding(rng, n: int, eps: float, factor: float) -> ContactProblem:
    """Two 3D sticking contacts whose rows differ by ``eps`` (ill-conditioned pieces when small), their forces planted
    at ``factor`` of their cones, and a sliding contact; the planted acceleration solves the planted piece."""
    M = rng.standard_normal((n, n))
    M = M @ M.T + n * np.eye(n)
    a0 = rng.standard_normal(n)
    N0, T0 = rng.standard_normal(n), rng.standard_normal((2, n))
    rows = [(N0, T0), (N0 + eps * rng.standard_normal(n), T0 + eps * rng.standard_normal((2, n)))]
    contacts, gen, mu = [], np.zeros(n), 0.5
    for N, T in rows:
        lamn = rng.uniform(0.5, 2)
        d = rng.standard_normal(2)
        gen += N * lamn + T.T @ (lamn * mu * factor * d / np.linalg.norm(d))
        contacts.append(
            Contact(
                "unilateral",
                normal=N,
                normal_drift=-N @ a0,
                friction=mu,
                mode="sticking",
                tangent=T,
                tangent_drift=-T @ a0,
            )
        )
    N, T, lamn = rng.standard_normal(n), rng.standard_normal((2, n)), rng.uniform(0.5, 2)
    slip = rng.standard_normal(2)
    slip /= np.linalg.norm(slip)
    gen += N * lamn - T.T @ (mu * lamn * slip)
    contacts.append(
        Contact(
            "unilateral",
            normal=N,
            normal_drift=-N @ a0,
            friction=mu,
            mode="sliding",
            tangent=T,
            tangent_drift=-T @ a0 + 0.5 * slip,
            slip=slip,
        )
    )
    return ContactProblem(M, gen - M @ a0, contacts, dimension=3)


def pinned_decisions(problems, monkeypatch) -> list:
    """(Aeq, beq, G, h, cones, NumPy's point or None) of every pinned piece with cones that NumPy decided."""
    seen = []
    decide = enumeration._pinned_cones

    def spy(y, cs, yhat, cond, cones):
        out = decide(y, cs, yhat, cond, cones)
        if out is not None:
            seen.append([cones, out])
        return out

    orig = enumeration._solve_piece

    def piece(Aeq, beq, G, h, cones, solver, n):
        k = len(seen)
        out = orig(Aeq, beq, G, h, cones, solver, n)
        if len(seen) > k:
            seen[-1] = (Aeq, beq, G, h, cones, out[0])
        return out

    monkeypatch.setattr(enumeration, "_pinned_cones", spy)
    monkeypatch.setattr(enumeration, "_solve_piece", piece)
    for p in problems:
        enumeration.enumerate_solutions(p)
    monkeypatch.undo()
    return [s for s in seen if isinstance(s, tuple)]


def exact_margins(Aeq, beq, G, h, cones) -> tuple[float, float]:
    """The smallest cone margin and inequality slack at the exact point of the float data (60 digits)."""
    mp.mp.dps = 60
    y = list(mp.lu_solve(mp.matrix(Aeq.tolist()), mp.matrix(beq.tolist())))
    idx = np.arange(len(y))
    cone = min(float(float(ms) * y[int(i)] - mp.sqrt(sum(y[k] ** 2 for k in idx[t]))) for i, t, ms in cones)
    ineq = min((float(mp.fsum(G[r, k] * y[k] for k in range(len(y))) - h[r]) for r in range(G.shape[0])), default=0.0)
    return cone, ineq


def test_no_exactly_feasible_ill_conditioned_point_is_rejected(monkeypatch):
    """Rows 1e-4 apart, forces 1e-7 inside their cones: a pinned point strictly inside in exact arithmetic (margins
    +1e-7, cond 3.6e9) had been rejected by a test blind to the solve's round-off."""
    rng = np.random.default_rng(5)
    problems = [two_sticking_one_sliding(rng, 7, 1e-4, 0.9999999) for _ in range(8)]
    decisions = pinned_decisions(problems, monkeypatch)
    assert decisions
    for Aeq, beq, G, h, cones, y in decisions:
        if y is None:
            cone, ineq = exact_margins(Aeq, beq, G, h, cones)
            assert not (cone > 0 and ineq >= 0), (cone, ineq)


def test_well_conditioned_pinned_pieces_are_decided_as_the_program_decides(monkeypatch):
    rng = np.random.default_rng(0)
    problems = [two_sticking_one_sliding(rng, 7, 1.0, f) for f in (0.5, 0.99, 1.0, 1.01, 1.5) for _ in range(3)]
    decisions = pinned_decisions(problems, monkeypatch)
    assert len(decisions) >= 20
    for Aeq, beq, G, h, cones, y in decisions:
        assert scaled_solve(Aeq, beq, *ruiz_scaling(Aeq))[1] < 1e8
        program, decided = enumeration._socp_piece_direct(Aeq, beq, G, h, cones)
        assert decided
        assert (y is None) == (program is None)
