"""Issue #25 item 5: certificates a third party can check. The JSON of ``solve --json``, ``check --json`` and
``grasp --json`` carries the vectors a verdict rests on (``evidence``, with a ``verify`` text); each test loads the
JSON and checks the verdict with the problem file (read with the ``json`` module, not gaussqp) and a few lines of
NumPy."""

import contextlib
import io
import json

import numpy as np
import pytest

import gaussqp
from gaussqp.cli import main
from gaussqp.problems import families, grasps
from gaussqp.problems import sticking_examples as se


def _run(*argv) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(list(argv))
    return json.loads(buf.getvalue())


def _cert(doc: dict, cid: str) -> dict:
    return next(c for c in doc["certificates"] if c["id"] == cid)


def _file(tmp_path, problem) -> tuple[str, dict]:
    path = tmp_path / f"{problem.name}.json"
    gaussqp.dump(problem, path)
    return str(path), json.loads(path.read_text())


def _library_file(name: str) -> dict:
    """A shipped problem's gaussqp/1 file, read as plain JSON."""
    return json.loads(gaussqp.problems.path(name).read_text())


def _rows(f: dict):
    """(normals (m × n), drifts (m,), types) straight from a gaussqp/1 file."""
    cs = f["contacts"]
    return (
        np.array([c["normal"] for c in cs], dtype=float),
        np.array([c["normal_drift"] for c in cs], dtype=float),
        [c["type"] for c in cs],
    )


def test_solve_json_farkas_vector_checks_from_the_file(tmp_path):
    path, f = _file(tmp_path, families.infeasible(np.random.default_rng(0)))
    doc = _run("solve", path, "--json")
    assert doc["status"] == "infeasible"
    ev = _cert(doc, "farkas")["evidence"]
    N, b, types = _rows(f)
    y = np.array(ev["y_normal"])
    assert "verify" in ev and np.abs(y).max() > 0
    assert np.abs(N.T @ y).max() <= 1e-9 * (np.abs(N).T @ np.abs(y)).max()  # Jᵀy = 0
    assert all(y[i] >= 0 for i, t in enumerate(types) if t == "unilateral")
    assert b @ y < -1e-6 * np.abs(b) @ np.abs(y)  # bᵀy < 0


def test_check_json_c5_farkas_vector_checks_from_the_file(tmp_path):
    path, f = _file(tmp_path, families.infeasible(np.random.default_rng(1)))
    c5 = _cert(_run("check", path, "--json"), "C5")
    assert c5["holds"] is False
    N, b, _ = _rows(f)
    y = np.array(c5["evidence"]["y_normal"])
    assert y.min() >= 0 and np.abs(N.T @ y).max() <= 1e-9 * np.abs(y).max() * np.abs(N).max() and b @ y < 0


def test_check_json_c5_feasible_point_checks_from_the_file():
    doc = _run("check", "rod_wall_guide", "--json")
    c5 = _cert(doc, "C5")
    assert c5["holds"] is True
    f = _library_file("rod_wall_guide")
    N, b, types = _rows(f)
    a = np.array(c5["evidence"]["feasible_point"])
    s = N @ a + b
    for i, t in enumerate(types):
        assert (abs(s[i]) <= 1e-9 * (1 + abs(b[i]))) if t == "bilateral" else s[i] >= -1e-9 * (1 + abs(b[i]))


def test_solve_json_unbounded_ray_checks_from_the_file(tmp_path):
    path, f = _file(tmp_path, families.unbounded(np.random.default_rng(0)))
    doc = _run("solve", path, "--json")
    assert doc["status"] == "unbounded"
    v = np.array(_cert(doc, "unbounded_ray")["evidence"]["ray"])
    M, F = np.array(f["mass_matrix"]), np.array(f["force"])
    N, _, types = _rows(f)
    tol = 1e-9 * np.abs(M).max() * np.abs(v).max()
    assert np.abs(M @ v).max() <= tol and F @ v < 0
    for i, t in enumerate(types):
        assert abs(N[i] @ v) <= 1e-9 * np.abs(N[i]).max() if t == "bilateral" else N[i] @ v >= -1e-9


