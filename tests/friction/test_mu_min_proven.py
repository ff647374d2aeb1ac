"""μ_min of the sticking verdict is proven or undecided, never a wrong inf (issue #25 item 3).

- A detaching sticking contact (``n_i a + b_i > 0``, so ``λ_n,i = 0``) has the disk {0}: the pinned-normal program
  of :func:`gaussqp.friction.verdict.mu_min_bracket` left its tangential force free, put the load on it and then
  read its ratio as inf (12 of 13 sweep cases). With the disk kept, μ_min has a closed form.
- A feasibility program that decides nothing is never read as "no μ works": μ_min is then None with a reason.
- The sweep's 3D case: at its own μ the problem is infeasible, at common μ = 1.7664 it is solved certified; μ_min's
  bracket [mu_min_lower, mu_min] is proven by solves at common μ on both sides of it.
"""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp.friction import mu_min as mu_mod
from gaussqp.friction import sticking_analysis as sa
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.settings import PRESETS

RUN = (lambda backend: lambda prob: sa.solve_program(prob, backend.name, PRESETS["high"], "qp")[1])(
    sa.get_backend("clarabel", needs="qp")
)


def redundant_floor(fx: float, fy: float, mu: float = 0.8) -> ContactProblem:
    """One point mass, two sticking contacts with the same rows (normal (0, 1), tangent (1, 0)); contact 0 has the
    larger drift, so at the optimum (a_y = -0.5) it detaches and contact 1 carries the load: μ_min = fx / (fy - 0.5)."""
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=2.0, mode="sticking", friction=mu, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=0.5, mode="sticking", friction=mu, tangent=[[1.0, 0.0]]),
    ]
    return ContactProblem(np.eye(2), [fx, fy], cs, dimension=2)


@pytest.mark.parametrize("fx, fy", [(0.3, 1.0), (-0.45, 3.0), (2.0, 1.5)])
def test_mu_min_with_a_detaching_redundant_contact(fx, fy):
    p = redundant_floor(fx, fy)
    ref = abs(fx) / (fy - 0.5)
    sol = gaussqp.solve(p, crosscheck=False)
    v = sol.sticking
    assert sol.status == ("solved" if ref <= 0.8 else "infeasible")
    assert v.detaching_contacts == [0]
    assert v.mu_min is not None and np.isfinite(v.mu_min)
    assert v.mu_min_lower is not None and v.mu_min_lower <= ref * (1 + 1e-8) and ref * (1 - 1e-8) <= v.mu_min
    assert v.mu_min <= ref * (1 + 1e-6)


def test_undecided_programs_never_read_as_no_mu_works():
    # every program ends "failed": nothing is decided, so μ_min is None with a reason (it was inf)
    p = redundant_floor(0.3, 1.0)
    p2 = ContactProblem(
        np.eye(2),
        [3.0, 1.0],
        [
            Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.1, tangent=[[1.0, 0.0]])
            for _ in range(2)
        ],
        dimension=2,
    )
    for q, a in ((p, np.array([0.0, -0.5])), (p2, np.zeros(2))):
        assert mu_mod.mu_min_bracket(q, a, 1e-7, lambda prob: "failed") == (0.0, None)
        why: list = []
        mu_mod.mu_min_bracket(q, a, 1e-7, lambda prob: "failed", why=why)
        assert why and "decided nothing" in why[0]
    # and a proven "no μ works" stays inf: no normal force at all (every program infeasible)
    c = [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])] * 2
    assert mu_mod.mu_min(ContactProblem(np.eye(2), [0.2, 0.0], c, dimension=2), np.zeros(2), 1e-7, RUN) == float("inf")


# the sweep's 3D reproducer (seed 32289): two unilateral contacts with the same rows, contact 0 detaching
M3 = np.array(
    [
        [1.6032246792776668, -0.11530319292371691, -0.04123296039638824, 0.38367774133450017, -0.38923046840737086],
        [-0.11530319292371691, 1.576159183403624, 0.29553006439087187, -0.36221913851956056, 0.18965279820071246],
        [-0.04123296039638824, 0.29553006439087187, 1.4738844964364382, -0.5934860412216016, 0.752747680671473],
        [0.38367774133450017, -0.36221913851956056, -0.5934860412216016, 3.0030718666760334, -1.3774197312892367],
        [-0.38923046840737086, 0.18965279820071246, 0.752747680671473, -1.3774197312892367, 2.778716333478064],
    ]
)
F3 = np.array([-1.7214194916482959, 0.2638600264790649, -1.5479627674744743, 3.9929270312854124, 0.949157300025313])
N3 = np.array([-0.28728372679801983, 1.195723193909231, 1.0983567954261937, 0.38413157327722525, -0.09533335366170748])
T3 = np.array(
    [
        [-1.4231020853731893, 0.5598113315433211, 0.4860820822313733, 2.870133405058803, 1.1987889737988047],
        [-0.264038520361285, 0.6437266502643384, 0.45801772210489283, 0.6436772583374916, -0.6450372223188704],
    ]
)
C3 = np.array([-0.5196891257166328, 0.04595600576486142])


def sweep_3d(mu: float) -> ContactProblem:
    cs = [
        Contact("unilateral", normal=N3, normal_drift=bi, friction=mu, mode="sticking", tangent=T3, tangent_drift=C3)
        for bi in (0.47216475474841235, -1.5221799658045598)
    ]
    return ContactProblem(M3, F3, cs, dimension=3)


def test_mu_min_bracket_matches_solves_at_common_mu():
    sol = gaussqp.solve(sweep_3d(0.4811470509293405))
    assert sol.status == "infeasible" and sol.certified
    v = sol.sticking
    assert v.mu_min is not None and np.isfinite(v.mu_min) and v.mu_min <= 1.7663957212614982
    above = gaussqp.solve(sweep_3d(v.mu_min * (1 + 1e-4)))
    below = gaussqp.solve(sweep_3d(v.mu_min_lower * (1 - 1e-4)))
    assert above.status == "solved" and above.certified
    # just below μ_min no sticking forces exist for the data as given (verified conic Farkas vectors, the same μ_min),
    # but a change of the forces within NONEXISTENCE_CHANGE may close their margin: not a certified infeasible (the
    # verdict contract across tolerances); 10 % below, it is
    assert below.status == "failed" and not below.certified
    assert below.certificate("coulomb_farkas") is not None and not below.certificate("coulomb_farkas").holds
    assert below.sticking.feasible is False and below.sticking.mu_min == pytest.approx(v.mu_min, rel=1e-9)
    far_below = gaussqp.solve(sweep_3d(v.mu_min_lower * 0.9))
    assert far_below.status == "infeasible" and far_below.certified
