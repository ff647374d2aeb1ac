"""The mode-free route's last resort (:func:`gaussqp.formulations.coulomb._last_rounds`): the proximal rounds run on
without their halving stall rule when every stage before them left the answer above the certificate's bound. Checked
on a state of a settling box pile (tests/data/generated/NOTICE.md) that no stage before them certifies."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gaussqp.certificates.natural_map import law_measure
from gaussqp.formulations import coulomb
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.proximal_newton import solve_proximal
from gaussqp.settings import COULOMB_PROX_FALLBACK_SKIP_RTOL, COULOMB_RESIDUAL_RTOL

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def settling_state():
    """State 11 of the settling pile: 120 contacts sliding slowly beside redundant neighbours, condensed sparse."""
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    p = fclib.load(ROOT / "tests" / "data" / "generated" / "box_pile-s1-t130-k11.hdf5")
    return coulomb.condense_sparse(p), p.dimension


def measure(cd, d: int, r: np.ndarray) -> float:
    """The judge's measure of ``r``, recomputed here from the data: the residual and the velocity change, ÷‖q‖."""
    return law_measure(natural_map_residual(r, np.asarray(cd.W @ r).ravel() + cd.q, cd.q, cd.mu, d))


def test_the_last_rounds_certify_a_settling_state_the_stages_before_them_do_not(settling_state, monkeypatch):
    cd, d = settling_state
    ans = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)
    assert measure(cd, d, ans.r) <= COULOMB_RESIDUAL_RTOL
    assert ans.path == "proximal newton"
    last = ans.proximal["last_rounds"]
    assert 0 < last["iterations"] <= last["budget"]
    assert last["attempts"][-1]["residual"] <= COULOMB_PROX_FALLBACK_SKIP_RTOL
    # without them (a budget of no iteration) the route's answer stays above the bound: the rounds made the difference
    monkeypatch.setattr(coulomb, "COULOMB_PROX_LAST_WORK_UNKNOWNS", 0)
    before = coulomb.solve_mode_free(cd.W, cd.q, cd.mu, d)
    assert measure(cd, d, before.r) > COULOMB_RESIDUAL_RTOL
    assert before.proximal["last_rounds"] == {"iterations": 0, "budget": 0, "attempts": []}


def test_the_halving_rule_can_be_switched_off(settling_state):
    """From ``r = 0`` the rounds' halving rule stops them far from a solution; without it they go on (to the budget or
    until no new best point for ``no_best_rounds`` rounds) and end lower."""
    cd, d = settling_state
    stopped = solve_proximal(cd.W, cd.q, cd.mu, d, work_max=600, target=COULOMB_PROX_FALLBACK_SKIP_RTOL)
    assert stopped.reason == "stalled" and stopped.iterations < 600
    on = solve_proximal(
        cd.W, cd.q, cd.mu, d, work_max=600, target=COULOMB_PROX_FALLBACK_SKIP_RTOL, stall_rounds=None,
        no_best_rounds=100,
    )  # fmt: skip
    assert on.iterations > stopped.iterations
    assert on.residual < stopped.residual
