"""The compiled data scales (:func:`gaussqp.model.compiled_kernels.row_scales`) against the NumPy code they replace
(the reference): every field of :class:`~gaussqp.model.scales.DataScales`, bit for bit, on dense problems of every kind (drifts or
none, forces or none, rows over six decades, one contact, one coordinate) and on the shipped robots; where they apply
and where the NumPy code answers alone. Skipped, with the reason, without numba (``pip install 'gaussqp[fast]'``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from gaussqp import problems
from gaussqp.model import scales
from gaussqp.model.problem import ContactProblem
from gaussqp.model.scales import data_scales


def _kernel():
    return scales._KERNELS.load()  # None without numba (or with a broken one: load_kernels warns and says why)


pytestmark = pytest.mark.skipif(_kernel() is None, reason="numba is not installed: pip install 'gaussqp[fast]'")


def compiled_and_numpy(p: ContactProblem, monkeypatch):
    """The scales of two fresh copies of ``p``: the compiled kernel's and NumPy's."""
    monkeypatch.setattr(scales, "_compiled_kernel", _kernel)
    fast = data_scales(p.with_force(p.F))
    monkeypatch.setattr(scales, "_compiled_kernel", lambda: None)
    slow = data_scales(p.with_force(p.F))
    return fast, slow


def same(x, y) -> bool:
    """Equal bit for bit (arrays and Python floats; NaN where NaN)."""
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        return x.shape == y.shape and x.tobytes() == y.tobytes()
    return type(x) is type(y) and (x == y or (x != x and y != y))


def assert_same_scales(fast, slow) -> None:
    for f in dataclasses.fields(slow):
        assert same(getattr(fast, f.name), getattr(slow, f.name)), f.name


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(1, 20),
    m=st.integers(0, 8),
    d=st.sampled_from([2, 3]),
    loaded=st.booleans(),
    drifts=st.booleans(),
)
def test_the_kernel_gives_the_numpy_scales(seed, n, m, d, loaded, drifts):
    rng = np.random.default_rng(seed)
    R = rng.normal(size=(n, n)) * 10.0 ** rng.uniform(-3, 3, size=(n, 1))
    M = R @ R.T + 1e-3 * np.eye(n)
    p = ContactProblem.from_blocks(
        M,
        rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3) if loaded else np.zeros(n),
        rng.normal(size=(m, n)) * 10.0 ** rng.uniform(-3, 3, size=(m, 1)),
        rng.normal(size=m) * rng.choice([0.0, 1.0], size=m) if drifts else None,
        list(rng.choice(["bilateral", "unilateral"], size=m)),
        rng.normal(size=(m * (d - 1), n)),
        rng.normal(size=m * (d - 1)) if drifts else None,
        np.full(m, 0.5),
        "sticking",
        dimension=d,
    )
    assert scales._kernel_applies(p, p.mass_factor)
    with pytest.MonkeyPatch.context() as mp:
        fast, slow = compiled_and_numpy(p, mp)
    assert_same_scales(fast, slow)


@pytest.mark.parametrize(
    "name", ["real/humanoid_lying", "real/quadruped_standing", "real/stacker_boxes", "rocking_block"]
)
def test_the_kernel_on_shipped_problems(name, monkeypatch):
    p = problems.load(name)
    assert scales._kernel_applies(p, p.mass_factor)  # dense, M ≻ 0: a robot the kernel is for
    assert_same_scales(*compiled_and_numpy(p, monkeypatch))


def test_the_comparison_can_fail():
    assert not same(1.0, np.nextafter(1.0, 2.0)) and not same(np.ones(2), np.array([1.0, np.nextafter(1.0, 2.0)]))
    assert not same(np.float64(1.0), 1.0)  # a Python float on both paths, not a NumPy scalar on one


def test_where_the_kernel_does_not_apply(monkeypatch):
    """A singular M, a sparse problem and data not C-ordered keep the NumPy code; the kernel is reached otherwise."""
    singular = ContactProblem.from_blocks(np.diag([1.0, 0.0]), np.ones(2), np.array([[1.0, 1.0]]))
    assert not scales._kernel_applies(singular, singular.mass_factor)
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    sparse = ContactProblem.from_blocks(sp.csr_matrix(M), np.ones(2), sp.csr_matrix(np.array([[1.0, 0.0]])))
    assert not scales._kernel_applies(sparse, sparse.mass_factor)
    fortran = ContactProblem.from_blocks(
        np.asfortranarray(np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.0], [0.1, 0.0, 3.0]])), np.ones(3), np.ones((2, 3))
    )
    if not fortran.M.flags.c_contiguous:
        assert not scales._kernel_applies(fortran, fortran.mass_factor)
    calls = []
    K = _kernel()

    class Spy:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(K, name)

    monkeypatch.setattr(scales, "_compiled_kernel", lambda: Spy())
    dense = ContactProblem.from_blocks(M, np.ones(2), np.array([[1.0, 0.0]]))
    data_scales(dense)
    data_scales(singular)
    assert calls == ["row_scales"]
