"""Coulomb contacts mixed with the other contact kinds (issue #12 item 1)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.friction.enumeration import enumerate_solutions


def two_masses(push: float) -> ContactProblem:
    """Two unit point masses on the ground (2D): mass 0 frictionless and pushed by 3, mass 1 with μ = 0.5
    (mode coulomb) pushed by ``push``. Closed form: a_0x = 3; mass 1 sticks (a_1x = 0, λ_t = −push) while
    push <= μ g, else slides with a_1x = push − μ g."""
    c0 = Contact("unilateral", np.array([0, 1, 0, 0.]))
    c1 = Contact("unilateral", np.array([0, 0, 0, 1.]), friction=0.5, mode="coulomb",
                 tangent=np.array([[0, 0, 1, 0.]]))
    return ContactProblem(np.eye(4), -np.array([3.0, -9.81, push, -9.81]), [c0, c1], dimension=2)


def test_a_frictionless_contact_before_a_coulomb_one_does_not_shift_its_tangent_rows():
    # J_t holds d-1 rows per contact (zero for the frictionless one): the condensed blocks read contact 1's
    # tangent at rows 1·(d-1), not at the first tangent rows (the route once pushed mass 1 frictionless)
    sol = gaussqp.solve(two_masses(2.0), formulation="coulomb_fixed_point", crosscheck=False)
    assert sol.status == "solved" and sol.certified
    np.testing.assert_allclose(sol.acceleration, [3.0, 0.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(sol.lambda_tangent.ravel(), [0.0, -2.0], atol=1e-9)
    slide = gaussqp.solve(two_masses(7.0), formulation="coulomb_fixed_point", crosscheck=False)
    np.testing.assert_allclose(slide.acceleration, [3.0, 0.0, 7.0 - 0.5 * 9.81, 0.0], atol=1e-9)


def random_mixed(seed: int, m: int, frictionless: int, extra: int) -> ContactProblem:
    """A generic 2D problem: ``m`` coulomb contacts and ``frictionless`` frictionless unilateral ones (without
    tangent rows) interleaved, on ``n = 2m + frictionless + extra`` coordinates."""
    rng = np.random.default_rng(seed)
    n = max(1, 2 * m + frictionless + extra)
    R = rng.normal(size=(n, n))
    M = R @ R.T + 0.5 * np.eye(n)
    F = rng.normal(size=n) * 3
    cts = [Contact("unilateral", normal=rng.normal(size=n), normal_drift=float(rng.normal()),
                   friction=float(rng.uniform(0.0, 2.0)), mode="coulomb", tangent=[rng.normal(size=n)],
                   tangent_drift=[float(rng.normal())]) for _ in range(m)]
    for k in range(frictionless):
        cts.insert(int(rng.integers(0, len(cts) + 1)),
                   Contact("unilateral", normal=rng.normal(size=n), normal_drift=float(rng.normal())))
    return ContactProblem(M, F, cts, dimension=2)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2 ** 32 - 1), m=st.integers(1, 2), frictionless=st.integers(1, 2),
       extra=st.integers(0, 2))
def test_with_frictionless_contacts_the_answer_is_an_enumerated_solution(seed, m, frictionless, extra):
    p = random_mixed(seed, m, frictionless, extra)
    enum = enumerate_solutions(p)
    sol = gaussqp.solve(p, formulation="coulomb_fixed_point", crosscheck=False)
    if not enum.solutions:
        assert sol.status != "solved"
        return
    if sol.status == "solved":
        assert enum.find(sol.acceleration, sol.lambda_normal, sol.lambda_tangent) is not None, (seed, m, frictionless)
