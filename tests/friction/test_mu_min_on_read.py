"""μ_min is computed when it is first read (issue #28: a control loop that reads the margin does not pay for μ_min's
programs): the verdict leaves them pending, the first read of any of its three fields runs them once, and the value is
the one the programs give on the data of the solve, whatever the caller does to the answer's arrays in between."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.friction import multiplier_conic as mc
from gaussqp.friction.sticking_analysis import MU_MIN_FIELDS, StickingVerdict


def _count_programs(monkeypatch) -> list:
    calls: list = []
    for name in ("feasible", "ratio_step", "min_common_mu"):
        real = getattr(mc.MultiplierSetConic, name)

        def wrapped(self, *args, _real=real, _name=name, **kw):
            calls.append(_name)
            return _real(self, *args, **kw)

        monkeypatch.setattr(mc.MultiplierSetConic, name, wrapped)
    return calls


@pytest.mark.parametrize("field", sorted(MU_MIN_FIELDS) + ["as_dict", "eq"])
def test_mu_min_runs_on_the_first_read_only(monkeypatch, field):
    p = problems.load("real/humanoid_lying")
    calls = _count_programs(monkeypatch)
    sol = gaussqp.solve(p, crosscheck=False)
    v = sol.sticking
    assert sol.status == "solved" and v.margin > 0
    assert calls == [] and v.mu_min_pending is not None  # solved and its margin measured, μ_min not yet
    if field == "as_dict":
        d = v.as_dict()
        assert d["mu_min"] is not None and d["mu_min_lower"] is not None
    elif field == "eq":
        assert v == v
    else:
        getattr(v, field)
    ran = len(calls)
    assert ran >= 2 and v.mu_min_pending is None  # the ratio steps and the lower end's proof
    assert 0 < v.mu_min_lower <= v.mu_min and v.mu_min_reason is None
    _ = (v.mu_min, v.mu_min_lower, v.as_dict())
    assert len(calls) == ran  # once


def test_a_verdict_built_by_hand_has_no_pending_programs():
    v = StickingVerdict(feasible=True, margin=1.0, mu_min=0.3, mu_min_lower=0.29)
    assert v.mu_min_pending is None and (v.mu_min_lower, v.mu_min) == (0.29, 0.3)
    assert np.isclose(v.as_dict()["mu_min"], 0.3)


def _pending_verdict():
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), crosscheck=False)
    assert sol.sticking.mu_min_pending is not None
    return sol, sol.sticking


def test_concurrent_first_reads_run_the_programs_once():
    import threading

    _, v = _pending_verdict()
    runs = []
    real = v.mu_min_pending

    def counted():
        runs.append(1)
        return real()

    object.__setattr__(v, "mu_min_pending", counted)
    seen: dict = {}
    threads = [threading.Thread(target=lambda k=k: seen.__setitem__(k, v.mu_min)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(runs) == 1 and len(set(seen.values())) == 1 and next(iter(seen.values())) is not None


def test_an_error_in_the_programs_reaches_the_read_and_leaves_them_pending():
    _, v = _pending_verdict()
    real = v.mu_min_pending
    calls = []

    def fails_once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a program raised")
        return real()

    object.__setattr__(v, "mu_min_pending", fails_once)
    with pytest.raises(RuntimeError, match="a program raised"):
        _ = v.mu_min
    assert v.mu_min_pending is fails_once  # still pending: never None without a reason
    assert v.mu_min is not None and 0 < v.mu_min_lower <= v.mu_min and len(calls) == 2


def test_assigned_values_copies_and_pickles_keep_the_settled_values():
    import copy
    import dataclasses
    import pickle

    _, v = _pending_verdict()
    v.mu_min = 5.0  # the programs run first; the value given stays, the others are filled
    assert (v.mu_min, v.mu_min_pending) == (5.0, None) and 0 < v.mu_min_lower < 5.0
    _, v = _pending_verdict()
    r = dataclasses.replace(v, mu_min=1.0, mu_min_lower=0.5, mu_min_reason="given")
    assert (r.mu_min, r.mu_min_lower, r.mu_min_reason, r.mu_min_pending) == (1.0, 0.5, "given", None)
    assert 0 < v.mu_min < 1.0  # the original settled with its own value
    for clone in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy, copy.copy):
        _, v = _pending_verdict()
        w = clone(v)
        assert w.mu_min_pending is None or w.mu_min_pending is v.mu_min_pending
        assert w.mu_min == v.mu_min and w.mu_min_lower == v.mu_min_lower


def test_the_cvxpy_fallback_reads_the_solve_s_arrays_not_the_answer_s(monkeypatch):
    """Where Clarabel's form decides nothing μ_min's cvxpy programs read the acceleration and the normal forces when
    they run: those are copies taken at the solve, so the answer's arrays changed in place before the read change
    nothing (walker_lying; without the copies μ_min came out 0.062 instead of 0)."""
    from gaussqp.friction.multiplier_conic import ConicAnswer

    p = problems.load("real/walker_lying")
    monkeypatch.setattr(mc.MultiplierSetConic, "_solve", lambda self, *a, **k: ConicAnswer("failed"))
    ref = gaussqp.solve(p, crosscheck=False).sticking
    expected = (ref.mu_min_lower, ref.mu_min)
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.sticking.mu_min_pending is not None
    sol.acceleration[:] = 1e3
    sol.lambda_normal[:] = 0.0
    assert (sol.sticking.mu_min_lower, sol.sticking.mu_min) == pytest.approx(expected, abs=1e-9)
