"""`gaussqp grasp` and gaussqp.grasp.analyze (issue #13 items 4–5)."""

from __future__ import annotations

import json

import pytest

from gaussqp.cli import main
from gaussqp.grasp import analyze, dump
from gaussqp.problems import grasps


def test_json_has_the_issue_keys_and_exit_0_for_a_certified_answer_either_way(capsys):
    for name, closure in (("sphere_three_fingers", True), ("parallel_jaw_hard", False)):
        assert main(["grasp", name, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["force_closure"]["holds"] is closure and d["force_closure"]["certificate"]["holds"] is True
        assert {"holds", "margin", "certificate"} <= set(d["force_closure"])
        assert {"holds", "certificate"} <= set(d["form_closure"])
        assert {"lower", "upper", "facets"} <= set(d["epsilon"]) and d["epsilon"]["facets"] == 8
        assert (d["epsilon"]["lower"] > 0) is closure and d["epsilon"]["lower"] <= d["epsilon"]["upper"]
        assert isinstance(d["internal_forces"]["dimension"], int)
        assert d["equilibrium"]["holds"] is True and "forces" in d["equilibrium"]


def test_a_file_the_table_and_the_plot(tmp_path, capsys):
    f = tmp_path / "g.json"
    dump(grasps.load("three_finger_planar"), f)
    png = tmp_path / "g.png"
    pytest.importorskip("matplotlib", reason="the plot needs the optional extra gaussqp[plots]")
    assert main(["grasp", str(f), "--facets", "16", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "force closure            yes        certified" in out and png.stat().st_size > 10_000


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "bad.json"
    f.write_text('{"format": "gaussqp-grasp/1", "contacts": [{"position": [0, 0], "normal": [0, 0]}]}')
    assert main(["grasp", str(f)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "contacts[0].normal" in err[0]
    assert main(["grasp", "no_such_grasp"]) == 2
    assert main(["grasp", "three_finger_planar", "--facets", "2"]) == 2


def test_analyze_runs_the_hand_checks_when_a_hand_is_given():
    rep = analyze(grasps.load("hard_finger_pair"))
    assert {"hand_closure", "hand_equilibrium", "equilibrium"} <= set(rep.checks) and rep.certified
    assert rep.to_dict()["hand_equilibrium"]["holds"] is True


def test_readme_grasp_section_runs_and_prints_what_it_says(capsys):
    import re

    from docs_text import section as doc_section

    section = doc_section("Grasps (`gaussqp.grasp`, `gaussqp grasp FILE`)")
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    exec(compile(code, "README[grasps]", "exec"), {})
    assert capsys.readouterr().out.splitlines() == [
        "True True grasp_force_closure_interior",
        "ε in [0.2868, 0.2877]",
        "False [0. 0. 0. 1. 0. 0.]",
        "True",
    ]
    shown = re.findall(r"```(?:console)?\n\$ gaussqp grasp parallel_jaw_soft\n(.*?)```", section, flags=re.S)[
        0
    ].splitlines()
    assert main(["grasp", "parallel_jaw_soft"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:4] for line in out] == [line.split()[:4] for line in shown]


def test_facets_beyond_the_cap_are_one_line_and_exit_2(capsys):
    # review: --facets 100000 allocated 671 GiB in a traceback, --facets 1000 ran for minutes
    assert main(["grasp", "sphere_three_fingers", "--facets", "100000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "facets" in err[0] and "GRASP_FACETS_MAX" in err[0]


def test_json_equilibrium_forces_are_physical(capsys):
    # review: the forces were the cone coordinates (f_t/μ), 1.635 where the finger carries 0.981 N
    assert main(["grasp", "parallel_jaw_soft", "--json"]) == 0
    eq = json.loads(capsys.readouterr().out)["equilibrium"]
    g = grasps.load("parallel_jaw_soft")
    total = sum(abs(f["tangential"][k]) for f in eq["forces"] for k in range(2))
    assert total == pytest.approx(float(abs(g.wrench[2])), rel=1e-6)  # the two fingers carry the weight