def test_solve_json_non_unique_multipliers_witness_checks_from_the_file():
    doc = _run("solve", "hyperstatic_block", "--json")
    c = _cert(doc, "unique_multipliers")
    assert c["holds"] is False
    f = _library_file("hyperstatic_block")
    N, _, _ = _rows(f)
    d = np.array(c["evidence"]["d_normal"])
    assert np.abs(d).max() > 0.1 and np.abs(N.T @ d).max() <= 1e-9 * np.abs(N).max() * np.abs(d).max()
    # the multipliers + t d solve the problem too (same generalized force, still >= 0 for small t)
    lam = np.array(doc["lambda_normal"])
    t = 0.5 * lam[d < 0].min() / np.abs(d[d < 0]).max() if (d < 0).any() else 1.0
    assert (lam + t * d).min() >= 0 and np.allclose(N.T @ (lam + t * d), N.T @ lam)


def test_solve_json_sticking_infeasible_conic_farkas_checks_from_the_file(tmp_path):
    path, f = _file(tmp_path, se.hard_finger_grasp(F1=-4.0, F2=1.0))
    doc = _run("solve", path, "--json")
    assert doc["status"] == "infeasible"
    ev = _cert(doc, "coulomb_farkas")["evidence"]
    M, F = np.array(f["mass_matrix"]), np.array(f["force"])
    a = np.array(ev["acceleration"])
    r = M @ a + F
    cs = f["contacts"]
    det = set(ev["detaching"])
    for proof in ev["proofs"]:
        y = np.array(proof["y"])
        signs = {int(k): v for k, v in proof["signs"].items()}
        assert r @ y == pytest.approx(-1.0, abs=1e-9)
        for i, c in enumerate(cs):
            ny = np.array(c["normal"]) @ y
            if i in det:
                continue
            if c["mode"] == "sticking":
                ty = np.array(c["tangent"]).reshape(-1, M.shape[0]) @ y
                assert c["friction"] * np.linalg.norm(ty) <= signs.get(i, 1) * ny + 1e-9
            elif c["type"] == "bilateral":
                assert abs(ny) <= 1e-9
            else:
                assert ny >= -1e-9


def test_solve_json_sticking_verdict_margin_point():
    doc = _run("solve", "three_finger", "--json")
    v = doc["sticking"]
    ev = v["evidence"]
    f = _library_file("three_finger")
    M, F = np.array(f["mass_matrix"]), np.array(f["force"])
    a, ln, lt = np.array(ev["acceleration"]), np.array(ev["lambda_normal"]), np.array(ev["lambda_tangent"])
    N = np.array([c["normal"] for c in f["contacts"]])
    gen = N.T @ ln + sum(
        np.array(c["tangent"]).reshape(-1, M.shape[0]).T @ lt[i]
        for i, c in enumerate(f["contacts"])
        if c.get("tangent")
    )
    assert np.abs(M @ a + F - gen).max() <= 1e-7 * max(1.0, np.abs(F).max())
    slack = min(
        c["friction"] * abs(ln[i]) - np.linalg.norm(lt[i])
        for i, c in enumerate(f["contacts"])
        if c["mode"] == "sticking" and i not in v["detaching_contacts"]
    )
    assert v["margin"] > 0 and slack >= v["margin"] - 1e-7 * max(1.0, np.abs(F).max())


# ------------------------------------------------------------------------------------------------ grasps
def _grasp_file(name: str) -> dict:
    return json.loads(grasps.path(name).read_text())


def _cross(p, e):
    return np.cross(p, e) if len(p) == 3 else np.array([p[0] * e[1] - p[1] * e[0]])


