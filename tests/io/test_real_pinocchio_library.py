"""The shipped solo12 problem (issue #11, item 5), written by ``python -m problems.real.pinocchio_scenes`` from
example-robot-data's solo12 through the Pinocchio importer: gaussqp still certifies what the file records. Needs
no optional extra (the file is plain gaussqp/1 JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gaussqp

FILE = Path(__file__).resolve().parents[2] / "problems" / "data" / "real" / "pinocchio_solo12_four_feet.json"


@pytest.fixture(scope="module")
def recorded():
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    return doc, gaussqp.load(FILE)


def test_file_says_where_it_comes_from(recorded):
    doc, problem = recorded
    assert "solo12.urdf" in doc["source"] and "standing" in doc["source"]
    p = doc["parameters"]
    state = p["state"]
    assert len(state["q"]) == 19 and len(state["v"]) == problem.n == 18 and len(state["tau"]) == 18
    assert {"pin", "example-robot-data"} <= set(p["versions"])
    assert [c["frame"] for c in p["contacts"]] == ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
    assert problem.m == 4 and problem.dimension == 3
    assert list(problem.modes) == [c["mode"] for c in p["contacts"]] == ["sticking"] * 4
    # F = nle − tau at v = 0 is the gravity torque minus the torques: the base rows carry the weight m g
    assert problem.F[2] == pytest.approx(p["mass"] * p["gravity"], rel=1e-12)


def test_gaussqp_still_certifies_what_the_file_records(recorded):
    doc, problem = recorded
    p = doc["parameters"]
    rec = p["gaussqp"]
    sol = gaussqp.solve(problem)
    assert str(sol.status) == rec["status"] == "solved"
    assert sol.certified is rec["certified"] is True
    assert sol.formulation == rec["formulation"]
    assert dict(sol.unique) == rec["unique"]
    weight = p["mass"] * p["gravity"]
    # the torques are the static equilibrium of the recorded foot forces: a = 0 and those forces
    assert np.abs(sol.acceleration - np.array(p["expected"]["acceleration"])).max() <= 1e-9
    # the file's rows per foot are t₁ = x, t₂ = y, n = z (written before issue #26 made the grasps' frame the one frame)
    forces = np.column_stack([sol.lambda_tangent, sol.lambda_normal])
    assert np.abs(forces - np.array(p["expected"]["foot_forces_xyz"])).max() <= 1e-9 * weight
    assert sol.lambda_normal.sum() == pytest.approx(weight, rel=1e-9)
    assert sol.sticking is not None and sol.sticking.feasible
    assert sol.sticking.mu_min == pytest.approx(rec["mu_min"], abs=1e-9)
    b = p["bilateral_variant"]
    assert b["status"] == "solved" and b["certified"] is True
    assert b["gap_acceleration"] <= 1e-9 and b["gap_forces"] <= 1e-9 * weight


def test_regenerated_problem_equals_the_shipped_one(recorded):
    """With the models extra, the script rebuilds the same problem from the installed robot (to round-off)."""
    pytest.importorskip("pinocchio", reason="needs the optional extra gaussqp[models] (pin, example-robot-data)")
    from importlib import metadata

    try:
        metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.skip("needs the optional extra gaussqp[models] (example-robot-data)")
    from gaussqp.problems.real.pinocchio_scenes import solo12_four_feet

    doc, shipped = recorded
    new_doc, problem = solo12_four_feet()
    old, new = doc["parameters"]["state"], new_doc["parameters"]["state"]
    assert new["q"] == old["q"] and new["v"] == old["v"]  # the SRDF's numbers, at rest
    np.testing.assert_allclose(new["tau"], old["tau"], rtol=0, atol=1e-12 * max(1.0, np.abs(old["tau"]).max()))
    # the file's tangent rows are along x, y; the importer's now along t₁, t₂ of the one contact frame (issue #26):
    # per foot the rows [t₁; t₂] = Q [x; y] with Q the frame's first two columns
    from gaussqp.mechanics.frames import contact_frame

    _, t1, t2 = contact_frame((0.0, 0.0, 1.0))
    Q = np.kron(np.eye(shipped.m), np.vstack([t1, t2])[:, :2])
    rotated = {"J_t": Q @ np.asarray(shipped.J_t), "tangent_drift": Q @ np.asarray(shipped.tangent_drift)}
    for name in ("M", "F", "J_n", "normal_drift", "J_t", "tangent_drift", "friction"):
        a, b = np.asarray(getattr(problem, name)), rotated.get(name, np.asarray(getattr(shipped, name)))
        assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max()), name
