"""The command line on robot models and FCLIB files: ``gaussqp import|info|solve MODEL``, each part skipped
visibly without its optional extra."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gaussqp.cli import main
from gaussqp.io.gaussqp_format import load


def one_error_line(capsys) -> str:
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if not ln.startswith("left out")]
    assert len(err) == 1, err
    return err[0]


# ------------------------------------------------------------------------------------------------ Pinocchio
@pytest.fixture
def box_urdf(tmp_path):
    pytest.importorskip("pinocchio", reason="needs the optional extra gaussqp[pinocchio]")
    from test_pinocchio import BOX_URDF, BOX_Z  # tests/io is on sys.path (pytest rootdir-relative import)

    f = tmp_path / "box.urdf"
    f.write_text(BOX_URDF)
    q = tmp_path / "q.txt"
    q.write_text(f"0 0 {BOX_Z / 2} 0 0 0 1")
    return f, q


def test_cli_imports_and_solves_a_urdf_at_a_state(box_urdf, tmp_path, capsys):
    f, q = box_urdf
    corners = sum((["--contact", f"corner{i}:mu=0.5"] for i in range(4)), [])
    out = tmp_path / "box.json"
    assert main(["import", str(f), "--floating-base", "--qpos", str(q), *corners, "-o", str(out)]) == 0
    assert "m=4" in capsys.readouterr().out
    p = load(out)
    assert p.n == 6 and p.m == 4 and set(p.modes) == {"sticking"}
    doc = json.loads(out.read_text())
    assert doc["source"] == "Pinocchio model box.urdf" and doc["parameters"]["contacts"][0] == "corner0:mu=0.5"
    assert main(["solve", str(f), "--floating-base", "--qpos", str(q), *corners, "--json"]) == 0
    sol = json.loads(capsys.readouterr().out)
    assert sol["status"] == "solved" and sum(sol["lambda_normal"]) == pytest.approx(2.0 * 9.81, rel=1e-8)
    assert np.allclose(sol["acceleration"], 0.0, atol=1e-9)


@pytest.mark.parametrize(
    "extra, field",
    [
        (["--contact", "no_such_frame"], "no_such_frame"),
        (["--contact", "corner0:mu=abc"], "abc"),
        (["--contact", "corner0:spherical"], "spherical"),
    ],
)
def test_cli_bad_contacts_exit_2(box_urdf, capsys, extra, field):
    f, q = box_urdf
    assert main(["info", str(f), "--floating-base", "--qpos", str(q), *extra]) == 2
    assert field in one_error_line(capsys)


def test_cli_wrong_state_size_exit_2(box_urdf, tmp_path, capsys):
    f, _ = box_urdf
    q = tmp_path / "short.txt"
    q.write_text("0 0 0.1")
    assert main(["info", str(f), "--floating-base", "--qpos", str(q), "--contact", "corner0"]) == 2
    assert "q" in one_error_line(capsys)


def test_cli_urdf_that_does_not_parse(tmp_path, capsys):
    pytest.importorskip("pinocchio", reason="needs the optional extra gaussqp[pinocchio]")
    f = tmp_path / "bad.urdf"
    f.write_text("<robot name='x'><link name='a'>")
    assert main(["info", str(f)]) == 2
    assert "bad.urdf" in one_error_line(capsys)


# ------------------------------------------------------------------------------------------------ MuJoCo
BOX_MJCF = """<mujoco><option cone='elliptic'/>
<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body name='box' pos='0 0 0.1'><freejoint/><geom name='box' type='box' size='.1 .2 .1' mass='2'/></body></worldbody>
<keyframe><key name='resting' qpos='0 0 0.1 1 0 0 0'/><key name='lifted' qpos='0 0 0.5 1 0 0 0'/></keyframe>
</mujoco>"""

FRICTIONLOSS_MJCF = """<mujoco><worldbody><body><joint name='knee' type='hinge' axis='0 1 0' frictionloss='0.1'/>
<geom type='capsule' fromto='0 0 0 1 0 0' size='0.1'/></body></worldbody></mujoco>"""


@pytest.fixture
def box_mjcf(tmp_path):
    pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")
    f = tmp_path / "box.xml"
    f.write_text(BOX_MJCF)
    return f


def test_cli_imports_and_solves_a_mujoco_model(box_mjcf, tmp_path, capsys):
    out = tmp_path / "box.json"
    assert main(["import", str(box_mjcf), "--keyframe", "resting", "--settle", "50", "-o", str(out)]) == 0
    p = load(out)
    assert p.n == 6 and p.m == 4 and p.dimension == 3
    doc = json.loads(out.read_text())
    assert doc["source"] == "MuJoCo model box.xml" and doc["parameters"]["keyframe"] == "resting"
    capsys.readouterr()
    assert main(["solve", str(out), "--json"]) == 0
    sol = json.loads(capsys.readouterr().out)
    assert sol["status"] == "solved" and sum(sol["lambda_normal"]) == pytest.approx(2.0 * 9.81, rel=1e-6)
    assert main(["info", str(box_mjcf), "--keyframe", "resting", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["reader"] == "mujoco" and info["n"] == 6


def test_cli_mujoco_bad_input_exit_2(box_mjcf, tmp_path, capsys):
    assert main(["info", str(box_mjcf), "--keyframe", "flying"]) == 2
    assert "keyframe" in one_error_line(capsys)
    f = tmp_path / "knee.xml"
    f.write_text(FRICTIONLOSS_MJCF)
    assert main(["solve", str(f)]) == 2
    assert "knee" in one_error_line(capsys)
    assert main(["info", str(f), "--frictionloss", "ignore"]) == 0
    assert "left out" in capsys.readouterr().err
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body>")
    assert main(["info", str(bad)]) == 2
    assert "bad.xml" in one_error_line(capsys)


# ------------------------------------------------------------------------------------------------ FCLIB
def test_cli_import_writes_fclib_and_gaussqp_files(tmp_path, capsys):
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib]")
    from pathlib import Path

    from gaussqp.io import fclib

    src = (
        Path(__file__).resolve().parents[1] / "data" / "fclib" / "Box_Stacks-i0035-31-0.hdf5"
    )  # a symmetric M: global (CubeH8 reads as local, issue #25 item 2)
    out = tmp_path / "cube.hdf5"
    assert main(["import", str(src), "-o", str(out)]) == 0
    a, b = fclib.load(src), fclib.load(out)
    assert np.array_equal(
        np.asarray(a.J_n.todense() if a.sparse else a.J_n), np.asarray(b.J_n.todense() if b.sparse else b.J_n)
    )
    assert main(["import", str(src), "-o", str(tmp_path / "cube.npz")]) == 0
    local = Path(__file__).resolve().parents[1] / "data" / "fclib" / "local_problem_test.hdf5"
    capsys.readouterr()
    assert main(["import", str(local), "-o", str(tmp_path / "local.json")]) == 2
    assert ".hdf5" in one_error_line(capsys)
    assert main(["import", str(local), "-o", str(tmp_path / "local.hdf5")]) == 0
