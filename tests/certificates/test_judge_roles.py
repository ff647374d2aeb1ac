"""Issue #28 part 2: the answer of a cross-check route is judged for its status only (role ``crosscheck``): its
residuals, backward error and cones, not the polish, uniqueness or forward error, which only a returned answer needs.
An answer that does not agree is solved again and judged in full before it may withdraw the answer's ``solved``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import gaussqp
from gaussqp import crosscheck
from gaussqp.certificates.judge import CROSSCHECK, finalize
from gaussqp.formulations import FORMULATIONS
from gaussqp.formulations.delassus import LCPLemke
from gaussqp.model.problem import ContactProblem
from gaussqp.model.scales import data_scales
from gaussqp.problems import families
from gaussqp.settings import get_tolerance

RETURNED_ONLY = {"forward_error", "unique_acceleration", "unique_multipliers"}


def _ids(sol) -> set[str]:
    return {c.id for c in sol.certificates}


def _capture_other(monkeypatch) -> list:
    """The cross-check route's solutions as :func:`crosscheck.crosscheck_report` sees them (the last one last)."""
    seen = []
    real = crosscheck.crosscheck_report

    def report(primary, other, tol):
        seen.append(other)
        return real(primary, other, tol)

    monkeypatch.setattr(crosscheck, "crosscheck_report", report)
    return seen


def test_the_crosscheck_route_is_judged_for_its_status_only(rng, monkeypatch):
    p, *_ = families.planted(rng, n=6, m_b=1, m_u=4)
    seen = _capture_other(monkeypatch)
    sol = gaussqp.solve(p)
    (other,) = seen  # agreed: compared once
    assert other.formulation == "lcp_lemke" and other.status == "solved"
    assert {"kkt_residuals", "backward_error"} <= _ids(other)
    assert not RETURNED_ONLY & _ids(other) and "polished" not in other.extras
    assert set(other.unique.values()) == {None}  # not decided, not claimed
    # the returned answer is judged in full, and the two agree
    assert RETURNED_ONLY <= _ids(sol) and sol.status == "solved" and sol.certified
    assert sol.crosscheck.agree is True


def test_finalize_refuses_an_unknown_role(rng):
    p, *_ = families.planted(rng, n=4, m_b=0, m_u=2)
    tol = get_tolerance(None)
    with pytest.raises(ValueError, match="role"):
        finalize(FORMULATIONS["lcp_lemke"]._solve(p, None, tol), tol, "primary")
    judged = finalize(FORMULATIONS["lcp_lemke"]._solve(p, None, tol), tol, CROSSCHECK)
    assert judged.status == "solved" and not RETURNED_ONLY & _ids(judged)


def _nearby_lemke(monkeypatch, p, size: float) -> None:
    """The Lemke route returns, unpolished, the exact answer of forces changed by ``size`` of each row's scale."""
    shift = size * data_scales(p).dynamics_row * np.sign(np.random.default_rng(1).standard_normal(p.n))
    real = LCPLemke._solve

    def nearby(self, problem, solver, tol):
        q = ContactProblem.from_blocks(problem.M, problem.F + shift, problem.J_n, problem.normal_drift)
        sol = real(self, q, solver, tol)
        sol.problem = problem
        sol.hints = dataclasses.replace(sol.hints, polish_allowed=False)
        return sol

    monkeypatch.setattr(LCPLemke, "_solve", nearby)


def test_a_disagreeing_route_is_judged_in_full_and_then_withdraws_solved(monkeypatch):
    """The Lemke route's answer 1e-10 away, against a cross-check tolerance of 1e-12: it disagrees, is solved again and
    judged in full, passes, and withdraws ``solved``."""
    p, *_ = families.planted(np.random.default_rng(0), n=6, m_b=0, m_u=4)
    _nearby_lemke(monkeypatch, p, 1e-10)
    solves = []
    nearby = LCPLemke._solve
    monkeypatch.setattr(LCPLemke, "_solve", lambda self, *a: solves.append(1) or nearby(self, *a))
    seen = _capture_other(monkeypatch)
    sol = gaussqp.solve(p, tolerance=dataclasses.replace(get_tolerance(None), crosscheck=1e-12))
    other = seen[-1]
    assert len(seen) == 2  # compared, judged again in full, compared again
    assert len(solves) == 2  # the light judgement's run, then the full judgement's
    assert not RETURNED_ONLY & _ids(seen[0])
    assert RETURNED_ONLY <= _ids(other) and other.status == "solved"
    assert sol.crosscheck.agree is False and sol.crosscheck.routes[0].outcome == "disagreed"
    assert sol.status == "inaccurate" and not sol.certified


def test_an_answer_exact_only_for_nearby_data_is_not_compared(monkeypatch):
    """Forces changed by 0.9e-6 of each row's scale: the Lemke route's answer passes its residual and backward-error
    checks, disagrees beyond the cross-check tolerance (cond ~1e4), and fails its forward error once judged in full:
    not compared, and the certified answer stays ``solved``."""
    p, *_ = families.planted(np.random.default_rng(0), n=6, m_b=0, m_u=4, cond=1e4)
    _nearby_lemke(monkeypatch, p, 0.9e-6)
    seen = _capture_other(monkeypatch)
    sol = gaussqp.solve(p)
    other = seen[-1]
    assert len(seen) == 2
    assert other.certificate("backward_error").holds and other.status == "inaccurate"
    assert other.certificate("forward_error").holds is False
    assert sol.crosscheck.routes[0].outcome == "not compared" and sol.crosscheck.agree is None
    assert sol.status == "solved" and sol.certified


def test_an_agreement_of_a_lightly_judged_route_says_what_it_rests_on(rng):
    """The route's answer judged in the role crosscheck (no forward error): its agreement's reason says so, so that an
    agreement is never read as the route's answer being within its forward error of the exact one."""
    from gaussqp.crosscheck import LIGHT_AGREEMENT

    p, *_ = families.planted(rng, n=6, m_b=1, m_u=4)
    sol = gaussqp.solve(p)
    agreed = [o for o in sol.crosscheck.routes if o.outcome == "agreed"]
    assert sol.crosscheck.agree is True and agreed
    assert all(LIGHT_AGREEMENT in o.reason for o in agreed)
