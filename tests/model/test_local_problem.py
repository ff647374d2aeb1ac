"""LocalContactProblem (the FCLIB local form u = W r + q): validation, immutability, W need not be symmetric.
Needs no optional component (the FCLIB files are tested in tests/io/test_fclib.py); also checks that without h5py
the FCLIB functions raise MissingExtraError saying what to install."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import errors
from gaussqp.model.local_problem import LocalContactProblem

W2 = np.array([[2.0, 0.5, 0.0, 0.0], [-0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.1], [0.0, 0.0, -0.1, 1.0]])


def test_fields_and_velocity():
    p = LocalContactProblem(W2, [1.0, 0.0, -1.0, 0.5], [0.3, 0.0], 2, name="two", description="planar")
    assert (p.m, p.dimension, p.size, p.sparse) == (2, 2, 4, False)
    assert p.asymmetry == 1.0  # a gyroscopic (non-symmetric) W is valid data
    np.testing.assert_array_equal(p.velocity([1.0, 0.0, 0.0, 0.0]), [3.0, -0.5, -1.0, 0.5])
    assert gaussqp.LocalContactProblem is LocalContactProblem
    assert "m=2" in repr(p)


def test_sparse_W_is_stored_as_csr_and_dense_input_is_copied_read_only():
    W = np.eye(3)
    p = LocalContactProblem(W, np.zeros(3), [0.5], 3)
    W[0, 0] = 7.0
    assert p.W[0, 0] == 1.0 and not p.W.flags.writeable
    with pytest.raises(ValueError):
        p.q[0] = 1.0
    with pytest.raises(AttributeError):
        p.name = "x"
    s = LocalContactProblem(sp.coo_matrix(np.eye(6)), np.zeros(6), [0.1, 0.2], 3)
    assert s.sparse and sp.isspmatrix_csr(s.W) and s.asymmetry == 0.0


def test_a_sparse_W_with_repeated_entries_is_copied_and_summed_and_the_callers_matrix_is_never_rewritten():
    """The problem holds its own canonical copy of a CSR W (sorted, repeats summed): neither its construction nor a
    mode-free solve (SciPy's ``abs`` of a sparse matrix sums its repeats in place) rewrites the caller's arrays, which a
    matrix sharing them would (the caller's matrix was left with more stored values than its ``indptr`` counts)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from csr_helpers import with_repeats

    rng = np.random.default_rng(0)
    R = rng.normal(size=(30, 30))
    W = R @ R.T / 30
    W[np.abs(W) < 0.1] = 0.0
    A = with_repeats(sp.csr_matrix(W), count=6)
    assert not A.has_canonical_format
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    p = LocalContactProblem(A, rng.normal(size=30), np.full(10, 0.5), 3)
    assert p.W.has_canonical_format and not np.shares_memory(p.W.data, A.data)
    np.testing.assert_allclose(p.W.toarray(), A.toarray(), rtol=1e-15, atol=0)
    assert gaussqp.solve(p, crosscheck=False).status in ("solved", "inaccurate")
    assert all(np.array_equal(a, b) for a, b in zip(before, (A.data, A.indices, A.indptr)))


@pytest.mark.parametrize(
    "kwargs, error, field",
    [
        (dict(W=np.eye(5), q=np.zeros(4), mu=[0.1, 0.1], dimension=2), errors.ShapeError, "W"),
        (dict(W=np.eye(4), q=np.zeros(5), mu=[0.1, 0.1], dimension=2), errors.ShapeError, "q"),
        (dict(W=np.eye(4), q=np.zeros(4), mu=[0.1, -0.1], dimension=2), errors.NegativeFrictionError, "mu[1]"),
        (dict(W=np.eye(4), q=np.zeros(4), mu=[0.1, 0.1], dimension=4), errors.UnknownValueError, "dimension"),
        (dict(W=np.eye(4), q=np.zeros(4), mu=[0.1, 0.1], dimension=True), errors.UnknownValueError, "dimension"),
        (dict(W=np.full((4, 4), np.nan), q=np.zeros(4), mu=[0.1, 0.1], dimension=2), errors.NonFiniteError, "W"),
        (dict(W=np.eye(4), q=["a"] * 4, mu=[0.1, 0.1], dimension=2), errors.NonNumericError, "q"),
        (dict(W=np.eye(4), q=np.zeros(4), mu=[True, 0.1], dimension=2), errors.NonNumericError, "mu"),
        (dict(W=np.eye(4), q=np.zeros(4), mu=[0.1, 0.1], dimension=2, name=3), errors.WrongTypeError, "name"),
    ],
)
def test_invalid_data_are_refused_naming_the_field(kwargs, error, field):
    with pytest.raises(error) as exc:
        LocalContactProblem(**kwargs)
    assert exc.value.field == field and exc.value.fix


def test_without_h5py_the_fclib_functions_say_what_to_install(monkeypatch, tmp_path):
    from gaussqp.io import fclib

    monkeypatch.setitem(sys.modules, "h5py", None)  # import h5py now raises ImportError
    with pytest.raises(errors.MissingExtraError, match=r"pip install 'gaussqp\[fclib\]'"):
        fclib.load(tmp_path / "x.hdf5")
    with pytest.raises(ImportError):  # still an ImportError
        fclib.save(LocalContactProblem(np.eye(2), np.zeros(2), [0.1], 2), tmp_path / "x.hdf5")
