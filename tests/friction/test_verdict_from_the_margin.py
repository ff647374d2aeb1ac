"""The sticking verdict reuses the margin's program (issue #28 item 4): a contact whose slack at the max-margin forces,
put exactly on the affine hull of Λ(a), is above the boundary threshold needs no program of its own, and μ_min's
ratio steps start from the margin's point (with a common μ the margin program is their first step), so neither the
feasibility program at μ = 0 nor the one at the first μ that works is run. The verdict is the one the programs of
each contact and the bisection's start give."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.friction import multiplier_conic as mc
from gaussqp.friction import sticking_analysis as sa
from gaussqp.friction.mu_min import AffineSet, start_point
from gaussqp.friction.multiplier_set import active_tolerance


def _calls(monkeypatch, p, **patch):
    calls = []
    for name in ("feasible", "contact_margin", "ratio_step", "margin"):
        real = getattr(mc.MultiplierSetConic, name)

        def wrapped(self, *args, _real=real, _name=name, **kw):
            ans = _real(self, *args, **kw)
            first = args[0] if args else None
            calls.append((_name, float(np.max(first)) if isinstance(first, np.ndarray) else first, ans.status))
            return ans

        monkeypatch.setattr(mc.MultiplierSetConic, name, wrapped)
    for k, v in patch.items():
        monkeypatch.setattr(sa, k, v)
    sol = gaussqp.solve(p, crosscheck=False)
    if sol.sticking is not None:
        _ = sol.sticking.mu_min  # μ_min's programs run when it is first read: here, under the patches
    monkeypatch.undo()
    return sol, calls


def test_humanoid_verdict_runs_no_contact_program_and_no_start_programs(monkeypatch):
    p = problems.load("real/humanoid_lying")
    sol, calls = _calls(monkeypatch, p)
    assert sol.status == "solved" and sol.certified and sol.unique["multipliers"] is not True
    kinds = [c[0] for c in calls]
    assert kinds.count("margin") == 1
    assert "contact_margin" not in kinds  # every contact's achieved slack is far above the threshold
    assert kinds.index("ratio_step") == 1  # the steps start right after the margin, from its point
    assert not any(c[0] == "feasible" and c[1] in (0.0, 1.0) for c in calls)
    v = sol.sticking
    assert v.boundary_contacts == [] and v.margin > 0
    assert 0 < v.mu_min_lower <= v.mu_min


def test_same_verdict_as_one_program_per_contact(monkeypatch):
    # a threshold so large that no achieved slack decides anything: every contact gets its own program again
    p = problems.load("real/humanoid_lying")
    sol, _ = _calls(monkeypatch, p)
    old, calls = _calls(monkeypatch, p, BOUNDARY_RTOL=1e6)
    assert sum(1 for c in calls if c[0] == "contact_margin") == len(p.sticking) - len(old.sticking.detaching_contacts)
    assert old.sticking.boundary_contacts == list(p.sticking)  # at that threshold every contact is "on" it
    assert sol.sticking.margin == pytest.approx(old.sticking.margin, rel=1e-9)
    # the μ_min brackets are the same proven interval to the backend's accuracy
    lo, hi = sol.sticking.mu_min_lower, sol.sticking.mu_min
    assert lo <= old.sticking.mu_min * (1 + 1e-5) and old.sticking.mu_min_lower <= hi * (1 + 1e-5)


def test_verified_slacks_refuse_a_point_outside_the_set():
    p = problems.load("real/humanoid_lying")
    sol = gaussqp.solve(p, crosscheck=False)
    a = sol.acceleration
    aff = AffineSet(p, a, active_tolerance(p, a), sol.lambda_normal)
    v = sol.sticking
    lev = np.concatenate([v.multipliers[0][p.bilateral], v.multipliers[1][aff.L.sticking].ravel()])
    liv = v.multipliers[0][p.unilateral]
    got = sa.verified_slacks(p, aff, (lev, liv), {})
    assert got is not None and min(got.values()) == pytest.approx(v.margin, rel=1e-6)
    assert start_point(aff, (lev, -liv)) is None  # negative normal forces: not a point of Λ(a)
    assert sa.verified_slacks(p, aff, (lev, -liv), {}) is None
    assert start_point(aff, (None, liv)) is None
