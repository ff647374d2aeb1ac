"""The small dense path of F1/F2 (issue #28, gaussqp.backends.daqp_): DAQP's answer is the certified answer Clarabel's
direct path gives (same status, certification, acceleration, generalized force) on definite, redundant, badly scaled,
infeasible and unbounded problems; it is used only where it applies (no solver named, M ≻ 0, dense, small); its
working set reaches the polish; a failing, absent or uncertified fast answer falls back to Clarabel."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import gaussqp
from gaussqp.backends import daqp_
from gaussqp.backends.base import Backend
from gaussqp.formulations import gauss_qp
from gaussqp.certificates.polish import polish
from gaussqp.certificates.residuals import kkt_residuals
from gaussqp.problems import families
from gaussqp.results import Solution
from gaussqp.settings import POLISH_SKIP_RESIDUAL

try:
    import daqp  # noqa: F401

    HAVE_DAQP = True
except ImportError:
    HAVE_DAQP = False

needs_daqp = pytest.mark.skipif(
    not HAVE_DAQP, reason="needs daqp (a dependency of gaussqp: pip install daqp): the fast path is off without it"
)


def _problems(seed: int):
    """(kind, problem, planted acceleration or None)."""
    rng = np.random.default_rng(seed)
    yield "definite", *families.planted(rng, n=7, m_b=1, m_u=4)[:2]
    yield "redundant", *families.planted(rng, n=8, m_b=2, m_u=3, redundant=2, max_active=4)[:2]
    yield "badly scaled", *families.planted(rng, n=6, m_b=1, m_u=3, cond=1e12)[:2]
    yield "degenerate", *families.planted(rng, n=10, m_b=0, m_u=6, max_active=5)[:2]
    yield "infeasible", families.infeasible(rng, n=5), None
    yield "unbounded", families.unbounded(rng, n=5), None


def _gen_force(sol):
    p = sol.problem
    return p.J_n.T @ sol.lambda_normal + (p.J_t.T @ sol.lambda_tangent.ravel() if p.J_t.shape[0] else 0)


@needs_daqp
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fast_answer_is_clarabels_certified_answer(seed):
    for kind, p, a0 in _problems(seed):
        got = gaussqp.solve(p, formulation="gauss_qp")
        ref = gaussqp.solve(p, formulation="gauss_qp", solver="clarabel")
        assert ref.solver == "clarabel"
        if got.status != ref.status:
            # on an ill-conditioned problem the exact working set can give a certified answer where Clarabel's
            # point, ~1e-9 off, leads the polish to a wrong active set and is (honestly) inaccurate: the fast
            # answer must then be the planted one
            assert (kind, got.status, got.certified, ref.status) == ("badly scaled", "solved", True, "inaccurate")
            assert np.abs(got.acceleration - a0).max() <= 1e-6 * max(1.0, float(np.abs(a0).max()))
            continue
        assert got.certified == ref.certified, kind
        if got.status == "solved" and got.certified:
            scale = max(1.0, float(np.abs(ref.acceleration).max()))
            assert np.abs(got.acceleration - ref.acceleration).max() <= 1e-7 * scale, kind
            row_scale = np.abs(p.M) @ np.abs(ref.acceleration) + np.abs(p.F)
            assert np.all(np.abs(_gen_force(got) - _gen_force(ref)) <= 1e-7 * np.maximum(row_scale, 1.0)), kind


@needs_daqp
def test_the_humanoid_goes_the_fast_path_and_its_working_set_reaches_the_polish():
    hum = gaussqp.problems.load("real/humanoid_lying")
    k = hum.m * (hum.dimension - 1)
    p = gaussqp.ContactProblem.from_blocks(
        hum.M,
        hum.F,
        hum.J_n,
        hum.normal_drift,
        list(hum.types),
        np.zeros((k, hum.n)),
        np.zeros(k),
        np.zeros(hum.m),
        ["frictionless"] * hum.m,
        None,
        [False] * hum.m,
        hum.dimension,
    )
    sol = gaussqp.solve(p)
    assert sol.solver == "daqp" and sol.extras["fast_path"] and sol.status == "solved" and sol.certified
    active = sol.hints.active_set
    assert active is not None and active.dtype == bool and active.shape == (p.inequalities[0].shape[0],)
    # DAQP's answer solves its working set's KKT system to round-off: the polish of that set is skipped
    assert "polished" not in sol.extras and max(sol.residuals.values()) <= POLISH_SKIP_RESIDUAL
    ref = gaussqp.solve(p, solver="clarabel")
    np.testing.assert_allclose(sol.acceleration, ref.acceleration, rtol=0, atol=1e-9 * np.abs(ref.acceleration).max())
    # an answer of that working set above round-off (moved by 1e-9 of its size) is polished on the working set
    moved = Solution(problem=p, status="solved", formulation="gauss_qp", solver="daqp")
    moved.acceleration = sol.acceleration * (1.0 + 1e-9)
    moved.lambda_normal, moved.lambda_tangent = sol.lambda_normal.copy(), sol.lambda_tangent.copy()
    moved.hints = sol.hints
    before = max(kkt_residuals(p, moved.acceleration, moved.lambda_normal, moved.lambda_tangent).values())
    polish(moved)
    assert before > POLISH_SKIP_RESIDUAL and moved.extras["polished"]["active_rows"] == int(active.sum())
    assert moved.extras["polished"]["max_residual_after"] <= POLISH_SKIP_RESIDUAL < before


@needs_daqp
def test_the_raw_answer_satisfies_the_kkt_conditions_in_gaussqps_sign_convention():
    rng = np.random.default_rng(11)
    n, me, mi = 6, 2, 4
    A = rng.standard_normal((n, n))
    P = A @ A.T + np.eye(n)
    E, G = rng.standard_normal((me, n)), rng.standard_normal((mi, n))
    x0 = rng.standard_normal(n)
    e, g = -E @ x0, -G @ x0 + np.array([0.0, 0.0, 0.5, 1.0])
    f = -P @ x0 + E.T @ rng.standard_normal(me) + G.T @ np.array([1.0, 2.0, 0.0, 0.0])
    ans = daqp_.solve_daqp(P, f, E, e, G, g, daqp_.DAQP.settings(gaussqp.settings.get_tolerance("high")))
    assert ans.status == "solved"
    x, ye, yi = ans.x, ans.y_eq, ans.y_in
    assert np.abs(P @ x + f - E.T @ ye - G.T @ yi).max() <= 1e-9
    assert yi.min() >= 0 and np.abs(E @ x + e).max() <= 1e-9 and (G @ x + g).min() >= -1e-9
    np.testing.assert_array_equal(ans.active, [True, True, False, False])
    np.testing.assert_allclose(x, x0, atol=1e-9)


def test_the_fast_path_applies_only_to_small_dense_definite_problems_with_no_solver_named(monkeypatch):
    monkeypatch.setattr(gauss_qp, "fast_backend", lambda solver, allowed: daqp_.DAQP if solver is None else None)
    rng = np.random.default_rng(4)
    definite = families.planted(rng, n=7, m_b=1, m_u=4)[0]
    assert gauss_qp.fast_path_applies(definite, None)
    assert not gauss_qp.fast_path_applies(definite, "clarabel")
    assert not gauss_qp.fast_path_applies(families.planted(rng, n=7, m_b=1, m_u=3, rank=5)[0], None)  # M singular
    assert not gauss_qp.fast_path_applies(families.chain(40, lift=1.5, duplicate_every=7, seed=0), None)  # sparse
    redundant = families.planted(rng, n=8, m_b=2, m_u=3, redundant=2, max_active=4)[0]
    assert not gauss_qp.fast_path_applies(redundant, None)  # dependent rows: multipliers may be a set
    assert not gauss_qp.fast_path_applies(gaussqp.problems.load("hyperstatic_block"), None)
    monkeypatch.setattr(gauss_qp, "FAST_QP_SIZE_MAX", definite.n + definite.m - 1)
    assert not gauss_qp.fast_path_applies(definite, None)


def test_an_absent_package_falls_back_to_clarabel(monkeypatch):
    """Runs with or without daqp: the import inside solve_daqp fails, the answer is 'failed', Clarabel solves."""
    monkeypatch.setitem(sys.modules, "daqp", None)  # `import daqp` raises ImportError
    ans = daqp_.solve_daqp(np.eye(2), np.ones(2), np.zeros((0, 2)), np.zeros(0), np.eye(2), np.zeros(2), {})
    assert ans.status == "failed" and "daqp" in ans.info["error"]
    monkeypatch.setattr(gauss_qp, "fast_backend", lambda solver, allowed: daqp_.DAQP if solver is None else None)
    p = families.planted(np.random.default_rng(3), n=6, m_b=1, m_u=3)[0]
    sol = gaussqp.solve(p, formulation="gauss_qp")
    assert sol.solver == "clarabel" and sol.status == "solved" and sol.certified and "fast_path" not in sol.extras


@needs_daqp
@pytest.mark.parametrize("flag", [-1, -2, -4])
def test_any_exit_flag_but_optimal_falls_back_to_clarabel(monkeypatch, flag):
    import daqp

    calls = []

    def not_optimal(H, f, A, hi, lo, sense, **kw):
        calls.append(flag)
        return np.zeros(f.size), 0.0, flag, {"lam": np.zeros(A.shape[0]), "iterations": 3}

    monkeypatch.setattr(daqp, "solve", not_optimal)
    p = families.planted(np.random.default_rng(3), n=6, m_b=1, m_u=3)[0]
    sol = gaussqp.solve(p, formulation="gauss_qp")
    assert calls and sol.solver == "clarabel" and sol.status == "solved" and sol.certified


@needs_daqp
def test_an_answer_the_judge_does_not_certify_is_solved_again_by_clarabel(monkeypatch):
    """An 'optimal' exit flag is not believed: a wrong point with a wrong working set fails the judge, and the
    program is solved again by Clarabel and judged afresh."""

    def wrong(P, f, E, e, G, g, settings):
        n, mi = f.size, g.size
        return daqp_.FastAnswer(
            "solved", np.full(n, 3.0), np.zeros(e.size), np.zeros(mi), np.zeros(mi, dtype=bool), {"status": 1}
        )

    monkeypatch.setattr(gauss_qp, "solve_daqp", wrong)
    p = families.planted(np.random.default_rng(3), n=6, m_b=1, m_u=3)[0]
    sol = gaussqp.solve(p, formulation="gauss_qp")
    assert sol.solver == "clarabel" and sol.status == "solved" and sol.certified
    assert sol.extras["fast_path_rejected"].startswith(("inaccurate", "failed"))
    ref = gaussqp.solve(p, formulation="gauss_qp", solver="clarabel")
    np.testing.assert_array_equal(sol.acceleration, ref.acceleration)


def test_daqp_is_registered_as_an_optional_fast_backend():
    from gaussqp.backends import BACKENDS, FAST_BACKENDS

    b = FAST_BACKENDS["daqp"]
    assert isinstance(b, Backend) and "qp" in b.supports and "daqp" in b.pip
    assert "daqp" not in BACKENDS  # solver= and the studies name the cvxpy backends only
