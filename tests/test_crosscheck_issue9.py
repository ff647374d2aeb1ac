"""Issue 9, cross-check honesty: a route that failed (or proves nothing) is *not compared*, never agreement;
the report carries each route's outcome and ``agree`` is None when nothing was compared."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gaussqp
from gaussqp.certificates.judge import ANSWER, CROSSCHECK
from gaussqp.cli import main
from gaussqp.formulations import FORMULATIONS
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.problems import families
from gaussqp.results import FAILED, INACCURATE, Solution
from gaussqp.crosscheck import LIGHT_AGREEMENT


def _fail(name):
    """A cross-check route's :meth:`~gaussqp.formulations.base.Formulation.solve_to_compare` that fails."""

    def solve(problem, solver=None, tolerance=None, enough=None, escalate=None):
        out = Solution(problem=problem, status=FAILED, formulation=name, solver="patched", message="patched to fail")
        if enough is not None and not enough(out) and escalate is not None and not escalate(out):
            return out, CROSSCHECK  # set aside by the caller, as solve_to_compare does
        return out, ANSWER

    return solve


def particle_on_floor_3d(push: float, angle: float = math.pi / 8, mu: float = 0.5, g: float = 9.81):
    """A 3D particle on a sticking floor contact pushed tangentially by ``push`` μ g along ``angle``: at
    π/8 the inscribed octagon reaches cos(π/8) ≈ 0.924 of the disk, so 0.95 is feasible for the disk and
    the circumscribed octagon but not for the inscribed one (an inconclusive bracket)."""
    c = [Contact("unilateral", normal=[0, 0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0, 0], [0, 1.0, 0]])]
    f = push * mu * g
    return ContactProblem(np.eye(3), [f * math.cos(angle), f * math.sin(angle), g], c, dimension=3)


def _lemke_first(monkeypatch) -> None:
    """The sticking cross-check in its order for problems off F1's small dense path: the LCP route first, F1 when the
    LCP route's answer fails its own checks (where F1 takes that path, F1 comes first: the tests below the
    ``F1 first`` ones)."""
    import gaussqp.crosscheck as crosscheck

    monkeypatch.setattr(crosscheck, "fast_path_applies", lambda *a, **k: False)


def test_inconclusive_bracket_and_failed_lcp_route_is_not_agreement(monkeypatch):
    p = particle_on_floor_3d(0.95)
    _lemke_first(monkeypatch)
    # the LCP route fails, and so does F1, which the sticking cross-check compares when the LCP route fails
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", _fail("lcp_lemke"))
    monkeypatch.setattr(FORMULATIONS["gauss_qp"], "solve_to_compare", _fail("gauss_qp"))
    sol = gaussqp.solve(p, bracket="always")  # one contact: unique multipliers, "auto" would skip the bracket
    cc = sol.crosscheck
    assert sol.status == "solved"
    assert cc.bracket.inner == "infeasible" and cc.bracket.outer == "solved"
    assert [r.route for r in cc.routes] == ["facetized_inner", "facetized_outer", "lcp_lemke", "gauss_qp"]
    assert [r.outcome for r in cc.routes] == ["not compared"] * 4
    assert cc.agree is None
    assert all(r.reason for r in cc.routes)


def test_conclusive_bracket_with_failed_lcp_route_agrees_on_the_bracket_only(monkeypatch):
    p = particle_on_floor_3d(0.5)
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", _fail("lcp_lemke"))
    monkeypatch.setattr(FORMULATIONS["gauss_qp"], "solve_to_compare", _fail("gauss_qp"))
    cc = gaussqp.solve(p, bracket="always").crosscheck
    out = {r.route: r.outcome for r in cc.routes}
    assert out == {
        "facetized_inner": "agreed",
        "facetized_outer": "not compared",
        "lcp_lemke": "not compared",
        "gauss_qp": "not compared",
    }
    assert cc.agree is True


