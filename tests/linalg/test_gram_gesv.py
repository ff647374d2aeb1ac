"""``gaussqp.linalg.dense.gram`` and ``gesv``: ``JᵀJ`` and a solve through SciPy's BLAS and LAPACK, the calls the
compiled kernels make, so that F9's Python Newton loop and its compiled loop give the same numbers on any machine
(NumPy's own ``J.T @ J`` and ``solve`` call another OpenBLAS build, which rounds otherwise on some processors)."""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp.linalg.dense import gesv, gram

SHAPES = [(69, 69), (42, 69), (90, 42), (5, 3), (1, 1), (3, 1)]


def _matrix(k: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(k, n)) * 10.0 ** rng.uniform(-3, 3, size=(k, 1))


@pytest.mark.parametrize("shape", SHAPES)
def test_gram_is_the_symmetric_product(shape):
    J = _matrix(*shape, seed=sum(shape))
    G = gram(J)
    assert G.shape == (shape[1], shape[1]) and G.flags.c_contiguous
    assert np.array_equal(G, G.T)
    assert np.allclose(G, J.T @ J, rtol=1e-12, atol=1e-12 * np.abs(J.T @ J).max())


def test_gram_of_empty_factors_is_zero():
    assert gram(np.zeros((0, 4))).tolist() == np.zeros((4, 4)).tolist()
    assert gram(np.zeros((3, 0))).shape == (0, 0)


def test_gesv_solves_and_flags_an_exactly_singular_matrix():
    A = _matrix(12, 12, seed=3) + 10 * np.eye(12)
    b = np.arange(12.0)
    x, factored = gesv(A, b)
    assert factored and np.allclose(A @ x, b, rtol=1e-10, atol=1e-10)
    S = np.ones((3, 3))
    y, factored = gesv(S, b[:3])
    assert not factored and np.array_equal(y, b[:3])


@pytest.mark.parametrize("shape", SHAPES)
def test_the_compiled_kernels_compute_the_same_bits(shape):
    pytest.importorskip("numba", reason="the compiled kernels need the optional extra gaussqp[fast] (numba)")
    from gaussqp.friction import compiled_kernels as ck

    J = _matrix(*shape, seed=7 * sum(shape))
    G = gram(J)
    assert G.tobytes() == ck.gram(J).tobytes()
    A = G + 0.1 * np.eye(shape[1])
    b = _matrix(shape[1], 1, seed=1).ravel()
    (x, ok), (y, ok_c) = gesv(A, b), ck._gesv(A, b)
    assert ok and ok_c and x.tobytes() == y.tobytes()
