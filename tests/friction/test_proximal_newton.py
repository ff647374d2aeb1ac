"""The proximal-point rounds around the nonsmooth Newton method (``gaussqp.friction.proximal_newton``, issue #27):
a fixed point is a solution, the rounds certify what the Newton alone leaves short of the target, and the
mode-free route runs them between its Newton and its convex iteration."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp.formulations import coulomb
from gaussqp.friction import nonsmooth_newton as nn
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.proximal_newton import solve_proximal
from gaussqp.settings import (
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_NN_REG_THETAS,
    COULOMB_PROX_FALLBACK_SKIP_RTOL,
    COULOMB_PROX_NO_BEST_ROUNDS,
    COULOMB_PROX_STALL_ROUNDS,
    COULOMB_RESIDUAL_RTOL,
)


def residual(W, q, mu, d, r) -> float:
    """Our certificate's number, recomputed here from the data: ‖φ_1(r)‖/‖q‖ with u = W r + q."""
    return natural_map_residual(r, np.asarray(W @ r).ravel() + q, q, mu, d).relative


def rank_deficient(seed: int, m: int = 12, d: int = 3, rank: int = 20):
    """A random local problem with W = AAᵀ of rank ``rank`` < m·d (redundant contacts) and a q that pushes some
    contacts into the cones and pulls others away (a mix of sticking, sliding and separating)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m * d, rank))
    W = A @ A.T
    q = rng.normal(size=m * d)
    q[::d] -= 1.0  # mostly compressive
    mu = rng.uniform(0.2, 1.0, size=m)
    return W, q, mu, d


@pytest.mark.parametrize("seed", range(6))
def test_the_rounds_reach_the_target_on_rank_deficient_problems_and_report_the_recomputed_residual(seed):
    W, q, mu, d = rank_deficient(seed)
    out = solve_proximal(W, q, mu, d)
    assert out.converged and out.reason == nn.CONVERGED
    assert out.residual == pytest.approx(residual(W, q, mu, d, out.r), rel=1e-6, abs=1e-15)
    assert residual(W, q, mu, d, out.r) <= 1e-10
    assert np.allclose(out.u, W @ out.r + q)
    # a round counts at least one iteration of the budget (one whose inner solve ended at its start too)
    assert out.rounds == len(out.history) >= 1
    assert out.iterations == sum(max(h["inner_iterations"], 1) for h in out.history)


def test_a_solution_is_a_fixed_point_no_round_is_run():
    W, q, mu, d = rank_deficient(0)
    sol = solve_proximal(W, q, mu, d)
    again = solve_proximal(W, q, mu, d, r0=sol.r)
    assert again.rounds == 0 and again.iterations == 0
    assert np.allclose(again.r, sol.r, rtol=0, atol=1e-14 * np.abs(sol.r).max())  # projected on the cones: round-off


def test_the_work_budget_is_respected_and_an_unfinished_run_says_so():
    W, q, mu, d = rank_deficient(1)
    out = solve_proximal(W, q, mu, d, work_max=2)
    assert out.iterations <= 2  # the inner Newton is given what is left of the budget
    assert not out.converged and out.reason == nn.MAX_ITER
    assert out.residual == pytest.approx(residual(W, q, mu, d, out.r), rel=1e-6, abs=1e-15)


def test_the_route_runs_the_rounds_between_its_newton_and_its_convex_iteration(monkeypatch):
    """A Newton limited to its starts (0 iterations) cannot solve a sliding problem; the rounds then do, and the
    route says so (path, route, what each start of the rounds reported), and the judge certifies the answer."""
    real = nn.solve_newton
    calls = []

    def limited(*a, **k):
        calls.append(k.get("reg_theta"))
        return real(*a, **{**k, "max_iter": 0})

    monkeypatch.setattr(coulomb, "solve_newton", limited)  # the route's schedule only, not the rounds' inner solves
    W, q, mu, d = rank_deficient(2)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    # the whole schedule ran and failed first, from its starts, then from the convex program's answer
    assert calls == list(COULOMB_NN_REG_THETAS) * 2
    assert sol.extras["path"] == "proximal newton" and "proximal" in sol.route
    assert sol.status == "solved" and sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL
    prox = sol.extras["proximal"]
    assert prox["attempts"][0]["start"] == "newton best" and prox["residual"] <= COULOMB_NN_ACCEPT_RTOL
    assert sol.extras["fixed_point_iterations"] == 0 and "proximal" in sol.timing.detail


def test_a_generated_quadruped_the_damping_schedule_leaves_short_is_certified_by_the_rounds(tmp_path):
    """``quadruped-s1-i0070-m47`` of the study (47 contacts on four feet, W of rank 121 of 141, its nonzero spectrum
    over nine decades): every θ of the schedule stalls near 1e-7 from its starts; the same schedule from the convex
    program's answer, or the rounds, reach round-off."""
    pytest.importorskip("mujoco", reason="generating the problem needs the optional extra gaussqp[mujoco]")
    pytest.importorskip("h5py", reason="reading FCLIB files needs the optional extra gaussqp[fclib]")
    from gaussqp.io import fclib
    from gaussqp.problems import fclib_scenes

    (path,) = fclib_scenes.generate(tmp_path, 1, seed=1, start=70, min_contacts=10, max_contacts=250)
    p = fclib.load(path)
    cd = coulomb.condense(p)
    schedule = [nn.solve_newton(cd.W, cd.q, cd.mu, 3, reg_theta=th).residual for th in COULOMB_NN_REG_THETAS]
    if min(schedule) <= COULOMB_NN_ACCEPT_RTOL:
        pytest.skip(f"with this MuJoCo version the scene's state is one the Newton alone solves ({min(schedule):.1e})")
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, 3)
    assert ans.path in ("newton", "proximal newton") and len(ans.newton_kernel["attempts"]) > len(schedule)
    assert residual(cd.W, cd.q, cd.mu, 3, ans.r) <= COULOMB_NN_ACCEPT_RTOL
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.certified and sol.extras["path"] == ans.path


