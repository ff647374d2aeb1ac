"""The Siconos adapter of the audit (issue #29 item 4): a Siconos answer of an FCLIB problem against the certified
rigid answer and its force envelopes. Closed forms: a box resting on four corners (each corner's normal force in
[0, W/2], the sum W, as statics says), its local (Delassus) form through the exact lift, and answers made wrong on
purpose. Tests that run Siconos skip, with the reason, where ``siconos.numerics`` cannot be run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gaussqp import Contact, ContactProblem, LocalContactProblem
from gaussqp.audit import siconos_
from gaussqp.cli import main
from gaussqp.errors import FileFormatError, MissingExtraError, NonFiniteError, NotApplicableError, ShapeError
from gaussqp.io import fclib
from gaussqp.studies.peers import available

G = 9.81
MASS, MU = 3.0, 0.4
W_BOX = MASS * G
needs_siconos = pytest.mark.skipif(
    not available("siconos"),
    reason="Siconos cannot be run here (apt-get install python3-siconos, or set GAUSSQP_SICONOS_PYTHON)",
)


def box_problem() -> ContactProblem:
    """A box (mass 3, half sizes 0.1 × 0.15 × 0.1) resting on a plane on its four bottom corners, Coulomb μ = 0.4."""
    M = np.diag([MASS, MASS, MASS, 0.1, 0.2, 0.3])
    F = np.array([0.0, 0.0, W_BOX, 0.0, 0.0, 0.0])
    contacts = []
    for sx in (1, -1):
        for sy in (1, -1):
            r = np.array([sx * 0.1, sy * 0.15, -0.1])
            row = lambda e: np.concatenate([e, np.cross(r, e)])  # noqa: E731
            contacts.append(
                Contact(
                    "unilateral",
                    normal=row(np.array([0.0, 0.0, 1.0])),
                    friction=MU,
                    mode="coulomb",
                    tangent=np.vstack([row(np.array([1.0, 0.0, 0.0])), row(np.array([0.0, 1.0, 0.0]))]),
                )
            )
    return ContactProblem(M, F, contacts, dimension=3, name="box on four corners")


def box_file(tmp_path, local: bool = False):
    p = box_problem()
    path = tmp_path / ("box-local.hdf5" if local else "box.hdf5")
    if local:
        from gaussqp.formulations.coulomb import condense

        cd = condense(p)
        fclib.save(LocalContactProblem(cd.W, cd.q, np.full(4, MU), 3, name="box local"), path)
    else:
        fclib.save(p, path)
    return path


def answer(normals, tangents=None) -> np.ndarray:
    R = np.zeros((4, 3))
    R[:, 0] = normals
    if tangents is not None:
        R[:, 1:] = tangents
    return R.ravel()


def check_box_envelopes(st):
    assert st.status == "solved" and st.certified
    for c in st.contacts:
        assert c.mode == "sticking"
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * W_BOX)
        assert c.normal_range[1] == pytest.approx(W_BOX / 2, rel=1e-7)


@pytest.mark.parametrize("local", [False, True])
def test_a_right_answer_is_inside_its_envelopes(tmp_path, local):
    """A statically admissible split (W/2 on one diagonal, 0 on the other: a solution, not the "mean" W/4) is a
    certified solution of the rigid problem, inside every envelope [0, W/2], with no flag; the local form is audited
    through its lift with the same envelopes."""
    path = box_file(tmp_path, local)
    r = answer([W_BOX / 2, 0.0, 0.0, W_BOX / 2])  # corners (+,+), (+,−), (−,+), (−,−): a diagonal carries it
    rep = siconos_.audit(path, answer=r)
    st = rep.states[0]
    check_box_envelopes(st)
    assert st.engine_answer["certified_solution"] is True
    assert not st.flags, st.flags
    assert st.engine_acceleration_gap == pytest.approx(0.0, abs=1e-9)
    if local:
        assert st.left_out and st.left_out[0][0] == "W" and "rank 6 of 12" in st.left_out[0][1]


def test_wrong_answers_are_flagged(tmp_path):
    path = box_file(tmp_path)
    # one corner carries the whole weight: outside its envelope [0, W/2] and not a solution (a tipping moment)
    st = siconos_.audit(path, answer=answer([W_BOX, 0, 0, 0])).states[0]
    assert any(f.startswith("outside_envelope: contact 0") for f in st.flags)
    assert any(f.startswith("engine_answer_not_a_solution") for f in st.flags)
    assert st.contacts[0].envelope_distance == pytest.approx(W_BOX / 2, rel=1e-7)
    # friction 2μ λ_n, outside the cone, in self-cancelling directions (±x: no net wrench, the box stays at rest):
    # a Coulomb violation of μ λ_n, flagged, not a solution
    t = 2 * MU * W_BOX / 4
    st = siconos_.audit(path, answer=answer([W_BOX / 4] * 4, [[t, 0], [t, 0], [-t, 0], [-t, 0]])).states[0]
    assert st.engine_acceleration_gap == pytest.approx(0.0, abs=1e-9)
    assert all(
        c.engine_coulomb_residual == pytest.approx(MU * (W_BOX / 4) / (W_BOX / 2), rel=1e-6) for c in st.contacts
    )
    assert any(f.startswith("coulomb_violation") for f in st.flags)
    assert st.engine_answer["certified_solution"] is False


def test_the_lift_is_exact_and_refuses_a_non_symmetric_w():
    from gaussqp.formulations.coulomb import condense

    p = box_problem()
    cd = condense(p)
    loc = LocalContactProblem(cd.W, cd.q, np.full(4, MU), 3)
    lifted, note = siconos_.lift(loc)
    rng = np.random.default_rng(0)
    for _ in range(3):  # u = W r + q for any r: a = Lᵀr + c, u = L a + q⊥
        r = rng.normal(size=12)
        a = np.asarray(lifted.J_n).T @ r[0::3] + np.asarray(lifted.J_t).T @ np.delete(r, np.s_[0::3]) - lifted.F
        u_n = np.asarray(lifted.J_n) @ a + lifted.normal_drift
        assert np.allclose(u_n, (cd.W @ r + cd.q)[0::3], atol=1e-10 * np.abs(cd.W).max() * 10)
    bad = cd.W.copy()
    bad[0, 1] += 1e-3 * np.abs(cd.W).max()
    with pytest.raises(NotApplicableError, match="asymmetry"):
        siconos_.lift(LocalContactProblem(bad, cd.q, np.full(4, MU), 3))


def test_the_lift_keeps_a_contact_whose_block_is_tiny_beside_the_others():
    """Decisions at each entry's own scale: two decoupled contacts whose Delassus blocks differ by 1e14 (a light
    body beside a heavy one) are both reproduced to round-off, entry by entry; a rank cut at a fraction of max|W|
    would drop the small contact's rows entirely."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3))
    big = A @ A.T + np.eye(3)
    small = 1e-14 * (A.T @ A + np.eye(3))
    W = np.zeros((6, 6))
    W[:3, :3], W[3:, 3:] = big, small
    q = np.concatenate([rng.normal(size=3), 1e-14 * rng.normal(size=3)])
    lifted, _ = siconos_.lift(LocalContactProblem(W, q, np.full(2, MU), 3))
    J = np.zeros((6, lifted.n))
    J[0::3], J[[1, 2, 4, 5]] = np.asarray(lifted.J_n), np.asarray(lifted.J_t)
    assert lifted.n == 6
    scale = np.sqrt(np.outer(np.diag(W), np.diag(W)))
    assert (np.abs(J @ J.T - W) <= 1e-12 * scale).all()


