"""The mode-free route's last resort (:func:`gaussqp.formulations.coulomb._last_rounds`): the proximal rounds run on
without their halving stall rule when every stage before them left the answer above the certificate's bound. Checked
on a state of a settling box pile (tests/data/generated/NOTICE.md) that no stage before them certifies, and that the
rounds with their halving rule kept do not certify either."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gaussqp.certificates.natural_map import law_measure
from gaussqp.formulations import coulomb
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.proximal_newton import ProximalResult, solve_proximal
from gaussqp.settings import (
    COULOMB_PROX_FALLBACK_SKIP_RTOL,
    COULOMB_PROX_LAST_NO_BEST_ROUNDS,
    COULOMB_PROX_LAST_WORK_MAX,
    COULOMB_RESIDUAL_RTOL,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def state():
    """State 9 of the settling pile: 101 contacts, several sliding slowly beside redundant neighbours, condensed."""
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    p = fclib.load(ROOT / "tests" / "data" / "generated" / "box_pile-s1-t130-k9.hdf5")
    return coulomb.condense_sparse(p), p.dimension


@pytest.fixture(scope="module")
def without(state):
    """The route's answer without its last resort (a budget of no iteration)."""
    cd, d = state
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(coulomb, "COULOMB_PROX_LAST_WORK_UNKNOWNS_MAX", 0)
        return coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)


def measure(cd, d: int, r: np.ndarray) -> float:
    """The judge's measure of ``r``, recomputed here from the data: the residual and the velocity change, ÷‖q‖."""
    return law_measure(natural_map_residual(r, np.asarray(cd.W @ r).ravel() + cd.q, cd.q, cd.mu, d))


def test_the_state_is_not_certified_without_the_last_resort(state, without):
    cd, d = state
    assert measure(cd, d, without.r) > COULOMB_RESIDUAL_RTOL
    assert without.proximal["last_rounds"]["budget"] == 0 and without.proximal["last_rounds"]["attempts"] == []


def test_the_last_rounds_certify_it(state, without):
    cd, d = state
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)
    assert measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert ans.path == "proximal newton" and ans.backend_status in ("converged", "within the certificate's reach")
    last = ans.proximal["last_rounds"]
    assert last["measure"] == measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert [a["start"] for a in last["attempts"]] == ["best so far"]  # within the bound: no second start
    assert 0 < last["iterations"] <= last["budget"] <= COULOMB_PROX_LAST_WORK_MAX
    assert ans.newton_iterations == without.newton_iterations + last["iterations"]  # their work is counted
    assert any(h["stage"] == "last rounds" for h in ans.history)


def test_the_halving_rule_would_have_stopped_them(state, without):
    """The same rounds from the same point, with the route's first rounds' stall rules (the halving rule on), end above
    the bound; with ``stall_rounds=None`` they go on, farther than the halving rule let them, and reach it: what
    certifies the state is running on."""
    cd, d = state
    common = dict(r0=without.r, work_max=COULOMB_PROX_LAST_WORK_MAX, target=COULOMB_PROX_FALLBACK_SKIP_RTOL)
    kept = solve_proximal(cd.W, cd.q, cd.mu, d, **common)
    assert kept.reason == "stalled"
    assert measure(cd, d, kept.r) > COULOMB_RESIDUAL_RTOL
    on = solve_proximal(
        cd.W, cd.q, cd.mu, d, **common, stall_rounds=None, no_best_rounds=COULOMB_PROX_LAST_NO_BEST_ROUNDS
    )
    assert on.rounds > kept.rounds
    assert measure(cd, d, on.r) <= COULOMB_RESIDUAL_RTOL


def test_a_worse_point_of_the_last_rounds_is_not_kept(state, without, monkeypatch):
    """Rounds that end farther from a solution than the answer they started from leave that answer as it was, their
    work counted."""
    cd, d = state

    def worse(W, q, mu, d, *, r0=None, **kw) -> ProximalResult:
        if kw.get("stall_rounds", 0) is not None:  # the route's first rounds: as they are
            return solve_proximal(W, q, mu, d, r0=r0, **kw)
        r = np.zeros(q.size)
        return ProximalResult(r=r, u=np.asarray(W @ r).ravel() + q, residual=1.0, converged=False, reason="stalled",
                              rounds=1, iterations=7)  # fmt: skip

    monkeypatch.setattr(coulomb, "solve_proximal", worse)
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)
    assert np.array_equal(ans.r, without.r) and ans.path == without.path
    assert [a["start"] for a in ans.proximal["last_rounds"]["attempts"]] == ["best so far", "zero"]
    assert ans.newton_iterations == without.newton_iterations + 14


def test_the_start_from_zero_runs_when_the_first_does_not_reach_the_target(state, without, monkeypatch):
    """The first start ending above the target (here: made to stop at once) sends the rounds to ``r = 0``, within the
    budget left, and their best point by the judge's measure is the answer."""
    cd, d = state

    def first_stops(W, q, mu, d, *, r0=None, **kw) -> ProximalResult:
        if kw.get("stall_rounds", 0) is None and r0 is not None:  # the last resort's first start
            return ProximalResult(r=r0, u=np.asarray(W @ r0).ravel() + q, residual=1.0, converged=False,
                                  reason="stalled", rounds=1, iterations=1)  # fmt: skip
        return solve_proximal(W, q, mu, d, r0=r0, **kw)

    monkeypatch.setattr(coulomb, "solve_proximal", first_stops)
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)
    attempts = ans.proximal["last_rounds"]["attempts"]
    assert [a["start"] for a in attempts] == ["best so far", "zero"]
    assert attempts[1]["iterations"] <= ans.proximal["last_rounds"]["budget"] - 1
    assert ans.proximal["last_rounds"]["measure"] == attempts[1]["measure"] == measure(cd, d, ans.r)
    assert measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
