"""A stick/slip piece whose program fails leaves the enumeration undecided: the route answers ``failed`` with the
reason, and ``gaussqp.solve`` returns that answer (it raised SolverError from inside the route). Found replaying a
MuJoCo rollout of dm_control's humanoid under random controls (``benchmarks/mujoco_replay.py``): state 22, 7 contacts
of which some slide and some stick, imported with the modes MuJoCo's velocities give."""

from __future__ import annotations

from pathlib import Path

import pytest

import gaussqp
import gaussqp.friction.enumeration as enumeration
from gaussqp.errors import SolverError
from gaussqp.formulations import FORMULATIONS
from gaussqp.io.gaussqp_format import load
from gaussqp.results import FAILED, INFEASIBLE, SOLVED

STATE = Path(__file__).resolve().parents[1] / "data" / "mujoco_rollout" / "humanoid_state22.json"


@pytest.fixture
def rollout_state():
    return load(STATE)


def test_a_failed_piece_program_is_a_failed_route(rollout_state, monkeypatch):
    def failing(*args, **kwargs):
        raise SolverError("stick/slip piece SOCP ended with status 'failed'; the enumeration cannot decide")

    monkeypatch.setattr(enumeration, "_solve_piece", failing)
    sol = FORMULATIONS["sliding_enumeration"].solve(rollout_state)
    assert sol.status == FAILED
    assert "the enumeration cannot decide" in sol.message
    assert sol.acceleration is None


def test_solve_decides_the_rollout_state(rollout_state):
    """The state itself: its pieces whose equalities pin a single point are decided without a program (Clarabel ended
    NumericalError on them, and the route failed). The told slip directions, read from MuJoCo's velocities, admit no
    solution of the rigid problem as given, but a change of the data by 2.0e-4 of their rows' scales does: within what
    the ``low`` preset's ``solved`` may rest on (1e-3). So ``low`` certifies an answer with that backward error, and no
    preset certifies ``infeasible`` (the verdict contract across tolerances, DESIGN.md §4.3); ``high`` and ``mid`` say
    why they certify nothing."""
    statuses = {}
    for preset in ("high", "mid", "low"):
        sol = gaussqp.solve(rollout_state, tolerance=preset)
        statuses[preset] = (sol.status, sol.certified)
        if preset != "low":
            assert sol.status == FAILED and not sol.certified
            assert "makes one solvable, within the 0.001 a certified infeasible must survive" in sol.message
            assert sol.enumeration.nearest_change == pytest.approx(2.0e-4, rel=0.05)
            assert sol.enumeration.undecided_pieces == 0
        else:
            assert sol.status == SOLVED and sol.certified
            assert 1e-4 < sol.enumeration.solutions[0].backward_error <= 1e-3
    assert (INFEASIBLE, True) not in statuses.values()


def test_mode_free_with_sliding_leaves_every_frictional_mode_to_the_solver(rollout_state):
    """A simulator's state whose modes were read from its velocities, re-posed with no mode told: the route that
    decides stick/slip certifies it (state 22, where the told modes leave the enumeration undecided)."""
    told = [str(m) for m in rollout_state.modes]
    assert "sliding" in told and "sticking" in told
    assert "sliding" in [str(m) for m in rollout_state.mode_free().modes]  # the default keeps told slip
    free = rollout_state.mode_free(sliding=True)
    assert [str(m) for m in free.modes] == ["coulomb" if m in ("sticking", "sliding") else m for m in told]
    sol = gaussqp.solve(free, crosscheck=False)
    assert sol.status == SOLVED and sol.certified
