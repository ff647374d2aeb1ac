"""The command line: solve/check/list/formulations, JSON output, exit codes."""

import json

import numpy as np

import gaussqp
from gaussqp.cli import main
from gaussqp.problems import families

KEYS = {
    "status",
    "formulation",
    "solver",
    "acceleration",
    "lambda_normal",
    "lambda_tangent",
    "generalized_force",
    "residuals",
    "unique",
    "certificates",
    "crosscheck",
}


def test_solve_default_human(capsys):
    assert main(["solve"]) == 0
    out = capsys.readouterr().out
    assert "rod_wall_guide" in out and "certified" in out and "C6" in out


def test_solve_json(capsys):
    assert main(["solve", "hyperstatic_block", "--json", "--solver", "osqp"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert KEYS <= set(doc)
    assert set(doc["residuals"]) == {"dynamics", "primal", "dual", "complementarity"}
    assert set(doc["unique"]) == {"acceleration", "generalized_force", "multipliers"}
    assert doc["unique"]["multipliers"] is False and doc["solver"] == "osqp"
    assert len(doc["lambda_normal"]) == 3 and doc["lambda_tangent"] == [[], [], []]
    assert {"id", "source", "holds", "margin", "implies"} <= set(doc["certificates"][0])
    assert {"formulation", "acceleration_gap", "generalized_force_gap", "agree"} <= set(doc["crosscheck"])


def test_solve_infeasible_file_is_certified(tmp_path, capsys):
    path = tmp_path / "inf.json"
    gaussqp.dump(families.infeasible(np.random.default_rng(0)), path)
    assert main(["solve", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "infeasible" and any(c["id"] == "farkas" and c["holds"] for c in doc["certificates"])


def test_check_list_formulations(capsys):
    assert main(["check", "singular_pendulum", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["system_class"]["mass"] == "singular"
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "two_mass_spring" in out
    from gaussqp import problems

    assert problems.generated_names() and all(f"  {n}\n" in out for n in problems.generated_names())
    assert main(["formulations"]) == 0
    out = capsys.readouterr().out
    assert "lcp_lemke" in out and "clarabel" in out


def test_bad_input_one_line_nonzero(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "gaussqp/1", "mass_matrix": [[1, 2], [0, 1]], "force": [0, 0], "contacts": []}')
    assert main(["solve", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mass_matrix" in err[0] and "symmetric" in err[0]
    assert main(["solve", "no_such_problem"]) == 2


def test_json_stdout_is_clean_of_c_library_prints(tmp_path):
    """OSQP 1.x prints "Polishing not needed" from C when no constraint is active (here: the
    bilateral-eliminated program of a bilateral-only problem has no constraints at all); stdout
    must still be exactly one JSON object. A subprocess, since the print bypasses sys.stdout."""
    import subprocess
    import sys

    p, _, _ = families.planted(np.random.default_rng(5), n=5, m_b=2, m_u=0)
    path = tmp_path / "bilateral.json"
    gaussqp.dump(p, path)
    code = "import sys; from gaussqp.cli import main; sys.exit(main(sys.argv[1:]))"
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "solve",
            str(path),
            "--json",
            "--solver",
            "osqp",
            "--formulation",
            "projected_eliminated",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )  # not the checkout, which would shadow the installed package
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "solved"


def _one_error_line(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gaussqp: error: ")
    return err[0]


def test_hostile_files_exit_2_with_one_line(tmp_path, capsys):
    """A finite 1e300 entry made the arithmetic overflow (the CLI hung > 120 s on such a file);
    deep nesting raised a bare RecursionError; a duplicate key was silently resolved (issue 9)."""
    doc = json.loads(gaussqp.dumps(gaussqp.problems.load("rod_wall_guide")))
    doc["force"][1] = 1e300
    big = tmp_path / "big.json"
    big.write_text(json.dumps(doc))
    line = _one_error_line(capsys, ["solve", str(big)])
    assert "force" in line and "1e+50" in line
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "gaussqp/1", "parameters": ' + "[" * 50000 + "]" * 50000 + "}")
    assert "nest" in _one_error_line(capsys, ["check", str(deep)])
    dup = tmp_path / "dup.json"
    dup.write_text('{"format": "gaussqp/1", "mass_matrix": [[1]], "force": [0], "force": [1], "contacts": []}')
    assert "force: appears twice" in _one_error_line(capsys, ["solve", str(dup)])
    bad_npz = tmp_path / "bad.npz"
    bad_npz.write_bytes(b"PK\x03\x04garbage")
    assert str(bad_npz) in _one_error_line(capsys, ["check", str(bad_npz)])


def test_a_device_or_directory_is_refused_in_bounded_time(tmp_path, capsys):
    """``gaussqp check /dev/zero`` read without end (the size of a device is 0, its content endless)."""
    import os

    import pytest

    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert "not a regular file" in _one_error_line(capsys, ["check", "/dev/zero"])
    (tmp_path / "dir.json").mkdir()
    assert "not a regular file" in _one_error_line(capsys, ["check", str(tmp_path / "dir.json")])
