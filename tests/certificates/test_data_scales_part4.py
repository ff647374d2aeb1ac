"""Issue #9 part 4: the last decisions made against ``max(1, ·)`` or the answer's own size, moved to scales taken
from the data (:mod:`gaussqp.model.scales`). Every test here failed on the code before its fix (the report of the
branch ``issue9-floors`` gives the failures seen); expected values come from closed forms.
"""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp.certificates import instance as inst
from gaussqp.model.problem import Contact, ContactProblem


# ------------------------------------------------------------------- 1. coulomb_cone_check on the data's multipliers

def _sticking_point(s, mu=0.5):
    # M = s I, F = s (0, 1), one unilateral sticking contact (normal y, tangent x): a = 0, λ_n = s, λ_t = 0;
    # the contact's data scale μ λ_data,n + λ_data,t (λ_data = force / ‖(J S)_row‖∞) is 1.5 s^(1/2) s^(1/2) = 1.5 s
    return ContactProblem(s * np.eye(2), s * np.array([0.0, 1.0]),
                          [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]])],
                          dimension=2)


@pytest.mark.parametrize("s", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("excess, holds", [(0.0, True), (1e-8, True), (1e-5, False), (-1e-3, True)])
def test_cone_check_verdict_does_not_depend_on_units(s, excess, holds):
    # λ_n = s, |λ_t| = (μ + excess) s: the slack is -excess · s, the same fraction of the contact's force in every
    # unit. Before: at s = 1e-6 a violation of 1e-5 relative (1e-11 absolute) passed against 1e-7 · max(1, |λ|) = 1e-7
    p = _sticking_point(s)
    lam_n, lam_t = np.array([s]), np.array([[(0.5 + excess) * s]])
    c = inst.coulomb_cone_check(p, lam_n, lam_t)
    assert c.holds is holds
    assert c.margin == pytest.approx(-excess * s, rel=1e-6, abs=1e-30)


def test_cone_check_not_scaled_by_the_answer():
    # a garbage answer of size 1e9 leaving its disk by 10 (1e-8 of itself but 10 data units) fails; before, the
    # bound was 1e-7 · 1e9 = 100 and it passed
    p = _sticking_point(1.0)
    c = inst.coulomb_cone_check(p, np.array([1e9]), np.array([[0.5e9 + 10.0]]))
    assert c.holds is False and c.data["relative_slack"] < -1.0

