"""The one place that judges a result (gaussqp.certificates.judge.finalize) and the Status / certified
rules of gaussqp.results: a claim stands only with its verified certificate."""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp import Contact, ContactProblem
from gaussqp.certificates.judge import ANSWER_CHECKS, JUDGEMENTS, finalize
from gaussqp.results import (
    CERTIFYING,
    INF_OR_UNB,
    SOLUTION_PRESENT,
    Certificate,
    CrossCheck,
    JudgeHints,
    Solution,
    Status,
)
from gaussqp.settings import get_tolerance

TOL = get_tolerance("high")


def _block():
    """A unit mass on the ground under gravity: a = 0, λ = 9.81 (unique)."""
    return ContactProblem(np.eye(2), [0.0, 9.81], [Contact("unilateral", normal=[0.0, 1.0])], dimension=2)


def _claim(p, status, a=None, lam=None):
    lam_t = None if lam is None else np.zeros((p.m, 1))
    return Solution(
        problem=p,
        status=status,
        formulation="test",
        solver="none",
        acceleration=None if a is None else np.asarray(a, float),
        lambda_normal=None if lam is None else np.asarray(lam, float),
        lambda_tangent=lam_t,
    )


def test_a_correct_answer_is_solved_with_its_certificates():
    sol = finalize(_claim(_block(), "solved", [0.0, 0.0], [9.81]), TOL)
    assert sol.status == "solved" and sol.certified
    assert sol.certificate("kkt_residuals").holds and sol.certificate("forward_error").holds
    assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}


def test_a_wrong_answer_claimed_solved_is_downgraded():
    sol = finalize(_claim(_block(), "solved", [0.0, 1.0], [0.0]), TOL)  # separating although pushed down
    assert sol.status == "inaccurate" and not sol.certified
    assert sol.certificate("kkt_residuals").holds is False
    assert "max residual" in sol.message


def test_polish_runs_only_when_allowed():
    p = _block()
    near = _claim(p, "solved", [0.0, 1e-7], [9.81 + 1e-7])
    assert "polished" in finalize(near, TOL).extras
    near = _claim(p, "solved", [0.0, 1e-7], [9.81 + 1e-7])
    near.hints = JudgeHints(polish_allowed=False)
    assert "polished" not in finalize(near, TOL).extras


