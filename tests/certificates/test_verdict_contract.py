"""The verdict contract (issue #25 item 1, docs/DESIGN.md §4.3): ``solved`` is exact for data within δ, an
infeasible / unbounded verdict holds for every problem within δ, and no two routes certify opposite verdicts.

δ = ``Tolerance.residual``; every change is measured row by row at the data's scales. Each test here failed before
the contract: the tilted box (a MuJoCo state whose drifts disagree by 2.5e-8) was ``failed`` by default and
certified infeasible by the enumeration, while ``--tolerance mid`` certified it solved.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.certificates import judge
from gaussqp.certificates.backward_error import backward_error
from gaussqp.certificates.instance import verify_farkas, verify_ray
from gaussqp.linalg.dense import as_dense
from gaussqp.model.scales import data_scales
from gaussqp.results import FAILED, INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, JudgeHints, Solution
from gaussqp.settings import PRESETS

HIGH = PRESETS["high"]
TILTED = os.path.join(os.path.dirname(__file__), "..", "data", "verdicts", "wrongclaim_tilted_box_0.json")


def tilted_box():
    return gaussqp.load(TILTED)


# ---------------------------------------------------------------- the reproducer: one physical answer
def test_tilted_box_default_route_sticks_certified_with_the_drift_change_reported():
    p = tilted_box()
    sol = gaussqp.solve(p)
    assert sol.status == SOLVED and sol.certified
    assert sol.problem is p  # judged against the data as given, not the corrected copy
    corr = sol.extras["drift_correction"]
    assert 0 < corr["relative"] <= HIGH.residual and corr["absolute"] == pytest.approx(2.5e-8, rel=0.1)
    assert "solvable after changing the drifts" in sol.message and "for the data as given" in sol.message
    # the box rests: a = 0 to the size of the drift change, every corner loaded, forces in their disks
    assert np.abs(sol.acceleration).max() < 1e-6
    assert np.all(sol.lambda_normal > 0)
    assert sol.certificate("coulomb_cones").holds
    # the backward error is the residual of the data as given, recomputed here
    be = sol.backward_error
    assert be["drifts"] <= HIGH.residual and be["forces"] <= HIGH.residual and be["rows"] == 0.0
    g = as_dense(p.J_n) @ sol.acceleration + p.normal_drift
    assert np.abs(g).max() <= be["drifts"] * data_scales(p).normal_row.max() * (1 + 1e-9)


def test_tilted_box_routes_do_not_contradict():
    p = tilted_box()
    verdicts = {}
    for name in ("auto", "coulomb_enumeration", "sticking_socp", "facetized_inner"):
        sol = gaussqp.solve(p, formulation=name)
        if sol.certified:
            verdicts[name] = sol.status
    assert verdicts.get("auto") == SOLVED
    assert set(verdicts.values()) == {SOLVED}, verdicts
    # the enumeration no longer proves "no solution": the exact data have none, data 6.8e-10 away do
    enum = gaussqp.solve(p, formulation="coulomb_enumeration")
    assert enum.status == SOLVED and enum.certified
    assert "no piece has a solution for the data as given" in enum.message
    assert enum.enumeration.solutions[0].backward_error <= HIGH.residual
    assert enum.unique["acceleration"] is None  # a point of a relaxed piece: its isolation is not decided


# ---------------------------------------------------------------- infeasible only beyond δ
def _two_walls(gap: float):
    """a₁ = 0 and a₁ = gap as two bilateral rows: inconsistent by ``gap`` (the data's scale is ~1)."""
    return ContactProblem.from_blocks(np.eye(2), [0.0, -1.0], [[1.0, 0.0], [1.0, 0.0]], [0.0, -gap], "bilateral")


def test_farkas_vector_certifies_only_beyond_the_tolerance():
    far = verify_farkas(_two_walls(1.0), HIGH.residual)
    assert far.holds and far.margin > HIGH.residual
    near = verify_farkas(_two_walls(1e-8), HIGH.residual)
    assert near is not None and not near.holds and 0 < near.margin < HIGH.residual
    assert "not certified" in near.implies
    assert verify_farkas(_two_walls(1e-8)).holds  # for the exact data alone it is a proof


def test_nearly_consistent_walls_are_solved_not_infeasible():
    sol = gaussqp.solve(_two_walls(1e-9))
    assert sol.status == SOLVED and sol.certified
    assert sol.backward_error["drifts"] <= HIGH.residual
    far = gaussqp.solve(_two_walls(1.0))
    assert far.status == INFEASIBLE and far.certified


def test_judge_refuses_an_infeasible_claim_that_the_tolerance_can_close():
    p = _two_walls(1e-9)
    claim = Solution(p, INFEASIBLE, "test", "test")
    out = judge.finalize(claim, HIGH)
    assert out.status == FAILED and not out.certified


def _cancelling_ray(eps: float):
    """M = diag(1, 0, 0) with the bilateral row a₂ = a₃: F1 is unbounded along v = (0, -1, -1) when
    F₂ + F₃ = eps > 0 — a cancellation of two unit forces, which a change of δ of each row can reverse when eps < δ."""
    return ContactProblem.from_blocks(
        np.diag([1.0, 0.0, 0.0]), [1.0, 1.0, -1.0 + eps], [[0.0, 1.0, -1.0]], [0.0], "bilateral"
    )


def test_ray_certifies_only_beyond_the_tolerance():
    strong = verify_ray(_cancelling_ray(1.0), HIGH.residual)
    assert strong.holds
    weak = verify_ray(_cancelling_ray(1e-9), HIGH.residual)
    assert weak is not None and not weak.holds and weak.data["closable_by_force_change"] > 1e-9
    assert verify_ray(_cancelling_ray(1e-9)).holds  # for the exact data alone it is a proof
    sol = gaussqp.solve(_cancelling_ray(1e-9))
    assert not (sol.status == UNBOUNDED and sol.certified)
    assert gaussqp.solve(_cancelling_ray(1.0)).status == UNBOUNDED


# ---------------------------------------------------------------- the backward error is an exact construction
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_backward_error_makes_the_answer_exact(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 6)), int(rng.integers(1, 5))
    Q = rng.standard_normal((n, n))
    M = Q @ Q.T + np.eye(n)
    J = rng.standard_normal((m, n))
    types = list(rng.choice(["unilateral", "bilateral"], m))
    p = ContactProblem.from_blocks(M, rng.standard_normal(n), J, rng.standard_normal(m), types)
    a, lam = rng.standard_normal(n), rng.standard_normal(m)
    be = backward_error(p, a, lam, np.zeros((m, 1)))
    lt = be.lambda_normal
    # the changed data make (a, λ̃) an exact solution
    np.testing.assert_allclose(M @ a + p.F + be.delta_force, J.T @ lt, atol=1e-12 * (1 + np.abs(J.T @ lt).max()))
    g = J @ a + p.normal_drift + be.delta_normal_drift
    B = np.array([t == "bilateral" for t in types])
    tol = 1e-12 * (1 + np.abs(J @ a).max() + np.abs(p.normal_drift).max())
    assert np.all(np.abs(g[B]) <= tol)
    assert np.all(g[~B] >= -tol) and np.all(lt[~B] >= 0)
    assert np.all(np.abs(lt[~B] * g[~B]) <= tol * (1 + np.abs(lt).max()))
    # and its size is measured at the data's scales alone
    sc = data_scales(p)
    assert be.forces == pytest.approx(float((np.abs(be.delta_force) / sc.dynamics_row).max()))
    assert be.drifts == pytest.approx(float((np.abs(be.delta_normal_drift) / sc.normal_row).max()))


