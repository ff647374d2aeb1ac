"""gaussqp.audit on MuJoCo (issue #29 items 2 and 4): closed forms — the four-legged table, the box on a ramp above and
below tan θ, the pinched object that creeps in MuJoCo — both cones, condim 1/3/4/6, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

import gaussqp  # noqa: E402
from gaussqp.audit import audit  # noqa: E402
from gaussqp.cli import main  # noqa: E402
from gaussqp.errors import FileFormatError, NonFiniteError, ShapeError, WrongTypeError  # noqa: E402

from gaussqp.problems.mjcf_scenes import G, TABLE_W, pinch_xml, ramp_xml, table_xml  # noqa: E402


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_table_on_four_legs(tmp_path, cone):
    """Ranges [0, W/2] per leg; MuJoCo's ≈ W/4 inside; its forces satisfy Coulomb; a = 0."""
    rep = audit(write(tmp_path, "t.xml", table_xml(cone)), settle=400, steps=3)
    for s in rep.states:
        assert s.status == "solved" and s.certified and s.envelopes_certified
        assert s.unique_forces is False
        assert np.allclose(s.acceleration, 0, atol=1e-8)
        assert len(s.contacts) == 4
        for c in s.contacts:
            assert c.mode == "sticking"
            assert c.normal_range[0] == pytest.approx(0, abs=1e-7 * TABLE_W)
            assert c.normal_range[1] == pytest.approx(TABLE_W / 2, rel=1e-7)
            assert c.engine_normal == pytest.approx(TABLE_W / 4, rel=1e-3)
            assert c.envelope_distance == 0.0 and c.engine_coulomb_residual < 1e-6 and not c.creep
        assert not s.flags, s.flags


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
@pytest.mark.parametrize("mu", [0.7, 0.3])
def test_box_on_a_ramp(tmp_path, cone, mu):
    """θ = 25°, the box at rest on the ramp (1e-5 into it): μ = 0.7 > tan θ sticks with a = 0; μ = 0.3 < tan θ slides
    with a = g (sin θ − μ cos θ) downhill, no rotation. Settled by MuJoCo, the sticking box creeps down the ramp:
    reported as creep, with the rigid hold margin."""
    theta = math.radians(25)
    rep = audit(write(tmp_path, "r.xml", ramp_xml(25, mu, cone, h=0.1 - 1e-5)))
    down = np.array([math.cos(theta), 0.0, -math.sin(theta)])
    s = rep.states[0]
    assert s.status == "solved" and s.certified and len(s.contacts) == 4
    if mu > math.tan(theta):
        assert np.allclose(s.acceleration, 0, atol=1e-7)
        assert {c.mode for c in s.contacts} == {"sticking"}
        assert all(c.hold_margin is not None and c.hold_margin > 0 for c in s.contacts)
        settled = audit(write(tmp_path, "r.xml", ramp_xml(25, mu, cone)), settle=300).states[0]
        assert settled.certified and np.allclose(settled.acceleration, 0, atol=1e-7)
        assert all(c.creep for c in settled.contacts) and not any("coulomb_violation" in f for f in settled.flags)
    else:
        assert s.acceleration[:3] == pytest.approx(G * (math.sin(theta) - mu * math.cos(theta)) * down, abs=1e-6)
        assert np.allclose(s.acceleration[3:], 0, atol=1e-6)
        assert {c.mode for c in s.contacts} == {"sliding"}
        # each corner's friction is μ times its normal force; the normal loads sum to m g cos θ
        assert sum(c.normal_attained[0] for c in s.contacts) <= G * math.cos(theta) + 1e-6
        assert all(c.tangent_max == pytest.approx(mu * c.normal_range[1], rel=1e-7) for c in s.contacts)


@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_pinched_object_holds_at_the_closed_form_margin_and_mujoco_creeps(cone):
    mu, N, m = 1.0, 1.0, 0.1
    model = mujoco.MjModel.from_xml_string(pinch_xml(mu, N, m, cone))
    rep = audit(model, keyframe="grip", settle=200, steps=20, every=10)
    for s in rep.states:
        assert s.status == "solved" and s.certified and s.unique_forces
        assert np.allclose(s.acceleration, 0, atol=1e-8)  # rigid: friction holds it
        assert len(s.contacts) == 2
        for c in s.contacts:
            assert c.mode == "sticking"  # not a rigid slip
            assert c.normal_range == pytest.approx((N, N), rel=1e-8)
            assert c.tangent_max == pytest.approx(m * G / 2, rel=1e-4)
            assert c.hold_margin == pytest.approx(mu * N - m * G / 2, rel=1e-6)
            assert c.creep and c.tangential_speed > 1e-3  # MuJoCo's soft contact lets it slide down
            assert any(f.startswith("creep") for f in c.flags)
            assert not any(f.startswith("coulomb_violation") for f in c.flags)
        assert any(f.startswith("creep") for f in s.flags)
    assert rep.summary()["creeping_contacts"] == 2 * len(rep.states)


