"""Issue #27 item 3: ``gaussqp.Solver`` re-solves a mode-free Coulomb rollout warm-started from the last certified
answer, with every state judged by its own natural-map certificate."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.crosscheck import _rel_gap
from gaussqp.errors import StructureMismatchError
from gaussqp.formulations.coulomb import CoulombPlan, condense, contact_blocks
from gaussqp.mechanics.delassus import delassus_of_rows
from gaussqp.model.problem import ContactProblem


def mode_free(p: ContactProblem) -> ContactProblem:
    return p.mode_free(name=p.name + " (mode-free)")


def rollout(p: ContactProblem, k: int, seed: int = 0, push: float = 0.0) -> list:
    """``k`` nearby states of ``p`` (force and normal rows drifting; ``push`` adds a growing tangential force that
    makes contacts slide)."""
    rng = np.random.default_rng(seed)
    out = [p]
    for i in range(k - 1):
        prev = out[-1]
        s = 1 + 0.002 * rng.standard_normal()
        F = np.asarray(prev.F) * (1 + 0.002 * rng.standard_normal(prev.n))
        if push:
            F = F + push * i * np.asarray(p.J_t)[::2].sum(axis=0)
        out.append(
            ContactProblem.from_blocks(
                prev.M,
                F,
                np.asarray(prev.J_n) * s,
                prev.normal_drift,
                [str(t) for t in prev.types],
                prev.J_t,
                prev.tangent_drift,
                prev.friction,
                [str(m) for m in prev.modes],
                prev.slip,
                prev.has_tangent,
                prev.dimension,
                prev.name,
            )
        )
    return out


def reaction(sol) -> np.ndarray:
    return np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()


@pytest.fixture(scope="module")
def humanoid():
    return mode_free(problems.load("real/humanoid_lying"))


@pytest.mark.parametrize("push", [0.0, 0.4])
def test_a_rollout_gives_gaussqp_solve_s_answers_every_state_certified(humanoid, push):
    """60 states: the Solver's answers are gaussqp.solve's (acceleration and Jᵀλ at the data's scale to 1e-8; the
    humanoid lying is hyperstatic, W of rank 27 for 42 unknowns, so its reactions are not unique and only their
    residual is compared), each certified by its own natural map; the warm start is used."""
    states = rollout(humanoid, 60, push=push)
    solver = gaussqp.Solver(states[0], crosscheck=False)
    warm = 0
    for p in states:
        a = solver.solve(p)
        b = gaussqp.solve(p, crosscheck=False)
        assert a.status == b.status == "solved"
        assert a.certificate("natural_map") is not None and a.certificate("natural_map").holds
        assert a.natural_map_residual.relative <= 1e-10
        assert _rel_gap(a.acceleration, b.acceleration, p) <= 1e-8
        assert _rel_gap(a.generalized_force, b.generalized_force, p, "force") <= 1e-8
        warm += bool(a.extras["warm_start"])
    assert warm == len(states) - 1
    if push:  # the push makes some contacts slide: the rollout is not all at rest
        modes = {m.mode for m in a.contact_modes}
        assert "sliding" in modes, modes


def contacts(p: ContactProblem, idx) -> ContactProblem:
    """``p`` with only the contacts ``idx`` (3D: two tangent rows each)."""
    idx = np.asarray(idx)
    tr = np.concatenate([[2 * i, 2 * i + 1] for i in idx])
    return ContactProblem.from_blocks(
        p.M,
        p.F,
        np.asarray(p.J_n)[idx],
        p.normal_drift[idx],
        [str(t) for t in p.types[idx]],
        np.asarray(p.J_t)[tr],
        p.tangent_drift[tr],
        p.friction[idx],
        [str(m) for m in p.modes[idx]],
        p.slip[idx],
        p.has_tangent[idx],
        p.dimension,
    )


@pytest.mark.parametrize("push", [0.0, 0.4])
def test_where_the_reaction_is_unique_it_is_gaussqp_solve_s_to_1e_8(humanoid, push):
    """Four of the humanoid's contacts, one per body (W regular, 12 × 12): the reactions themselves agree to 1e-8
    state by state over 50 states, at rest and pushed into sliding."""
    p = contacts(humanoid, [6, 8, 10, 12])
    cd = condense(p)
    assert np.linalg.matrix_rank(cd.W) == cd.W.shape[0]
    states = rollout(p, 50, push=push)
    solver = gaussqp.Solver(states[0], crosscheck=False)
    for s in states:
        a, b = solver.solve(s), gaussqp.solve(s, crosscheck=False)
        assert a.status == b.status == "solved"
        r, rb = reaction(a), reaction(b)
        assert np.abs(r - rb).max() <= 1e-8 * np.abs(rb).max()


def test_the_warm_start_never_carries_numbers_over(humanoid):
    """A state solved after a far-away one is still its own answer (the guess is only a start, judged by merit)."""
    far = humanoid.with_force(np.asarray(humanoid.F) * -1.0)  # pulled off the floor: every contact separates
    solver = gaussqp.Solver(humanoid, crosscheck=False)
    assert solver.solve(humanoid).status == "solved"
    a, b = solver.solve(far), gaussqp.solve(far, crosscheck=False)
    assert a.status == b.status
    assert np.allclose(a.acceleration, b.acceleration, rtol=1e-8, atol=1e-8 * np.abs(b.acceleration).max())
    assert solver.solve(humanoid).status == "solved"


def test_a_changed_contact_set_falls_back_cleanly(humanoid):
    """Another contact set is another structure: refused by default (StructureMismatchError), and with
    ``adapt=True`` the Solver re-binds to it and solves it from the last certified reaction carried contact by contact
    (:func:`gaussqp.formulations.coulomb.carried_reaction`), the same answer as a cold solve, then warm-starts again."""
    fewer = ContactProblem.from_blocks(
        humanoid.M,
        humanoid.F,
        np.asarray(humanoid.J_n)[1:],
        humanoid.normal_drift[1:],
        [str(t) for t in humanoid.types[1:]],
        np.asarray(humanoid.J_t)[2:],
        humanoid.tangent_drift[2:],
        humanoid.friction[1:],
        [str(m) for m in humanoid.modes[1:]],
        humanoid.slip[1:],
        humanoid.has_tangent[1:],
        humanoid.dimension,
    )
    solver = gaussqp.Solver(humanoid, crosscheck=False)
    solver.solve(humanoid)
    with pytest.raises(StructureMismatchError):
        solver.solve(fewer)
    solver = gaussqp.Solver(humanoid, crosscheck=False, adapt=True)
    assert solver.solve(humanoid).status == "solved"
    a = solver.solve(fewer)
    assert solver.rebinds == 1 and a.extras["warm_start"] is True and a.status == "solved"
    ref = gaussqp.solve(fewer, crosscheck=False)
    assert _rel_gap(a.acceleration, ref.acceleration, fewer) <= 1e-8
    b = solver.solve(rollout(fewer, 2)[1])
    assert b.extras["warm_start"] is True and b.status == "solved"
    assert solver.solve(humanoid).status == "solved" and solver.rebinds == 2


def test_an_uncertified_state_is_not_a_start(humanoid, monkeypatch):
    """Only a certified answer seeds the next state."""
    solver = gaussqp.Solver(humanoid, crosscheck=False)
    sol = solver.solve(humanoid)
    assert solver._rollout["coulomb_fixed_point"].plan.guess is not None
    sol.status = "inaccurate"  # what the Solver would have seen had the judge refused it
    monkeypatch.setattr(gaussqp.batch, "solve_classified", lambda *a, **k: sol)
    solver.solve(humanoid)
    assert solver._rollout["coulomb_fixed_point"].plan.guess is None


def test_cross_check_runs_in_a_rollout_as_in_gaussqp_solve(humanoid):
    states = rollout(humanoid, 2)
    solver = gaussqp.Solver(states[0])
    for p in states:
        a, b = solver.solve(p), gaussqp.solve(p)
        assert a.status == b.status == "solved"
        assert a.crosscheck is not None and a.crosscheck.formulation == b.crosscheck.formulation == "coulomb_mixed"
        assert a.crosscheck.agree == b.crosscheck.agree


@pytest.mark.parametrize("name", ["real/box_on_plane", "real/humanoid_lying", "real/stacker_boxes"])
def test_condense_is_delassus_of_rows_on_the_plan_s_blocks(name):
    """condense builds its local form with the mechanics builder on the plan's (dense) contact blocks; the dense
    blocks hold the same numbers as contact_blocks's sparse ones; the kept Cholesky factor changes no bit."""
    p = mode_free(problems.load(name))
    plan = CoulombPlan(p)
    J, drift, mu = plan.blocks(p)
    Js, drift_s, mu_s = contact_blocks(p)
    assert np.array_equal(np.asarray(J), Js.toarray()) and np.array_equal(drift, drift_s) and np.array_equal(mu, mu_s)
    ref = delassus_of_rows(p, J, drift)
    for got in (condense(p), condense(p, plan), condense(p, plan)):  # the second plan call reuses M's factor
        for field in ("W", "q", "MinvJt", "a_free"):
            assert np.array_equal(getattr(got, field), getattr(ref, field)), field