def test_backward_error_gates_solved():
    """A claimed answer off by more than δ in one drift is not solved, whatever its other rows."""
    p = ContactProblem.from_blocks(np.eye(2), [0.0, 1.0], [[0.0, 1.0]], [0.0], "bilateral")
    ok = judge.finalize(
        Solution(
            p,
            SOLVED,
            "t",
            "t",
            acceleration=np.array([0.0, 0.0]),
            lambda_normal=np.array([1.0]),
            lambda_tangent=np.zeros((1, 1)),
            hints=JudgeHints(polish_allowed=False),
        ),
        HIGH,
    )
    assert ok.status == SOLVED and ok.certificate("backward_error").holds
    bad = judge.finalize(
        Solution(
            p,
            SOLVED,
            "t",
            "t",
            acceleration=np.array([0.0, 1e-3]),
            lambda_normal=np.array([1.0]),
            lambda_tangent=np.zeros((1, 1)),
            hints=JudgeHints(polish_allowed=False),
        ),
        HIGH,
    )
    assert bad.status == INACCURATE and not bad.certified
    assert bad.backward_error["drifts"] > HIGH.residual


# ---------------------------------------------------------------- a 2D scene of the same kind, built here
def _resting_block(drift_gap: float, mu: float = 0.8):
    """A planar block on two corners of a 20° ramp (coordinates x, y, θ; half-width 0.1): both corners loaded and
    sticking; the two normal drifts disagree by ``drift_gap`` as MuJoCo's creeping soft contacts make them."""
    th = np.radians(20.0)
    n_w, t_w = np.array([np.sin(th), np.cos(th)]), np.array([np.cos(th), -np.sin(th)])
    M = np.diag([1.0, 1.0, 1.0 / 150.0])
    F = np.array([0.0, 9.81, 0.0])
    contacts = []
    for k, s in enumerate((-1.0, 1.0)):
        r = 0.1 * s * t_w - 0.1 * n_w  # the corner from the centre
        nrow = np.r_[n_w, r[0] * n_w[1] - r[1] * n_w[0]]
        trow = np.r_[t_w, r[0] * t_w[1] - r[1] * t_w[0]]
        contacts.append(
            Contact(
                "unilateral",
                normal=nrow,
                normal_drift=drift_gap * k,
                friction=mu,
                mode="sticking",
                tangent=[trow],
                tangent_drift=[0.0],
            )
        )
    return ContactProblem(M, F, contacts, dimension=2)


