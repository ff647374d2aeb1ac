"""μ_min is computed when it is first read (issue #28: a control loop that reads the margin does not pay for μ_min's
programs): the verdict leaves them pending, the first read of any of its three fields runs them once, and the value is
the one the programs give on the data of the solve, whatever the caller does to the answer's arrays in between."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.backends import get_backend
from gaussqp.friction import multiplier_conic as mc
from gaussqp.friction.mu_min import mu_min_bracket
from gaussqp.friction.multiplier_set import active_tolerance
from gaussqp.friction.sticking_analysis import MU_MIN_FIELDS, StickingVerdict, analyze
from gaussqp.settings import get_tolerance


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


def test_the_value_read_later_is_the_eager_one():
    """The answer's arrays changed in place before μ_min is read: the value is still the programs' on the solve's
    data (the verdict keeps copies), equal to an eager computation at the solve's acceleration."""
    p = problems.load("real/humanoid_lying")
    sol = gaussqp.solve(p, crosscheck=False)
    a = sol.acceleration.copy()
    lam_n = sol.lambda_normal.copy()
    late = gaussqp.solve(p, crosscheck=False)
    late.acceleration[:] = 1e3
    late.lambda_normal[:] = 0.0
    v = late.sticking
    eager = analyze(p, a, True, None, get_tolerance(None), lam_n=lam_n)
    assert (v.mu_min_lower, v.mu_min) == (eager.mu_min_lower, eager.mu_min)
    atol = active_tolerance(p, a)
    why: list = []
    run = None  # the direct programs decide on the humanoid: no cvxpy program runs
    conic = mc.MultiplierSetConic(p, a, atol, lam_n, get_backend("clarabel", needs="socp"), get_tolerance(None))
    lower, upper = mu_min_bracket(p, a, atol, run, lam_n, conic, why)
    assert upper == pytest.approx(v.mu_min, rel=1e-6) and lower <= v.mu_min


def test_a_verdict_built_by_hand_has_no_pending_programs():
    v = StickingVerdict(feasible=True, margin=1.0, mu_min=0.3, mu_min_lower=0.29)
    assert v.mu_min_pending is None and (v.mu_min_lower, v.mu_min) == (0.29, 0.3)
    assert np.isclose(v.as_dict()["mu_min"], 0.3)
