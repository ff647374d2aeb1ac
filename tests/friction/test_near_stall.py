"""The mode-free route's short rounds (``coulomb._solve_connected``,
:data:`~gaussqp.settings.COULOMB_PROX_NEAR_WORK_MAX`): a run of the damping schedule that ends within the skip bound
(:data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL`) but above the route's acceptance stops the schedule, and
the proximal rounds go on from its point for a few inner iterations; the schedule resumes only when they do not
converge. Checked on the shipped chain ``chain-s0-i0015-m47``, whose first run (every contact sticks, θ = 0.01) stalls
at ~1.7e-10 of ‖q‖ and whose short rounds converge in 3."""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp import problems
from gaussqp.certificates.natural_map import law_measure
from gaussqp.formulations import coulomb
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.settings import (
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_NN_SCHEDULE,
    COULOMB_PROX_FALLBACK_SKIP_RTOL,
    COULOMB_PROX_NEAR_WORK_MAX,
    COULOMB_PROX_WORK_MAX,
)

CHAIN = "fclib_generated/chain-s0-i0015-m47-local"
SHORT = "run within reach"  # the short rounds' start, as the answer's report names it
RULE = "zero, σ from the residual"  # the route's rounds' last start (test_proximal_rule.py)


@pytest.fixture(scope="module")
def chain():
    p = problems.load(CHAIN)  # the local form: W (sparse), q, μ as stored
    return p.W, p.q, p.mu


class Clock:
    """The route's clock (``coulomb.time``) made to stand still except where a spy moves it: the stages' times are then
    exactly what the spies charged, whatever the machine's speed or load (or a compiled kernel loaded mid-run)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


def rounds_spy(monkeypatch, clock: Clock | None = None, pause: float = 0.0, route=None) -> list:
    """Record each call of ``_proximal_rounds``: (its starts' names, its budget, its answer, its work, its start
    points); each call moves ``clock`` by ``pause``. ``route``, when given, replaces the route's own rounds' (starts,
    budget) (the calls that are not the short rounds)."""
    real = coulomb._proximal_rounds
    calls: list = []

    def spy(W, q, mu, d, starts, work_max=None):
        if route is not None and starts[0][0] != SHORT:
            starts, work_max = route
        best, report = real(W, q, mu, d, starts, work_max)
        calls.append(
            ([start[0] for start in starts], work_max, best, report["iterations"], [start[1] for start in starts])
        )
        if clock is not None:
            clock.now += pause
        return best, report

    monkeypatch.setattr(coulomb, "_proximal_rounds", spy)
    return calls


def still_clock(monkeypatch) -> Clock:
    """A :class:`Clock` in place of the route's ``time`` module (for this test)."""
    clock = Clock()
    monkeypatch.setattr(coulomb, "time", clock)
    return clock


def newton_spy(monkeypatch, after_first: dict | None = None) -> list:
    """Record (θ, iterations, answer) of each Newton run; runs after the first get ``after_first`` as keyword
    overrides."""
    real = coulomb.solve_newton
    runs: list = []

    def spy(*args, **kwargs):
        out = real(*args, **({**kwargs, **after_first} if runs and after_first else kwargs))
        runs.append((kwargs.get("reg_theta"), out.iterations, out))
        return out

    monkeypatch.setattr(coulomb, "solve_newton", spy)
    return runs


def test_a_run_stalled_within_the_skip_bound_ends_the_schedule(chain, monkeypatch):
    """The first run stalls between the acceptance and the skip bound; no other pair runs; the short rounds from its
    point converge within their budget and are the answer, their work counted and their time reported as the
    rounds', not the Newton's."""
    W, q, mu = chain
    calls = rounds_spy(monkeypatch, still_clock(monkeypatch), pause=7.0)
    ans = coulomb._solve_connected(W, q, mu, 3)
    attempts = ans.newton_kernel["attempts"]
    assert len(attempts) == 1  # the schedule's other pairs did not run
    assert COULOMB_NN_ACCEPT_RTOL < attempts[0]["residual"] <= COULOMB_PROX_FALLBACK_SKIP_RTOL
    assert attempts[0]["reason"] == "stalled"
    assert [call[:2] for call in calls] == [([SHORT], COULOMB_PROX_NEAR_WORK_MAX)]  # only the short rounds
    assert calls[0][2].residual <= COULOMB_NN_ACCEPT_RTOL and 0 < calls[0][3] <= COULOMB_PROX_NEAR_WORK_MAX
    assert ans.path == "proximal newton" and ans.backend_status == "converged"
    assert np.array_equal(ans.r, calls[0][2].r)
    assert ans.proximal["attempts"][0]["start"] == SHORT
    assert ans.newton_iterations == attempts[0]["iterations"] + calls[0][3]
    assert ans.times["proximal"] == 7.0 and ans.times["nonsmooth_newton"] == 0.0  # the rounds' time, once, as theirs
    relative = law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3))
    assert relative <= 10 * COULOMB_NN_ACCEPT_RTOL  # the judge's measure, recomputed from the data