def _garbage_lemke(monkeypatch) -> list:
    """The LCP route's raw answer fails its own residual checks (its acceleration moved by 1): the real
    ``solve_to_compare`` judges it; the list records each judgement's role."""
    from gaussqp.certificates import judge
    from gaussqp.formulations import base
    from gaussqp.formulations.delassus import LCPLemke

    real_solve, real_finalize, roles = LCPLemke._solve, base.finalize, []

    def garbage(self, problem, solver, tol):
        out = real_solve(self, problem, solver, tol)
        out.acceleration = out.acceleration + 1.0
        return out

    def finalize(sol, tol, role=judge.ANSWER):
        if sol.formulation == "lcp_lemke":
            roles.append(role)
        return real_finalize(sol, tol, role)

    monkeypatch.setattr(LCPLemke, "_solve", garbage)
    monkeypatch.setattr(base, "finalize", finalize)
    return roles


def test_a_failed_lcp_route_is_set_aside_for_f1_in_the_sticking_crosscheck(monkeypatch):
    """The LCP route's answer fails its own checks in the light judgement: the sticking cross-check sets it aside (not
    compared, not judged in full) and compares F1 with the cones removed, independent of F4's answer when that is not
    the two-stage route's (here the active-set answer: every contact active, the KKT system's point in the cones)."""
    p = particle_on_floor_3d(0.5)
    _lemke_first(monkeypatch)
    roles = _garbage_lemke(monkeypatch)
    sol = gaussqp.solve(p)
    assert sol.route == "active set (every contact active)" and roles == [CROSSCHECK]  # judged once, lightly
    lemke, f1 = sol.crosscheck.routes[-2:]
    assert (lemke.route, lemke.status, lemke.outcome) == ("lcp_lemke", "inaccurate", "not compared")
    assert "compared through gauss_qp" in lemke.reason
    assert (f1.route, f1.outcome) == ("gauss_qp", "agreed") and sol.crosscheck.agree is True
    assert sol.crosscheck.formulation == "gauss_qp" and sol.certified


def test_f1_never_checks_f4_s_two_stage_answer(monkeypatch):
    """F4's two-stage route takes F1's acceleration: F1 is then not an independent check. A failed LCP route is judged
    in full as the only route (not set aside for F1), and without the LCP route F1 is not run."""
    from gaussqp.formulations.sticking_conic import StickingConic

    p = particle_on_floor_3d(0.5)
    monkeypatch.setattr(StickingConic, "_gap_tol", staticmethod(lambda *a: -1.0))  # no zero-gap point: two stage
    monkeypatch.setattr(type(gaussqp.get_formulation("sticking_socp")), "active_set_first", False)  # nor active set
    roles = _garbage_lemke(monkeypatch)
    f1_runs = []
    real_f1 = FORMULATIONS["gauss_qp"].solve_to_compare
    monkeypatch.setattr(
        FORMULATIONS["gauss_qp"], "solve_to_compare", lambda *a, **k: f1_runs.append(1) or real_f1(*a, **k)
    )
    sol = gaussqp.solve(p)
    assert sol.route == "two stage" and sol.status == "solved"
    assert roles == [CROSSCHECK, ANSWER] and not f1_runs  # judged lightly, then in full; F1 not asked
    assert [r.route for r in sol.crosscheck.routes] == ["facetized_inner", "facetized_outer", "lcp_lemke"]
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "accepts", lambda *a: (False, "patched"))
    sol = gaussqp.solve(p)
    (last,) = sol.crosscheck.routes[-1:]
    assert (last.route, last.status, last.outcome) == ("gauss_qp", "not_run", "not compared") and not f1_runs
    assert "not an independent check" in last.reason and sol.crosscheck.agree is None


