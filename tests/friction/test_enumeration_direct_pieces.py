"""The enumeration's pieces with 3D sticking cones go straight to Clarabel (no cvxpy program compiled per piece); the
same enumeration as through cvxpy, and a piece whose equalities pin a single point is decided without a program."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp.friction.enumeration as enumeration
from gaussqp import ContactProblem
from gaussqp.friction.enumeration import enumerate_solutions
from gaussqp.problems import families


def box(modes: list[str], push: float, mu: float = 0.4) -> ContactProblem:
    """A 2 kg box on its four corners (3D), pushed along x by ``push`` N, each corner of the told mode (sliding along
    +x where told so)."""
    p = ContactProblem(
        np.diag([2.0, 2.0, 2.0, 0.5, 0.6, 0.7]),
        [-push, 0, 2.0 * 9.81, 0, 0, 0],
        families.box_corner_contacts("sliding", mu, 0.5, 0.4, 0.3, slip=[1.0, 0.0]),
        dimension=3,
    )
    return p.with_blocks(modes=modes)


CASES = [
    (["sliding", "sliding", "sticking", "sticking"], 3.0),
    (["sticking", "sliding", "sticking", "sliding"], 9.0),
    (["sticking", "sticking", "sticking", "sticking"], 2.0),
    (["sticking", "sticking", "sticking", "sticking"], 20.0),
    (["sliding", "sticking", "sliding", "sliding"], 5.0),
]


@pytest.mark.parametrize("modes,push", CASES)
def test_direct_pieces_enumerate_as_the_cvxpy_program_does(modes, push, monkeypatch):
    p = box(modes, push)
    direct = enumerate_solutions(p)
    monkeypatch.setattr(enumeration, "_socp_piece_direct", lambda *a: (None, False))
    monkeypatch.setattr(enumeration, "_relaxed_socp_direct", lambda *a: (None, enumeration.UNDECIDED, False))
    through_cvxpy = enumerate_solutions(p)
    assert len(direct.solutions) == len(through_cvxpy.solutions)
    assert direct.multiplicity == through_cvxpy.multiplicity
    if direct.nearest_change is not None or through_cvxpy.nearest_change is not None:  # no piece solvable as given
        assert direct.nearest_change == pytest.approx(through_cvxpy.nearest_change, rel=1e-4)
        assert direct.undecided_pieces == through_cvxpy.undecided_pieces == 0
    for s, t in zip(direct.solutions, through_cvxpy.solutions):
        assert s.modes == t.modes
        assert s.piece == t.piece
        np.testing.assert_allclose(s.a, t.a, rtol=1e-7, atol=1e-7 * 9.81)