def test_bad_answers_are_typed_errors(tmp_path, capsys):
    path = box_file(tmp_path)
    with pytest.raises(ShapeError, match="r"):
        siconos_.audit(path, answer=np.zeros(7))
    with pytest.raises(NonFiniteError):
        siconos_.audit(path, answer=np.full(12, np.nan))
    with pytest.raises(FileFormatError):
        siconos_.audit(path, answer=tmp_path / "missing.npz")
    np.savez(tmp_path / "wrong.npz", x=np.zeros(12))
    with pytest.raises(FileFormatError, match="r"):
        siconos_.audit(path, answer=tmp_path / "wrong.npz")
    np.savez(tmp_path / "short.npz", r=np.zeros(5))
    assert main(["audit", str(path), "--answer", str(tmp_path / "short.npz")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "r: has shape (5,)" in err[0]
    assert main(["audit", str(path), "--engine", "siconos:fc3d_nope"]) == 2
    assert main(["audit", str(path), "--engine", "drake"]) == 2


def test_answer_file_from_fclib_solution_and_cli_json(tmp_path, capsys):
    path = box_file(tmp_path)
    r = answer([W_BOX / 2, 0.0, 0.0, W_BOX / 2])
    fclib.save_solution(tmp_path / "answer.hdf5", r=r, u=np.zeros(12))
    assert main(["audit", str(path), "--answer", str(tmp_path / "answer.hdf5"), "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    st = js["states"][0]
    assert st["engine_answer"]["certified_solution"] is True
    assert [c["normal_force"]["range"][1] for c in st["contacts"]] == pytest.approx([W_BOX / 2] * 4, rel=1e-7)
    assert [c["normal_force"]["engine"] for c in st["contacts"]] == pytest.approx(list(r[0::3]))


def test_siconos_absent_is_a_typed_error(tmp_path, monkeypatch, capsys):
    from gaussqp.studies import peers

    monkeypatch.setenv("GAUSSQP_SICONOS_PYTHON", str(tmp_path / "no-python"))
    peers._importable.cache_clear()
    try:
        with pytest.raises(MissingExtraError, match="python3-siconos"):
            siconos_.audit(box_file(tmp_path), solver="fc3d_nsgs")
        assert main(["audit", str(box_file(tmp_path)), "--engine", "siconos"]) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    finally:
        peers._importable.cache_clear()


@needs_siconos
@pytest.mark.parametrize("solver", ["fc3d_nsgs", "fc3d_nsn_ac"])
@pytest.mark.parametrize("local", [False, True])
def test_siconos_on_the_box(tmp_path, solver, local):
    """Siconos's answer on the box: a certified solution, each corner inside [0, W/2], the sum W."""
    rep = siconos_.audit(box_file(tmp_path, local), solver=solver)
    st = rep.states[0]
    check_box_envelopes(st)
    assert rep.options["siconos"]["claimed_success"] is True
    assert st.engine_answer["certified_solution"] is True
    normals = [c.engine_normal for c in st.contacts]
    assert sum(normals) == pytest.approx(W_BOX, rel=1e-6)
    assert all(-1e-6 * W_BOX <= f <= W_BOX / 2 * (1 + 1e-6) for f in normals)
    assert not [f for f in st.flags if not f.startswith("envelope_not_certified")], st.flags


@needs_siconos
def test_siconos_cli_on_a_shipped_problem(capsys):
    """A generated FCLIB problem of the shipped set, through the CLI: one JSON object, Siconos's claim and our
    verdict on it side by side."""
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "problems/data/fclib_generated/chain-s0-i0006-m32-local.hdf5"
    code = main(["audit", str(path), "--engine", "siconos:fc3d_nsgs", "--json"])
    js = json.loads(capsys.readouterr().out)
    st = js["states"][0]
    assert code in (0, 1) and st["certified"] is True and len(st["contacts"]) == 32
    assert set(st["engine_answer"]) >= {"certified_solution", "judged_status", "residuals", "claimed_success"}
    if st["engine_answer"]["certified_solution"] and (st["engine_acceleration_gap"] or 0) > 1e-2:
        # another certified solution: a witness that the rigid answer is not unique, not an engine error
        assert st["acceleration_unique"] is False and st["acceleration"] is None
        assert any(f.startswith("several_rigid_solutions") for f in st["flags"])
        assert not any(f.startswith("outside_envelope") for f in st["flags"])


def test_a_local_problem_without_a_lift_is_audited_without_envelopes(tmp_path):
    """A non-symmetric W (gyroscopic terms, as FCLIB's Capsules) has no lift: the audit keeps what needs no envelope
    — our certified local answer, our judge's verdict on the engine's r, each contact's Coulomb residual — and says
    why the envelopes are missing, with no number made up for them."""
    from gaussqp.formulations.coulomb import condense

    cd = condense(box_problem())
    W = np.array(cd.W, dtype=float)
    W[0, 3] += 1e-3 * np.abs(W).max()
    loc = LocalContactProblem(W, cd.q, np.full(4, MU), 3, name="skewed box")
    t = 2 * MU * W_BOX / 4
    rep = siconos_.audit(loc, answer=answer([W_BOX / 4] * 4, [[t, 0], [t, 0], [-t, 0], [-t, 0]]))
    st = rep.states[0]
    assert st.certified and st.engine_acceleration_gap is None
    assert any(f.startswith("envelope_not_available: W: its asymmetry") for f in st.flags)
    assert all(c.normal_range == (None, None) and c.tangent_max is None for c in st.contacts)
    assert any(f.startswith("coulomb_violation: contact 0") for f in st.flags)
    assert st.engine_answer["certified_solution"] is False
    assert "not available" in rep.options["envelopes"]


@needs_siconos
def test_siconos_on_fclib_capsules_without_envelopes():
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "tests/data/fclib/Capsules-i125-1213.hdf5"
    rep = siconos_.audit(path, solver="fc3d_nsgs")
    st = rep.states[0]
    assert st.certified and len(st.contacts) == 286
    assert [f.split(":")[0] for f in st.flags] == ["envelope_not_available"]
    assert st.engine_answer["certified_solution"] is rep.options["siconos"]["claimed_success"] is True


@pytest.mark.parametrize("form", ["global", "local"])
def test_a_siconos_run_without_an_answer_is_an_error_state_not_an_audit(monkeypatch, form):
    """Siconos timed out (or crashed): the report has one error state saying so, for either form of the problem."""
    from gaussqp.formulations.coulomb import condense

    p = box_problem()
    if form == "local":
        cd = condense(p)
        p = LocalContactProblem(cd.W, cd.q, np.full(4, MU), 3)
    monkeypatch.setattr(siconos_, "run", lambda *a, **k: (None, {"solver": "fc3d_nsgs", "timeout": True}))
    rep = siconos_.audit(p, solver="fc3d_nsgs")
    (st,) = rep.states
    assert st.status == "error" and not st.certified
    assert st.flags == ["error: Siconos timed out"] and rep.engine == "fc3d_nsgs"


@pytest.mark.parametrize("unit", [1e-4, 1.0, 1e4])
@pytest.mark.parametrize(
    "W",
    [np.array([[0.0, 1e-6], [1e-6, 1.0]]), np.diag([1.0, -1e-11]), np.diag([1.0, -1e-3])],
    ids=["zero", "neg", "neg2"],
)
def test_a_w_that_is_not_psd_has_no_lift_in_any_unit(W, unit):
    """A zero diagonal entry with a nonzero row, or a negative one: refused whatever the unit (a scale-1 row had
    been judged in raw units, and such a W lifted as another problem)."""
    with pytest.raises(NotApplicableError, match="positive semidefinite"):
        siconos_.lift(LocalContactProblem(unit * W, np.array([0.0, 1.0]), np.array([0.5]), 2))
