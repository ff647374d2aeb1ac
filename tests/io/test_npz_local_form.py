"""The NPZ form of a local (Delassus) problem ``u = W r + q`` (``form = "local"``): lossless round trip, dense and
sparse W, strict members, and the CLI around it (issue #25: a global FCLIB file whose stored M is not symmetric is
shipped in this form, never with a symmetrized M)."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import errors
from gaussqp.cli import main

W = np.array([[2.0, 0.1, 0.0], [0.1, 1.0, 0.2], [0.3, 0.0, 1.0]])  # not symmetric: W[2, 0] != W[0, 2]


def _local(Wm=W) -> gaussqp.LocalContactProblem:
    return gaussqp.LocalContactProblem(Wm, [-1.0, 0.2, 0.1], [0.3], 3, name="one contact", description="a test")


def _with_members(problem, extra: dict, drop: tuple[str, ...] = ()) -> io.BytesIO:
    buf = io.BytesIO()
    gaussqp.save_npz(problem, buf)
    out = io.BytesIO()
    with zipfile.ZipFile(buf) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            if info.filename[:-4] not in drop:
                zout.writestr(info, zin.read(info))
        for key, arr in extra.items():
            member = io.BytesIO()
            np.lib.format.write_array(member, np.asarray(arr), allow_pickle=False)
            zout.writestr(f"{key}.npy", member.getvalue())
    out.seek(0)
    return out


@pytest.mark.parametrize("Wm", [W, sp.csr_matrix(W)], ids=["dense", "sparse"])
def test_local_problem_round_trips_losslessly(Wm, tmp_path):
    p = _local(Wm)
    path = tmp_path / "local.npz"
    gaussqp.io.gaussqp_format.dump(p, path)
    q = gaussqp.io.gaussqp_format.load(path)
    assert isinstance(q, gaussqp.LocalContactProblem) and q.sparse == sp.issparse(Wm)
    assert np.array_equal(sp.csr_matrix(q.W).toarray(), W)
    np.testing.assert_array_equal(q.q, p.q)
    np.testing.assert_array_equal(q.mu, p.mu)
    assert (q.dimension, q.name, q.description) == (3, p.name, p.description)


def test_members_of_the_other_form_and_unknown_forms_are_refused():
    p = _local()
    with pytest.raises(errors.FileFormatError, match=r"^force: is not a member of the local form"):
        gaussqp.load_npz(_with_members(p, {"force": np.zeros(3)}))
    with pytest.raises(errors.FileFormatError, match=r"^form: is 'locale'"):
        gaussqp.load_npz(_with_members(p, {"form": np.array("locale")}, drop=("form",)))
    with pytest.raises(errors.FileFormatError, match=r"^free_velocity: is missing"):
        gaussqp.load_npz(_with_members(p, {}, drop=("free_velocity",)))
    g = gaussqp.problems.load("singular_pendulum")
    with pytest.raises(errors.FileFormatError, match=r"^delassus: is not a member of the global form"):
        gaussqp.load_npz(_with_members(g, {"delassus": np.eye(2)}))
    with pytest.raises(errors.ShapeError, match=r"^W"):  # the problem's own checks still run
        gaussqp.load_npz(_with_members(p, {"delassus": np.eye(2)}, drop=("delassus",)))


def test_a_local_problem_has_no_json_form(tmp_path):
    with pytest.raises(errors.WrongTypeError, match=r"no gaussqp/1 JSON form.*\.npz"):
        gaussqp.io.gaussqp_format.dump(_local(), tmp_path / "local.json")
    with pytest.raises(errors.WrongTypeError, match="problem"):
        gaussqp.save_npz("not a problem", tmp_path / "x.npz")


def test_cli_solves_and_lists_a_shipped_local_problem(capsys):
    assert main(["solve", "real/fclib_CubeH8"]) == 0
    out = capsys.readouterr().out
    assert "local u = W r + q" in out and "solved" in out
    assert main(["list"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("real/fclib_CubeH8"))
    assert "local u = W r + q, m=1 contacts, d=3" in line


def test_cli_imports_a_local_problem_to_npz_and_refuses_json(tmp_path, capsys):
    src = tmp_path / "local.npz"
    gaussqp.save_npz(_local(), src)
    out = tmp_path / "copy.npz"
    assert main(["import", str(src), "-o", str(out)]) == 0
    q = gaussqp.load_npz(out)
    assert isinstance(q, gaussqp.LocalContactProblem) and np.array_equal(np.asarray(q.W), W)
    capsys.readouterr()
    assert main(["import", str(src), "-o", str(tmp_path / "copy.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no gaussqp/1 JSON form" in err[0]
