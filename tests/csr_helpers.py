"""CSR comparisons shared by the tests of gaussqp.linalg.csr and of the sparse set-up that uses it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def same(A: sp.csr_matrix, B: sp.csr_matrix) -> bool:
    """Identical CSR arrays (the values compared bit for bit, signed zeros included)."""
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    return (
        A.shape == B.shape
        and np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(
            np.asarray(A.data, dtype=float).view(np.int64), np.asarray(B.data, dtype=float).view(np.int64)
        )
    )


def with_repeats(A: sp.csr_matrix, count: int = 2) -> sp.csr_matrix:
    """``A`` with the first entry of each of its first ``count`` nonempty rows stored a second time (the CSR arrays
    built by hand: SciPy's constructors from triplets sum repeats away)."""
    A = sp.csr_matrix(A)
    data, indices, lengths = [], [], []
    added = 0
    for i in range(A.shape[0]):
        lo, hi = A.indptr[i], A.indptr[i + 1]
        d, j = list(A.data[lo:hi]), list(A.indices[lo:hi])
        if hi > lo and added < count:
            d.append(d[0] * 0.3 + 0.1)  # a sum that rounds: the order of the terms shows
            j.append(j[0])
            added += 1
        data += d
        indices += j
        lengths.append(len(d))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    out = sp.csr_matrix((np.array(data, dtype=float), np.array(indices), indptr), shape=A.shape)
    return out
