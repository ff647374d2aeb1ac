"""F4's active-set answer (formulations/sticking_conic.py::StickingConic._active_set_answer): the equality KKT system
with every contact active, taken before any conic program when its point solves F4's program (zero gap, every
residual within the tolerance) with its multipliers in the Coulomb disks; the conic program otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.formulations.sticking_conic import ACTIVE_SET, ONE_STAGE, StickingConic
from gaussqp.problems import families

F4 = gaussqp.get_formulation("sticking_socp")


def _cases():
    out = [(n, problems.load(n)) for n in problems.names() + problems.real_names() if len(problems.load(n).sticking)]
    rng = np.random.default_rng(5)
    for k, kw in enumerate(
        [dict(), dict(rank=5), dict(redundant=2), dict(mu_factor=0.3), dict(dimension=2), dict(m_b=2, redundant=1)]
    ):
        for j in range(3):
            p, *_ = families.sticking(rng, n=8, m_u=4, **kw)
            out.append((f"generated{k}-{j}", p))
    return out


CASES = _cases()


def _conic_only(p, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(type(F4), "active_set_first", False)
        return gaussqp.solve(p)


def _lifted_box(torque: float, mu: float = 1.0, right: str = "sticking") -> gaussqp.ContactProblem:
    """A planar box (x, y, θ; unit mass and inertia) on two corners at x = ∓1, 0.5 below its centre (the left one
    sticking with friction ``mu``, the right one in mode ``right``), under gravity and a torque: from a torque of ~9.8
    its right corner lifts (detaches) in the all-sticking solution."""
    contacts = [
        gaussqp.Contact(
            "unilateral",
            normal=[0, 1, xc],
            friction=mu if mode == "sticking" else 0.0,
            mode=mode,
            tangent=[[1, 0, 0.5]],
        )
        for xc, mode in ((-1.0, "sticking"), (1.0, right))
    ]
    return gaussqp.ContactProblem(np.eye(3), [0.0, 9.81, -torque], contacts)


@pytest.mark.parametrize("name, p", CASES, ids=[c[0] for c in CASES])
def test_the_active_set_answer_agrees_with_the_conic_program(name, p, monkeypatch):
    """Whichever route answers, the status and certification are the conic program's alone; where the active-set
    answer is taken it is certified, its forces lie in the disks (the judge's cone certificate) and its generalized
    contact force ``M a + F`` is the conic program's (the acceleration too where it is unique; the multipliers may be
    another member of their set)."""
    sol = gaussqp.solve(p)
    ref = _conic_only(p, monkeypatch)
    assert (sol.status, sol.certified) == (ref.status, ref.certified)
    assert ref.route != ACTIVE_SET
    if sol.route != ACTIVE_SET:
        return
    assert sol.status == "solved" and sol.certified and sol.solver == "numpy-kkt"
    assert "fast_path_rejected" not in sol.extras  # taken only when the judge then certifies it
    cones = {c.id: c for c in sol.certificates}["coulomb_cones"]
    assert cones.holds
    scale = 1.0 + np.abs(ref.generalized_force).max()
    assert np.allclose(sol.generalized_force, ref.generalized_force, rtol=0, atol=1e-8 * scale)
    if ref.unique.get("acceleration") is True:
        assert np.allclose(sol.acceleration, ref.acceleration, rtol=0, atol=1e-8 * (1 + np.abs(ref.acceleration).max()))


def test_a_robot_at_rest_on_its_contacts_takes_the_active_set_answer():
    """The shipped humanoid lying on 14 contacts (8 sticking): no conic program runs for its answer."""
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    assert sol.route == ACTIVE_SET and sol.certified and "attempts" not in sol.extras


def test_kkt_multipliers_outside_the_disks_go_to_the_conic_program():
    """The walker lying: the KKT point's multipliers leave a disk (the polish of the conic program's answer is reverted
    there for the same reason), so the conic program answers; the active-set point is never handed to the judge."""
    sol = gaussqp.solve(problems.load("real/walker_lying"))
    assert sol.route == ONE_STAGE and sol.certified
    assert "fast_path_rejected" not in sol.extras and sol.extras["attempts"]


@pytest.mark.parametrize(
    "torque, mu, right, route",
    [
        (0.0, 1.0, "sticking", ACTIVE_SET),
        (5.0, 1.0, "sticking", ACTIVE_SET),
        (20.0, 1.0, "sticking", ONE_STAGE),
        (20.0, 100.0, "frictionless", ONE_STAGE),
    ],
)
def test_a_detaching_contact_goes_to_the_conic_program(torque, mu, right, route):
    """With every contact active the lifted corner would pull (λ_n < 0, the multipliers unique): no point of that
    active set solves the program, and the conic program finds the corner detaching (λ_n = 0). Bounded least squares
    keeps λ_n >= 0 and leaves the dynamics unbalanced; with a frictionless right corner and μ = 100 on the left its
    multipliers are even inside the disks, so only the residual test refuses the point."""
    sol = gaussqp.solve(_lifted_box(torque, mu, right))
    assert sol.route == route and sol.status == "solved" and sol.certified
    assert "fast_path_rejected" not in sol.extras
    if route == ONE_STAGE:
        assert sol.lambda_normal[1] == pytest.approx(0.0, abs=1e-9)


def test_a_named_solver_runs_the_conic_program():
    """``solver="clarabel"`` asks for the conic program through Clarabel: the active-set answer is not tried."""
    sol = gaussqp.solve(problems.load("real/humanoid_lying"), solver="clarabel")
    assert sol.route == ONE_STAGE and sol.solver == "clarabel"


def test_only_f4_tries_the_active_set_answer():
    """F5's polygons keep their own program: they are F4's independent bracket in the cross-check."""
    assert type(F4).active_set_first is True
    assert StickingConic.active_set_first is False
    for name in ("facetized_inner", "facetized_outer"):
        assert type(gaussqp.get_formulation(name)).active_set_first is False


def test_a_sparse_problem_goes_to_the_conic_program():
    """Sparse problems are left to the conic program (the sparse KKT system of a stack of boxes had no such point and
    the try cost 15 % of a solve): a sparse stack's answer is the conic program's, certified as before."""
    from gaussqp.certificates.polish import active_set_point

    p = families.sticking_stack(np.random.default_rng(0), 10)[0]  # one whose sparse KKT system has such a point
    assert p.sparse and active_set_point(p, np.ones(p.inequalities[0].shape[0], dtype=bool)) is not None
    assert StickingConic._active_set_answer(F4, p) is None
    sol = gaussqp.solve(p)
    assert sol.route == ONE_STAGE and sol.certified


def test_the_answer_is_judged_with_the_disks_enforced():
    """The active-set answer tells the judge that its formulation enforced the disks, as the conic program's does: the
    judge then reads a cone violation as a failed answer, not as a route that ignores the cones."""
    sol = StickingConic._active_set_answer(F4, problems.load("real/humanoid_lying"))
    assert sol is not None and sol.hints.cones_enforced == F4.model and sol.hints.polish_allowed is False
    assert sol.extras["fast_path"] is True


def test_an_answer_the_judge_does_not_certify_is_solved_again_by_clarabel(monkeypatch):
    """A fast path's answer is a first attempt only: when the judge does not certify it (here its acceleration spoiled
    after the route's own tests), F4 is solved again by Clarabel and judged afresh, which certifies."""
    real = StickingConic._active_set_answer

    def spoiled(self, p):
        sol = real(self, p)
        if sol is not None:
            sol.acceleration = sol.acceleration + 1.0
        return sol

    monkeypatch.setattr(StickingConic, "_active_set_answer", spoiled)
    sol = gaussqp.solve(problems.load("real/humanoid_lying"))
    assert "fast_path_rejected" in sol.extras
    assert sol.route == ONE_STAGE and sol.solver == "clarabel" and sol.certified