def test_the_schedule_resumes_when_the_short_rounds_do_not_converge(chain, monkeypatch):
    """With a budget of one inner iteration the short rounds do not converge: the schedule's next pairs run (the
    stalled one not again), a later pair converges and answers, and the short rounds' work, time and report are in
    that answer."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 1)
    calls = rounds_spy(monkeypatch, still_clock(monkeypatch), pause=7.0)
    runs = newton_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    attempts = ans.newton_kernel["attempts"]
    assert [call[:2] for call in calls] == [([SHORT], 1)] and calls[0][2].residual > COULOMB_NN_ACCEPT_RTOL
    assert calls[0][3] == 1
    # the pairs after the stalled first one, in the schedule's order, until one converges
    assert [run[0] for run in runs] == [theta for theta, _ in COULOMB_NN_SCHEDULE[: len(runs)]]
    assert len(attempts) == len(runs) > 1 and attempts[-1]["reason"] == "converged"
    assert ans.path == "newton"
    assert ans.newton_iterations == sum(a["iterations"] for a in attempts) + 1
    assert ans.proximal["attempts"][0]["start"] == SHORT and ans.proximal["iterations"] == 1
    assert ans.times["proximal"] == 7.0 and ans.times["nonsmooth_newton"] == 0.0


def test_a_run_stalled_above_the_skip_bound_does_not_end_the_schedule(chain, monkeypatch):
    """With the skip bound below the stalled run's residual, the schedule goes on as before (no short rounds)."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_FALLBACK_SKIP_RTOL", 1e-11)
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert all(call[0] != [SHORT] for call in calls)
    assert len(ans.newton_kernel["attempts"]) > 1


def test_a_first_run_whole_does_not_stop_for_the_short_rounds(chain, monkeypatch):
    """Without rounds (a first run whole, before the problem is split), a stall within the skip bound does not stop
    the schedule: no rounds run at all."""
    W, q, mu = chain
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3, rounds=False)
    assert calls == []
    assert 1 < len(ans.newton_kernel["attempts"]) <= len(COULOMB_NN_SCHEDULE)
    assert np.all(np.isfinite(ans.r))


def test_the_route_s_rounds_after_failed_short_rounds_count_both(chain, monkeypatch):
    """Short rounds that do not converge (one inner iteration), then a schedule whose later runs do no iteration: the
    route's own rounds run from the better of the Newton's and the short rounds' points, within what the short rounds
    left of the budget; the answer is the better rounds' answer and reports and counts the work of both."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 1)
    runs = newton_spy(monkeypatch, {"max_iter": 0})
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert [call[0][1:] for call in calls] == [[], ["zero", RULE]] and calls[0][0] == [SHORT]
    assert calls[1][1] == COULOMB_PROX_WORK_MAX - 1
    best_newton = min(a["residual"] for a in ans.newton_kernel["attempts"])
    assert calls[0][2].residual < best_newton  # (this case: the short rounds' point is the better one)
    assert calls[1][0][0] == "short rounds' best" and np.array_equal(calls[1][4][0], calls[0][2].r)
    assert calls[1][4][1] is None and calls[1][4][2] is None  # then from zero, twice (the second with σ's other rule)
    assert ans.proximal["iterations"] == calls[0][3] + calls[1][3]
    assert [a["start"] for a in ans.proximal["attempts"]][0] == SHORT and len(ans.proximal["attempts"]) >= 2
    assert ans.newton_iterations == sum(run[1] for run in runs) + calls[0][3] + calls[1][3]
    better = min((calls[0][2], calls[1][2]), key=lambda out: out.residual)
    assert ans.path == "proximal newton" and np.array_equal(ans.r, better.r)
    assert ans.proximal["residual"] == better.residual
    assert law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3)) <= COULOMB_PROX_FALLBACK_SKIP_RTOL


def test_the_better_rounds_answer_is_kept(chain, monkeypatch):
    """When the route's own rounds end worse than the short rounds (here: made to start from zero with one inner
    iteration), the short rounds' point is the answer, and the report's residual is theirs."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 2)
    newton_spy(monkeypatch, {"max_iter": 0})
    calls = rounds_spy(monkeypatch, route=((("zero", None),), 1))
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert [call[0] for call in calls] == [[SHORT], ["zero"]] and calls[1][3] == 1
    assert calls[1][2].residual > calls[0][2].residual  # the route's rounds ran and ended worse
    assert np.array_equal(ans.r, calls[0][2].r) and ans.proximal["residual"] == calls[0][2].residual


def test_the_newton_s_better_point_starts_the_route_s_rounds(chain, monkeypatch):
    """When the Newton's best point is better than the short rounds' (here: they are given one iteration from a point
    moved away from the stalled run's), the route's rounds start from the Newton's."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 1)
    runs = newton_spy(monkeypatch, {"max_iter": 0})
    real = coulomb._proximal_rounds

    def worse_short(W, q, mu, d, starts, work_max=None):
        if starts[0][0] == SHORT:  # the short rounds from a point farther from a solution than the run's
            starts = ((SHORT, 2.0 * starts[0][1]),)
        return real(W, q, mu, d, starts, work_max)

    monkeypatch.setattr(coulomb, "_proximal_rounds", worse_short)
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    best = min((run[2] for run in runs), key=lambda out: out.residual)
    assert calls[0][2].residual > best.residual
    assert calls[1][0] == ["newton best", "zero", RULE] and np.array_equal(calls[1][4][0], best.r)
    assert np.all(np.isfinite(ans.r))
