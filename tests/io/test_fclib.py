"""FCLIB reader/writer (gaussqp.io.fclib, issue #11 item 3): the real files of the collection, the three matrix
storages on hand-built files, round trips, and hostile files refused with the HDF5 path named."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

h5py = pytest.importorskip("h5py", reason="needs the optional extra gaussqp[fclib] (h5py)")

import gaussqp  # noqa: E402
from gaussqp import errors  # noqa: E402
from gaussqp.io import fclib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _data_dir() -> Path | None:
    """The FCLIB files: $GAUSSQP_FCLIB_DATA, the repository's tests/data/fclib (see its NOTICE.md), or
    shared/data/fclib beside the repository (or its worktree)."""
    env = os.environ.get("GAUSSQP_FCLIB_DATA")
    candidates = [Path(env)] if env else []
    candidates += [
        ROOT / "tests" / "data" / "fclib",
        ROOT.parent / "shared" / "data" / "fclib",
        ROOT.parents[1] / "shared" / "data" / "fclib",
    ]
    return next((c for c in candidates if (c / "CubeH8.hdf5").is_file()), None)


DATA = _data_dir()
needs_data = pytest.mark.skipif(
    DATA is None, reason="the FCLIB files (shared/data/fclib, or $GAUSSQP_FCLIB_DATA) are not beside this repository"
)

#: the README table of shared/data/fclib: form, n (global) or W size (local), contacts, the set of μ
TABLE = {
    "Box_Stacks-i0122-82-5": ("global", 450, 82, {0.3}),
    "Box_Stacks-i0035-31-0": ("global", 450, 31, {0.3}),
    "CubeH8": ("global", 162, 1, {0.3}),
    "LMGC_GlobalFrictionContactProblem00046": ("global", 162, 9, {0.3}),
    "Spheres-i099-356-679": ("global", 12000, 356, {0.7}),
    "local_problem_test": ("local", 144, 48, {0.7}),
    "Capsules-i125-1213": ("local", 858, 286, {0.7}),
    "LMGC_100_PR_PerioBox-i00361-60-03000": ("local", 180, 60, {0.3, 0.5}),
}
#: global files whose stored M is not symmetric at its entries' scale (22 % of sqrt(|M_ii M_jj|), 1.5e-7 of
#: max|M|): read as the condensed local problem of the stored M (issue #25 item 2)
NONSYMMETRIC_M = {"CubeH8", "LMGC_GlobalFrictionContactProblem00046"}
SMALL_GLOBAL = [k for k, v in TABLE.items() if v[0] == "global" and v[1] <= 500 and k not in NONSYMMETRIC_M]
LOCAL_FILES = [k for k, v in TABLE.items() if v[0] == "local"]


def _path(name: str) -> Path:
    return DATA / f"{name}.hdf5"


# ------------------------------------------------------------------------------ independent reference readers


def _raw_dense(group) -> np.ndarray:
    """A CSparse matrix group as a dense array, read with plain NumPy (np.add.at sums duplicates)."""
    m, n, nz = (int(group[k][0]) for k in ("m", "n", "nz"))
    p, i, x = group["p"][()], group["i"][()], group["x"][()]
    A = np.zeros((m, n))
    if nz >= 0:
        np.add.at(A, (i[:nz], p[:nz]), x[:nz])  # p = column, i = row (README of shared/data/fclib)
    else:
        outer = np.repeat(np.arange(len(p) - 1), np.diff(p))
        used = p[-1]
        rows, cols = (i[:used], outer) if nz == -1 else (outer, i[:used])
        np.add.at(A, (rows, cols), x[:used])
    return A


def _dense(A) -> np.ndarray:
    return A.toarray() if sp.issparse(A) else np.asarray(A)


def _same_sparse(a, b) -> bool:
    """Equal shape, pattern and bit-for-bit values."""
    a, b = sp.csr_matrix(a), sp.csr_matrix(b)
    a.sort_indices()
    b.sort_indices()
    return (
        a.shape == b.shape
        and np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data, b.data)
    )


# ------------------------------------------------------------------------------ the shared files


@needs_data
@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_shared_file_loads_with_the_sizes_of_the_table(name):
    form, size, contacts, mus = TABLE[name]
    p = fclib.load(_path(name))
    if name in NONSYMMETRIC_M:
        assert isinstance(p, gaussqp.LocalContactProblem) and (p.m, p.dimension) == (contacts, 3)
        assert set(np.round(p.mu, 12)) == mus and fclib.CONDENSED_NOTE[:40] in p.description
        return
    assert set(np.round(p.mu if form == "local" else p.friction, 12)) == mus
    if form == "global":
        assert isinstance(p, gaussqp.ContactProblem)
        assert (p.n, p.m, p.dimension) == (size, contacts, 3)
        assert len(p.unilateral) == contacts and len(p.bilateral) == 0
        assert set(p.modes) == {"coulomb"}  # FCLIB does not give the stick/slip mode
        assert p.J_t.shape == (2 * contacts, size) and p.has_tangent.all()
    else:
        assert isinstance(p, gaussqp.LocalContactProblem)
        assert (p.size, p.m, p.dimension) == (size, contacts, 3)
        assert p.W.shape == (size, size) and p.q.shape == (size,)
    assert p.name  # the info title


@needs_data
def test_local_problem_test_W_has_rank_72_and_capsules_W_is_not_symmetric():
    W = _dense(fclib.load(_path("local_problem_test")).W)
    assert np.linalg.matrix_rank(W) == 72  # README table: 144 x 144, rank 72
    caps = fclib.load(_path("Capsules-i125-1213"))
    assert caps.asymmetry > 1e-3 * abs(caps.W).max()  # gyroscopic terms: accepted, W need not be symmetric


@needs_data
def test_box_stacks_M_is_diagonal_and_lmgc_M_is_full():
    assert fclib.load(_path("Box_Stacks-i0122-82-5")).M.nnz == 450
    with h5py.File(_path("LMGC_GlobalFrictionContactProblem00046"), "r") as fh:
        assert np.count_nonzero(_raw_dense(fh["fclib_global/M"])) > 2900  # full (162 × 162), its pattern not symmetric


@needs_data
@pytest.mark.parametrize("name", SMALL_GLOBAL)
def test_global_data_match_an_independent_reading_of_the_file(name):
    """M v = H r + f, u = Hᵀv + w read as M a + F = J_nᵀλ_n + J_tᵀλ_t: F = -f, rows = columns of H, drifts w."""
    p = fclib.load(_path(name))
    with h5py.File(_path(name), "r") as fh:
        g = fh["fclib_global"]
        M, H = _raw_dense(g["M"]), _raw_dense(g["H"])
        f, w, mu = (g["vectors"][k][()] for k in ("f", "w", "mu"))
    asym = np.abs(M - M.T).max()
    scale = np.sqrt(np.outer(np.abs(np.diag(M)), np.abs(np.diag(M))))
    assert np.all(np.abs(M - M.T) <= gaussqp.settings.FCLIB_SYMMETRY_RTOL * scale)  # at the entries' scale
    np.testing.assert_array_equal(_dense(p.M), (M + M.T) / 2 if asym else M)  # LMGC's M: round-off symmetrized
    np.testing.assert_array_equal(p.F, -f)
    np.testing.assert_array_equal(_dense(p.J_n), H[:, 0::3].T)
    J_t = _dense(p.J_t)
    np.testing.assert_array_equal(J_t[0::2], H[:, 1::3].T)
    np.testing.assert_array_equal(J_t[1::2], H[:, 2::3].T)
    np.testing.assert_array_equal(p.normal_drift, w[0::3])
    np.testing.assert_array_equal(p.tangent_drift[0::2], w[1::3])
    np.testing.assert_array_equal(p.tangent_drift[1::2], w[2::3])
    np.testing.assert_array_equal(p.friction, mu)


@needs_data
@pytest.mark.parametrize("name", LOCAL_FILES)
def test_local_data_match_an_independent_reading_of_the_file(name):
    p = fclib.load(_path(name))
    with h5py.File(_path(name), "r") as fh:
        g = fh["fclib_local"]
        W, q, mu = _raw_dense(g["W"]), g["vectors/q"][()], g["vectors/mu"][()]
    np.testing.assert_array_equal(_dense(p.W), W)
    np.testing.assert_array_equal(p.q, q)
    np.testing.assert_array_equal(p.mu, mu)


@needs_data
def test_info_strings_become_name_and_description():
    p = fclib.load(_path("Box_Stacks-i0035-31-0"))
    assert p.name == "Box_stacks" and p.description.startswith("\nBox stacks with Bullet collision detection")
    lmgc = fclib.load(_path("LMGC_GlobalFrictionContactProblem00046"))
    assert lmgc.description.endswith(fclib.MATH_INFO_MARKER + "unknown")
    cube = fclib.load(_path("CubeH8"))  # a stray byte 0xA8 that is not UTF-8: replaced, never an error
    assert cube.description.startswith("\ufffdRewriting in hdf5")


@needs_data
def test_rolling_friction_file_is_refused_naming_its_group():
    with pytest.raises(errors.UnsupportedFormatError) as exc:
        fclib.load(_path("Chute-ndof-768-nc-4-3"))
    assert exc.value.field == "/fclib_global_rolling" and "rolling" in str(exc.value)


@needs_data
def test_a_loaded_global_problem_is_coulomb_and_check_says_why_it_certifies_nothing():
    p = fclib.load(_path("Box_Stacks-i0035-31-0"))
    assert p.classify().modes == "coulomb"
    report = gaussqp.check(p)
    assert "coulomb" in report.skipped


@needs_data
@pytest.mark.parametrize("name", sorted(TABLE))
def test_round_trip_of_each_shared_file_is_bit_for_bit(name, tmp_path):
    p = fclib.load(_path(name))
    out = tmp_path / "out.hdf5"
    fclib.save(p, out)
    q = fclib.load(out)
    assert type(q) is type(p) and (q.name, q.description, q.dimension) == (p.name, p.description, p.dimension)
    if isinstance(p, gaussqp.LocalContactProblem):
        assert _same_sparse(p.W, q.W)
        np.testing.assert_array_equal(p.q, q.q)
        np.testing.assert_array_equal(p.mu, q.mu)
        group = "fclib_local"
    else:
        for key in ("M", "J_n", "J_t"):
            assert _same_sparse(getattr(p, key), getattr(q, key)), key
        for key in ("F", "normal_drift", "tangent_drift", "friction", "modes", "types", "has_tangent"):
            np.testing.assert_array_equal(getattr(p, key), getattr(q, key))
        group = "fclib_global"
    with h5py.File(out, "r") as fh, h5py.File(_path(name), "r") as orig:
        g = fh[group]
        original = "fclib_global" if name in NONSYMMETRIC_M else group  # written as its condensed /fclib_local
        for key in ("W",) if group == "fclib_local" else ("M", "H"):
            assert int(g[key]["nz"][0]) == fclib.CSC
            assert g[key]["p"].dtype == np.int32 and g[key]["i"].dtype == np.int32 and g[key]["x"].dtype == np.float64
        assert g["info/title"][()] == orig[original]["info/title"][()]
        if name != "CubeH8":  # its stray non-UTF-8 byte is written back as U+FFFD
            desc = g["info/description"][()]
            assert desc == orig[original]["info/description"][()] or (
                name in NONSYMMETRIC_M and desc.startswith(orig[original]["info/description"][()] + b"\n[gaussqp:")
            )
            assert g["info/math_info"][()] == orig[original]["info/math_info"][()]
        if group == "fclib_global" and g["M"]["x"].shape == orig[group]["M"]["x"].shape and name.startswith("Box"):
            np.testing.assert_array_equal(_raw_dense(g["H"]), _raw_dense(orig[group]["H"]))


# ------------------------------------------------------------------------------ hand-built files


def _write_matrix(parent, name, A, storage, *, duplicate=True, extra_capacity=0):
    """Write dense ``A`` in ``storage`` ("triplet", "csc", "csr"); with ``duplicate`` the first entry is split in
    two entries (0.25 + 0.75 of it) that the reader must sum."""
    g = parent.create_group(name)
    rows, cols = np.nonzero(A)
    vals = A[rows, cols].astype(float)
    if duplicate and len(vals):
        rows, cols = np.append(rows, rows[0]), np.append(cols, cols[0])
        vals = np.append(vals, 0.75 * vals[0])
        vals[0] *= 0.25
    m, n = A.shape
    if storage == "triplet":
        nz, p, i, x = len(vals), cols, rows, vals  # p = column, i = row
    else:
        outer, inner = (cols, rows) if storage == "csc" else (rows, cols)
        order = np.argsort(outer, kind="stable")
        outer, inner, x = outer[order], inner[order], vals[order]
        count = n if storage == "csc" else m
        p = np.concatenate([[0], np.cumsum(np.bincount(outer, minlength=count))])
        i = np.concatenate([inner, np.full(extra_capacity, 10**6)])  # spare capacity beyond p[-1]: ignored
        x = np.concatenate([x, np.full(extra_capacity, np.nan)])
        nz = -1 if storage == "csc" else -2
    for key, v in (("m", m), ("n", n), ("nz", nz), ("nzmax", max(len(x), 1))):
        g.create_dataset(key, data=np.array([v], dtype=np.int32))
    g.create_dataset("p", data=np.asarray(p, dtype=np.int32))
    g.create_dataset("i", data=np.asarray(i, dtype=np.int32))
    g.create_dataset("x", data=np.asarray(x, dtype=np.float64))
    return g


def _info(g, title=b"tiny", description=b"hand-built", math_info=b""):
    info = g.create_group("info")
    for key, value in (("title", title), ("description", description), ("math_info", math_info)):
        info.create_dataset(key, data=np.array(value, dtype=f"S{max(len(value), 1)}"))


#: a tiny global problem: n = 3, two planar contacts (spacedim 2), one bilateral row in G
M3 = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 3.0]])
H3 = np.array([[1.0, 0.0, 0.0, 0.5], [0.0, 1.0, 2.0, 0.0], [0.0, -1.0, 0.0, 1.0]])
G3 = np.array([[0.0], [0.0], [1.0]])
F3 = np.array([1.0, -9.81, 0.5])
W3 = np.array([[4.0, 1.0, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.5], [0.0, 0.0, 3.0, 0.0], [0.25, 0.0, 0.0, 1.0]])


def _global_file(path, storage="triplet", *, G=True, mutate=None):
    with h5py.File(path, "w") as fh:
        g = fh.create_group("fclib_global")
        g.create_dataset("spacedim", data=np.array([2], dtype=np.int32))
        _write_matrix(g, "M", M3, storage)
        _write_matrix(g, "H", H3, storage)
        vec = g.create_group("vectors")
        vec.create_dataset("f", data=F3)
        vec.create_dataset("w", data=np.array([0.1, 0.2, -0.3, 0.4]))
        vec.create_dataset("mu", data=np.array([0.5, 0.0]))
        if G:
            _write_matrix(g, "G", G3, storage, duplicate=False)
            vec.create_dataset("b", data=np.array([0.7]))
        _info(g)
        if mutate is not None:
            mutate(fh)
    return path


def _local_file(path, storage="csr", *, mutate=None, extra_capacity=0):
    with h5py.File(path, "w") as fh:
        g = fh.create_group("fclib_local")
        g.create_dataset("spacedim", data=np.array([2], dtype=np.int32))
        _write_matrix(g, "W", W3, storage, extra_capacity=extra_capacity)
        vec = g.create_group("vectors")
        vec.create_dataset("q", data=np.array([-1.0, 0.5, 0.25, 0.0]))
        vec.create_dataset("mu", data=np.array([0.3, 0.6]))
        _info(g, math_info=b"u = W r + q")
        if mutate is not None:
            mutate(fh)
    return path


@pytest.mark.parametrize("storage", ["triplet", "csc", "csr"])
def test_hand_built_global_file_in_each_storage_with_duplicates(storage, tmp_path):
    p = fclib.load(_global_file(tmp_path / "g.hdf5", storage))
    np.testing.assert_allclose(_dense(p.M), M3, rtol=0, atol=1e-15)  # 0.25 x + 0.75 x summed
    np.testing.assert_array_equal(p.F, -F3)
    assert list(p.types) == ["unilateral", "unilateral", "bilateral"]
    assert list(p.modes) == ["coulomb", "frictionless", "frictionless"]  # mu = 0 -> frictionless
    np.testing.assert_allclose(_dense(p.J_n), np.vstack([H3[:, 0], H3[:, 2], G3[:, 0]]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(_dense(p.J_t)[:2], np.vstack([H3[:, 1], H3[:, 3]]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(p.normal_drift, [0.1, -0.3, 0.7])
    np.testing.assert_array_equal(p.tangent_drift[:2], [0.2, 0.4])
    np.testing.assert_array_equal(p.friction, [0.5, 0.0, 0.0])
    assert (p.name, p.description, p.dimension) == ("tiny", "hand-built", 2)


@pytest.mark.parametrize("storage", ["triplet", "csc", "csr"])
def test_hand_built_local_file_in_each_storage_with_duplicates(storage, tmp_path):
    """W is not symmetric, so reading p and i the wrong way round would show."""
    p = fclib.load(_local_file(tmp_path / "l.hdf5", storage))
    np.testing.assert_allclose(_dense(p.W), W3, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(p.q, [-1.0, 0.5, 0.25, 0.0])
    assert p.description == "hand-built" + fclib.MATH_INFO_MARKER + "u = W r + q"


@pytest.mark.parametrize("storage", ["csc", "csr"])
def test_compressed_spare_capacity_beyond_the_last_pointer_is_ignored(storage, tmp_path):
    p = fclib.load(_local_file(tmp_path / "l.hdf5", storage, extra_capacity=3))
    np.testing.assert_allclose(_dense(p.W), W3, rtol=0, atol=1e-15)


def test_round_trip_of_a_global_problem_with_bilateral_rows(tmp_path):
    p = fclib.load(_global_file(tmp_path / "g.hdf5"))
    fclib.save(p, tmp_path / "out.hdf5")
    with h5py.File(tmp_path / "out.hdf5", "r") as fh:
        np.testing.assert_array_equal(_raw_dense(fh["fclib_global/G"]), _dense(p.J_n[2:]).T)
        np.testing.assert_array_equal(fh["fclib_global/vectors/b"][()], [0.7])
        np.testing.assert_array_equal(fh["fclib_global/vectors/mu"][()], [0.5, 0.0])
    q = fclib.load(tmp_path / "out.hdf5")
    for key in ("M", "J_n", "J_t"):
        assert _same_sparse(getattr(p, key), getattr(q, key))
    for key in ("F", "normal_drift", "tangent_drift", "friction", "modes", "types", "has_tangent"):
        np.testing.assert_array_equal(getattr(p, key), getattr(q, key))


def test_save_a_problem_built_in_gaussqp(tmp_path):
    """Frictionless contact without tangent rows: zero tangent columns and mu = 0; the info keyword overrides."""
    C = gaussqp.Contact
    p = gaussqp.ContactProblem(
        np.diag([1.0, 2.0]),
        [0.0, 9.81],
        [
            C("unilateral", normal=[0, 1], normal_drift=0.5, friction=0.4, mode="coulomb", tangent=[[1, 0]]),
            C("unilateral", normal=[1, 1], friction=0.3, mode="frictionless"),  # written with mu = 0
            C("bilateral", normal=[1, 0], normal_drift=-1.0),
        ],
        dimension=2,
        name="mine",
    )
    fclib.save(p, tmp_path / "p.hdf5", info={"math_info": "M a + F = J^T lambda"})
    q = fclib.load(tmp_path / "p.hdf5")
    assert q.name == "mine" and q.description == fclib.MATH_INFO_MARKER + "M a + F = J^T lambda"
    assert list(q.modes) == ["coulomb", "frictionless", "frictionless"]
    np.testing.assert_array_equal(q.friction, [0.4, 0.0, 0.0])
    np.testing.assert_array_equal(_dense(q.J_n), _dense(p.J_n))
    np.testing.assert_array_equal(_dense(q.J_t)[:2], [[1, 0], [0, 0]])
    np.testing.assert_array_equal(q.normal_drift, p.normal_drift)
    np.testing.assert_array_equal(q.F, p.F)


def test_save_refuses_what_fclib_cannot_hold(tmp_path):
    C = gaussqp.Contact
    sticking = gaussqp.ContactProblem(
        np.eye(2),
        [0.0, 1.0],
        [C("unilateral", normal=[0, 1], friction=0.4, mode="sticking", tangent=[[1, 0]])],
        dimension=2,
    )
    with pytest.raises(errors.UnknownValueError) as exc:
        fclib.save(sticking, tmp_path / "s.hdf5")
    assert exc.value.field == "contacts[0].mode" and "coulomb" in exc.value.fix
    assert not (tmp_path / "s.hdf5").exists()
    with pytest.raises(errors.UnknownValueError) as exc:
        fclib.save(sticking.with_force([0.0, 0.0]), tmp_path / "s.hdf5", info={"author": "x"})
    with pytest.raises(errors.WrongTypeError):
        fclib.save({"M": 1}, tmp_path / "s.hdf5")
    with pytest.raises(errors.WrongTypeError):
        loc = gaussqp.LocalContactProblem(np.eye(2), [0.0, 0.0], [0.1], 2)
        fclib.save(loc, tmp_path / "s.hdf5", info={"title": 3})


def test_local_problem_round_trip_from_gaussqp(tmp_path):
    W = np.array([[1.0, 0.2, 0.0], [-0.2, 1.0, 0.0], [0.0, 0.0, 2.0]])
    p = gaussqp.LocalContactProblem(W, [1.0, -1.0, 0.0], [0.25], 3, name="one", description="gyroscopic")
    fclib.save(p, tmp_path / "l.hdf5")
    q = fclib.load(tmp_path / "l.hdf5")
    np.testing.assert_array_equal(_dense(q.W), W)
    assert (q.name, q.description, q.dimension, q.m) == ("one", "gyroscopic", 3, 1)


# ------------------------------------------------------------------------------ refused: not yet supported


@pytest.mark.parametrize("key", ["V", "R"])
def test_local_V_R_blocks_are_refused(key, tmp_path):
    path = _local_file(tmp_path / "l.hdf5", mutate=lambda fh: _write_matrix(fh["fclib_local"], key, np.eye(4), "csc"))
    with pytest.raises(errors.UnsupportedFormatError) as exc:
        fclib.load(path)
    assert exc.value.field == f"/fclib_local/{key}"


def test_local_s_vector_is_refused(tmp_path):
    path = _local_file(tmp_path / "l.hdf5", mutate=lambda fh: fh["fclib_local/vectors"].create_dataset("s", data=[1.0]))
    with pytest.raises(errors.UnsupportedFormatError) as exc:
        fclib.load(path)
    assert exc.value.field == "/fclib_local/vectors/s"


def test_rolling_group_is_refused(tmp_path):
    with h5py.File(tmp_path / "r.hdf5", "w") as fh:
        fh.create_group("fclib_global_rolling")
    with pytest.raises(errors.UnsupportedFormatError) as exc:
        fclib.load(tmp_path / "r.hdf5")
    assert exc.value.field == "/fclib_global_rolling"


# ------------------------------------------------------------------------------ hostile files


def _replace(path, value, **kw):
    """A mutation replacing the dataset at ``path`` with ``value`` (h5py create_dataset keywords in ``kw``)."""

    def mutate(fh):
        del fh[path]
        fh.create_dataset(path, data=value, **kw)

    return mutate


def _delete(path):
    def mutate(fh):
        del fh[path]

    return mutate


VLEN_FLOATS = np.empty(2, dtype=object)
VLEN_FLOATS[0], VLEN_FLOATS[1] = np.array([1.0]), np.array([1.0, 2.0])

HOSTILE_GLOBAL = {
    "missing vectors group": (_delete("fclib_global/vectors"), errors.FileFormatError, "/fclib_global/vectors"),
    "missing M/p": (_delete("fclib_global/M/p"), errors.FileFormatError, "/fclib_global/M/p"),
    "missing spacedim": (_delete("fclib_global/spacedim"), errors.FileFormatError, "/fclib_global/spacedim"),
    "missing f": (_delete("fclib_global/vectors/f"), errors.FileFormatError, "/fclib_global/vectors/f"),
    "M a dataset": (_replace("fclib_global/M", np.eye(3)), errors.FileFormatError, "/fclib_global/M"),
    "float p": (_replace("fclib_global/M/p", np.arange(6, dtype=float)), errors.WrongTypeError, "/fclib_global/M/p"),
    "float m": (_replace("fclib_global/M/m", np.array([3.0])), errors.WrongTypeError, "/fclib_global/M/m"),
    "bool nz": (_replace("fclib_global/M/nz", np.array([True])), errors.NonNumericError, "/fclib_global/M/nz"),
    "string x": (_replace("fclib_global/H/x", np.array([b"1"] * 7)), errors.NonNumericError, "/fclib_global/H/x"),
    "bool mu": (
        _replace("fclib_global/vectors/mu", np.array([True, False])),
        errors.NonNumericError,
        "/fclib_global/vectors/mu",
    ),
    "vlen string spacedim": (
        _replace("fclib_global/spacedim", "2", dtype=h5py.string_dtype()),
        errors.NonNumericError,
        "/fclib_global/spacedim",
    ),
    "vlen float x": (
        _replace("fclib_global/M/x", VLEN_FLOATS, dtype=h5py.vlen_dtype(np.float64)),
        errors.NonNumericError,
        "/fclib_global/M/x",
    ),
    "pickled object in x": (
        _replace("fclib_global/M/x", np.void(pickle.dumps([2.0, 0.5, 0.5, 1.0, 3.0, 0.0]))),
        errors.NonNumericError,
        "/fclib_global/M/x",
    ),
    "pickled bytes in f": (
        _replace("fclib_global/vectors/f", np.array([pickle.dumps(1.0)] * 3)),
        errors.NonNumericError,
        "/fclib_global/vectors/f",
    ),
    "compound f": (
        _replace("fclib_global/vectors/f", np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])),
        errors.NonNumericError,
        "/fclib_global/vectors/f",
    ),
    "complex w": (
        _replace("fclib_global/vectors/w", np.zeros(4, dtype=complex)),
        errors.NonNumericError,
        "/fclib_global/vectors/w",
    ),
    "nz larger than x": (
        _replace("fclib_global/M/nz", np.array([99], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/M/x",
    ),
    "p shorter than x": (
        _replace("fclib_global/M/p", np.array([0, 1], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/M/p",
    ),
    "huge declared rows": (
        _replace("fclib_global/M/m", np.array([2**31 - 1], dtype=np.int32)),
        errors.InputTooLargeError,
        "/fclib_global/M/m",
    ),
    "huge declared vector": (
        _replace("fclib_global/vectors/f", None, shape=(10**9,), dtype="f8"),
        errors.InputTooLargeError,
        "/fclib_global/vectors/f",
    ),
    "negative size": (
        _replace("fclib_global/H/n", np.array([-4], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/H/n",
    ),
    "unknown storage": (
        _replace("fclib_global/M/nz", np.array([-3], dtype=np.int32)),
        errors.UnknownValueError,
        "/fclib_global/M/nz",
    ),
    "row index out of range": (
        _replace("fclib_global/H/i", np.array([0, 1, 1, 2, 7, 0, 0], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/H/i",
    ),
    "negative column index": (
        _replace("fclib_global/H/p", np.array([0, 1, -2, 2, 3, 3, 0], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/H/p",
    ),
    "NaN in M": (
        _replace("fclib_global/M/x", np.array([2.0, 0.5, 0.5, np.nan, 3.0, 2.0])),
        errors.NonFiniteError,
        "/fclib_global/M/x",
    ),
    "inf in f": (
        _replace("fclib_global/vectors/f", np.array([1.0, np.inf, 0.0])),
        errors.NonFiniteError,
        "/fclib_global/vectors/f",
    ),
    "huge entry": (
        _replace("fclib_global/vectors/f", np.array([1.0, 1e300, 0.0])),
        errors.MagnitudeError,
        "/fclib_global/vectors/f",
    ),
    "spacedim 5": (
        _replace("fclib_global/spacedim", np.array([5], dtype=np.int32)),
        errors.UnknownValueError,
        "/fclib_global/spacedim",
    ),
    "H columns not multiple of spacedim": (
        _replace("fclib_global/H/n", np.array([5], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/H/n",
    ),
    "H rows not n": (
        _replace("fclib_global/H/m", np.array([4], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_global/H/m",
    ),
    "mu of the wrong length": (
        _replace("fclib_global/vectors/mu", np.array([0.5])),
        errors.ShapeError,
        "/fclib_global/vectors/mu",
    ),
    "negative mu": (
        _replace("fclib_global/vectors/mu", np.array([0.5, -0.1])),
        errors.NegativeFrictionError,
        "/fclib_global/vectors/mu",
    ),
    "w of the wrong length": (
        _replace("fclib_global/vectors/w", np.zeros(3)),
        errors.ShapeError,
        "/fclib_global/vectors/w",
    ),
    "b missing with G": (_delete("fclib_global/vectors/b"), errors.FileFormatError, "/fclib_global/vectors/b"),
    "2-D f": (_replace("fclib_global/vectors/f", np.zeros((3, 1))), errors.ShapeError, "/fclib_global/vectors/f"),
    "title not a string": (
        _replace("fclib_global/info/title", np.array([1.0])),
        errors.WrongTypeError,
        "/fclib_global/info/title",
    ),
    "asymmetric M with G": (
        _replace("fclib_global/M/x", np.array([2.0, 0.5, 0.6, 1.0, 3.0, 0.0])),
        errors.NotSymmetricError,
        "/fclib_global/M",
    ),
    "indefinite M": (
        _replace("fclib_global/M/x", np.array([2.0, 0.5, 0.5, -1.0, 3.0, 0.0])),
        errors.IndefiniteMassError,
        "/fclib_global/M (mass_matrix)",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_GLOBAL))
def test_hostile_global_file_is_refused_naming_the_hdf5_path(case, tmp_path):
    mutate, error, field = HOSTILE_GLOBAL[case]
    path = _global_file(tmp_path / "g.hdf5", "triplet", mutate=mutate)
    with pytest.raises(error) as exc:
        fclib.load(path)
    assert exc.value.field == field, str(exc.value)
    assert exc.value.fix  # the message says what to do


def test_triplets_of_M3_have_six_entries():
    """The hostile cases above replace M's triplet arrays by six entries: keep the writer in step with them."""
    assert np.count_nonzero(M3) + 1 == 6