def _wrench_columns(f: dict, i: int) -> np.ndarray:
    """Scaled wrenches (force, p × force / L) of the unit force directions contact i can push along (hard: every
    direction, frictionless: its normal, soft: and the torsion (0, n / L)), from the file alone."""
    c, L = f["contacts"][i], f["torque_scale"]
    p, n = np.array(c["position"], dtype=float), np.array(c["normal"], dtype=float)
    dirs = [n] if c.get("kind") == "frictionless" else list(np.eye(len(p)))
    cols = [np.concatenate([e, _cross(p, e) / L]) for e in dirs]
    if c.get("kind") == "soft":
        cols.append(np.concatenate([np.zeros(len(p)), n / L]))
    return np.array(cols).T


def test_grasp_json_no_force_closure_rank_deficient_y_checks_from_the_file():
    doc = _run("grasp", "parallel_jaw_hard", "--json")
    fc = doc["force_closure"]
    assert fc["holds"] is False
    ev = fc["certificate"]["evidence"]
    y = np.array(ev["wrench_scaled"])
    f = _grasp_file("parallel_jaw_hard")
    G = np.hstack([_wrench_columns(f, i) for i in range(len(f["contacts"]))])
    assert np.linalg.norm(y) > 0.5 and np.abs(G.T @ y).max() <= 1e-9 * np.linalg.norm(G, 2)
    assert np.abs(np.array(ev["GTy"])).max() <= 1e-9 * np.linalg.norm(G, 2)


def test_grasp_json_no_force_closure_dual_y_checks_from_the_file():
    doc = _run("grasp", "fixture_six", "--json")
    f = _grasp_file("fixture_six")
    L = f["torque_scale"]
    for key in ("force_closure", "form_closure"):
        chk = doc[key]
        assert chk["holds"] is False and chk["certificate"]["id"].endswith("_dual")
        y = np.array(chk["certificate"]["evidence"]["wrench_scaled"])
        d = len(f["contacts"][0]["position"])
        yf, yt = y[:d], y[d:]
        assert np.linalg.norm(y) > 0.5
        for c in f["contacts"]:
            p, n = np.array(c["position"]), np.array(c["normal"])
            g = yf + (np.cross(yt, p) if d == 3 else yt[0] * np.array([-p[1], p[0]])) / L
            gn = g @ n
            mu = 0.0 if key == "form_closure" or c.get("kind") == "frictionless" else c["friction"]
            assert gn >= mu * np.linalg.norm(g - gn * n) - 1e-9 * np.linalg.norm(y)


@pytest.mark.parametrize("name", ["three_finger_planar", "box_four_fingers"])
def test_grasp_json_force_closure_interior_forces_check_from_the_file(name):
    doc = _run("grasp", name, "--json")
    fc = doc["force_closure"]
    assert fc["holds"] is True
    ev = fc["certificate"]["evidence"]
    f = _grasp_file(name)
    L, cs = f["torque_scale"], f["contacts"]
    d = len(cs[0]["position"])
    total = np.zeros(d + (1 if d == 2 else 3))
    for c, force, tors in zip(cs, ev["forces"], ev["torsions"]):
        p, n, fv = np.array(c["position"]), np.array(c["normal"]), np.array(force)
        total += np.concatenate([fv, (_cross(p, fv) + tors * (n if d == 3 else 0)) / L])
        fn = fv @ n
        assert fn > 0 and np.linalg.norm(fv - fn * n) < c["friction"] * fn  # strictly inside
    scale = max(np.linalg.norm(ev["forces"], axis=1))
    assert np.abs(total).max() <= 1e-7 * scale
    G = np.hstack([_wrench_columns(f, i) for i in range(len(cs))])
    assert np.linalg.matrix_rank(G) == G.shape[0] == ev["rank"]