def test_when_the_convex_iteration_ends_farther_than_the_rounds_their_point_is_the_answer(monkeypatch):
    """Neither the schedule nor the rounds are accepted (acceptance at 0), and the convex iteration returns a point
    far from a solution: the route answers with the rounds' best point, which the judge certifies."""
    W, q, mu, d = rank_deficient(3)
    monkeypatch.setattr(coulomb, "COULOMB_NN_ACCEPT_RTOL", 0.0)
    monkeypatch.setattr(coulomb, "COULOMB_PROX_FALLBACK_SKIP_RTOL", 0.0)
    far = coulomb.LocalAnswer(np.zeros(q.size), q.copy(), 7, 0, [], "clarabel", "inaccurate", {"fixed_point": 0.0})
    monkeypatch.setattr(coulomb, "solve_local", lambda *a, **k: far)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert sol.extras["path"] == "proximal newton" and sol.extras["fixed_point_iterations"] == 7
    assert sol.status == "solved" and sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL


def test_inexact_inner_solves_take_fewer_iterations_and_anderson_off_is_the_plain_iteration():
    """PROX's adaptive inner tolerance (the residual ÷ COULOMB_PROX_INNER_RATIO) reaches the same target with fewer
    inner iterations than solving every round to 1e-13; with ``anderson=0`` no centre is Anderson's."""
    for seed in range(4):
        W, q, mu, d = rank_deficient(seed)
        tight = solve_proximal(W, q, mu, d, anderson=0, inner_ratio=None)
        loose = solve_proximal(W, q, mu, d, anderson=0)
        assert tight.converged and loose.converged
        assert residual(W, q, mu, d, loose.r) <= 1e-10
        assert loose.iterations < tight.iterations
        assert loose.accelerated == 0 and {h["centre"] for h in loose.history} == {"plain"}


def _box_wall(tmp_path):
    """``box_wall-s1-i0230-m16`` of the study: 16 contacts of three boxes against a wall, W of rank 18 of 48 (its
    nonzero spectrum 0.08–3.1 after Jacobi scaling): the plain rounds converge linearly (0.4 % a round) and stall
    near 1e-7."""
    pytest.importorskip("mujoco", reason="generating the problem needs the optional extra gaussqp[mujoco]")
    pytest.importorskip("h5py", reason="reading FCLIB files needs the optional extra gaussqp[fclib]")
    from gaussqp.io import fclib
    from gaussqp.problems import fclib_scenes

    (path,) = fclib_scenes.generate(tmp_path, 1, seed=1, start=230, min_contacts=10, max_contacts=250)
    return fclib.load(path)


def test_a_generated_box_wall_the_plain_rounds_leave_near_1e_7_is_certified_by_the_accelerated_ones(
    tmp_path, monkeypatch
):
    """Same start (r = 0), same budget (COULOMB_PROX_WORK_MAX inner iterations): the plain proximal iteration with
    exact inner solves (the rounds before Anderson's acceleration) stops short of 1e-8; the accelerated rounds reach
    round-off, and the route certifies their answer."""
    p = _box_wall(tmp_path)
    cd = coulomb.condense(p)
    schedule = [nn.solve_newton(cd.W, cd.q, cd.mu, 3, reg_theta=th).residual for th in COULOMB_NN_REG_THETAS]
    if min(schedule) <= COULOMB_NN_ACCEPT_RTOL:
        pytest.skip(f"with this MuJoCo version the scene's state is one the Newton alone solves ({min(schedule):.1e})")
    plain = solve_proximal(cd.W, cd.q, cd.mu, 3, anderson=0, inner_ratio=None)
    assert residual(cd.W, cd.q, cd.mu, 3, plain.r) > COULOMB_RESIDUAL_RTOL
    fast = solve_proximal(cd.W, cd.q, cd.mu, 3)
    assert fast.accelerated > 0 and fast.iterations <= plain.iterations
    assert residual(cd.W, cd.q, cd.mu, 3, fast.r) <= COULOMB_NN_ACCEPT_RTOL
    # the route, without the convex program's start (from which the schedule solves this wall): the rounds answer
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.certified and sol.extras["path"] == "proximal newton"
    assert sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL
    assert sum(a["accelerated"] for a in sol.extras["proximal"]["attempts"]) > 0


