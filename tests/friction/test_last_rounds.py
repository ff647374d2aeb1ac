"""The mode-free route's last resort (:func:`gaussqp.formulations.coulomb._last_rounds`): the proximal rounds run on
without their halving stall rule when every stage before them left the answer above the certificate's bound. Checked
on a state of a settling box pile (tests/data/generated/NOTICE.md) that no stage before them certifies; from its best
point the last rounds certify it with either stall rule, and from ``r = 0``, their second start, the halving rule
stops them above the bound where running on reaches it. The state is solved whole (``_solve_connected``): the route
proper splits it into its groups of contacts, each of which runs its own last resort."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gaussqp.certificates.natural_map import law_measure
from gaussqp.formulations import coulomb
from gaussqp.friction.compiled import kernels
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.proximal_newton import ProximalResult, solve_proximal
from gaussqp.settings import (
    COULOMB_PROX_FALLBACK_SKIP_RTOL,
    COULOMB_PROX_LAST_NO_BEST_ROUNDS,
    COULOMB_PROX_LAST_WORK_MAX,
    COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX,
    COULOMB_RESIDUAL_RTOL,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def state():
    """State 9 of the settling pile: 101 contacts, several sliding slowly beside redundant neighbours, condensed."""
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    p = fclib.load(ROOT / "tests" / "data" / "generated" / "box_pile-s1-t130-k9.hdf5")
    # the compiled kernels loaded now when installed (else none ever is): the route loads them itself after enough work
    # (the rent-or-buy rule), and the sweeps' budget depends on it (COULOMB_SWEEPS_WORK_NUMPY_MAX), so without this the
    # module's runs would do different work depending on what ran before them in the session
    kernels()
    return coulomb.condense_sparse(p), p.dimension


@pytest.fixture(scope="module")
def without(state):
    """The route's answer without its last resort (a budget of no iteration)."""
    cd, d = state
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(coulomb, "COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX", 0)
        return coulomb._solve_connected(cd.W, cd.q, cd.mu, d)


@pytest.fixture(scope="module")
def certified(state):
    """The route's answer with its last resort."""
    cd, d = state
    return coulomb._solve_connected(cd.W, cd.q, cd.mu, d)


def measure(cd, d: int, r: np.ndarray) -> float:
    """The judge's measure of ``r``, recomputed here from the data: the residual and the velocity change, ÷‖q‖."""
    return law_measure(natural_map_residual(r, np.asarray(cd.W @ r).ravel() + cd.q, cd.q, cd.mu, d))


def test_the_state_is_not_certified_without_the_last_resort(state, without):
    cd, d = state
    assert measure(cd, d, without.r) > COULOMB_RESIDUAL_RTOL
    assert without.proximal["last_rounds"]["budget"] == 0 and without.proximal["last_rounds"]["attempts"] == []


def test_the_last_rounds_certify_it(state, without, certified):
    cd, d = state
    ans = certified
    assert measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert ans.path == "proximal newton" and ans.backend_status == "within the certificate's reach"
    last = ans.proximal["last_rounds"]
    assert last["kept"] and last["status"] == ans.backend_status
    assert last["measure"] == measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert [a["start"] for a in last["attempts"]] == ["best so far"]  # within the bound: no second start
    assert 0 < last["iterations"] <= last["budget"]
    assert ans.newton_iterations == without.newton_iterations + last["iterations"]  # their work is counted
    assert any(h["stage"] == "last rounds" for h in ans.history)


def test_the_halving_rule_would_have_stopped_them(state, without):
    """The last resort's rounds from ``r = 0`` (its second start), with the route's first rounds' stall rules (the
    halving rule on), end above the bound; with ``stall_rounds=None`` they go on, farther than the halving rule let
    them, and reach it: what certifies such a state is running on."""
    cd, d = state
    common = dict(r0=None, work_max=COULOMB_PROX_LAST_WORK_MAX, target=COULOMB_PROX_FALLBACK_SKIP_RTOL)
    kept = solve_proximal(cd.W, cd.q, cd.mu, d, **common)
    assert kept.reason == "stalled"
    assert measure(cd, d, kept.r) > COULOMB_RESIDUAL_RTOL
    on = solve_proximal(
        cd.W, cd.q, cd.mu, d, **common, stall_rounds=None, no_best_rounds=COULOMB_PROX_LAST_NO_BEST_ROUNDS
    )
    assert on.rounds > kept.rounds
    assert measure(cd, d, on.r) <= COULOMB_RESIDUAL_RTOL


def test_the_last_resort_does_not_run_on_an_answer_within_the_bound(state, without, monkeypatch):
    """An answer the judge would certify (here: the bound raised above the route's answer) is returned as it is."""
    cd, d = state
    monkeypatch.setattr(coulomb, "COULOMB_RESIDUAL_RTOL", 2 * measure(cd, d, without.r))
    ans = coulomb._solve_connected(cd.W, cd.q, cd.mu, d)
    assert "last_rounds" not in ans.proximal
    assert np.array_equal(ans.r, without.r) and ans.newton_iterations == without.newton_iterations


