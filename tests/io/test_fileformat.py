"""gaussqp/1 JSON and NPZ forms: defaults, sparse triplets, lossless round trips."""

import json

import numpy as np
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.problems import families


def test_defaults():
    p = gaussqp.loads(
        '{"format": "gaussqp/1", "mass_matrix": [[2, 0], [0, 2]], "force": [0, 19.62],'
        ' "contacts": [{"type": "unilateral", "normal": [0, 1]}]}'
    )
    assert p.name == "" and p.dimension == 2
    assert p.normal_drift[0] == 0.0 and p.friction[0] == 0.0 and p.modes[0] == "frictionless"
    assert not p.has_tangent[0]


def test_sparse_triplets_and_sparse_vectors():
    doc = {
        "format": "gaussqp/1",
        "name": "s",
        "dimension": 2,
        "mass_matrix": {"shape": [3, 3], "row": [0, 1, 2, 2], "col": [0, 1, 2, 2], "data": [1, 1, 0.5, 0.5]},
        "force": {"shape": [3], "index": [1], "data": [9.81]},
        "contacts": [{"type": "unilateral", "normal": {"shape": [3], "index": [1], "data": [1.0]}}],
    }
    p = gaussqp.loads(json.dumps(doc))
    assert sp.issparse(p.M) and p.M[2, 2] == 1.0  # duplicates summed
    np.testing.assert_array_equal(p.contact(0).normal, [0.0, 1.0, 0.0])


def _same(p, q):
    assert gaussqp.dumps(p) == gaussqp.dumps(q)


def test_json_npz_round_trip_all_shipped(tmp_path):
    for name in problems.names():
        p = problems.load(name)
        q = gaussqp.loads(gaussqp.dumps(p))
        _same(p, q)
        gaussqp.save_npz(q, tmp_path / f"{name}.npz")
        _same(p, gaussqp.load_npz(tmp_path / f"{name}.npz"))


def test_round_trip_with_friction_fields_and_3d(tmp_path):
    c = [
        Contact(
            "unilateral",
            normal=[0, 0, 1, 0, 0, 0],
            normal_drift=0.25,
            friction=0.4,
            mode="sliding",
            tangent=np.eye(6)[:2],
            tangent_drift=[0.1, -0.2],
            slip=[3.0, 4.0],
        ),
        Contact("bilateral", normal=[1, 0, 0, 0, 0, 0], friction=0.2, mode="sticking", tangent=np.eye(6)[3:5]),
        Contact("unilateral", normal=[0, 1, 0, 0, 0, 0]),
    ]
    p = ContactProblem(
        np.diag([1, 1, 1, 0.1, 0.1, 0.1]), np.arange(6.0), c, dimension=3, name="f3d", description="round trip"
    )
    np.testing.assert_allclose(p.slip[0], [0.6, 0.8])  # normalized
    for path in (tmp_path / "a.json", tmp_path / "a.npz"):
        gaussqp.dump(p, path)
        _same(p, gaussqp.load(path))


def test_round_trip_large_sparse(tmp_path):
    p = families.chain(500, lift=1.5, duplicate_every=7)
    gaussqp.save_npz(p, tmp_path / "chain.npz")
    q = gaussqp.load_npz(tmp_path / "chain.npz")
    assert sp.issparse(q.M) and sp.issparse(q.J_n)
    assert (abs(q.J_n - p.J_n)).max() == 0 and np.array_equal(q.types, p.types)
    r = gaussqp.loads(gaussqp.dumps(q))
    assert (abs(r.M - p.M)).max() == 0


# ---------------------------------------------------------------------- issue 9: bad NPZ input, mixed storage
import io  # noqa: E402
import time  # noqa: E402
import zipfile  # noqa: E402

import pytest  # noqa: E402

from gaussqp import errors  # noqa: E402


def test_sparse_mass_with_dense_unilateral_rows_solves():
    """A sparse M with only unilateral dense rows raised a bare ``ValueError: blocks must be 2-D``
    (stacking an empty dense equality block with scipy); the rows are now stored sparse with M."""
    M = sp.diags([1.0, 2.0, 0.5], format="csr")
    J = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    p = ContactProblem.from_blocks(M, [0.0, 9.81, 1.0], J, types="unilateral")
    E, e = p.equalities
    assert E.shape == (0, 3) and e.shape == (0,)
    sol = gaussqp.solve(p)
    ref = gaussqp.solve(ContactProblem.from_blocks(M.toarray(), [0.0, 9.81, 1.0], J, types="unilateral"))
    assert sol.status == "solved" and sol.certified
    np.testing.assert_allclose(sol.acceleration, ref.acceleration, atol=1e-8)
    np.testing.assert_allclose(sol.acceleration, [0.0, 0.0, -2.0], atol=1e-8)  # the floor holds body 1
    assert gaussqp.check(p).system_class.m_unilateral == 2


def _npz_bytes(**arrays) -> io.BytesIO:
    """The rod_wall_guide problem's NPZ form with members replaced (None removes one)."""
    buf = io.BytesIO()
    gaussqp.save_npz(problems.load("rod_wall_guide"), buf)
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as z:
        members = {k: z[k] for k in z.files}
    for k, v in arrays.items():
        if v is None:
            members.pop(k)
        else:
            members[k] = v
    out = io.BytesIO()
    np.savez(out, **members)
    out.seek(0)
    return out