def test_grasp_json_equilibrium_forces_check_from_the_file():
    doc = _run("grasp", "sphere_three_fingers", "--json")
    eq = doc["equilibrium"]
    assert eq["holds"] is True
    ev = eq["certificate"]["evidence"]
    f = _grasp_file("sphere_three_fingers")
    w = np.array(f["wrench"])
    total = np.array(w, dtype=float)
    for c, force, tors in zip(f["contacts"], ev["forces"], ev["torsions"]):
        p, n, fv = np.array(c["position"]), np.array(c["normal"]), np.array(force)
        total += np.concatenate([fv, np.cross(p, fv) + tors * n])
        fn = fv @ n
        assert np.linalg.norm(fv - fn * n) <= c["friction"] * fn * (1 + 1e-7)
    assert np.abs(total).max() <= 1e-6 * np.abs(w).max()


# ------------------------------------------------------------------------------ every vector-backed verdict
#: Certificate ids whose verdict rests on a vector, with the verdicts (holds) for which it does.
RESTS_ON_A_VECTOR = {
    "farkas": {True, False},
    "unbounded_ray": {True, False},
    "coulomb_farkas": {True},
    "unique_acceleration": {False},
    "unique_multipliers": {False},
    "C1": {False},
    "C2": {False},
    "C3": {False},
    "C3(ii)": {False},
    "C4": {False},
    "C5": {True, False},
    "p_matrix": {False},
    "grasp_force_closure_rank": {True},
    "grasp_force_closure_dual": {True},
    "grasp_force_closure_interior": {True},
    "grasp_form_closure_rank": {True},
    "grasp_form_closure_dual": {True},
    "grasp_form_closure_interior": {True},
    "grasp_min_weight_rank": {True},
    "grasp_min_weight_dual": {True},
    "grasp_min_weight_interior": {True},
    "grasp_equilibrium_forces": {True},
    "grasp_equilibrium_separation": {True},
    "grasp_no_closure": {True},
    "hand_forces": {True},
    "hand_separation": {True},
    "hand_closure_wrenches": {True},
    "hand_closure_separation": {True},
}


def _certificates_of(doc: dict):
    for c in doc.get("certificates", []):
        yield c
    for v in doc.values():
        if isinstance(v, dict) and isinstance(v.get("certificate"), dict):
            yield v["certificate"]


def test_every_vector_backed_certificate_carries_its_evidence(tmp_path):
    docs = []
    for name in ("hyperstatic_block", "singular_pendulum", "painleve_rod_paradox", "block_pendulum"):
        docs += [_run("solve", name, "--json"), _run("check", name, "--json")]
    for maker in (families.infeasible, families.unbounded):
        path, _ = _file(tmp_path, maker(np.random.default_rng(0)))
        docs += [_run("solve", path, "--json"), _run("check", path, "--json")]
    path, _ = _file(tmp_path, se.hard_finger_grasp(F1=-4.0, F2=1.0))
    docs.append(_run("solve", path, "--json"))
    for name in ("parallel_jaw_hard", "fixture_six", "fixture_seven", "box_four_fingers"):
        docs.append(_run("grasp", name, "--json"))
    seen = set()
    for doc in docs:
        for c in _certificates_of(doc):
            if c["holds"] in RESTS_ON_A_VECTOR.get(c["id"], ()):
                seen.add(c["id"])
                ev = c.get("evidence")
                assert ev and isinstance(ev.get("verify"), str) and len(ev) >= 2, c["id"]
                assert any(isinstance(v, list) and v for k, v in ev.items() if k != "verify"), c["id"]
    # the shipped problems exercise most of the table (the rest: tests of the functions that build them)
    assert {
        "farkas",
        "unbounded_ray",
        "coulomb_farkas",
        "unique_multipliers",
        "C2",
        "C5",
        "p_matrix",
        "grasp_force_closure_rank",
        "grasp_force_closure_dual",
        "grasp_force_closure_interior",
        "grasp_equilibrium_forces",
        "grasp_no_closure",
        "hand_closure_separation",
    } <= seen
    # and the sliding enumeration's several solutions are in the JSON
    ev = _cert(docs[4], "sliding_enumeration")["evidence"]
    assert len(ev["accelerations"]) >= 2
