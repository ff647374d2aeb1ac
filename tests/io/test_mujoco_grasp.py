"""A grasp straight from a MuJoCo state (issue #30 item 2): two fingertips pinching a box, imported as a grasp;
contacts, normals and μ against MuJoCo's ``data.contact``; closure and hold verdicts against statics by hand."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import docs_text  # tests/docs_text.py: a section of the README or the site

mujoco = pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")

from gaussqp.cli import main as cli  # noqa: E402
from gaussqp.errors import UnknownValueError  # noqa: E402
from gaussqp.grasp import equilibrium, force_closure, grasp_from_mujoco, hand_equilibrium  # noqa: E402
from gaussqp.io.mujoco import load_mujoco, read_grasp  # noqa: E402
from gaussqp.problems.mjcf_scenes import PINCH_GRASP  # noqa: E402

SCENE = PINCH_GRASP
MASS, G = 0.2, 9.81


def scene(tmp_path, condim: int = 3, mu: float = 0.8, torsional: float = 0.01) -> pathlib.Path:
    """The pinch scene written here with its friction and condim changed (:data:`gaussqp.problems.mjcf_scenes.PINCH_GRASP`)."""
    text = SCENE.read_text().replace(
        'friction="0.8 0.01 0.0001" condim="3"', f'friction="{mu} {torsional} 0.0001" condim="{condim}"'
    )
    p = tmp_path / f"pinch_{condim}_{mu}.xml"
    p.write_text(text)
    return p


def test_contacts_normals_and_friction_are_mujocos():
    model, data = load_mujoco(SCENE, keyframe="pinch")
    imp = read_grasp(model, data, "box")
    g = grasp_from_mujoco(model, data, "box")
    assert g.m == data.ncon == 2 and imp.hand_joints == ("left", "right") and imp.mass == pytest.approx(MASS)
    com = data.xipos[model.body("box").id]
    for c, src in zip(g.contacts, imp.sources):
        con = data.contact[src.mujoco_id]
        np.testing.assert_allclose(c.position, con.pos - com, atol=1e-12)
        box_is_geom2 = model.geom_bodyid[con.geom[1]] == model.body("box").id
        np.testing.assert_allclose(c.normal, con.frame[:3] if box_is_geom2 else -con.frame[:3], atol=1e-12)
        assert c.friction == con.friction[0] == 0.8 and c.kind == "hard" and src.condim == con.dim == 3
        # inward: from the fingertip into the box
        tip = data.xpos[model.body(src.other_body).id]
        assert float(c.normal @ (com - tip)) > 0
    np.testing.assert_allclose(g.wrench, [0, 0, -MASS * G, 0, 0, 0], atol=1e-12)
    # hand: a slide joint along ±x moves its tip along the inward normal, not along the tangents
    np.testing.assert_allclose(np.abs(g.hand.jacobian), [[1, 0], [0, 0], [0, 0], [0, 1], [0, 0], [0, 0]], atol=1e-12)
    np.testing.assert_allclose(g.hand.torque_limits, [20.0, 20.0])


def test_verdicts_against_statics_by_hand(tmp_path):
    """Two opposed hard fingers: no closure (the torque about the line joining them is the certificate), the weight
    is held whenever μ > 0 (squeeze harder), and with the joints' 20 N limit iff 2 μ 20 >= m g."""
    for mu, holds in ((0.8, True), (0.04, False)):  # 2 μ τ = 32 N or 1.6 N against m g = 1.962 N
        model, data = load_mujoco(scene(tmp_path, mu=mu), keyframe="pinch")
        g = grasp_from_mujoco(model, data, "box")
        fc = force_closure(g)
        assert fc.holds is False and fc.certified
        y = fc.value["unresisted_wrench"]
        np.testing.assert_allclose(np.abs(y) / np.linalg.norm(y), [0, 0, 0, 1, 0, 0], atol=1e-9)
        assert equilibrium(g).holds is True
        h = hand_equilibrium(g)
        assert h.holds is holds and h.certified


