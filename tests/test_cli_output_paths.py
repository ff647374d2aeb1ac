"""Issue #25 item 4: every CLI option that writes a file or a folder is checked before any work — a folder that
does not exist or cannot be written is one line on stderr and exit 2, never a traceback after the solve."""

from __future__ import annotations

import pytest

from gaussqp import cli

MISSING = "/no/such/dir"


def _no_work(*_, **__):
    raise AssertionError("the output path must be refused before any work")


@pytest.fixture
def no_work(monkeypatch):
    """Solving, opening a model and running a study all fail the test: the path is checked first."""
    monkeypatch.setattr(cli, "solve", _no_work)
    monkeypatch.setattr(cli, "_open", _no_work)
    import gaussqp.grasp
    import gaussqp.studies

    monkeypatch.setattr(gaussqp.grasp, "analyze", _no_work)
    monkeypatch.setattr(gaussqp.studies, "run_study", _no_work)


CASES = [
    (["solve", "rod_wall_guide", "--out", f"{MISSING}/s.hdf5"], "--out"),
    (["solve", "rod_wall_guide", "--out", "/proc/s.hdf5"], "--out"),
    (["grasp", "hard_finger_pair", "--plot", f"{MISSING}/x.png"], "--plot"),
    (["grasp", "hard_finger_pair", "--plot", "/proc/x.png"], "--plot"),
    (["crossval", "families:1", "--out", "/proc/nope"], "--out"),
    (["crossval", "families:1", "--out", "/dev/null"], "--out"),
    (["import", "rod_wall_guide", "-o", f"{MISSING}/p.json"], "-o"),
]


@pytest.mark.parametrize("argv, option", CASES, ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_an_unwritable_output_is_one_line_and_exit_2_before_any_work(argv, option, no_work, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"gaussqp: error: {option}"), err
    assert "fix:" in err


def test_an_output_folder_is_not_created_by_the_check(tmp_path, no_work, capsys):
    target = tmp_path / "missing" / "x.png"
    assert cli.main(["grasp", "hard_finger_pair", "--plot", str(target)]) == 2
    assert not target.parent.exists()


def test_an_existing_folder_is_not_a_file_output(tmp_path, no_work, capsys):
    assert cli.main(["solve", "rod_wall_guide", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_writable_output_is_not_touched(tmp_path, monkeypatch, capsys):
    """The check leaves no file behind: a refused solve (a frictionless answer has no FCLIB /solution) writes
    nothing at the --out path."""
    out = tmp_path / "s.hdf5"
    assert cli.main(["solve", "rod_wall_guide", "--out", str(out)]) == 2
    assert not out.exists()
