"""The mode-free Coulomb route (coulomb_fixed_point): closed forms, the FCLIB files, the CLI round trip."""

import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.dispatch import choose_formulation
from gaussqp.errors import NotApplicableError
from gaussqp.formulations import FORMULATIONS
from gaussqp.friction.coulomb_law import SEPARATED, SLIDING, STICKING, natural_map_residual

FCLIB = Path(__file__).resolve().parents[1] / "data" / "fclib"
G = 9.81


def box(push: float, mass: float = 2.0, mu: float = 0.5, d: int = 2, angle: float = 0.0):
    """A point-mass box on the plane y = 0 (2D) or z = 0 (3D), pushed horizontally by ``push`` under gravity."""
    n = d
    M = mass * np.eye(n)
    applied = np.zeros(n)
    applied[-1] = -mass * G
    direction = np.array([np.cos(angle), np.sin(angle)])[: d - 1]
    applied[: d - 1] = push * direction
    normal = np.eye(n)[-1]
    tangent = np.eye(n)[: d - 1]
    c = gaussqp.Contact("unilateral", normal, friction=mu, mode="coulomb", tangent=tangent)
    return gaussqp.ContactProblem(M, -applied, [c], dimension=d, name=f"box {d}D push {push}")


@pytest.mark.parametrize("d", [2, 3])
def test_box_pushed_above_mu_m_g_slides_with_the_closed_form(d):
    angle = 0.7 if d == 3 else 0.0  # the push's direction in the plane (3D)
    p = box(15.0, d=d, angle=angle)
    assert choose_formulation(p) == "coulomb_fixed_point"
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    direction = np.array([np.cos(angle), np.sin(angle)])[: d - 1]
    a_t = 15.0 / 2.0 - 0.5 * G
    assert a_t == pytest.approx(2.595)
    assert np.allclose(sol.acceleration[: d - 1], a_t * direction, atol=1e-9)
    assert sol.acceleration[-1] == pytest.approx(0, abs=1e-9)
    assert sol.lambda_normal[0] == pytest.approx(2 * G)
    assert sol.contact_modes[0].mode == SLIDING
    assert np.allclose(sol.contact_modes[0].direction, direction)
    assert sol.natural_map_residual.relative <= 1e-8


@pytest.mark.parametrize("d", [2, 3])
def test_box_pushed_below_mu_m_g_sticks(d):
    sol = gaussqp.solve(box(8.0, d=d))
    assert sol.status == "solved"
    assert np.allclose(sol.acceleration, 0, atol=1e-9)
    assert sol.lambda_tangent[0, 0] == pytest.approx(-8.0)
    assert sol.contact_modes[0].mode == STICKING
    assert sol.contact_modes[0].margin == pytest.approx(0.5 * 2 * G - 8.0, rel=1e-6)


@pytest.mark.parametrize("d", [2, 3])
def test_box_at_rest_and_lifted(d):
    sol = gaussqp.solve(box(0.0, d=d))
    assert sol.status == "solved" and sol.contact_modes[0].mode == STICKING
    assert np.allclose(sol.acceleration, 0, atol=1e-9) and sol.lambda_normal[0] == pytest.approx(2 * G)
    # pulled up harder than gravity: the contact separates
    p = box(0.0, d=d)
    lifted = gaussqp.ContactProblem(p.M, p.F - 50 * np.eye(d)[-1], list(p.contacts), dimension=d)
    sol = gaussqp.solve(lifted)
    assert sol.status == "solved" and sol.contact_modes[0].mode == SEPARATED
    assert sol.acceleration[-1] == pytest.approx(50 / 2 - G)


@pytest.mark.parametrize("name", ["rocking_block", "rocking_block_A2"])
def test_rocking_blocks_with_coulomb_modes_give_the_sticking_answer(name):
    p = problems.load(name)
    ref = gaussqp.solve(p)
    free = gaussqp.ContactProblem(
        p.M,
        p.F,
        [dataclasses.replace(c, mode="coulomb") if c.mode == "sticking" else c for c in p.contacts],
        dimension=p.dimension,
    )
    sol = gaussqp.solve(free)
    assert sol.formulation == "coulomb_fixed_point"
    assert sol.status == "solved"
    if ref.status == "solved":  # sticking is feasible: the contact forces and accelerations are those of sticking
        assert np.allclose(sol.acceleration, ref.acceleration, atol=1e-7)
        assert np.allclose(sol.generalized_force, ref.generalized_force, atol=1e-7 * (1 + np.abs(p.F).max()))


def test_only_the_mode_deciding_formulations_take_a_coulomb_problem():
    """Besides this route, only the exact enumerations of Coulomb's pieces (issue #12 part B) decide modes."""
    p = box(15.0)
    cls = p.classify()
    takers = [n for n, f in FORMULATIONS.items() if f.accepts(p, cls)[0]]
    assert "coulomb_fixed_point" in takers
    assert all(FORMULATIONS[n].decides_modes for n in takers), takers
    with pytest.raises(NotApplicableError):
        FORMULATIONS["gauss_qp"].solve(p)


def test_a_violated_answer_is_not_solved():
    """The judge is our natural map: an answer moved off the law is measured as such."""
    sol = gaussqp.solve(box(15.0, d=3))
    r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
    good = natural_map_residual(r, sol.velocity, np.ones(3), np.array([0.5]), 3)
    c, s_ = np.cos(0.1), np.sin(0.1)  # the friction force turned by 0.1 rad: no longer opposite to the slip
    turned = r.copy()
    turned[1:] = [c * r[1] - s_ * r[2], s_ * r[1] + c * r[2]]
    bad = natural_map_residual(turned, sol.velocity, np.ones(3), np.array([0.5]), 3)
    assert good.absolute <= 1e-12 and bad.absolute > 0.1