@pytest.mark.parametrize("shift, bvls", [(-1e-18, False), (-1e-11, True)])
def test_polish_takes_a_multiplier_negative_by_round_off_as_zero(shift, bvls, monkeypatch):
    """A degenerate vertex (the floor active with a zero force: no load) solved with a multiplier off by ``shift``
    (equilibrated): within round-off of zero it is zero, and the polish keeps the KKT point without the bounded least
    squares that a negative multiplier calls for; a clearly negative one still calls it."""
    import scipy.optimize

    from gaussqp.mechanics.active_set import KKTFactor

    p = ContactProblem(np.eye(2), [0.0, 0.0], [Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    real_solve, real_lsq = KKTFactor.solve, scipy.optimize.lsq_linear

    def off(self, rhs, rank):  # the polish's solve, the first on the set with the floor active
        x = real_solve(self, rhs, rank)
        if x.size == 3 and not shifted:
            shifted.append(1)
            return x + [0.0, 0.0, shift]
        return x

    shifted: list = []

    monkeypatch.setattr(KKTFactor, "solve", off)
    called = []
    monkeypatch.setattr(scipy.optimize, "lsq_linear", lambda *a, **k: called.append(1) or real_lsq(*a, **k))
    sol = finalize(_claim(p, "solved", [0.0, 1e-7], [1e-7]), TOL)
    assert sol.status == "solved" and bool(called) is bvls
    if not bvls:
        assert sol.extras["polished"]["max_residual_after"] == 0.0 and sol.lambda_normal[0] == 0.0


@pytest.mark.parametrize("units, row", [((1.0, 1.0), 1.0), ((1e-4, 1e3), 1e6), ((1e5, 1e-2), 1e-5)])
@pytest.mark.parametrize("below, bvls", [(1e-3, False), (1e3, True)])
def test_polish_round_off_zero_is_judged_on_the_data_force_scale(units, row, below, bvls, monkeypatch):
    """The same rule with a load (F ≠ 0), coordinates in other units and the floor's row in its own: a mass pushed along
    the floor (a = (−5, 0), the floor active with a zero force), in coordinates scaled by ``units``, the floor's row
    multiplied by ``row``; the polish's multiplier off by ``below`` × ROUND_OFF × the data's force scale
    (equilibrated): below round-off it is zero, above it the bounded least squares runs. The rule is judged in the
    equilibrated unknowns, so the units and the row's scale change nothing (a threshold on the unequilibrated
    multiplier fails here); the data's force and the solution's own size are of one order on a loaded problem, and the
    force scale decides alone only where the solution is zero (the unloaded test above)."""
    import scipy.optimize

    from gaussqp.mechanics.active_set import KKTFactor
    from gaussqp.model.scales import data_scales
    from gaussqp.settings import ROUND_OFF

    U = np.diag(units)  # a = U ã: M → U M U, F → U F, J → J U
    p = ContactProblem(
        U @ np.diag([2.0, 3.0]) @ U,
        U @ np.array([10.0, 0.0]),
        [Contact("unilateral", normal=row * (U @ [0.0, 1.0]))],
        dimension=2,
    )
    shift = -below * ROUND_OFF * data_scales(p).force
    real_solve, real_lsq = KKTFactor.solve, scipy.optimize.lsq_linear
    shifted: list = []

    def off(self, rhs, rank):
        x = real_solve(self, rhs, rank)
        if x.size == 3 and not shifted:
            shifted.append(1)
            return x + [0.0, 0.0, shift]
        return x

    monkeypatch.setattr(KKTFactor, "solve", off)
    called = []
    monkeypatch.setattr(scipy.optimize, "lsq_linear", lambda *a, **k: called.append(1) or real_lsq(*a, **k))
    a_exact = np.linalg.solve(U, [-5.0, 0.0])
    sol = finalize(_claim(p, "solved", a_exact * (1 + 1e-7), [1e-9]), TOL)
    assert sol.status == "solved" and bool(called) is bvls
    assert sol.extras["polished"]["max_residual_after"] < 1e-12


def test_infeasible_claim_on_a_feasible_problem_fails():
    sol = finalize(_claim(_block(), "infeasible"), TOL)
    assert sol.status == "failed" and not sol.certified
    assert "neither a Farkas vector nor a descent ray" in sol.message


def test_infeasible_claim_is_verified_by_a_farkas_vector():
    # two bilateral rows asking for a = 1 and a = 2 at once
    p = ContactProblem(
        np.eye(1),
        [0.0],
        [Contact("bilateral", normal=[1.0], normal_drift=-1.0), Contact("bilateral", normal=[1.0], normal_drift=-2.0)],
        dimension=2,
    )
    sol = finalize(_claim(p, "unbounded"), TOL)  # the backend's word is not taken: the certificate decides
    assert sol.status == "infeasible" and sol.certified
    assert sol.certificate("farkas").holds and sol.acceleration is None


def test_unbounded_claim_is_verified_by_a_descent_ray():
    # a massless coordinate pushed by a force: no minimizer of the Gauss function
    p = ContactProblem(np.diag([1.0, 0.0]), [0.0, 1.0], [], dimension=2)
    sol = finalize(_claim(p, "infeasible"), TOL)
    assert sol.status == "unbounded" and sol.certified and sol.certificate("unbounded_ray").holds
    q = ContactProblem(np.diag([1.0, 1e-10]), [0.0, 1.0], [], dimension=2)  # definite: no ray may pass
    assert finalize(_claim(q, "unbounded"), TOL).status == "failed"


def test_a_route_verified_claim_is_kept_without_recomputation():
    sol = _claim(_block(), "infeasible")
    sol.hints = JudgeHints(nonexistence_verified=True)
    out = finalize(sol, TOL)
    assert out.status == "infeasible" and not out.certificates  # kept, but nothing certifies it here
    assert not out.certified  # certified needs a verified certificate in the table, not the flag


def test_judgement_table_is_data_and_ordered():
    kinds = [k for k, _, _ in JUDGEMENTS]
    # the answer of a route that decides stick/slip (F8, F9) is judged by its natural map, every other by the checks
    assert kinds[:2] == ["answer of a route that decides stick/slip, by its recomputed natural map", "answer"]
    assert kinds[-1] == "infeasible or unbounded, to verify"
    assert [c.name for c in ANSWER_CHECKS] == [
        "polish",
        "kkt_residuals",
        "infeasible_after_failed_answer",
        "backward_error",
        "coulomb_cones",
        "uniqueness",
        "forward_error",
    ]


def test_a_failed_answer_on_an_infeasible_problem_becomes_a_certified_infeasibility():
    # a dual route stopped at some point although no acceleration satisfies a = 1 and a = 2 at once
    p = ContactProblem(
        np.eye(1),
        [0.0],
        [Contact("bilateral", normal=[1.0], normal_drift=-1.0), Contact("bilateral", normal=[1.0], normal_drift=-2.0)],
        dimension=2,
    )
    sol = finalize(_claim(p, "solved", [1.5], [3e3, -3e3]), TOL)
    assert sol.status == "infeasible" and sol.certified and sol.certificate("farkas").holds
    assert sol.acceleration is None and "discarded" in sol.message
    assert sol.certificate("forward_error") is None and sol.certificate("unique_acceleration") is None
    # a feasible problem keeps its inaccurate answer
    assert finalize(_claim(_block(), "solved", [0.0, 1.0], [0.0]), TOL).status == "inaccurate"


def test_status_is_a_string_enum_with_groups():
    assert Status("solved") is Status.SOLVED and Status.SOLVED == "solved"
    assert "solved" in SOLUTION_PRESENT and "unbounded" in INF_OR_UNB and "failed" not in SOLUTION_PRESENT
    assert f"{Status.INACCURATE}" == "inaccurate" and repr(Status.FAILED) == "'failed'"
    assert Status.INACCURATE.has_solution and Status.INFEASIBLE.infeasible_or_unbounded
    with pytest.raises(ValueError):
        _claim(_block(), "sort of solved")
    sol = _claim(_block(), "solved", [0.0, 0.0], [9.81])
    sol.status = "inaccurate"
    assert sol.status is Status.INACCURATE


def test_certified_is_derived_from_the_table():
    assert set(CERTIFYING) == {Status.SOLVED, Status.INFEASIBLE, Status.UNBOUNDED}
    sol = _claim(_block(), "solved", [0.0, 0.0], [9.81])
    ok = Certificate(id="kkt_residuals", source="", holds=True, margin=1.0, implies="")
    bad_fe = Certificate(id="forward_error", source="", holds=False, margin=-1.0, implies="")
    sol.certificates = [ok]
    assert sol.certified
    sol.certificates = [ok, bad_fe]
    assert not sol.certified
    sol.certificates = [ok]
    sol.crosscheck = CrossCheck("lcp_lemke", "lemke", "solved", routes=(), agree=False)
    assert not sol.certified
    sol.crosscheck = CrossCheck("lcp_lemke", "lemke", "failed", routes=(), agree=None)  # not compared: no disagreement
    assert sol.certified