def test_a_lightly_disagreeing_lcp_route_is_judged_in_full_not_set_aside(monkeypatch):
    """Only a route whose answer failed its own checks is set aside: the exact answer of nearby data (forces changed
    by 1e-10 of their scale) passes its checks and disagrees beyond a cross-check tolerance of 1e-12, is judged in
    full, and its disagreement stands (F1 is not asked)."""
    import dataclasses

    from gaussqp.formulations.delassus import LCPLemke
    from gaussqp.model.scales import data_scales
    from gaussqp.settings import get_tolerance

    p = particle_on_floor_3d(0.5)
    shift = 1e-10 * data_scales(p).dynamics_row
    real = LCPLemke._solve

    def nearby(self, problem, solver, tol):
        out = real(self, problem.with_force(problem.F + shift), solver, tol)
        out.problem = problem
        out.hints = dataclasses.replace(out.hints, polish_allowed=False)
        return out

    monkeypatch.setattr(LCPLemke, "_solve", nearby)
    _lemke_first(monkeypatch)
    f1_runs = []
    real_f1 = FORMULATIONS["gauss_qp"].solve_to_compare
    monkeypatch.setattr(
        FORMULATIONS["gauss_qp"], "solve_to_compare", lambda *a, **k: f1_runs.append(1) or real_f1(*a, **k)
    )
    sol = gaussqp.solve(p, tolerance=dataclasses.replace(get_tolerance(None), crosscheck=1e-12))
    last = sol.crosscheck.routes[-1]
    assert (last.route, last.status, last.outcome) == ("lcp_lemke", "solved", "disagreed") and not f1_runs
    assert sol.crosscheck.agree is False and not sol.certified


@pytest.mark.parametrize("full_status", [INACCURATE, FAILED])
def test_a_disagreeing_lcp_route_whose_full_judgement_fails_its_checks_is_set_aside(monkeypatch, full_status):
    """The LCP route's light answer passes its checks but disagrees; judged in full it fails them (as Lemke's vertex of
    condition ~6e10 on the all-sticking humanoid does: a forward error of 0.19), inaccurate or failed: that answer
    compares with nothing, and F1 is compared instead of leaving the cross-check with no route. The set-aside route's
    reason records the light disagreement too."""
    import gaussqp.crosscheck as crosscheck
    from gaussqp.formulations import base
    from gaussqp.results import DISAGREED, SOLVED

    p = particle_on_floor_3d(0.5)
    _lemke_first(monkeypatch)
    real_outcome, real_finalize = crosscheck._mlcp_outcome, base.finalize

    def outcome(sol, other, name, problem, tol):
        if name == "lcp_lemke" and other.status == SOLVED:
            return 1.0, 1.0, crosscheck.route_outcome(name, other.status, DISAGREED, "patched to disagree")
        return real_outcome(sol, other, name, problem, tol)

    def finalize(sol, tol, role=ANSWER):
        out = real_finalize(sol, tol, role)
        if sol.formulation == "lcp_lemke" and role == ANSWER:
            out.status = full_status
        return out

    monkeypatch.setattr(crosscheck, "_mlcp_outcome", outcome)
    monkeypatch.setattr(base, "finalize", finalize)
    sol = gaussqp.solve(p)
    lemke, f1 = sol.crosscheck.routes[-2:]
    assert (lemke.route, lemke.status, lemke.outcome) == ("lcp_lemke", full_status, "not compared")
    assert "(judged in full); judged for its status only: disagreed (patched to disagree)" in lemke.reason
    assert lemke.reason.endswith("; compared through gauss_qp")
    assert (f1.route, f1.outcome) == ("gauss_qp", "agreed") and sol.crosscheck.agree is True and sol.certified


def test_f1_first_where_it_takes_the_small_dense_path(monkeypatch):
    """F1 on DAQP's small dense path (M ≻ 0, dense, small) is compared first: its agreement ends the cross-check and
    the LCP route is not run."""
    lemke_runs = []
    real = FORMULATIONS["lcp_lemke"].solve_to_compare
    monkeypatch.setattr(
        FORMULATIONS["lcp_lemke"], "solve_to_compare", lambda *a, **k: lemke_runs.append(1) or real(*a, **k)
    )
    sol = gaussqp.solve(particle_on_floor_3d(0.5))
    last = sol.crosscheck.routes[-1]
    assert (last.route, last.status, last.outcome) == ("gauss_qp", "solved", "agreed") and not lemke_runs
    assert sol.crosscheck.solver == "daqp" and sol.crosscheck.agree is True and sol.certified
    assert last.reason.endswith("; " + LIGHT_AGREEMENT)  # agreed on the answer judged for its status only