FILES = sorted(f.name for f in FCLIB.glob("*.hdf5") if "Chute" not in f.name)


@pytest.mark.parametrize("name", FILES)
def test_fclib_files_solved_or_honestly_inaccurate(name, request):
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    from gaussqp.io import fclib

    p = fclib.load(FCLIB / name)
    t0 = time.perf_counter()
    sol = gaussqp.solve(p)
    elapsed = time.perf_counter() - t0
    # our own recomputed residual, from the returned r and u (for a global problem also u = J a + drift)
    r = np.hstack([sol.lambda_normal[:, None], sol.lambda_tangent]).ravel()
    if isinstance(p, gaussqp.LocalContactProblem):
        u = np.asarray(p.W @ r).ravel() + p.q
        assert np.allclose(u, sol.velocity, atol=1e-12 * (1 + np.abs(u).max()))
        q = np.asarray(p.q)
        mu = np.asarray(p.mu)
    else:  # u = J a + drift over the contact blocks (normal, tangents), from the returned acceleration
        from gaussqp.formulations.coulomb import contact_blocks

        J, drift, _ = contact_blocks(p)
        u = np.asarray(J @ sol.acceleration).ravel() + drift
        assert np.allclose(u, sol.velocity, atol=1e-9 * (1 + np.abs(u).max()))
        q = mu = None
    res = sol.natural_map_residual
    if q is not None:
        mine = natural_map_residual(r, u, q, mu, p.dimension)
        assert mine.relative == pytest.approx(res.relative, rel=1e-6, abs=1e-13)  # round-off of W r: sparse vs dense
    print(
        f"{name}: {sol.status} residual {res.relative:.2e} (÷‖q‖) {res.siconos:.2e} (Siconos) "
        f"iterations {sol.extras['fixed_point_iterations']}+{sol.extras['newton_iterations']} {elapsed:.2f}s"
    )
    if sol.status == "solved":
        assert res.relative <= 1e-8 and sol.certified
    else:
        assert sol.status == "inaccurate" and res.relative > 1e-8 and str(f"{res.relative:.2e}") in sol.message


def test_rolling_file_refused(tmp_path):
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    out = subprocess.run(
        [sys.executable, "-m", "gaussqp.cli", "solve", str(FCLIB / "Chute-ndof-768-nc-4-3.hdf5")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )  # the installed gaussqp, not ./gaussqp
    assert out.returncode == 2 and "rolling" in out.stderr


@pytest.mark.parametrize("name", ["LMGC_100_PR_PerioBox-i00361-60-03000.hdf5", "CubeH8.hdf5"])
def test_cli_json_and_out_round_trip(name, tmp_path):
    h5py = pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    out = tmp_path / "solution.hdf5"
    run = subprocess.run(
        [sys.executable, "-m", "gaussqp.cli", "solve", str(FCLIB / name), "--json", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    js = json.loads(run.stdout)
    assert js["status"] == "solved"
    assert set(js["natural_map_residual"]) >= {"absolute", "relative", "siconos"}
    m = len(js["lambda_normal"])
    assert len(js["lambda_tangent"]) == m and all(len(t) == 2 for t in js["lambda_tangent"])
    assert len(js["contact_modes"]) == m
    with h5py.File(out, "r") as fh:
        r, u = fh["solution/r"][()], fh["solution/u"][()]
        has_v = "v" in fh["solution"]
    rr = np.hstack([np.array(js["lambda_normal"])[:, None], np.array(js["lambda_tangent"])]).ravel()
    assert np.allclose(r, rr) and np.allclose(u, js["velocity"])
    from gaussqp.io import fclib

    p = fclib.load(FCLIB / name)
    if isinstance(p, gaussqp.LocalContactProblem):
        assert not has_v
        assert np.allclose(u, np.asarray(p.W @ r).ravel() + p.q, atol=1e-9 * (1 + np.abs(u).max()))
    else:
        assert has_v


def test_local_problem_refuses_other_formulations_and_save_solution_checks_its_input(tmp_path):
    W = np.diag([2.0, 2.0, 2.0])
    local = gaussqp.LocalContactProblem(W, [-1.0, 1.0, 0.0], [0.5], 3)
    with pytest.raises(NotApplicableError, match="auto"):
        gaussqp.solve(local, formulation="gauss_qp")
    sol = gaussqp.solve(local)
    # closed form: r_n = 0.5, the contact slides with r_t = -μ r_n along -u_t, u = (0, 0.5, 0)
    assert sol.status == "solved" and sol.acceleration is None and sol.generalized_force is None
    assert np.allclose(sol.lambda_normal, [0.5]) and np.allclose(sol.lambda_tangent, [[-0.25, 0.0]])
    assert np.allclose(sol.velocity, [0.0, 0.5, 0.0], atol=1e-12)
    assert (
        sol.contact_modes[0].mode == SLIDING and sol.unique["multipliers"] is True
    )  # W ≻ 0, small μ: strongly monotone
    assert json.loads(json.dumps(sol.as_dict()))["natural_map_residual"]["relative"] <= 1e-8
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    from gaussqp.errors import NonFiniteError, ShapeError
    from gaussqp.io.fclib import save_solution

    with pytest.raises(ShapeError, match="u"):
        save_solution(tmp_path / "s.hdf5", r=np.zeros(3), u=np.zeros(6))
    with pytest.raises(NonFiniteError, match="r"):
        save_solution(tmp_path / "s.hdf5", r=np.array([np.nan, 0, 0]), u=np.zeros(3))
