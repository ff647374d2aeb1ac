"""The mass matrix's symmetry check is made at each entry's own scale (issue #9): not against 1 or the largest
entry, so a mass matrix in small units, or a light coordinate beside a heavy one, is checked just as strictly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gaussqp import ContactProblem
from gaussqp.errors import NotSymmetricError


@pytest.mark.parametrize("unit", [1.0, 1e-8, 1e8])
@pytest.mark.parametrize("sparse", [False, True])
def test_asymmetry_is_refused_in_any_units(unit, sparse):
    M = unit * np.array([[1.0, 0.5], [0.1, 1.0]])  # 40 % asymmetric: refused whatever the unit
    with pytest.raises(NotSymmetricError):
        ContactProblem(sp.csr_matrix(M) if sparse else M, [0.0, 0.0])
    ContactProblem(unit * np.array([[1.0, 0.5], [0.5 * (1 + 1e-14), 1.0]]), [0.0, 0.0])  # round-off passes


def test_a_light_coordinate_beside_a_heavy_one_is_checked_at_its_own_scale():
    M = np.diag([1e6, 1e-6, 1.0])
    M[1, 2], M[2, 1] = 1e-4, -1e-4  # opposite signs between a 1e-6 and a 1 coordinate: asymmetric at their scale
    with pytest.raises(NotSymmetricError):
        ContactProblem(M, np.zeros(3))