def test_the_accelerated_rounds_never_make_the_route_claim_solved_above_the_tolerance(tmp_path, monkeypatch):
    """The rounds' claim is not the verdict: accelerated rounds that report convergence for a point 1e-4 of ‖q‖ from
    a solution (here: their answer shifted) make the route answer that point, and the judge, recomputing the residual
    on the original data, does not say solved; the honest accelerated answer is certified only at its own residual."""
    p = _box_wall(tmp_path)
    real = coulomb.solve_proximal
    seen: list = []

    def lying(W, q, mu, d, **k):
        out = real(W, q, mu, d, **k)
        seen.append(out.accelerated)
        shift = np.zeros_like(out.r)
        shift[::d] = 1e-4 * np.linalg.norm(q) / np.sqrt(q.size / d)  # pushes every contact by 1e-4 of ‖q‖ in total
        out.r = out.r + shift
        out.residual, out.converged, out.reason = 0.0, True, nn.CONVERGED
        return out

    monkeypatch.setattr(coulomb, "solve_proximal", lying)
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)  # the rounds run (not the convex start's Newton)
    sol = gaussqp.solve(p, crosscheck=False)
    assert seen and max(seen) > 0  # the accelerated path ran
    assert sol.extras["path"] == "proximal newton"
    assert sol.natural_map_residual.relative > COULOMB_RESIDUAL_RTOL
    assert sol.status != "solved" and not sol.certified


def test_rounds_within_half_the_certificates_tolerance_answer_without_the_convex_iteration(monkeypatch):
    """Rounds that end above the acceptance bound (here set to 0) but within COULOMB_PROX_FALLBACK_SKIP_RTOL answer
    directly: the dense convex iteration is not run (on chain-s1-i0015 it cost ~25 s to end farther), the answer says
    so, and the judge certifies it on the data."""
    W, q, mu, d = rank_deficient(4)
    monkeypatch.setattr(coulomb, "COULOMB_NN_ACCEPT_RTOL", 0.0)

    def forbidden(*a, **k):
        raise AssertionError("the convex iteration ran")

    monkeypatch.setattr(coulomb, "solve_local", forbidden)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert sol.extras["path"] == "proximal newton"
    assert "COULOMB_PROX_FALLBACK_SKIP_RTOL" in sol.extras["nonsmooth_newton"]["fallback"]
    assert sol.status == "solved" and sol.natural_map_residual.relative <= COULOMB_PROX_FALLBACK_SKIP_RTOL


def test_rounds_beyond_the_skip_bound_still_fall_back_to_the_convex_iteration(monkeypatch):
    """Above COULOMB_PROX_FALLBACK_SKIP_RTOL (here: 0) the convex iteration runs as before."""
    W, q, mu, d = rank_deficient(4)
    monkeypatch.setattr(coulomb, "COULOMB_NN_ACCEPT_RTOL", 0.0)
    monkeypatch.setattr(coulomb, "COULOMB_PROX_FALLBACK_SKIP_RTOL", 0.0)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert "fallback" not in sol.extras["nonsmooth_newton"]
    assert sol.status == "solved"


def test_rounds_stop_after_the_set_number_of_rounds_without_a_new_best_residual():
    """Asked for an unreachable target (0) from a solution, the rounds cannot improve on round-off for long: they stop
    ``COULOMB_PROX_NO_BEST_ROUNDS`` rounds after their last new best (not 30 rounds without halving), saying so."""
    W, q, mu, d = rank_deficient(3)
    sol = solve_proximal(W, q, mu, d)
    out = solve_proximal(W, q, mu, d, r0=sol.r, target=0.0)
    assert out.reason == nn.STALLED and not out.converged
    res = [residual(W, q, mu, d, sol.r)] + [h["residual"] for h in out.history]
    # the rounds count a new best only when the residual goes down (a tie at round-off is no new best)
    last_best = min(i for i, x in enumerate(res) if x == min(res))
    assert out.rounds - last_best == COULOMB_PROX_NO_BEST_ROUNDS < COULOMB_PROX_STALL_ROUNDS