def test_the_point_of_an_active_set_is_computed_once_and_each_caller_owns_its_copy(monkeypatch):
    """On the lying walker F4 refuses the point with every contact active (its multipliers leave a disk), and the
    polish of its conic answer, which has every contact active, asks for the same point: computed once, kept with the
    problem; every caller gets arrays of its own (changing them changes nothing for the next caller)."""
    from gaussqp.certificates import polish

    asked: list = []
    computed: list = []
    inner, compute = polish.active_set_point, polish._active_set_point
    monkeypatch.setattr(polish, "active_set_point", lambda p, A: (asked.append(np.array(A)), inner(p, A))[1])
    monkeypatch.setattr(polish, "_active_set_point", lambda p, A: (computed.append(1), compute(p, A))[1])
    p = problems.load("real/walker_lying")
    sol = gaussqp.solve(p)
    assert sol.route != "active set (every contact active)" and sol.certified
    assert len(asked) == 2 and all(A.all() for A in asked)
    assert len(computed) == 1  # one point computed for the two asks
    first, second = inner(p, asked[0]), inner(p, asked[0])
    for x in first:
        x[...] = np.nan
    assert all(np.isfinite(x).all() for x in second)
    assert all(np.array_equal(x, y) for x, y in zip(second, inner(p, asked[0])))