@pytest.mark.parametrize("condim", [1, 3, 4, 6])
@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_condims_and_cones(tmp_path, condim, cone):
    rep = audit(write(tmp_path, "t.xml", table_xml(cone, condim)), settle=400, steps=1)
    s = rep.states[-1]
    assert s.status == "solved" and s.certified
    for c in s.contacts:
        assert c.normal_range[0] <= c.engine_normal <= c.normal_range[1]
        assert c.engine_normal == pytest.approx(TABLE_W / 4, rel=1e-2)
        assert c.mode == ("frictionless" if condim == 1 else "sticking")
        assert c.engine_coulomb_residual < 1e-6
    assert not [f for f in s.flags if not f.startswith("acceleration_gap")]


def test_an_engine_force_outside_the_envelope_is_flagged(tmp_path, monkeypatch):
    """The audit can fail: MuJoCo's normal forces doubled are outside [0, W/2] for some leg and break Coulomb."""
    from gaussqp.audit import core

    real = core.audit_state

    def doubled(state, **kw):
        for c in state.contacts:
            c.engine_normal *= 2.5
        return real(state, **kw)

    monkeypatch.setattr(core, "audit_state", doubled)
    rep = audit(write(tmp_path, "t.xml", table_xml()), settle=400)
    s = rep.states[0]
    assert all(any(f.startswith("outside_envelope") for f in c.flags) for c in s.contacts)