def _lying_header(key: str, shape: tuple) -> io.BytesIO:
    """An NPZ whose member ``key`` declares ``shape`` but holds 8 bytes (a 3e16-entry allocation before)."""
    base = _npz_bytes()
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False, "shape": shape})
    out = io.BytesIO()
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = head.getvalue() + b"\0" * 8 if info.filename == f"{key}.npy" else src.read(info)
            dst.writestr(info.filename, data)
    out.seek(0)
    return out


NPZ_CASES = [
    (
        "complex force (was truncated)",
        lambda: _npz_bytes(force=np.array([0.0, 9.81 + 1j, 0.0])),
        errors.FileFormatError,
        "force",
    ),
    ("boolean friction", lambda: _npz_bytes(friction=np.array([True, False])), errors.FileFormatError, "friction"),
    ("string dimension", lambda: _npz_bytes(dimension=np.array("2")), errors.FileFormatError, "dimension"),
    ("float types", lambda: _npz_bytes(types=np.array([1.0, 2.0])), errors.FileFormatError, "types"),
    ("missing force", lambda: _npz_bytes(force=None), errors.FileFormatError, "force"),
    ("missing modes", lambda: _npz_bytes(modes=None), errors.FileFormatError, "modes"),
    ("2-D force", lambda: _npz_bytes(force=np.zeros((3, 1))), errors.ShapeError, "force"),
    ("slip of the wrong shape", lambda: _npz_bytes(slip=np.zeros(7)), errors.ShapeError, "slip"),
    ("integer has_tangent", lambda: _npz_bytes(has_tangent=np.array([2, 0])), errors.FileFormatError, "has_tangent"),
    ("1e300 entry", lambda: _npz_bytes(force=np.array([0.0, 1e300, 0.0])), errors.MagnitudeError, "force"),
    ("declared shape 3e16", lambda: _lying_header("force", (3 * 10**16,)), errors.InputTooLargeError, "force"),
    ("truncated member", lambda: _lying_header("force", (3,)), errors.FileFormatError, "force"),
    (
        "sparse negative index",
        lambda: _npz_bytes(
            mass_matrix=None,
            mass_matrix_shape=np.array([3, 3]),
            mass_matrix_row=np.array([0, 1, -1]),
            mass_matrix_col=np.array([0, 1, 2]),
            mass_matrix_data=np.ones(3),
        ),
        errors.FileFormatError,
        "mass_matrix_row",
    ),
    (
        "sparse lengths broadcast",
        lambda: _npz_bytes(
            mass_matrix=None,
            mass_matrix_shape=np.array([3, 3]),
            mass_matrix_row=np.array([0, 1, 2]),
            mass_matrix_col=np.array([0, 1, 2]),
            mass_matrix_data=np.ones(1),
        ),
        errors.FileFormatError,
        "mass_matrix",
    ),
    (
        "sparse float indices",
        lambda: _npz_bytes(
            mass_matrix=None,
            mass_matrix_shape=np.array([3, 3]),
            mass_matrix_row=np.array([0, 1, 2.5]),
            mass_matrix_col=np.array([0, 1, 2]),
            mass_matrix_data=np.ones(3),
        ),
        errors.FileFormatError,
        "mass_matrix_row",
    ),
    (
        "sparse shape 3e16",
        lambda: _npz_bytes(
            mass_matrix=None,
            mass_matrix_shape=np.array([3 * 10**16, 3 * 10**16]),
            mass_matrix_row=np.zeros(0, int),
            mass_matrix_col=np.zeros(0, int),
            mass_matrix_data=np.zeros(0),
        ),
        errors.InputTooLargeError,
        "mass_matrix_shape",
    ),
    ("not a zip", lambda: io.BytesIO(b"PK\x03\x04 definitely not a zip"), errors.FileFormatError, "npz file"),
]


@pytest.mark.parametrize("case, make, exc, field", NPZ_CASES, ids=[c[0] for c in NPZ_CASES])
def test_hostile_npz_gives_a_typed_error(case, make, exc, field):
    """Bare exceptions, silent truncation of complex arrays, or huge allocations before (issue 9)."""
    data = make()
    start = time.perf_counter()
    with pytest.raises(exc) as info:
        gaussqp.load_npz(data)
    assert time.perf_counter() - start < 5.0
    assert info.value.field == field and "; fix: " in str(info.value)


def test_npz_reads_from_a_file_object_with_its_metadata_members():
    """An unknown member is refused (tests/io/test_loader_strictness.py); ``source`` is metadata, as in JSON."""
    p = gaussqp.load_npz(_npz_bytes(source=np.array("written by another tool")))
    _same(p, problems.load("rod_wall_guide"))


def test_a_missing_dimension_or_a_contact_count_that_disagrees_is_named(tmp_path):
    """Found by a new user's trial: a 3D file without "dimension" was told "give 1 tangent row" (the default dimension
    2), and a J_n of 3 rows for 4 contacts' J_t was reported as J_t's shape. Each error names what is missing or which
    counts disagree."""
    import pytest

    from gaussqp.errors import InputError

    p = problems.load("real/box_on_plane")
    doc = json.loads(gaussqp.dumps(p))
    del doc["dimension"]
    f = tmp_path / "nodim.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(InputError) as err:
        gaussqp.load(f)
    assert err.value.field == "dimension" and '"dimension": 3' in str(err.value)
    Jn, Jt = np.asarray(p.J_n.toarray() if sp.issparse(p.J_n) else p.J_n), p.J_t
    with pytest.raises(InputError) as err:
        ContactProblem.from_blocks(
            p.M, p.F, Jn[:-1], None, "unilateral", Jt, None, p.friction[:-1], "coulomb", None, None, 3
        )
    assert err.value.field == "J_t" and f"J_n has {p.m - 1} rows" in str(err.value)
