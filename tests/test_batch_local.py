"""gaussqp.Solver and solve_many take local problems u = W r + q (issue #26 item 4): states of one structure (m, d,
W's storage and pattern) re-solved by the mode-free Coulomb route, warm-started from the last certified reaction,
each answer the one gaussqp.solve gives (unique here: W ≻ 0, small μ)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.errors import NotApplicableError, StructureMismatchError


def _local(seed: int, m: int = 3, sparse: bool = False) -> gaussqp.LocalContactProblem:
    rng = np.random.default_rng(seed)
    d = 3
    A = rng.standard_normal((m * d, m * d))
    W = A @ A.T / (m * d) + np.eye(m * d)
    q = rng.standard_normal(m * d)
    q[::d] -= 1.0  # pressing contacts
    return gaussqp.LocalContactProblem(sp.csr_matrix(W) if sparse else W, q, np.full(m, 0.3), d, name=f"s{seed}")


def _same(a, b, tol=1e-6):
    for x, y in ((a.lambda_normal, b.lambda_normal), (a.lambda_tangent, b.lambda_tangent), (a.velocity, b.velocity)):
        assert np.allclose(x, y, atol=tol * (1 + np.abs(y).max()))


def test_solver_re_solves_local_states_warm_started():
    states = [_local(s) for s in range(4)]
    solver = gaussqp.Solver(states[0])
    assert solver.structure.form == "local" and solver.structure.n == 9
    sols = [solver.solve(p) for p in states]
    for i, (p, sol) in enumerate(zip(states, sols)):
        ref = gaussqp.solve(p)
        assert sol.status == ref.status == "solved" and sol.certified and sol.formulation == ref.formulation
        assert sol.extras["warm_start"] == (i > 0)  # from the last certified reaction
        _same(sol, ref)
    assert solver.solve(states[0]).extras["warm_start"]


def test_local_structure_mismatch_names_the_field():
    solver = gaussqp.Solver(_local(0))
    with pytest.raises(StructureMismatchError) as e:
        solver.solve(_local(1, m=2))
    assert e.value.field == "n"
    with pytest.raises(StructureMismatchError) as e:
        solver.solve(_local(1, sparse=True))
    assert e.value.field == "M_kind"  # W's storage (W stands in M's fields)
    with pytest.raises(StructureMismatchError) as e:
        solver.solve(problems.load("rod_wall_guide"))
    assert e.value.field == "form"
    adapting = gaussqp.Solver(_local(0), adapt=True)
    sol = adapting.solve(_local(1, m=2))
    assert sol.certified and adapting.rebinds == 1 and not sol.extras["warm_start"]


def test_a_route_that_does_not_take_local_problems_is_refused():
    solver = gaussqp.Solver(_local(0), formulation="gauss_qp")
    with pytest.raises(NotApplicableError, match="coulomb_fixed_point"):
        solver.solve(_local(1))


def test_solve_many_mixes_both_forms_in_input_order():
    glob = problems.load("rod_wall_guide")
    items = [_local(0), glob, _local(1), _local(2, m=2), glob]
    sols = gaussqp.solve_many(items)
    for p, sol in zip(items, sols):
        ref = gaussqp.solve(p)
        assert (sol.status, sol.certified, sol.formulation) == (ref.status, ref.certified, ref.formulation)
        if p.form == "local":
            _same(sol, ref)
        else:
            assert np.allclose(sol.acceleration, ref.acceleration)


def test_shipped_local_problem_through_a_solver():
    for name in problems.real_names():
        p = problems.load(name)
        if p.form != "local":
            continue
        ref = gaussqp.solve(p)
        sols = gaussqp.Solver(p).solve_many([p, p])
        assert [s.status for s in sols] == [ref.status] * 2 and sols[1].extras["warm_start"] == ref.certified
        _same(sols[0], ref)
