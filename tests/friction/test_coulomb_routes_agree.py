"""Issue #12's acceptance in 2D: the convex-iteration answer (``coulomb_fixed_point``) is always one of the
solutions the exact enumeration (``coulomb_enumeration``) finds, and it never claims an answer where the
enumeration proves there is none."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
from gaussqp.friction.enumeration import enumerate_solutions
from gaussqp.results import SOLUTION_PRESENT

from test_coulomb_enumeration import random_problem  # tests/friction is on sys.path (pytest rootdir import)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 3), extra=st.integers(0, 2))
def test_the_convex_iteration_answer_is_an_enumerated_solution(seed, m, extra):
    p = random_problem(seed, m, extra)
    enum = enumerate_solutions(p)
    sol = gaussqp.solve(p, formulation="coulomb_fixed_point", crosscheck=False)
    if not enum.solutions:  # the enumeration proves there is none: no route may claim one
        assert sol.status != "solved"
        return
    if sol.status == "solved":
        found = enum.find(sol.acceleration, sol.lambda_normal, sol.lambda_tangent)
        assert found is not None, (seed, m, extra, sol.acceleration, [s.a for s in enum.solutions])
    else:  # an honest failure is allowed, a wrong answer is not; say how often in the report
        assert sol.status in SOLUTION_PRESENT | {"failed", "inaccurate"}
