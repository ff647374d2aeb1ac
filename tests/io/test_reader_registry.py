"""One record per file reader (issue #26 item 5): ``gaussqp.io.open_file.FILE_READERS`` is the only table; the
readers by extension, the options each uses, the extra it needs and the CLI's ``--importer`` choices and help all
come from it. Adding a reader is adding a record: a dummy reader registered here is chosen by its extension, by
``--importer``, and refuses the options it does not use."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gaussqp
from gaussqp.cli import build_parser, main
from gaussqp.errors import FileFormatError, UnknownValueError
from gaussqp.io import open_file
from gaussqp.io.open_file import FILE_READERS, ImportOptions, Opened, Reader


def _load_dummy(path, options: ImportOptions) -> Opened:
    """A toy format: one line naming a shipped problem."""
    name = path.read_text(encoding="utf-8").strip()
    return Opened(
        gaussqp.problems.load(name),
        "dummy",
        source=f"dummy file {path.name}",
        parameters={"qpos": None if options.qpos is None else list(np.atleast_1d(options.qpos))},
    )


DUMMY = Reader("dummy", "a dummy file", (".dummy",), "ContactProblem", _load_dummy, uses=frozenset({"qpos"}))


@pytest.fixture
def dummy(monkeypatch, tmp_path):
    monkeypatch.setattr(open_file, "FILE_READERS", FILE_READERS + (DUMMY,))
    f = tmp_path / "scene.dummy"
    f.write_text("rod_wall_guide\n", encoding="utf-8")
    return f


def _importer_action():
    parser = build_parser()
    solve = next(a for a in parser._subparsers._group_actions[0].choices.values() if a.prog.endswith("solve"))
    return next(a for a in solve._actions if "--importer" in a.option_strings), solve


def test_a_new_record_is_a_new_reader_everywhere(dummy, capsys):
    assert open_file.reader_of(dummy) == "dummy" and open_file.reader_of("X.DUMMY") == "dummy"
    assert ".dummy" in open_file.reader_suffixes() and "dummy" in open_file.reader_names()
    opened = open_file.open_problem(dummy)
    assert opened.reader == "dummy" and opened.problem.n == gaussqp.problems.load("rod_wall_guide").n
    action, solve = _importer_action()
    assert "dummy" in action.choices and ".dummy dummy" in action.help
    assert ".dummy" in next(a for a in solve._actions if a.dest == "file").help
    # the CLI reads it by extension and by --importer (a file with another extension)
    assert main(["info", str(dummy), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reader"] == "dummy"
    other = dummy.with_suffix(".txt")
    other.write_text("rod_wall_guide\n", encoding="utf-8")
    assert main(["info", str(other), "--importer", "dummy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reader"] == "dummy"
    # the options it uses pass, the others are refused naming the reader's phrase
    assert open_file.open_problem(dummy, ImportOptions(qpos=[1.0])).parameters == {"qpos": [1.0]}
    with pytest.raises(UnknownValueError, match="a dummy file does not use it"):
        open_file.open_problem(dummy, ImportOptions(settle=3))


def test_without_the_record_the_reader_does_not_exist(tmp_path):
    assert "dummy" not in open_file.reader_names()
    action, _ = _importer_action()
    assert list(action.choices) == [r.name for r in FILE_READERS]
    with pytest.raises(UnknownValueError, match="importer"):
        open_file.reader_of("a.dummy", importer="dummy")
    f = tmp_path / "scene.dummy"
    f.write_text("rod_wall_guide\n", encoding="utf-8")
    with pytest.raises(FileFormatError, match="read as gaussqp/1 JSON"):  # an unclaimed extension: JSON
        open_file.open_problem(f)


def test_a_missing_extra_names_the_records_extra(tmp_path, monkeypatch):
    ghost = Reader(
        "ghost",
        "a ghost file",
        (".ghost",),
        "ContactProblem",
        _load_dummy,
        module="gaussqp.io.ghost",
        extra="ghost",
        package="no_such_package_gaussqp",
    )
    monkeypatch.setattr(open_file, "FILE_READERS", FILE_READERS + (ghost,))
    f = tmp_path / "a.ghost"
    f.write_text("x", encoding="utf-8")
    with pytest.raises(FileFormatError, match=r"gaussqp\[ghost\]"):
        open_file.open_problem(f)


def test_the_old_tables_are_built_from_the_records():
    with pytest.warns(DeprecationWarning):
        readers = open_file.READERS
    assert readers == {x: r.name for r in FILE_READERS for x in r.suffixes}
    assert readers[".urdf"] == "pinocchio" and readers[".h5"] == "fclib"
    with pytest.warns(DeprecationWarning):
        assert open_file.USES["library"] == frozenset() and open_file.USES["mujoco"] >= {"keyframe", "settle"}
    with pytest.warns(DeprecationWarning):
        assert set(open_file.OPENERS) == {"gaussqp", "fclib", "mujoco", "pinocchio"}
    with pytest.warns(DeprecationWarning):
        assert open_file.EXTRAS == {"fclib": "fclib", "mujoco": "mujoco", "pinocchio": "pinocchio"}
    with pytest.warns(DeprecationWarning):
        assert open_file.PACKAGES == {"fclib": "h5py", "mujoco": "mujoco", "pinocchio": "pinocchio"}
    with pytest.warns(DeprecationWarning):
        assert open_file.WHAT["library"] == "a shipped problem"