def test_f1_first_whose_answer_fails_its_checks_is_set_aside_for_the_lcp_route(monkeypatch):
    """F1 first, its answer failing its own checks in the light judgement (acceleration moved by 1, DAQP's and then
    Clarabel's, which solves again a small dense answer the judge rejects): set aside, not compared, and the LCP route
    is compared instead."""
    from gaussqp.formulations.gauss_qp import GaussQP

    def garbage(real):
        def solve(self, problem, solver, tol):
            out = real(self, problem, solver, tol)
            out.acceleration = out.acceleration + 1.0
            return out

        return solve

    solvers = []

    def recorded(real):
        def solve(self, problem, solver, tol):
            solvers.append(solver)
            return real(self, problem, solver, tol)

        return solve

    monkeypatch.setattr(GaussQP, "_solve_compared", garbage(GaussQP._solve_compared))
    monkeypatch.setattr(GaussQP, "_solve", recorded(garbage(GaussQP._solve)))
    sol = gaussqp.solve(particle_on_floor_3d(0.5))
    assert "clarabel" in solvers  # DAQP's rejected answer solved again by Clarabel in the cross-check's role
    f1, lemke = sol.crosscheck.routes[-2:]
    assert (f1.route, f1.outcome) == ("gauss_qp", "not compared") and "compared through lcp_lemke" in f1.reason
    assert (lemke.route, lemke.outcome) == ("lcp_lemke", "agreed") and sol.crosscheck.agree is True
    assert sol.crosscheck.formulation == "lcp_lemke" and sol.certified


def test_failed_route_of_the_generic_crosscheck_is_not_compared(rng, monkeypatch):
    p, *_ = families.planted(rng, n=5, m_b=1, m_u=3)
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", _fail("lcp_lemke"))
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.crosscheck.formulation == "lcp_lemke"
    assert sol.crosscheck.agree is None
    assert sol.crosscheck.routes[0].outcome == "not compared"
    assert sol.certified  # backed by its own KKT certificate; the cross-check neither agreed nor disagreed


def test_disagreement_is_reported_and_uncertifies(rng, monkeypatch):
    p, *_ = families.planted(rng, n=5, m_b=1, m_u=3)
    good = FORMULATIONS["lcp_lemke"].solve(p)

    def wrong(problem, solver=None, tolerance=None, enough=None):
        out = Solution(
            problem=problem,
            status="solved",
            formulation="lcp_lemke",
            solver="patched",
            acceleration=good.acceleration + 1.0,
            lambda_normal=good.lambda_normal + 1.0,
            lambda_tangent=good.lambda_tangent,
        )
        return out, ANSWER

    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", wrong)
    sol = gaussqp.solve(p)
    assert sol.crosscheck.agree is False and sol.crosscheck.routes[0].outcome == "disagreed"
    assert not sol.certified


def test_cli_says_not_compared(tmp_path, capsys, monkeypatch):
    path = tmp_path / "p.json"
    gaussqp.dump(particle_on_floor_3d(0.95), path)
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", _fail("lcp_lemke"))
    monkeypatch.setattr(FORMULATIONS["gauss_qp"], "solve_to_compare", _fail("gauss_qp"))
    main(["solve", str(path)])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("crosscheck"))
    assert "not compared" in line and "agree=yes" not in out
    assert "lcp_lemke (failed): not compared" in out and "gauss_qp (failed): not compared" in out


