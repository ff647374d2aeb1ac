"""The mechanics layer (issue #26 item 6): the matrices a contact problem defines moved out of ``gaussqp.linalg``;
the old import paths still answer, with the same objects and a DeprecationWarning."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from gaussqp import problems
from gaussqp.linalg import delassus as old_delassus
from gaussqp.linalg import kkt as old_kkt
from gaussqp.mechanics import active_set, delassus


@pytest.mark.parametrize("old, new", [(old_delassus, delassus), (old_kkt, active_set)])
def test_old_paths_answer_with_the_same_objects_and_a_warning(old, new):
    for name in old.MOVED:
        with pytest.warns(DeprecationWarning, match=f"moved to {new.__name__}.{name}"):
            assert getattr(old, name) is getattr(new, name)
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018


def test_from_import_of_an_old_name_still_works():
    with pytest.warns(DeprecationWarning):
        from gaussqp.linalg.delassus import constrained_delassus
    assert constrained_delassus is delassus.constrained_delassus
    with pytest.warns(DeprecationWarning):
        from gaussqp.linalg.kkt import equilibrated_kkt_svd
    assert equilibrated_kkt_svd is active_set.equilibrated_kkt_svd
    assert importlib.import_module("gaussqp.linalg.kkt").sparse_kkt_solve is active_set.sparse_kkt_solve


@pytest.mark.parametrize("name", ["real/box_on_plane", "real/humanoid_lying", "real/stacker_boxes"])
def test_delassus_of_rows_is_the_coulomb_condensation_to_the_bit(name):
    """``formulations/coulomb.py::condense`` builds its local form with the mechanics builder on the contact blocks
    of its plan (dense rows for a dense problem, issue #27): the same numbers to the bit."""
    from gaussqp.formulations.coulomb import CoulombPlan, condense

    p = problems.load(name)
    J, drift, _ = CoulombPlan(p).blocks(p)
    ref = condense(p)
    got = delassus.delassus_of_rows(p, J, drift)
    for field in ("W", "q", "MinvJt", "a_free"):
        assert np.array_equal(getattr(got, field), getattr(ref, field)), field


def test_delassus_of_rows_agrees_with_the_delassus_matrix():
    p = problems.load("real/box_on_plane")
    E, e = p.equalities
    G, g = p.inequalities
    W, w, J = delassus.delassus(p)
    got = delassus.delassus_of_rows(p, J, np.concatenate([e, g]))
    scale = np.abs(W).max()
    assert np.abs(got.W - W).max() <= 1e-12 * scale
    assert np.abs(got.q - w).max() <= 1e-12 * max(1.0, np.abs(w).max())
