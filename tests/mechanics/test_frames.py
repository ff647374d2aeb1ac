"""One contact frame (issue #26 item 8): the grasps and the Pinocchio importer had two public ``tangent_basis``
functions giving different frames for the same normal; both now take :mod:`gaussqp.mechanics.frames`'s."""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp.mechanics.frames import contact_frame, tangent_basis

NORMALS = [[0, 0, 1], [0, 0, -1], [1, 0, 0], [0, -1, 0], [0.3, -0.2, 1.0], [-1, 1, 1], [1, 1, 1], [1e-3, 2, -5]]


def _unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


@pytest.mark.parametrize("normal", NORMALS)
def test_the_frame_is_orthonormal_and_right_handed(normal):
    n = _unit(normal)
    B = np.vstack([tangent_basis(n), n])  # rows t₁, t₂, n
    np.testing.assert_allclose(B @ B.T, np.eye(3), rtol=0, atol=1e-15)
    assert np.linalg.det(B) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(np.cross(B[0], B[1]), n, rtol=0, atol=1e-15)  # t₁ × t₂ = n


@pytest.mark.parametrize("normal", NORMALS)
def test_every_import_path_gives_the_same_frame(normal):
    import gaussqp.grasp
    import gaussqp.grasp.model

    n = _unit(normal)
    ref = tangent_basis(n)
    assert gaussqp.grasp.tangent_basis is gaussqp.grasp.model.tangent_basis is tangent_basis
    cn, t1, t2 = contact_frame(normal)  # any length: normalized
    assert np.array_equal(np.vstack([t1, t2]), tangent_basis(cn))
    np.testing.assert_allclose(np.vstack([t1, t2]), ref, rtol=0, atol=1e-15)
    pin = pytest.importorskip("gaussqp.io.pinocchio", exc_type=ImportError)
    assert pin.tangent_basis is contact_frame
    pn, p1, p2 = pin.tangent_basis(normal)
    assert np.array_equal(np.vstack([p1, p2, pn]), np.vstack([t1, t2, cn]))


def test_the_frame_is_the_one_the_grasps_always_used():
    """The grasps' frame was kept (their answers and shipped files depend on it; the Pinocchio importer's frame,
    t₁ = x for n = z, changed to this one): t₁ = n × e/‖n × e‖, e the axis of the smallest |n_k|, t₂ = n × t₁."""
    assert np.array_equal(tangent_basis([0.0, 0.0, 1.0]), [[0, 1, 0], [-1, 0, 0]])
    assert np.array_equal(tangent_basis([1.0, 0.0, 0.0]), [[0, 0, 1], [0, -1, 0]])
    assert np.array_equal(tangent_basis([0.6, 0.8]), [[-0.8, 0.6]])  # planar: t = (−n_y, n_x)


def test_a_zero_normal_is_refused():
    from gaussqp.errors import InputError

    with pytest.raises(InputError, match="normal"):
        contact_frame([0.0, 0.0, 0.0])