def test_json_contract_and_cli(tmp_path, capsys):
    path = write(tmp_path, "t.xml", table_xml())
    code = main(["audit", str(path), "--settle", "400", "--steps", "2", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0
    s = d["states"][0]
    for key in (
        "time",
        "status",
        "certified",
        "acceleration",
        "unique_forces",
        "engine_acceleration_gap",
        "contacts",
        "flags",
    ):
        assert key in s
    c = s["contacts"][0]
    assert c["geoms"] == ["floor", "leg1"] and c["mode"] == "sticking"
    assert set(c["normal_force"]) >= {"engine", "range"} and set(c["tangent_force"]) >= {"engine", "max"}
    assert "engine_coulomb_residual" in c
    assert d["summary"]["states"] == 3
    out = tmp_path / "rep"
    assert main(["audit", str(path), "--settle", "400", "--steps", "2", "--report", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "3 states, 3 certified" in text
    for name in ("report.html", "timeline.png", "audit.json"):
        assert (out / name).stat().st_size > 0
    assert (out / "contacts.parquet").exists() or (out / "contacts.csv").exists()


def test_recorded_rollout(tmp_path):
    model = mujoco.MjModel.from_xml_string(table_xml())
    data = mujoco.MjData(model)
    qpos, qvel = [], []
    mujoco.mj_step(model, data, 400)
    for _ in range(3):
        mujoco.mj_step(model, data, 50)
        qpos.append(np.array(data.qpos))
        qvel.append(np.array(data.qvel))
    rec = tmp_path / "rec.npz"
    np.savez(rec, qpos=np.array(qpos), qvel=np.array(qvel))
    rep = audit(write(tmp_path, "t.xml", table_xml()), recording=rec)
    assert len(rep.states) == 3 and all(s.certified and len(s.contacts) == 4 for s in rep.states)
    csv = tmp_path / "rec.csv"
    head = [f"qpos_{j}" for j in range(model.nq)] + [f"qvel_{j}" for j in range(model.nv)]
    csv.write_text(
        ",".join(head)
        + "\n"
        + "\n".join(",".join(repr(float(x)) for x in list(a) + list(b)) for a, b in zip(qpos, qvel))
        + "\n"
    )
    rep2 = audit(write(tmp_path, "t.xml", table_xml()), recording=csv)
    assert [s.contacts[0].engine_normal for s in rep2.states] == pytest.approx(
        [s.contacts[0].engine_normal for s in rep.states], rel=1e-9
    )


def test_bad_input(tmp_path, capsys):
    bad = write(tmp_path, "bad.xml", "<mujoco><worldbody><geom type='nonsense'/></worldbody></mujoco>")
    with pytest.raises(FileFormatError):
        audit(bad)
    good = write(tmp_path, "t.xml", table_xml())
    rec = tmp_path / "rec.npz"
    np.savez(rec, qpos=np.zeros((2, 5)), qvel=np.zeros((2, 6)))
    with pytest.raises(ShapeError, match="qpos"):
        audit(good, recording=rec)
    nan = tmp_path / "nan.npz"
    q = np.tile([0, 0, 0.52, 1, 0, 0, 0], (2, 1)).astype(float)
    q[1, 2] = np.nan
    np.savez(nan, qpos=q, qvel=np.zeros((2, 6)))
    with pytest.raises(NonFiniteError):
        audit(good, recording=nan)
    # found by a new user's trial: an empty recording (a traceback), one without velocities (audited at rest)
    empty, header, noqvel = tmp_path / "empty.npz", tmp_path / "header.csv", tmp_path / "noqvel.npz"
    np.savez(empty, qpos=np.zeros((0, 7)), qvel=np.zeros((0, 6)))
    header.write_text("qpos_0,qpos_1,qpos_2,qpos_3,qpos_4,qpos_5,qpos_6\n")
    np.savez(noqvel, qpos=q[:1])
    with pytest.raises(ShapeError, match="no state"):
        audit(good, recording=empty)
    with pytest.raises(FileFormatError, match="no state"):
        audit(good, recording=header)
    with pytest.raises(ShapeError, match="no qvel"):
        audit(good, recording=noqvel)
    with pytest.raises(ShapeError, match="no qvel"):
        audit(good, recording={"qpos": np.zeros((0, 7))})
    for field_name, value in (("every", 0), ("workers", -1), ("settle", -3), ("every", 1.5), ("settle", True)):
        with pytest.raises(WrongTypeError) as err:
            audit(good, **{field_name: value})
        assert err.value.field == field_name
    assert "frictionloss" in audit(good).options and "frictionless" not in audit(good).options
    import mujoco

    with pytest.raises(ShapeError, match="qpos"):  # a model object's state is checked as a file's is
        audit(mujoco.MjModel.from_xml_path(str(good)), qpos=[1.0, 2.0, 3.0])
    for argv in (
        ["audit", str(bad)],
        ["audit", str(good), "--recording", str(rec)],
        ["audit", str(good), "--recording", str(nan)],
        ["audit", str(good), "--recording", str(empty)],
        ["audit", str(good), "--recording", str(header)],
        ["audit", str(good), "--recording", str(noqvel)],
        ["audit", str(tmp_path / "missing.xml")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("gaussqp: error:")


def test_gaussqp_audit_is_callable():
    assert callable(gaussqp.audit)
    import gaussqp.audit as mod

    assert callable(mod) and gaussqp.audit is mod


def test_process_pool_gives_the_serial_answers(tmp_path):
    path = write(tmp_path, "t.xml", table_xml())
    serial = audit(path, settle=400, steps=3)
    pooled = audit(path, settle=400, steps=3, workers=2)
    assert [s.step for s in pooled.states] == [0, 1, 2, 3]
    for a, b in zip(serial.states, pooled.states):
        assert a.status == b.status and a.flags == b.flags
        assert np.allclose(
            [c.normal_range for c in a.contacts], [c.normal_range for c in b.contacts], rtol=1e-6, atol=1e-8
        )


def test_dask_local_cluster_gives_the_serial_answers(tmp_path):
    pytest.importorskip("dask.distributed", reason="needs the optional extra gaussqp[dask]")
    path = write(tmp_path, "t.xml", table_xml())
    serial = audit(path, settle=400, steps=2)
    dasked = audit(path, settle=400, steps=2, workers=2, scheduler="local")
    assert [s.step for s in dasked.states] == [0, 1, 2]
    assert [s.flags for s in dasked.states] == [s.flags for s in serial.states]


def test_a_hinged_lever_on_the_floor_is_certified_with_its_friction_bound(tmp_path):
    """A bar hinged in the air, its tip resting on the floor (a new user's model): one contact with MuJoCo's zero
    tangent row dropped (a planar problem), seen with the engine's two tangents. The audit flagged
    ``envelope_not_certified`` while ``gaussqp solve --ranges`` certified every bound: the support in the engine's
    direction the set does not reach had a zero objective whose dual did not verify. Now certified, not flagged; the
    friction maximum is μ times the normal maximum of the tip."""
    xml = write(
        tmp_path,
        "lever.xml",
        """<mujoco><option gravity='0 0 -9.81' cone='elliptic'/><worldbody>
<geom name='floor' type='plane' size='5 5 .1' friction='0.5 0.005 0.0001'/>
<body name='bar' pos='0 0 0.52' euler='0 30.0 0'>
  <joint name='hinge' type='hinge' axis='0 1 0'/>
  <inertial pos='0.5 0 0' mass='1.0' diaginertia='0.001 0.08333333333333333 0.08333333333333333'/>
  <geom type='capsule' fromto='0 0 0 1.0 0 0' size='.01' contype='0' conaffinity='0' mass='0'/>
  <geom name='tip' type='sphere' pos='1.0 0 0' size='0.02' mass='0' margin='0.001' friction='0.5 0.005 0.0001'/>
</body></worldbody>
<actuator><motor name='m' joint='hinge'/></actuator></mujoco>""",
    )
    rep = audit(xml, settle=200)
    st = rep.states[0]
    assert st.certified and st.envelopes_certified and "envelope_not_certified" not in st.flags, st.flags
    c = st.contacts[0]
    assert c.tangent_max == pytest.approx(0.5 * c.normal_range[1], rel=1e-6)
