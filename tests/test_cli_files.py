"""The command line on files of every reader (gaussqp/1 here; MuJoCo, Pinocchio and FCLIB files in
tests/io/test_cli_importers.py): ``info``, ``import`` and the errors, exit code 2 with one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gaussqp.cli import main
from gaussqp.io.gaussqp_format import dump, load
from gaussqp.io.open_file import ImportOptions, open_problem, read_vector, reader_of
from gaussqp.errors import FileFormatError, NonNumericError, UnknownValueError
import gaussqp


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_info_of_a_json_file(tmp_path, capsys):
    f = tmp_path / "p.json"
    dump(gaussqp.problems.load("singular_pendulum"), f)
    assert main(["info", str(f), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["n"] == 3 and info["reader"] == "gaussqp"
    assert info["system_class"]["mass"] == "singular" and info["mass_cond"] == "inf"  # JSON has no infinity


def test_info_conditioning_is_measured_on_the_data(capsys):
    """cond(M) of a mass matrix over 12 decades is reported raw (1e12) and equilibrated (1): the two numbers
    a user needs to tell bad units from a bad model."""
    p = gaussqp.ContactProblem(np.diag([1.0, 1e12]), [0.0, 1.0], [gaussqp.Contact("unilateral", normal=[0, 1.0])])
    from gaussqp.cli import problem_info

    info = problem_info(p)
    assert info["mass_cond"] == pytest.approx(1e12) and info["mass_cond_equilibrated"] == pytest.approx(1.0)
    assert info["normal_rows_sigma_min"] == pytest.approx(1.0)


def test_import_copies_a_problem_file_with_its_source(tmp_path, capsys):
    f, out = tmp_path / "p.json", tmp_path / "q.npz"
    dump(gaussqp.problems.load("rod_wall_guide"), f)
    assert main(["import", str(f), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert gaussqp.load_npz(out).n == 3
    assert main(["import", str(f), "-o", str(tmp_path / "q.txt")]) == 2
    assert "-o" in one_error_line(capsys)


@pytest.mark.parametrize(
    "argv, field",
    [
        (["info", "model.step"], "model.step"),  # unknown extension (a file that exists)
        (["solve", "missing.json"], "missing.json"),  # a path that does not exist
        (["info", "model.xml", "--importer", "mujoco"], "model.xml"),  # exists but does not parse (or no extra)
    ],
)
def test_bad_files_exit_2_with_one_line(tmp_path, monkeypatch, capsys, argv, field):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.step").write_text("ISO-10303-21;")
    (tmp_path / "model.xml").write_text("<mujoco><worldbody><body>")  # unclosed
    assert main(argv) == 2
    assert field in one_error_line(capsys)


def test_readers_registry_and_vectors(tmp_path):
    assert reader_of("a.XML") == "mujoco" and reader_of("a.urdf") == "pinocchio" and reader_of("a.h5") == "fclib"
    with pytest.raises(UnknownValueError, match="importer"):
        reader_of("a.xml", importer="bullet")
    np.save(tmp_path / "q.npy", np.arange(3.0))
    (tmp_path / "q.txt").write_text("0 1\n2")
    (tmp_path / "q.json").write_text("[0, 1, 2]")
    for name in ("q.npy", "q.txt", "q.json"):
        assert np.array_equal(read_vector("qpos", tmp_path / name), [0.0, 1.0, 2.0])
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(FileFormatError, match="qpos"):  # a pickled object array is never loaded
        read_vector("qpos", tmp_path / "obj.npy")
    (tmp_path / "bad.json").write_text('[0, "x"]')
    with pytest.raises(NonNumericError):
        read_vector("qpos", tmp_path / "bad.json")
    f = tmp_path / "p.json"
    dump(gaussqp.problems.load("rod_wall_guide"), f)
    assert open_problem(f, ImportOptions()).problem.m == 2 and load(f).m == 2


def test_real_robots_are_shipped_problems_by_name(capsys):
    from gaussqp import problems

    real = problems.real_names()
    assert {"real/humanoid_lying", "real/stacker_boxes", "real/pinocchio_solo12_four_feet"} <= set(real)
    p = problems.load("real/box_on_plane")
    assert p.name == "box_on_plane" and p.dimension == 3
    assert main(["list"]) == 0 and "real/quadruped_standing" in capsys.readouterr().out
    with pytest.raises(gaussqp.errors.FileFormatError, match="real/"):
        problems.load("real/nonexistent")


@pytest.mark.parametrize(
    "argv, field",
    [
        (["info", "hyperstatic_block", "--qpos", "q.txt"], "qpos"),  # a model option on a shipped problem
        (["solve", "p.json", "--settle", "10"], "settle"),  # ... and on a gaussqp/1 file
        (["solve", "--drift", "foo"], "--drift"),  # argparse's own errors: one line too
        (["solve", "--facets", "abc"], "--facets"),
        (["solve", "--facets", "0"], "facets"),  # checked even without sticking contacts
        (["solve", "--facets", "100000"], "facets"),
        (["import", "p.json", "-o", "no/such/dir/q.json"], "-o"),
    ],
)
def test_options_that_do_nothing_or_break_exit_2(tmp_path, monkeypatch, capsys, argv, field):
    monkeypatch.chdir(tmp_path)
    dump(gaussqp.problems.load("rod_wall_guide"), tmp_path / "p.json")
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors exit from inside main
        code = exc.code
    assert code == 2
    assert field in one_error_line(capsys)


def test_info_prints_the_notes_of_a_redundant_problem(capsys):
    assert main(["info", "hyperstatic_block"]) == 0
    assert "normal rows redundant" in capsys.readouterr().out
    with pytest.raises(gaussqp.errors.UnknownValueError, match="facets"):
        gaussqp.solve(gaussqp.problems.load("rod_wall_guide"), facets=2)


def test_options_given_as_arrays_from_python():
    """ImportOptions from Python may hold arrays: 'given' is decided without comparing an array to None."""
    from gaussqp.io.open_file import check_options

    check_options("mujoco", ImportOptions(qpos=np.zeros(3)))
    with pytest.raises(UnknownValueError, match="qpos"):
        check_options("gaussqp", ImportOptions(qpos=np.zeros(3)))
