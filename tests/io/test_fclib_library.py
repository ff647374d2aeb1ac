"""The two FCLIB problems shipped in problems/data/real (written by ``python -m problems.real.fclib_files``):
they load with no optional component, and every fact recorded in their "parameters" is recomputed here.
With h5py and the FCLIB files at hand, the shipped data are also compared with the source file."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "problems" / "data" / "real"
#: shipped name -> (n, contacts, μ) of the README table of shared/data/fclib
SHIPPED = {"CubeH8": (162, 1, 0.3), "Box_Stacks-i0035-31-0": (450, 31, 0.3)}


def _read(name: str):
    path = LIBRARY / f"fclib_{name}.npz"
    with np.load(path, allow_pickle=False) as z:
        source, parameters = json.loads(str(z["source"])), json.loads(str(z["parameters"]))
    return gaussqp.load_npz(path), source, parameters


def _relaxation(p: gaussqp.ContactProblem) -> gaussqp.ContactProblem:
    return gaussqp.ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        p.J_t,
        p.tangent_drift,
        p.friction,
        "frictionless",
        None,
        p.has_tangent,
        p.dimension,
    )


#: the shipped problems in the local form (their stored M is not symmetric at its entries' scale, issue #25)
LOCAL = {"CubeH8"}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_fclib_problem_loads_and_its_recorded_facts_hold(name):
    p, source, parameters = _read(name)
    n, m, mu = SHIPPED[name]
    assert source["file"] == f"{name}.hdf5" and len(source["sha256"]) == 64 and source["info"]["title"] == p.name
    assert "velocity" in source["level"]
    if name in LOCAL:
        assert isinstance(p, gaussqp.LocalContactProblem) and parameters["form"] == "local"
        assert (p.m, p.dimension) == (m, 3) and np.all(p.mu == mu)
        assert source["mass_asymmetry_in_file"]["relative_to_entry_scale"] > gaussqp.settings.FCLIB_SYMMETRY_RTOL
    else:
        assert (p.n, p.m, p.dimension) == (n, m, 3)
        assert set(p.modes) == {"coulomb"} and np.all(p.friction == mu)
        assert parameters["system_class"] == p.classify().as_dict()
        rows = sp.vstack([sp.csr_matrix(p.J_n), sp.csr_matrix(p.J_t)]).toarray()
        assert parameters["rank_all_rows"] == np.linalg.matrix_rank(rows) == 3 * m
        report = gaussqp.check(_relaxation(p))
        recorded = parameters["frictionless_relaxation"]
        assert [(c["id"], c["holds"]) for c in recorded["certificates"]] == [
            (c.id, None if c.holds is None else bool(c.holds)) for c in report.certificates
        ]
        assert {c["id"] for c in recorded["certificates"]} >= {"C1", "C2", "C3", "C4", "C5"}
        assert all(c["holds"] in (True, None) for c in recorded["certificates"])
    # the Coulomb (stick/slip) problem: solved by the mode-free route (issue #12) as recorded, to our own
    # natural-map residual
    rec = parameters["coulomb_solve"]
    assert rec["status"] == "solved" and rec["certified"] and rec["formulation"] == "coulomb_fixed_point"
    sol = gaussqp.solve(p)
    assert sol.formulation == "coulomb_fixed_point" and sol.status == "solved" and sol.certified
    assert sol.natural_map_residual.relative <= gaussqp.settings.COULOMB_RESIDUAL_RTOL
    assert rec["natural_map_residual_relative"] <= gaussqp.settings.COULOMB_RESIDUAL_RTOL
    assert sum(rec["modes"].values()) == m


def test_no_shipped_mass_matrix_was_changed_beyond_round_off():
    """Issue #25: a global file is shipped with (M + Mᵀ)/2 only where M's asymmetry is round-off at its entries'
    scale; the recorded asymmetry is recomputed from the stored matrix."""
    for name in SHIPPED:
        p, source, _ = _read(name)
        asym = source["mass_asymmetry_in_file"]
        if name in LOCAL:
            continue
        assert asym["relative_to_entry_scale"] <= gaussqp.settings.FCLIB_SYMMETRY_RTOL
        M = p.M.toarray()
        assert np.array_equal(M, M.T)


def _fclib_data() -> Path | None:
    env = os.environ.get("GAUSSQP_FCLIB_DATA")
    for cand in ([Path(env)] if env else []) + [
        ROOT / "tests" / "data" / "fclib",
        ROOT.parent / "shared" / "data" / "fclib",
        ROOT.parents[1] / "shared" / "data" / "fclib",
    ]:
        if (cand / "CubeH8.hdf5").is_file():
            return cand
    return None


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_data_equal_the_source_file(name):
    pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib] (h5py) to read the source file")
    data = _fclib_data()
    if data is None:
        pytest.skip("the FCLIB files (shared/data/fclib, or $GAUSSQP_FCLIB_DATA) are not beside this repository")
    from gaussqp.io import fclib

    p, source, _ = _read(name)
    path = data / source["file"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == source["sha256"]
    q = fclib.load(path)
    if name in LOCAL:
        # the local form of the stored (non-symmetric) M, exactly as the loader gives it; and that M is the file's
        import h5py
        from gaussqp.io.fclib import _entry_asymmetry

        assert isinstance(q, gaussqp.LocalContactProblem) and isinstance(p, gaussqp.LocalContactProblem)
        assert np.array_equal(np.asarray(sp.csr_matrix(p.W).todense()), np.asarray(sp.csr_matrix(q.W).todense()))
        np.testing.assert_array_equal(p.q, q.q)
        np.testing.assert_array_equal(p.mu, q.mu)
        with h5py.File(path, "r") as fh:
            g = fh["fclib_global/M"]
            n, pp, ii, x = int(g["n"][0]), g["p"][()], g["i"][()], g["x"][()]
        M = sp.coo_matrix((x, (ii, pp)), shape=(n, n)).tocsr()
        assert _entry_asymmetry(M)[0] == pytest.approx(source["mass_asymmetry_in_file"]["relative_to_entry_scale"])
        assert p.name == q.name and q.description.startswith(source["info"]["description"])
        return
    for key in ("M", "J_n", "J_t"):
        assert (sp.csr_matrix(getattr(p, key)) != sp.csr_matrix(getattr(q, key))).nnz == 0
    for key in ("F", "normal_drift", "tangent_drift", "friction", "modes"):
        np.testing.assert_array_equal(getattr(p, key), getattr(q, key))
    assert p.name == q.name and q.description.startswith(source["info"]["description"])


def test_shipped_fclib_problems_load_by_name_and_are_listed(capsys):
    from gaussqp import problems
    from gaussqp.cli import main

    assert {f"real/fclib_{name}" for name in SHIPPED} <= set(problems.real_names())
    p = problems.load("real/fclib_CubeH8")
    assert isinstance(p, gaussqp.LocalContactProblem) and p.m == 1 and "\n" not in p.description
    assert main(["list"]) == 0
    assert "real/fclib_Box_Stacks-i0035-31-0" in capsys.readouterr().out
    assert main(["solve", "real/fclib_CubeH8"]) == 0  # solved by the mode-free route (issue #12)
