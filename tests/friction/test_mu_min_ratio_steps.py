"""μ_min's ratio steps (issue #28, gaussqp.friction.mu_min._ratio_steps): the Crouzeix–Ferland–Schaible method brings
the upper end to μ_min in a few programs; the bracket stays proven (an achieved ratio above, an infeasible program
below), it meets the bisection's own bracket, and it takes fewer programs than the bisection alone."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.friction import mu_min as mm
from gaussqp.friction import multiplier_conic as mc
from gaussqp.problems import families


def _verdict(monkeypatch, p, steps: bool):
    calls = []
    feasible, ratio_step = mc.MultiplierSetConic.feasible, mc.MultiplierSetConic.ratio_step

    def count_feasible(self, mu, signs):
        ans = feasible(self, mu, signs)
        calls.append(("feasible", None if mu is None else float(np.max(mu)), ans.status))
        return ans

    def count_ratio(self, theta, w, signs):
        calls.append(("ratio", theta, "-"))
        return ratio_step(self, theta, w, signs)

    with monkeypatch.context() as m:
        m.setattr(mc.MultiplierSetConic, "feasible", count_feasible)
        m.setattr(mc.MultiplierSetConic, "ratio_step", count_ratio)
        if not steps:
            m.setattr(mm, "MU_RATIO_STEPS_MAX", 0)
        sol = gaussqp.solve(p, crosscheck=False)
        if sol.sticking is not None:
            _ = sol.sticking.mu_min  # μ_min's programs run when it is first read: here, under the counters
    return sol, calls


def _cases():
    yield "humanoid", problems.load("real/humanoid_lying")
    rng = np.random.default_rng(7)
    for k in range(3):
        yield f"sticking {k}", families.sticking(rng, n=9, m_u=4, m_b=0)[0]


@pytest.mark.parametrize("kind", ["humanoid", "sticking 0", "sticking 1", "sticking 2"])
def test_ratio_steps_give_a_proven_bracket_that_meets_the_bisections_in_fewer_programs(monkeypatch, kind):
    p = dict(_cases())[kind]
    new, calls_new = _verdict(monkeypatch, p, True)
    old, calls_old = _verdict(monkeypatch, p, False)
    assert new.status == old.status
    if new.sticking is None or old.sticking is None or old.sticking.mu_min is None:
        pytest.skip(f"{kind}: no μ_min to compare ({old.status})")
    lo_n, hi_n = new.sticking.mu_min_lower, new.sticking.mu_min
    lo_o, hi_o = old.sticking.mu_min_lower, old.sticking.mu_min
    assert lo_n is not None and hi_n is not None and lo_n <= hi_n
    # both brackets are proven to the backend's accuracy (MU_ACCEPT_RTOL): they meet
    slack = 10 * mm.MU_ACCEPT_RTOL * max(hi_o, 1e-12)
    assert lo_n <= hi_o + slack and lo_o <= hi_n + slack, (lo_n, hi_n, lo_o, hi_o)
    assert hi_n <= hi_o * (1 + mm.MU_ACCEPT_RTOL)  # the upper end is not worse
    if any(what == "ratio" for what, *_ in calls_new):
        # at most the ratio steps' few programs more than the bisection alone (near the optimum the proof of the lower
        # end costs what the bisection's last steps cost); on the humanoid far fewer (below)
        assert len(calls_new) <= len(calls_old) + 3, (len(calls_new), len(calls_old))


def test_the_humanoid_takes_fewer_programs_for_a_bracket_no_wider(monkeypatch):
    p = problems.load("real/humanoid_lying")
    sol, calls = _verdict(monkeypatch, p, True)
    old, calls_old = _verdict(monkeypatch, p, False)
    assert sol.status == "solved" and sol.certified
    assert any(what == "ratio" for what, *_ in calls)
    assert len(calls) <= 15 and len(calls) < len(calls_old), (len(calls), len(calls_old))  # the bisection: ~22–37
    lo, hi = sol.sticking.mu_min_lower, sol.sticking.mu_min
    assert 0 < hi - lo <= old.sticking.mu_min - old.sticking.mu_min_lower
