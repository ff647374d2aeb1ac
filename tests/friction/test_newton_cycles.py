"""The damping schedule's cycle test (:data:`gaussqp.settings.COULOMB_NN_CYCLE_RTOL`): a Newton run whose last merits
make no progress (each within 1 % of the merit two iterations before: a plateau or a cycle between two pieces) is left
for the schedule's next (θ, start) before the stall test would end it."""

from __future__ import annotations

from pathlib import Path

import pytest

import gaussqp
from gaussqp.friction import nonsmooth_newton as nn
from gaussqp.io import fclib

#: a small quadruped of the generated study (10 contacts): from its own starts, θ = 0.01 and 0.1 make no progress
#: (merits repeating at lag two) before θ = 1 converges
QUADRUPED = Path(__file__).resolve().parents[1] / "data" / "generated" / "quadruped-s1-i0214-m10.hdf5"


def test_merits_repeating_at_lag_two_are_no_progress():
    assert nn._cycling([5.0, 3.0, 5.0, 3.0])
    assert nn._cycling([5.0, 3.0, 5.01, 3.01])
    assert nn._cycling([1.0, 0.9992, 0.9985, 0.9977])  # a plateau: no progress either
    assert not nn._cycling([5.0, 3.0, 4.0, 2.0])  # still going down
    assert not nn._cycling([1.0, 16.7, 0.8, 16.4])  # a swing whose repeats drift by 20 %: left to the stall test
    assert not nn._cycling([3.0, 5.0, 3.0])  # too few


def test_the_schedule_leaves_a_cycling_run_early_and_still_certifies(monkeypatch):
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py: pip install 'gaussqp[fclib]'")
    with_test = gaussqp.solve(fclib.load(QUADRUPED), crosscheck=False)
    monkeypatch.setattr(nn, "COULOMB_NN_CYCLE_RTOL", -1.0)  # no merit is ever within -1 of another: the test is off
    without = gaussqp.solve(fclib.load(QUADRUPED), crosscheck=False)
    assert with_test.status == without.status == "solved"
    runs = [a["iterations"] for a in with_test.extras["nonsmooth_newton"]["attempts"]]
    runs_without = [a["iterations"] for a in without.extras["nonsmooth_newton"]["attempts"]]
    assert len(runs) == len(runs_without) == 3  # θ = 0.01, 0.1 stall, θ = 1 converges, either way
    assert runs[0] < runs_without[0] and sum(runs) < sum(runs_without)
