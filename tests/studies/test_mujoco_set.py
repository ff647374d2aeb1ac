"""A study over states of a MuJoCo model (issue #14 item 1: states imported from a MuJoCo model)."""

from __future__ import annotations

import pytest

mujoco = pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")
pytest.importorskip("pandas", reason="studies need the optional extra gaussqp[studies]")

from gaussqp.cli import main  # noqa: E402
from gaussqp.studies import parse_set  # noqa: E402
from gaussqp.studies.report import load_table  # noqa: E402

BOX = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="5 5 .1"/>
<body pos="0 0 0.1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1" friction="0.5"/></body>
</worldbody></mujoco>"""


def test_states_of_a_model_are_a_set_and_a_study_runs_on_them(tmp_path, capsys):
    xml = tmp_path / "box.xml"
    xml.write_text(BOX)
    pset = parse_set(f"mujoco:{xml}:3")
    items = list(pset)
    assert [pid for pid, _ in items] == ["box@0", "box@1", "box@2"]
    assert all(p.n == 6 and p.m >= 1 for _, p in items)
    out = tmp_path / "cv"
    assert (
        main(
            [
                "crossval",
                f"mujoco:{xml}:3",
                "--formulations",
                "gauss_qp,sticking_socp,coulomb_fixed_point",
                "--solvers",
                "clarabel",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    table = load_table(out)
    assert set(table["problem"]) == {"box@0", "box@1", "box@2"} and (table["status"] == "solved").any()
    assert (out / "problems").exists()  # the generated problems are saved for the reproducing commands


def test_a_missing_model_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["crossval", f"mujoco:{tmp_path / 'none.xml'}", "--out", str(tmp_path / "o")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
