"""F9's gap program handed to Clarabel directly (``coulomb_mixed._DirectGap``) against the cvxpy program it replaces:
the same optimal point, program by program, on problems mixing coulomb contacts with every other kind, in 2D and 3D,
with the sides of bilateral sticking cones; and the route's answers with either."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
import gaussqp.formulations.coulomb_mixed as cm
import gaussqp.settings as S
from gaussqp.friction.mixed_law import BILATERAL_STICKING, MixedSystem

from test_coulomb_mixed import random_any  # tests/friction is on sys.path


@pytest.mark.parametrize("dimension", [2, 3])
def test_the_direct_program_has_the_cvxpy_programs_optimum(dimension):
    """Statuses alike where both programs decide (solved or infeasible), the same point where both return one; on 30
    problems, most with a point to compare (the test cannot pass by comparing nothing)."""
    tol = S.get_tolerance(None)
    points = 0
    for seed in range(30):
        p = random_any(seed) if dimension == 2 else random_any(seed, 3)
        sysm = MixedSystem(p)
        bil = [i for i, k in enumerate(sysm.kinds) if k == BILATERAL_STICKING]
        rng = np.random.default_rng(seed)
        shift = np.abs(rng.normal(size=sysm.m)) * (np.array(sysm.kinds) == "coulomb")
        g = rng.normal(size=sysm.n) * 0.1
        for signs in [None] + ([{i: 1.0 for i in bil}, {i: -1.0 for i in bil}] if bil else []):
            direct = cm._GapProgram(sysm, None, tol, signs)
            program = cm._GapProgram(sysm, "clarabel", tol, signs)
            program._direct_backend = None  # the cvxpy program
            x1, x2 = direct._solve(shift, g), program._solve(shift, g)
            assert direct.direct is not None and program.direct is None  # the direct form, built at its first program
            decided = ("solved", "infeasible")
            if direct.status in decided and program.status in decided:  # where cvxpy's failed, no reference
                assert direct.status == program.status, (seed, signs)
                assert (x1 is None) == (x2 is None)
            if x1 is not None and x2 is not None:
                # the same optimal value (the gap: zero at a solution of the law), at the data's work scale, and
                # nearby points (an interior-point answer of a degenerate program is good to about √tol)
                P, q = direct.direct.P, direct.direct.q0.copy()
                q[: sysm.n] += sysm.a_scale * sysm.dyn_scale * g / direct.direct.unit
                q[sysm.n : sysm.n + sysm.m] += sysm.lam_scale * sysm.u_scale * shift / direct.direct.unit

                def value(x):
                    return 0.5 * x @ (P @ x + P.T @ x - P.diagonal() * x) + q @ x

                scale = max(1.0, float(np.abs(x2).max()))
                assert abs(value(x1) - value(x2)) <= 1e-6 * max(1.0, abs(value(x2))), (seed, signs)
                assert np.allclose(x1, x2, rtol=0, atol=1e-4 * scale), (seed, signs)
                points += 1
    assert points >= 20, points


def test_the_route_answers_alike_with_either_program(monkeypatch):
    """F9's route with the direct program and with the cvxpy one: the same status and acceleration, on 20 problems, of
    which at least 8 run the gap program (the others answer from the Newton method before any program)."""
    programs = 0
    for seed in range(20):
        p = random_any(seed) if seed % 2 else random_any(seed, 3)
        first = gaussqp.solve(p, formulation="coulomb_mixed", crosscheck=False)
        with monkeypatch.context() as mp:
            mp.setattr(cm, "direct_backend", lambda *a, **k: None)
            second = gaussqp.solve(p.with_force(p.F), formulation="coulomb_mixed", crosscheck=False)
        programs += int(first.extras.get("fixed_point_iterations", 0) > 0)
        assert first.status == second.status, seed
        if first.status == "solved":
            scale = max(1.0, float(np.abs(second.acceleration).max()))
            assert np.allclose(first.acceleration, second.acceleration, rtol=0, atol=1e-8 * scale), seed
    assert programs >= 8, programs