def test_an_inaccurate_route_is_not_compared_with_a_verified_infeasibility(monkeypatch):
    """a_y >= 1 and a_y <= -1: the answer is infeasible, proven by a verified Farkas vector. A cross-check route whose
    answer failed its own checks (``inaccurate``) proves nothing either way: not compared, and the verified
    infeasibility stays certified (before, it was counted as a disagreement that withdrew the certification)."""
    cs = [
        Contact("unilateral", normal=[0, 1.0], normal_drift=-1.0),
        Contact("unilateral", normal=[0, -1.0], normal_drift=-1.0),
    ]
    p = ContactProblem(np.eye(2), [0.0, 0.0], cs)

    def inaccurate(problem, solver=None, tolerance=None, enough=None):
        out = Solution(
            problem=problem,
            status=INACCURATE,
            formulation="lcp_lemke",
            solver="patched",
            acceleration=np.zeros(2),
            lambda_normal=np.zeros(2),
            lambda_tangent=np.zeros((2, 1)),
        )
        return out, ANSWER

    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "solve_to_compare", inaccurate)
    sol = gaussqp.solve(p)
    assert sol.status == "infeasible" and sol.certified
    (route,) = sol.crosscheck.routes
    assert route.outcome == "not compared" and route.status == "inaccurate" and sol.crosscheck.agree is None


def test_no_route_checks_f4_with_f1_s_own_certificate(monkeypatch):
    """a_z >= 1 and a_z <= -1 on two sticking contacts: the MLCP without cones has no solution, so F4 is infeasible by
    F1's certificate (its two-stage route, even on that early exit). Without the LCP route nothing independent checks
    it: F1 is not run, and the circumscribed polygon, infeasible by the same certificate of F1, is not compared (before,
    both counted as agreement with themselves; found by a reviewer)."""
    tang = [[1.0, 0, 0], [0, 1.0, 0]]
    cs = [
        Contact("unilateral", normal=[0, 0, 1.0], normal_drift=-1.0, mode="sticking", friction=0.5, tangent=tang),
        Contact("unilateral", normal=[0, 0, -1.0], normal_drift=-1.0, mode="sticking", friction=0.5, tangent=tang),
    ]
    p = ContactProblem(np.eye(3), [0.0, 0.0, 0.0], cs, dimension=3)
    monkeypatch.setattr(FORMULATIONS["lcp_lemke"], "accepts", lambda *a: (False, "patched"))
    sol = gaussqp.solve(p, bracket="always")
    assert sol.status == "infeasible" and sol.route == "two stage" and sol.certified
    cc = sol.crosscheck
    out = {r.route: (r.status, r.outcome) for r in cc.routes}
    assert out["gauss_qp"] == ("not_run", "not compared")
    assert out["facetized_outer"] == ("infeasible", "not compared")
    assert "not an independent check" in next(r.reason for r in cc.routes if r.route == "facetized_outer")
    assert cc.agree is None


def test_a_polygon_answer_is_checked_as_f4_is_not_against_the_mlcp_as_its_problem():
    """F5 asked for by name: its cross-check is the sticking one (the MLCP without cones on the acceleration, the other
    polygon), never its own program. Before, the generic cross-check compared it with Lemke's MLCP answer as if that
    were its problem, and a Farkas-certified infeasible inscribed polygon "disagreed" and lost its certification."""
    for push, name, status in ((0.95, "facetized_inner", "infeasible"), (0.95, "facetized_outer", "solved")):
        p = particle_on_floor_3d(push)
        sol = gaussqp.solve(p, formulation=name, bracket="always")
        alone = gaussqp.solve(p, formulation=name, crosscheck=False)
        assert sol.status == alone.status == status and sol.certified and alone.certified
        out = {r.route: (r.status, r.outcome) for r in sol.crosscheck.routes}
        assert out[name] == ("not_run", "not compared")  # not a check of itself
        assert "disagreed" not in {o for _, o in out.values()}
    sol = gaussqp.solve(particle_on_floor_3d(1.5), formulation="facetized_inner", bracket="always")
    out = {r.route: (r.status, r.outcome) for r in sol.crosscheck.routes}
    assert out["facetized_outer"] == ("infeasible", "agreed")  # outer infeasible ⇒ the inscribed polygon is too