def test_dynamic_hold_against_statics_by_hand(tmp_path):
    """The motors squeeze with 10 N each (the keyframe's ctrl): every contact sticks iff 2 μ 10 N >= m g, i.e.
    μ >= μ_min = m g / 20 N = 0.0981; MuJoCo's M and F of the hand carry the squeeze."""
    from gaussqp.grasp import dynamic_check
    from gaussqp.grasp.simulator import grasp_of_reading

    for mu, holds in ((0.8, True), (0.04, False)):
        model, data = load_mujoco(scene(tmp_path, mu=mu), keyframe="pinch")
        r = read_grasp(model, data, "box")
        np.testing.assert_allclose(r.hand_force, [-10.0, -10.0])
        np.testing.assert_allclose(np.diag(r.object_mass_matrix), [MASS] * 3 + [MASS * 0.06**2 / 6] * 3)
        dyn = dynamic_check(grasp_of_reading(r), object_mass_matrix=r.object_mass_matrix)
        assert dyn.holds is holds and dyn.certified
        assert dyn.value["mu_min"] == pytest.approx(MASS * G / 20.0, rel=1e-9)
        if holds:
            np.testing.assert_allclose(dyn.value["lambda_normal"], [10.0, 10.0], rtol=1e-9)


def test_soft_fingers_close_the_grasp(tmp_path):
    model, data = load_mujoco(scene(tmp_path, condim=4), keyframe="pinch")
    g = grasp_from_mujoco(model, data, "box")
    assert [c.kind for c in g.contacts] == ["soft", "soft"]
    assert [c.torsional_friction for c in g.contacts] == [0.01, 0.01]
    assert g.hand.jacobian.shape == (8, 2)
    fc = force_closure(g)
    assert fc.holds is True and fc.certified


def test_settled_state_still_holds():
    model, data = load_mujoco(SCENE, keyframe="pinch", settle=200)
    g = grasp_from_mujoco(model, data, "box")
    assert g.m == 2 and hand_equilibrium(g).holds is True


def test_bad_body_and_no_contacts():
    model, data = load_mujoco(SCENE, keyframe="pinch")
    with pytest.raises(UnknownValueError, match=r"object_body: is 'bx', not a body.*use one of \['box'"):
        grasp_from_mujoco(model, data, "bx")
    qpos = data.qpos.copy()
    qpos[7] = qpos[8] = -0.02  # both fingers pulled back
    model, data = load_mujoco(SCENE, qpos=qpos)
    with pytest.raises(UnknownValueError, match="touches nothing"):
        grasp_from_mujoco(model, data, "box")