def test_b_without_G_is_refused(tmp_path):
    path = _global_file(
        tmp_path / "g.hdf5", G=False, mutate=lambda fh: fh["fclib_global/vectors"].create_dataset("b", data=[1.0])
    )
    with pytest.raises(errors.FileFormatError) as exc:
        fclib.load(path)
    assert exc.value.field == "/fclib_global/vectors/b"


HOSTILE_LOCAL = {
    "W of the wrong size for m·d": (
        _replace("fclib_local/spacedim", np.array([3], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_local/W/n",
    ),
    "mu of the wrong length": (
        _replace("fclib_local/vectors/mu", np.array([0.3, 0.6, 0.1])),
        errors.ShapeError,
        "/fclib_local/vectors/mu",
    ),
    "q of the wrong length": (
        _replace("fclib_local/vectors/q", np.zeros(5)),
        errors.ShapeError,
        "/fclib_local/vectors/q",
    ),
    "NaN in q": (
        _replace("fclib_local/vectors/q", np.array([0.0, np.nan, 0.0, 0.0])),
        errors.NonFiniteError,
        "/fclib_local/vectors/q",
    ),
    "pointers decreasing": (
        _replace("fclib_local/W/p", np.array([0, 3, 2, 7, 9], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_local/W/p",
    ),
    "pointers past the end": (
        _replace("fclib_local/W/p", np.array([0, 2, 4, 5, 99], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_local/W/p",
    ),
    "column index out of range": (
        _replace("fclib_local/W/i", np.array([0, 1, 0, 0, 1, 3, 2, 0, 9], dtype=np.int32)),
        errors.ShapeError,
        "/fclib_local/W/i",
    ),
    "W not square": (_replace("fclib_local/W/n", np.array([5], dtype=np.int32)), errors.ShapeError, "/fclib_local/W"),
    "W group missing": (_delete("fclib_local/W"), errors.FileFormatError, "/fclib_local/W"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_LOCAL))
def test_hostile_local_file_is_refused_naming_the_hdf5_path(case, tmp_path):
    mutate, error, field = HOSTILE_LOCAL[case]
    path = _local_file(tmp_path / "l.hdf5", "csr", mutate=mutate)
    with pytest.raises(error) as exc:
        fclib.load(path)
    assert exc.value.field == field, str(exc.value)


def test_not_hdf5_missing_directory_and_empty_files(tmp_path):
    (tmp_path / "x.hdf5").write_text('{"format": "gaussqp/1"}')
    for path, field in (
        (tmp_path / "x.hdf5", str(tmp_path / "x.hdf5")),
        (tmp_path / "none.hdf5", None),
        (tmp_path, str(tmp_path)),
    ):
        with pytest.raises(errors.FileFormatError) as exc:
            fclib.load(path)
        assert field is None or exc.value.field == field
    with h5py.File(tmp_path / "empty.hdf5", "w"):
        pass
    with pytest.raises(errors.FileFormatError) as exc:
        fclib.load(tmp_path / "empty.hdf5")
    assert exc.value.field == "/" and "no FCLIB problem" in str(exc.value)


def test_truncated_hdf5_file_is_a_file_format_error(tmp_path):
    path = _global_file(tmp_path / "g.hdf5")
    data = path.read_bytes()
    (tmp_path / "t.hdf5").write_bytes(data[: len(data) // 2])
    with pytest.raises(errors.FileFormatError):
        fclib.load(tmp_path / "t.hdf5")


def test_two_problem_groups_are_refused(tmp_path):
    path = _global_file(tmp_path / "g.hdf5", mutate=lambda fh: fh.create_group("fclib_local"))
    with pytest.raises(errors.FileFormatError) as exc:
        fclib.load(path)
    assert exc.value.field == "/"


def test_external_link_is_not_followed(tmp_path):
    _local_file(tmp_path / "other.hdf5")

    def link(fh):
        del fh["fclib_global/M"]
        fh["fclib_global/M"] = h5py.ExternalLink(str(tmp_path / "other.hdf5"), "/fclib_local/W")

    path = _global_file(tmp_path / "g.hdf5", mutate=link)
    with pytest.raises(errors.FileFormatError) as exc:
        fclib.load(path)
    assert exc.value.field == "/fclib_global/M" and "external link" in str(exc.value)


def _natural_map_relative(r, u, q, mu, d=3) -> float:
    """‖r − P_K(r − (u + μ‖u_T‖e_N))‖ / ‖q‖ per contact block, in plain NumPy (Acary, Brémond, Huber 2018, (12))."""
    R, U, phi = r.reshape(-1, d), u.reshape(-1, d), []
    for rj, uj, mj in zip(R, U, mu):
        s = uj.copy()
        s[0] += mj * np.linalg.norm(uj[1:])
        z = rj - s
        zn, zt = z[0], z[1:]
        nt = np.linalg.norm(zt)
        if nt <= mj * zn:  # in K = {‖t‖ <= μ n}
            p = z
        elif mj * nt <= -zn:  # in the polar cone -K*
            p = np.zeros(d)
            p = np.zeros(d)
        else:
            a = (zn + mj * nt) / (1 + mj * mj)
            p = np.concatenate([[a], mj * a * zt / nt])
        phi.append(rj - p)
    return float(np.linalg.norm(phi) / np.linalg.norm(q))


@needs_data
@pytest.mark.parametrize("name", sorted(NONSYMMETRIC_M))
def test_nonsymmetric_mass_file_is_certified_on_the_stored_data(name):
    """Issue #25 item 2: the file's M is non-symmetric by 22 % at its entries' scale (1.5e-7 of max|M|, which let
    it be symmetrized): the answer must satisfy Coulomb's law for the STORED M, H, f, w, not for (M + Mᵀ)/2."""
    p = fclib.load(_path(name))
    assert isinstance(p, gaussqp.LocalContactProblem) and "not symmetric" in p.description
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    with h5py.File(_path(name), "r") as fh:
        g = fh["fclib_global"]
        M, H = _raw_dense(g["M"]), _raw_dense(g["H"])
        f, w, mu = (g["vectors"][k][()] for k in ("f", "w", "mu"))
    scale = np.sqrt(np.outer(np.abs(np.diag(M)), np.abs(np.diag(M))))
    assert np.max(np.abs(M - M.T) / scale) > 0.2  # the reason: far beyond round-off at the entries' scale
    r = np.column_stack([sol.lambda_normal, sol.lambda_tangent]).ravel()
    v = np.linalg.solve(M, H @ r + f)  # M v = H r + f
    u = H.T @ v + w
    q = H.T @ np.linalg.solve(M, f) + w
    assert _natural_map_relative(r, u, q, mu) <= 1e-8


def _two_contact_file(path, M, *, G=False):
    return _global_file(
        path,
        "triplet",
        G=G,
        mutate=lambda fh: (
            fh.__delitem__("fclib_global/M"),
            _write_matrix(fh["fclib_global"], "M", M, "triplet", duplicate=False),
        ),
    )


def test_small_entries_asymmetric_at_their_own_scale_are_condensed_not_symmetrized(tmp_path):
    """1e-9 of max|M| but 10 % of sqrt(|M_11 M_22|): not round-off; the stored M is condensed, never symmetrized."""
    M = np.array([[1e8, 0.0, 0.0], [0.0, 1.0, 0.1], [0.0, 0.0, 1.0]])
    p = fclib.load(_two_contact_file(tmp_path / "g.hdf5", M))
    assert isinstance(p, gaussqp.LocalContactProblem) and "not symmetric at its entries' scale" in p.description
    np.testing.assert_allclose(_dense(p.W), H3.T @ np.linalg.solve(M, H3), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(p.q, H3.T @ np.linalg.solve(M, F3) + np.array([0.1, 0.2, -0.3, 0.4]), rtol=1e-13)
    with pytest.raises(errors.NotSymmetricError) as exc:  # with bilateral rows G it cannot be condensed: refused
        fclib.load(_two_contact_file(tmp_path / "gG.hdf5", M, G=True))
    assert exc.value.field == "/fclib_global/M" and "G" in str(exc.value) and exc.value.fix
    singular = np.array([[1.0, 1.0, 0.0], [0.9, 0.9, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(errors.NotSymmetricError) as exc:
        fclib.load(_two_contact_file(tmp_path / "gs.hdf5", singular))
    assert "singular" in str(exc.value) or "not finite" in str(exc.value)


def test_round_off_asymmetry_is_symmetrized_unless_asked_not_to(tmp_path):
    big = M3 * 1e8
    big[0, 1] += 1.0  # asymmetry 1.0 = 3e-9 of max|M| = 3e8: beyond MASS_RTOL (1e-9), within FCLIB_SYMMETRY_RTOL

    def write(fh):
        del fh["fclib_global/M"]
        _write_matrix(fh["fclib_global"], "M", big, "triplet", duplicate=False)

    path = _global_file(tmp_path / "g.hdf5", mutate=write)
    p = fclib.load(path)
    np.testing.assert_array_equal(_dense(p.M), (big + big.T) / 2)
    with pytest.raises(errors.NotSymmetricError) as exc:
        fclib.load(path, symmetrize=False)
    assert exc.value.field == "/fclib_global/M (mass_matrix)"


# ------------------------------------------------------------------------------ through the command line


def test_cli_reads_fclib_files_and_refuses_hostile_ones_with_exit_2(tmp_path, capsys):
    from gaussqp.cli import main

    good = _global_file(tmp_path / "g.hdf5")
    assert main(["info", str(good), "--json"]) == 0
    assert '"coulomb"' in capsys.readouterr().out
    local = _local_file(tmp_path / "l.hdf5")
    assert main(["info", str(local)]) == 0
    assert "u = W r + q" in capsys.readouterr().out
    bad = _global_file(tmp_path / "bad.hdf5", mutate=HOSTILE_GLOBAL["float p"][0])
    for command in ("info", "check", "solve"):
        assert main([command, str(bad)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "/fclib_global/M/p" in err