def _last_start(result, every: bool = False):
    """A stand-in for :func:`solve_proximal` whose last resort's first start (``stall_rounds=None``, a start point;
    with ``every``, both its starts) returns ``result(W, q, r0)``; every other call is the real one."""

    def fake(W, q, mu, d, *, r0=None, **kw) -> ProximalResult:
        if kw.get("stall_rounds", 0) is None and (every or r0 is not None):
            return result(W, q, r0)
        return solve_proximal(W, q, mu, d, r0=r0, **kw)

    return fake


def _claimed(r: np.ndarray, W, q, residual: float, iterations: int = 1) -> ProximalResult:
    """Rounds that end at ``r`` claiming ``residual`` (their own measure, which the route does not take on trust)."""
    return ProximalResult(
        r=r, u=np.asarray(W @ r).ravel() + q, residual=residual, converged=residual <= COULOMB_PROX_FALLBACK_SKIP_RTOL,
        reason="converged" if residual <= COULOMB_PROX_FALLBACK_SKIP_RTOL else "stalled", rounds=1,
        iterations=iterations,
    )  # fmt: skip


def test_a_worse_point_of_the_last_rounds_is_not_kept(state, without, monkeypatch):
    """Rounds that end farther from a solution than the answer they started from, by the judge's measure, leave that
    answer as it was, their work counted, even when they claim a tiny residual of their own."""
    cd, d = state
    monkeypatch.setattr(
        coulomb, "solve_proximal", _last_start(lambda W, q, r0: _claimed(np.zeros(q.size), W, q, 1e-12, 7), every=True)
    )
    ans = coulomb._solve_connected(cd.W, cd.q, cd.mu, d)
    assert np.array_equal(ans.r, without.r) and ans.path == without.path
    assert ans.backend_status == without.backend_status
    last = ans.proximal["last_rounds"]
    assert not last["kept"] and [a["start"] for a in last["attempts"]] == ["best so far", "zero"]
    assert ans.newton_iterations == without.newton_iterations + last["iterations"]


def test_the_starts_are_judged_by_the_judges_measure(state, without, monkeypatch):
    """A first start whose own residual claims the target, at a point the judge measures above the bound, sends the
    rounds to ``r = 0`` within the budget left; the best point by the judge's measure is the answer."""
    cd, d = state
    monkeypatch.setattr(coulomb, "solve_proximal", _last_start(lambda W, q, r0: _claimed(r0, W, q, 1e-12)))
    best, report = coulomb._last_rounds(cd.W, cd.q, cd.mu, d, without.r)
    assert [a["start"] for a in report["attempts"]] == ["best so far", "zero"]
    assert report["attempts"][1]["iterations"] <= report["budget"] - 1
    assert report["measure"] == report["attempts"][1]["measure"] == measure(cd, d, best.r) <= COULOMB_RESIDUAL_RTOL


def test_a_start_within_the_bound_ends_the_last_resort(state, without, monkeypatch):
    """A first start that ends within the certificate's bound but above the rounds' own target (5e-9) is the answer:
    the judge decides, and a second start would cost seconds."""
    cd, d = state
    mid = solve_proximal(
        cd.W, cd.q, cd.mu, d, r0=without.r, work_max=COULOMB_PROX_LAST_WORK_MAX, target=0.9 * COULOMB_RESIDUAL_RTOL,
        stall_rounds=None, no_best_rounds=COULOMB_PROX_LAST_NO_BEST_ROUNDS,
    )  # fmt: skip
    assert COULOMB_PROX_FALLBACK_SKIP_RTOL < measure(cd, d, mid.r) <= COULOMB_RESIDUAL_RTOL
    monkeypatch.setattr(coulomb, "solve_proximal", _last_start(lambda W, q, r0: _claimed(mid.r, W, q, mid.residual)))
    best, report = coulomb._last_rounds(cd.W, cd.q, cd.mu, d, without.r)
    assert [a["start"] for a in report["attempts"]] == ["best so far"]
    assert report["status"] == "within the certificate's reach" and np.array_equal(best.r, mid.r)


def test_the_budget_is_capped_whatever_the_size(state, without, monkeypatch):
    cd, d = state
    assert COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX // cd.q.size > 50
    monkeypatch.setattr(coulomb, "COULOMB_PROX_LAST_WORK_MAX", 50)
    _, report = coulomb._last_rounds(cd.W, cd.q, cd.mu, d, without.r)
    assert report["budget"] == 50 and report["iterations"] <= 50


def test_an_answer_of_the_convex_iteration_replaced_says_whose_it_is(state, monkeypatch):
    """Without the route's first rounds (made to return nothing) the answer before the last resort is the convex
    iteration's; the last rounds' point replaces it, and the answer says it is theirs."""
    cd, d = state
    monkeypatch.setattr(coulomb, "_proximal_rounds", lambda *args: (None, {"iterations": 0, "attempts": []}))
    ans = coulomb._solve_connected(cd.W, cd.q, cd.mu, d)
    assert ans.proximal["last_rounds"]["kept"]
    assert (ans.path, ans.backend) == ("proximal newton", "nonsmooth_newton")
    assert measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert np.array_equal(ans.u, np.asarray(cd.W @ ans.r).ravel() + cd.q)
