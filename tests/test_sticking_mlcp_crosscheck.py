"""The sticking cross-check's MLCP route (Lemke on the constrained Delassus LCP) on the all-sticking humanoid: the
recovery of the bilateral multipliers is refined, so the route decides where the one-shot product of tutorial (17) was
read as incompatible rows; an MLCP answer that failed its own checks is never counted as an agreement."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.crosscheck import _mlcp_outcome
from gaussqp.formulations import FORMULATIONS
from gaussqp.model.problem import ContactProblem
from gaussqp.model.scales import data_scales, relative
from gaussqp.results import AGREED, INACCURATE, INFEASIBLE, NOT_COMPARED, SOLVED
from gaussqp.settings import get_tolerance


def _state(p: ContactProblem, rng) -> ContactProblem:
    """Another state of ``p``'s structure: each normal row and the force scaled within 1 % (as a robot's next
    configuration would give)."""
    rows = 1.0 + 0.01 * rng.uniform(-1.0, 1.0, p.m)
    Jn = sp.csr_matrix(sp.diags(rows) @ p.J_n) if sp.issparse(p.J_n) else np.asarray(p.J_n) * rows[:, None]
    F = np.asarray(p.F) * (1.0 + 0.01 * rng.uniform(-1.0, 1.0, p.n))
    return p.with_blocks(F=F, J_n=Jn)


@pytest.fixture(scope="module")
def sticking_states() -> list[ContactProblem]:
    p0 = problems.load("real/humanoid_lying")
    rng = np.random.default_rng(0)
    return [_state(p0, rng) for _ in range(4)]


def test_the_lcp_route_recovers_ill_conditioned_bilateral_rows(sticking_states):
    """16 sticking-tangent rows with σ_min/σ_max = 3e-6: A_nb = J_b M⁻¹ J_bᵀ has condition ~1e11, and λ_b from one
    product left residuals up to 7e-9 of the rows' scale (above the 1e-9 test: "bilateral rows incompatible", a
    failed route on 3 of these 4 states). Refined, every state's answer meets its rows."""
    for p in sticking_states:
        sol = FORMULATIONS["lcp_lemke"].solve(p)
        assert sol.status in (SOLVED, INACCURATE), sol.message
        assert "incompatible" not in sol.message
        E, e = p.equalities
        r = np.asarray(E @ sol.acceleration).ravel() + e
        assert float(relative(r, data_scales(p).equality_row).max()) <= 1e-11


def test_the_sticking_crosscheck_compares_the_mlcp_route(sticking_states, monkeypatch):
    """F4's certified answer is compared with the MLCP route on some of these states (before, Lemke failed on 3 of 4
    and nothing was compared), and an agreement is never reported on an MLCP answer that is not certified. (The LCP
    route first, its order off F1's small dense path: on it, F1 comes first.)"""
    import gaussqp.crosscheck as crosscheck

    monkeypatch.setattr(crosscheck, "fast_path_applies", lambda *a, **k: False)
    agreed = 0
    for p in sticking_states:
        sol = gaussqp.solve(p)
        assert sol.status == SOLVED
        (route,) = [r for r in sol.crosscheck.routes if r.route == "lcp_lemke"]
        if route.outcome == AGREED:
            assert route.status == SOLVED
            agreed += 1
        else:
            assert route.outcome == NOT_COMPARED
    assert agreed >= 2


def test_an_inaccurate_mlcp_answer_is_not_an_agreement(sticking_states):
    p = sticking_states[1]
    sol = gaussqp.solve(p)
    other = FORMULATIONS["lcp_lemke"].solve(p)
    other.status = INACCURATE  # the same numbers, which agree, but an answer that failed its own checks
    ga, gf, route = _mlcp_outcome(sol, other, "lcp_lemke", p, get_tolerance(None))
    assert route.outcome == NOT_COMPARED and ga is None and gf is None


def test_an_inaccurate_mlcp_answer_does_not_contradict_a_verified_nonexistence(sticking_states):
    """F4 infeasible with a verified proof: an MLCP answer that failed its own checks contradicts nothing."""
    p = sticking_states[1]
    sol = gaussqp.solve(p)
    sol.status = INFEASIBLE
    sol.hints = replace(sol.hints, nonexistence_verified=True)
    other = FORMULATIONS["lcp_lemke"].solve(p)
    other.status = INACCURATE
    _, _, route = _mlcp_outcome(sol, other, "lcp_lemke", p, get_tolerance(None))
    assert route.outcome == NOT_COMPARED


def test_f1_as_a_compared_route_takes_the_small_dense_path_with_dependent_rows(sticking_states):
    """30 multiplier rows (16 sticking tangents, 14 normals) in 27 coordinates are dependent: as an answer F1 keeps
    Clarabel's central multipliers (DAQP would give another vertex each state), but as a compared route only the
    acceleration and ``Jᵀλ`` are read (both unique, M ≻ 0), so DAQP's vertex serves; its answer is certified by the
    light judgement and matches the answer's a and Jᵀλ."""
    from gaussqp.certificates.judge import CROSSCHECK
    from gaussqp.formulations.gauss_qp import fast_path_applies

    f1, tol = FORMULATIONS["gauss_qp"], get_tolerance(None)
    compared_through_f1 = 0
    for p in sticking_states:
        assert not fast_path_applies(p, None) and fast_path_applies(p, None, any_multipliers=True)
        light = f1._judged(p, None, tol, CROSSCHECK)
        full = f1.solve(p)
        assert (light.status, light.solver, full.status, full.solver) == (SOLVED, "daqp", SOLVED, "clarabel")
        scales = data_scales(p)
        assert float(relative(light.acceleration - full.acceleration, scales.accel).max()) <= 1e-8
        assert float(relative(light.generalized_force - full.generalized_force, scales.force).max()) <= 1e-8
        sol = gaussqp.solve(p)  # F1 on its small dense path is compared first, and agrees: Lemke is not run
        compared_through_f1 += sol.crosscheck.formulation == "gauss_qp"
        assert sol.crosscheck.solver == "daqp" and sol.crosscheck.agree
        assert "lcp_lemke" not in [r.route for r in sol.crosscheck.routes]
    assert compared_through_f1 == len(sticking_states)
