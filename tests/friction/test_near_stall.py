"""The mode-free route's short rounds (``coulomb._solve_connected``, :data:`~gaussqp.settings.COULOMB_PROX_NEAR_WORK_MAX`):
a run of the damping schedule that stalls within the skip bound (:data:`~gaussqp.settings.COULOMB_PROX_FALLBACK_SKIP_RTOL`)
but above the route's acceptance stops the schedule, and the proximal rounds go on from its point for a few inner
iterations; the schedule resumes only when they do not converge. Checked on the shipped chain ``chain-s0-i0015-m47``,
whose first run (every contact sticks, θ = 0.01) stalls at ~1.7e-10 of ‖q‖ and whose short rounds converge in 3."""

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


@pytest.fixture(scope="module")
def chain():
    p = problems.load(CHAIN)  # the local form: W (sparse), q, μ as stored
    return p.W, p.q, p.mu


def rounds_spy(monkeypatch) -> list:
    """Record each call of ``_proximal_rounds``: (its starts' names, its budget, its answer's residual, its work)."""
    real = coulomb._proximal_rounds
    calls: list = []

    def spy(W, q, mu, d, starts, work_max=None):
        best, report = real(W, q, mu, d, starts, work_max)
        calls.append(([name for name, _ in starts], work_max, best.residual if best else None, report["iterations"]))
        return best, report

    monkeypatch.setattr(coulomb, "_proximal_rounds", spy)
    return calls


def test_a_run_stalled_within_the_skip_bound_ends_the_schedule(chain, monkeypatch):
    """The first run stalls between the acceptance and the skip bound; no other pair runs; the short rounds from its
    point converge within their budget and are the answer, their work counted."""
    W, q, mu = chain
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    attempts = ans.newton_kernel["attempts"]
    assert len(attempts) == 1  # the schedule's other pairs did not run
    assert COULOMB_NN_ACCEPT_RTOL < attempts[0]["residual"] <= COULOMB_PROX_FALLBACK_SKIP_RTOL
    assert attempts[0]["reason"] == "stalled"
    assert calls == [(["stalled run"], COULOMB_PROX_NEAR_WORK_MAX, calls[0][2], calls[0][3])]  # only the short rounds
    assert calls[0][2] <= COULOMB_NN_ACCEPT_RTOL and 0 < calls[0][3] <= COULOMB_PROX_NEAR_WORK_MAX
    assert ans.path == "proximal newton" and ans.backend_status == "converged"
    assert ans.proximal["attempts"][0]["start"] == "stalled run"
    assert ans.newton_iterations == attempts[0]["iterations"] + calls[0][3]
    relative = law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3))
    assert relative <= 10 * COULOMB_NN_ACCEPT_RTOL  # the judge's measure, recomputed from the data


def test_the_schedule_resumes_when_the_short_rounds_do_not_converge(chain, monkeypatch):
    """With a budget of one inner iteration the short rounds do not converge: the schedule's next pairs run, and the
    rounds' work is counted in the answer whichever stage gives it."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 1)
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    attempts = ans.newton_kernel["attempts"]
    assert calls[0][:2] == (["stalled run"], 1) and calls[0][2] > COULOMB_NN_ACCEPT_RTOL and calls[0][3] == 1
    assert len(attempts) > 1  # the schedule went on after the stalled run
    run_work = sum(a["iterations"] for a in attempts)
    rounds_work = sum(call[3] for call in calls)
    assert ans.newton_iterations == run_work + rounds_work
    assert law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3)) <= COULOMB_PROX_FALLBACK_SKIP_RTOL
    if len(calls) > 1:  # the route's own rounds after the schedule: their full budget, from the Newton's best point
        assert calls[1][:2] == (["newton best", "zero"], None)
        assert calls[1][3] <= COULOMB_PROX_WORK_MAX


def test_a_run_stalled_above_the_skip_bound_does_not_end_the_schedule(chain, monkeypatch):
    """With the skip bound below the stalled run's residual, the schedule goes on as before (no short rounds)."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_FALLBACK_SKIP_RTOL", 1e-11)
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert all(call[0] != ["stalled run"] for call in calls)
    assert len(ans.newton_kernel["attempts"]) > 1


def test_a_first_run_whole_does_not_stop_for_the_short_rounds(chain, monkeypatch):
    """Without rounds (a first run whole, before the problem is split), a stall within the skip bound does not stop
    the schedule: no rounds run at all."""
    W, q, mu = chain
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3, rounds=False)
    assert calls == []
    assert len(ans.newton_kernel["attempts"]) > 1
    assert len(ans.newton_kernel["attempts"]) <= len(COULOMB_NN_SCHEDULE)
    assert np.all(np.isfinite(ans.r))


def test_the_route_s_rounds_after_failed_short_rounds_count_both(chain, monkeypatch):
    """Short rounds that do not converge (one inner iteration), then a schedule whose later runs do no iteration: the
    route's own rounds run, from the Newton's best point, and the answer reports and counts the work of both."""
    W, q, mu = chain
    monkeypatch.setattr(coulomb, "COULOMB_PROX_NEAR_WORK_MAX", 1)
    real = coulomb.solve_newton
    runs: list = []

    def first_only(*args, **kwargs):
        out = real(*args, **({**kwargs, "max_iter": 0} if runs else kwargs))
        runs.append(out.iterations)
        return out

    monkeypatch.setattr(coulomb, "solve_newton", first_only)
    calls = rounds_spy(monkeypatch)
    ans = coulomb._solve_connected(W, q, mu, 3)
    assert [call[0] for call in calls] == [["stalled run"], ["newton best", "zero"]]
    assert ans.proximal["iterations"] == calls[0][3] + calls[1][3]
    assert [a["start"] for a in ans.proximal["attempts"]][0] == "stalled run"
    assert len(ans.proximal["attempts"]) >= 2
    assert ans.newton_iterations == sum(runs) + calls[0][3] + calls[1][3]
    assert ans.path == "proximal newton"
    assert law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3)) <= COULOMB_PROX_FALLBACK_SKIP_RTOL
