"""An exact decision that cannot be verified is reported as undecided, never as a decision nor a bare
exception (issue #9): the cone LPs now re-verify HiGHS's answers and raise UndecidedError when a check fails."""

from __future__ import annotations

import numpy as np

import gaussqp
from gaussqp import ContactProblem
from gaussqp.certificates.report import check
from gaussqp.errors import UndecidedError


def _singular_problem():
    M = np.diag([1.0, 0.0, 2.0])
    J = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
    return ContactProblem.from_blocks(M, [0.0, 1.0, 1.0], J, [0.0, 0.5], ["unilateral", "unilateral"])


def _undecided(*args, **kwargs):
    raise UndecidedError("cone LP answer fails its check (test double)")


def test_undecided_cones_give_holds_none(monkeypatch):
    p = _singular_problem()
    for mod in ("gaussqp.certificates.structural", "gaussqp.certificates.instance"):
        monkeypatch.setattr(f"{mod}.cone_is_trivial", _undecided)
    rep = check(p)
    assert rep.certificate("C3").holds is None and "undecided" in rep.certificate("C3").implies
    sol = gaussqp.solve(p, crosscheck=False)
    ua = sol.certificate("unique_acceleration")
    assert ua is not None and ua.holds is None
    assert sol.unique["acceleration"] is None


def test_c5_holds_only_with_a_verified_feasible_point(monkeypatch):
    p = _singular_problem()
    assert check(p).certificate("C5").holds is True
    monkeypatch.setattr("gaussqp.certificates.structural._verified_feasible_point", lambda problem: None)
    monkeypatch.setattr("gaussqp.certificates.structural._point_on_independent_rows", lambda problem: None)
    monkeypatch.setattr("gaussqp.certificates.structural._point_on_equalities", lambda problem: None)
    c5 = check(p).certificate("C5")
    assert c5.holds is None and "undecided" in c5.implies  # no Farkas vector is not a proof of feasibility
