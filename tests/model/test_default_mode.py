"""Issue #25 item 4: a contact given friction but no ``mode`` is a Coulomb contact (the solver decides stick/slip),
not a frictionless one; without friction the default stays ``frictionless``. The same default in ``from_blocks``
and in the ``gaussqp/1`` JSON format."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem, errors


def _pushed_block(**contact):
    """A unit mass in the plane (x, y) on the ground y = 0, pushed along x by 2 N, gravity 9.81 (F on the left)."""
    return ContactProblem(np.eye(2), [-2.0, 9.81], [Contact("unilateral", normal=[0.0, 1.0], **contact)], dimension=2)


def test_friction_without_mode_is_coulomb_and_the_block_sticks():
    p = _pushed_block(friction=0.5, tangent=[[1.0, 0.0]])
    assert list(p.modes) == ["coulomb"]
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    # μ m g = 4.9 N > 2 N: the block sticks (it slid at 2 m/s² when the default was frictionless)
    np.testing.assert_allclose(sol.acceleration, [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(sol.lambda_tangent.ravel(), [-2.0], atol=1e-6)


def test_no_friction_stays_frictionless():
    assert list(_pushed_block(tangent=[[1.0, 0.0]]).modes) == ["frictionless"]
    assert list(_pushed_block().modes) == ["frictionless"]
    assert list(_pushed_block(friction=0.0, tangent=[[1.0, 0.0]]).modes) == ["frictionless"]


def test_an_explicit_mode_is_kept():
    p = _pushed_block(friction=0.5, tangent=[[1.0, 0.0]], mode="frictionless")
    assert list(p.modes) == ["frictionless"]


def test_friction_without_tangent_rows_or_mode_is_refused():
    with pytest.raises(errors.TangentShapeError, match=r"contacts\[0\]\.tangent.*frictionless"):
        _pushed_block(friction=0.5)


def test_bilateral_friction_without_mode_is_refused_naming_the_modes():
    with pytest.raises(errors.UnknownValueError, match=r"contacts\[0\]\.mode.*'sticking' or 'sliding'"):
        ContactProblem(
            np.eye(2), [-2.0, 9.81], [Contact("bilateral", normal=[0.0, 1.0], friction=0.5, tangent=[[1.0, 0.0]])]
        )


def test_from_blocks_default_follows_friction():
    p = ContactProblem.from_blocks(
        np.eye(2), [-2.0, 9.81], [[0.0, 1.0], [0.0, 1.0]], J_t=[[1.0, 0.0], [1.0, 0.0]], friction=[0.5, 0.0]
    )
    assert list(p.modes) == ["coulomb", "frictionless"]


def test_json_contact_without_mode_follows_friction():
    doc = {
        "format": "gaussqp/1",
        "dimension": 2,
        "mass_matrix": [[1.0, 0.0], [0.0, 1.0]],
        "force": [-2.0, 9.81],
        "contacts": [
            {"type": "unilateral", "normal": [0.0, 1.0], "friction": 0.5, "tangent": [[1.0, 0.0]]},
            {"type": "unilateral", "normal": [0.0, 1.0], "tangent": [[1.0, 0.0]]},
        ],
    }
    p = gaussqp.loads(json.dumps(doc))
    assert list(p.modes) == ["coulomb", "frictionless"]
    assert list(gaussqp.loads(gaussqp.dumps(p)).modes) == ["coulomb", "frictionless"]