def test_resting_block_with_creeping_drifts_agrees_across_routes():
    """The planar analogue of the tilted box (a regression guard: it agreed before the contract too, as in 2D one
    corner may lift by the drift gap and the data stay consistent)."""
    p = _resting_block(1e-8)
    results = {
        name: gaussqp.solve(p, formulation=name)
        for name in ("auto", "sticking_socp", "coulomb_enumeration", "sticking_lcp", "facetized_inner")
        if name == "auto" or gaussqp.formulations.get_formulation(name).accepts(p, p.classify())[0]
    }
    certified = {k: s.status for k, s in results.items() if s.certified}
    assert certified.get("auto") == SOLVED, {k: (s.status, s.message) for k, s in results.items()}
    assert set(certified.values()) == {SOLVED}
    for s in results.values():
        if s.certified:
            assert np.abs(s.acceleration).max() < 1e-6


def test_backward_error_is_checkable_from_the_json_and_the_file(tmp_path):
    """A third party checks `solved` with the problem file and the JSON: the changed data make the answer exact."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "from gaussqp.cli import main; main()", "solve", TILTED, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    js = json.loads(out.stdout)
    data = json.load(open(TILTED))
    ev = next(c for c in js["certificates"] if c["id"] == "backward_error")["evidence"]
    a = np.array(js["acceleration"])
    M, F = np.array(data["mass_matrix"]), np.array(data["force"])
    lam_n, lam_t = np.array(ev["lambda_normal"]), np.array(ev["lambda_tangent"])
    gen = sum(
        lam_n[i] * np.array(c["normal"]) + np.array(c["tangent"]).T @ lam_t[i] for i, c in enumerate(data["contacts"])
    )
    np.testing.assert_allclose(M @ a + F + np.array(ev["delta_force"]), gen, atol=1e-12)
    for i, c in enumerate(data["contacts"]):
        gap = np.array(c["normal"]) @ a + c["normal_drift"] + ev["delta_normal_drift"][i]
        assert (abs(gap) <= 1e-15) if lam_n[i] > 0 else (gap >= -1e-15 and lam_n[i] == 0)
        slip = np.array(c["tangent"]) @ a + np.array(c["tangent_drift"]) + np.array(ev["delta_tangent_drift"][i])
        assert np.abs(slip).max() <= 1e-15
    assert js["backward_error"]["drifts"] <= 1e-6 and js["certified"]


def test_backward_error_of_a_problem_without_contacts():
    p = ContactProblem.from_blocks(np.eye(2), [1.0, 2.0], np.zeros((0, 2)), np.zeros(0), "unilateral")
    sol = gaussqp.solve(p)
    assert sol.status == SOLVED and sol.certified and sol.backward_error["forces"] <= 1e-15
    np.testing.assert_allclose(sol.acceleration, [-1.0, -2.0])


# ---------------------------------------------------------------- across tolerances: one bound for "none"
RAMP = os.path.join(os.path.dirname(__file__), "..", "data", "verdicts", "ramp_sticking_drift_inconsistent.json")


def test_ramp_presets_and_routes_do_not_contradict():
    """A MuJoCo state (benchmarks/mujoco_verdicts.py, ``ramp_th30_mu0.635085_N1000/jacdot/sticking``: a box on a 30°
    ramp, μ = 1.1 tan θ, every contact told to stick) whose drifts are inconsistent by 7.4e-6 of their scales. ``mid``
    certifies an answer for drifts changed by that much; the enumeration at ``high`` certified "no solution" (every
    piece needed more than ``high``'s 1e-6). Now "no solution" must survive the change any preset's ``solved`` may rest
    on (:data:`gaussqp.settings.NONEXISTENCE_CHANGE`): the enumeration says what it measured and certifies nothing."""
    from gaussqp.settings import NONEXISTENCE_CHANGE

    p = gaussqp.load(RAMP)
    runs = {
        (name, preset): gaussqp.solve(p, formulation=name, tolerance=preset)
        for name, preset in [
            ("auto", "high"),
            ("auto", "mid"),
            ("auto", "low"),
            ("coulomb_enumeration", "high"),
            ("coulomb_enumeration", "mid"),
            ("sticking_socp", "high"),
        ]
    }
    certified = {k: s.status for k, s in runs.items() if s.certified}
    assert certified[("auto", "mid")] == SOLVED and certified[("coulomb_enumeration", "mid")] == SOLVED
    assert set(certified.values()) == {SOLVED}, certified
    enum = runs[("coulomb_enumeration", "high")]
    assert enum.status == FAILED
    # every piece's phase one decided (the detached contacts' pieces too: their interior-point points are moved onto
    # λ_n = 0 and into the cones before they are measured), and the nearest solvable data is 7.4e-6 away
    assert enum.enumeration.undecided_pieces == 0
    assert enum.enumeration.nearest_change == pytest.approx(7.35e-6, rel=0.02)
    assert f"within the {NONEXISTENCE_CHANGE:g} a certified infeasible must survive" in enum.message


@settings(max_examples=40, deadline=None)
@given(st.floats(-10.0, 1.0))
def test_two_walls_never_contradict_across_presets(log_gap):
    """Two bilateral walls ``gap`` apart, for gaps from 1e-10 to 10: each preset certifies ``solved`` (for drifts
    changed by at most its residual), ``infeasible`` (only when no preset could solve it), or nothing; never both."""
    p = _two_walls(10.0**log_gap)
    certified = set()
    for preset in PRESETS:
        sol = gaussqp.solve(p, tolerance=preset)
        if sol.certified:
            certified.add(sol.status)
    assert certified <= {SOLVED} or certified == {INFEASIBLE}, certified


def test_infeasible_walls_only_beyond_the_loosest_preset():
    """Walls 1e-4 apart: ``low`` solves them (a drift change of that size is within its 1e-3), so ``high`` and ``mid``
    may not certify them infeasible, and say what the Farkas vector measured; 1e-2 apart, every preset certifies it."""
    near = _two_walls(1e-4)
    assert gaussqp.solve(near, tolerance="low").status == SOLVED
    for preset in ("high", "mid"):
        sol = gaussqp.solve(near, tolerance=preset)
        assert sol.status == FAILED and not sol.certified
    claim = judge.finalize(Solution(near, INFEASIBLE, "test", "test"), HIGH)
    assert claim.status == FAILED and "a certified infeasible must survive" in claim.message
    for preset in PRESETS:
        assert gaussqp.solve(_two_walls(1e-2), tolerance=preset).status == INFEASIBLE


def test_a_tolerance_looser_than_the_loosest_preset_is_refused():
    from gaussqp.errors import InputError
    from gaussqp.settings import Tolerance, get_tolerance

    p = _two_walls(1.0)
    for residual in (1e-2, 0.0, -1e-6, float("nan")):
        loose = Tolerance("loose", solver=1e-5, residual=residual, crosscheck=1e-3)
        with pytest.raises(InputError) as err:
            get_tolerance(loose)
        assert err.value.field == "tolerance.residual"
        with pytest.raises(InputError):
            gaussqp.solve(p, tolerance=loose)
    # the cross-check's and the solver's tolerances too (a new user's trial: crosscheck=10, a NaN or negative solver
    # tolerance were accepted; routes differing by 10 would have been reported as agreeing)
    for field_name in ("crosscheck", "solver"):
        for value in (10.0, 1e-2, 0.0, -1e-9, float("nan"), True, "1e-6"):
            bad = Tolerance("bad", **{"solver": 1e-9, "residual": 1e-6, "crosscheck": 1e-6, field_name: value})
            with pytest.raises(InputError) as err:
                get_tolerance(bad)
            assert err.value.field == f"tolerance.{field_name}"
    tight = Tolerance("tight", solver=1e-10, residual=1e-7, crosscheck=1e-7)
    assert get_tolerance(tight) is tight
    assert gaussqp.solve(p, tolerance=tight).status == INFEASIBLE


def test_the_enumeration_certifies_none_beyond_the_loosest_preset():
    """The Painlevé rod at tan θ = 2 with μ = 1.34 (the paradox: no solution): every piece needs a data change of 0.14
    of its rows' scales, far beyond 1e-3, so every preset certifies infeasible, with the enumeration as the proof."""
    import math

    from gaussqp.problems.sliding_examples import painleve_rod

    p = painleve_rod(theta=math.atan(2), mu=1.34)
    for preset in PRESETS:
        sol = gaussqp.solve(p, tolerance=preset)
        assert sol.status == INFEASIBLE and sol.certified
        enum = sol.enumeration
        assert enum.none_certified and enum.undecided_pieces == 0
        assert enum.nearest_change == pytest.approx(0.144, rel=0.01)
        cert = sol.certificate("sliding_enumeration")
        assert cert.holds and cert.data["nearest_change"] == enum.nearest_change


def test_an_undecided_phase_one_leaves_none_uncertified(monkeypatch):
    """A piece whose phase one gives no verified point (a failed program, or one that calls its always-feasible
    phase one infeasible) leaves its data change unknown: "no solution" is then not certified, and the enumeration's
    certificate does not claim it."""
    import math

    import gaussqp.friction.enumeration as enumeration
    from gaussqp.formulations import get_formulation
    from gaussqp.problems.sliding_examples import painleve_rod

    p = painleve_rod(theta=math.atan(2), mu=1.34)
    real = enumeration._relaxed_piece
    calls = []

    def first_undecided(*args, **kwargs):
        calls.append(1)
        return (None, enumeration.UNDECIDED, enumeration.UNDECIDED) if len(calls) == 1 else real(*args, **kwargs)

    monkeypatch.setattr(enumeration, "_relaxed_piece", first_undecided)
    sol = get_formulation("sliding_enumeration").solve(p)
    assert sol.status == FAILED and not sol.certified
    assert sol.enumeration.undecided_pieces == 1 and not sol.enumeration.none_certified
    assert "found no verified point" in sol.message
    cert = sol.certificate("sliding_enumeration")
    assert cert is None or not cert.holds

    import scipy.optimize

    class Infeasible:
        status, x = 2, None

    monkeypatch.setattr(enumeration, "_relaxed_piece", real)
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: Infeasible())
    sol = get_formulation("sliding_enumeration").solve(p)
    assert sol.status == FAILED and sol.enumeration.undecided_pieces == sol.enumeration.pieces


def test_the_crosscheck_does_not_read_an_undecided_enumeration_as_infeasible():
    from gaussqp.crosscheck import _enumeration_status
    from gaussqp.friction.enumeration import Enumeration

    def enum(nearest, undecided=0):
        return Enumeration([], 4, [0, 1], "none", nearest_change=nearest, undecided_pieces=undecided)

    assert _enumeration_status(enum(0.5)) == "infeasible"
    assert _enumeration_status(enum(1e-5)) == "failed"
    assert _enumeration_status(enum(0.5, undecided=1)) == "failed"
    assert _enumeration_status(enum(None)) == "failed"