def test_cli(capsys):
    assert cli(["grasp", str(SCENE), "--object", "box", "--keyframe", "pinch"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("grasp pinch:box: 2 contacts (hard)") and "hand equilibrium         yes" in out
    assert "dynamic hold (M, F)      yes        certified" in out
    assert cli(["grasp", str(SCENE), "--object", "bx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a body" in err[0]
    assert cli(["grasp", str(SCENE)]) == 2
    assert "--object" in capsys.readouterr().err


def test_readme_mujoco_grasp_example_runs(capsys, monkeypatch):
    section = docs_text.section("Grasps from a MuJoCo state")  # the grasps page of the site
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "docs[mujoco grasp]", "exec"), {})
    said = re.search(r"It prints `(.*?)`", section)
    assert said and said.group(1) == capsys.readouterr().out.splitlines()[0]


def test_cli_qpos_file(tmp_path, capsys):
    """``--qpos FILE`` (.npy or a JSON list) gives the keyframe's grasp when it holds the keyframe's configuration;
    only the dynamic hold differs: a configuration carries no controls, so the motors do not squeeze and nothing
    holds the weight (statics by hand: no normal force, no friction). Fingers pulled back: nothing touches the
    object (exit 2, one line); a wrong length: exit 2."""
    model, data = load_mujoco(SCENE, keyframe="pinch")
    qpos = np.array(data.qpos, dtype=float)
    assert cli(["grasp", str(SCENE), "--object", "box", "--keyframe", "pinch"]) == 0
    want = capsys.readouterr().out.splitlines()
    dynamic = [k for k, line in enumerate(want) if line.lstrip().startswith("dynamic hold")]
    assert len(dynamic) == 1 and "yes        certified" in want[dynamic[0]]
    npy, js = tmp_path / "q.npy", tmp_path / "q.json"
    np.save(npy, qpos)
    js.write_text("[" + ", ".join(repr(float(v)) for v in qpos) + "]")
    for f in (npy, js):
        assert cli(["grasp", str(SCENE), "--object", "box", "--qpos", str(f)]) == 0
        got = capsys.readouterr().out.splitlines()
        assert [x for k, x in enumerate(got) if k != dynamic[0]] == [x for k, x in enumerate(want) if k != dynamic[0]]
        assert re.search(r"dynamic hold \(M, F\)\s+no\s+certified", got[dynamic[0]])
    back = qpos.copy()
    back[7] = back[8] = -0.02  # both fingers pulled back
    np.save(npy, back)
    assert cli(["grasp", str(SCENE), "--object", "box", "--qpos", str(npy)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "touches nothing" in err[0]
    np.save(npy, qpos[:-1])
    assert cli(["grasp", str(SCENE), "--object", "box", "--qpos", str(npy)]) == 2
    assert "qpos" in capsys.readouterr().err


def test_three_fingers_on_a_ball_against_mujoco_and_statics(tmp_path):
    """Three fingertips at 120° squeezing a ball (:data:`gaussqp.problems.mjcf_scenes.THREE_FINGER_GRASP`): the
    contacts against MuJoCo's ``data.contact`` (position from the ball's centre, inward normal toward the centre, μ);
    statics by hand: closure (three hard fingers at 120°), the weight held under the 20 N limits (3 μ 20 N >= m g),
    and with the keyframe's 10 N squeezes every contact sticks with normal force 10 N and μ_min = m g / 30 N."""
    from gaussqp.grasp import dynamic_check
    from gaussqp.grasp.simulator import grasp_of_reading
    from gaussqp.problems.mjcf_scenes import THREE_FINGER_GRASP

    model, data = load_mujoco(THREE_FINGER_GRASP, keyframe="grip")
    r = read_grasp(model, data, "ball")
    g = grasp_of_reading(r)
    assert g.m == data.ncon == 3 and r.hand_joints == ("f0", "f1", "f2") and r.mass == pytest.approx(MASS)
    com = data.xipos[model.body("ball").id]
    for c, src in zip(g.contacts, r.sources):
        con = data.contact[src.mujoco_id]
        np.testing.assert_allclose(c.position, con.pos - com, atol=1e-12)
        ball_is_geom2 = model.geom_bodyid[con.geom[1]] == model.body("ball").id
        np.testing.assert_allclose(c.normal, con.frame[:3] if ball_is_geom2 else -con.frame[:3], atol=1e-12)
        assert c.friction == con.friction[0] == 0.8 and c.kind == "hard"
        # by hand: the normal points from the contact to the ball's centre, in the horizontal plane
        np.testing.assert_allclose(c.normal, -c.position / np.linalg.norm(c.position), atol=1e-3)
        assert abs(c.normal[2]) < 1e-12
    fc = force_closure(g)
    assert fc.holds is True and fc.certified
    assert hand_equilibrium(g).holds is True
    dyn = dynamic_check(g, object_mass_matrix=r.object_mass_matrix)
    assert dyn.holds is True and dyn.certified
    np.testing.assert_allclose(dyn.value["lambda_normal"], [10.0] * 3, rtol=1e-6)
    assert dyn.value["mu_min"] == pytest.approx(MASS * G / 30.0, rel=1e-6)
    # μ = 0.03: 3 μ 20 N = 1.8 N < m g = 1.962 N, the weight is not held even at the limits; μ_min = 0.0654 > μ
    slippery = tmp_path / "three_finger_slippery.xml"
    slippery.write_text(THREE_FINGER_GRASP.read_text().replace('friction="0.8 ', 'friction="0.03 '))
    model, data = load_mujoco(slippery, keyframe="grip")
    r = read_grasp(model, data, "ball")
    g = grasp_of_reading(r)
    assert force_closure(g).holds is True  # closure is a cone property: any μ > 0 with three fingers at 120°
    h = hand_equilibrium(g)
    assert h.holds is False and h.certified
    dyn = dynamic_check(g, object_mass_matrix=r.object_mass_matrix)
    assert dyn.holds is False and dyn.certified
