"""The grasp model and its file format (issue #13 item 1)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.errors import FileFormatError, InputError, NegativeFrictionError, ShapeError, UnknownValueError
from gaussqp.grasp import Grasp, GraspContact, from_contact_problem, loads, dumps, tangent_basis


def two_fingers_2d(mu=0.5):
    return Grasp([GraspContact([-1.0, 0.0], [1.0, 0.0], mu), GraspContact([1.0, 0.0], [-1.0, 0.0], mu)], name="pinch")


def test_planar_grasp_map_by_hand():
    g = two_fingers_2d()
    G = g.grasp_map(scaled=False)
    # contact at (-1, 0), normal (1, 0), tangent (0, 1): columns (1, 0, 0) and μ (0, 1, -1)
    np.testing.assert_allclose(G[:, :2], [[1, 0], [0, 0.5], [0, -0.5]])
    np.testing.assert_allclose(G[:, 2:], [[-1, 0], [0, -0.5], [0, -0.5]])
    assert g.torque_scale == 1.0 and g.wrench_dimension == 3


def test_spatial_soft_finger_columns_and_frames():
    c = GraspContact([0, 0, 1.0], [0, 0, -1.0], friction=0.4, kind="soft", torsional_friction=0.02)
    g = Grasp([c], torque_scale=2.0)
    T = tangent_basis(np.array([0, 0, -1.0]))
    frame = np.vstack([T, [0, 0, -1.0]])
    np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-15)
    G = g.grasp_map(scaled=False)
    assert G.shape == (6, 4)
    np.testing.assert_allclose(G[:, 3], [0, 0, 0, 0, 0, -0.02])  # μ_t n, a pure torque
    np.testing.assert_allclose(g.grasp_map()[3:, 3], [0, 0, -0.01])  # divided by L = 2


@pytest.mark.parametrize("facets", [3, 8, 64])
def test_inner_and_outer_generators_bracket_the_exact_cone(facets):
    g = Grasp([GraspContact([0, 0, 1.0], [0, 0, -1.0], 0.5)])
    inner = g.cone_generators(0, facets, "inner")
    outer = g.cone_generators(0, facets, "outer")
    np.testing.assert_allclose(np.linalg.norm(inner[:, 1:], axis=1), 1.0)  # on the exact cone
    # every facet of the outer polygon touches the unit circle: its inradius is 1
    mid = (outer[:, 1:] + np.roll(outer[:, 1:], -1, axis=0)) / 2
    np.testing.assert_allclose(np.linalg.norm(mid, axis=1), 1.0)
    soft = Grasp([GraspContact([0, 0, 1.0], [0, 0, -1.0], 0.5, "soft", 0.01)])
    o = soft.cone_generators(0, 40, "outer")[:, 1:]
    from scipy.spatial import ConvexHull

    assert np.min(-ConvexHull(o).equations[:, -1]) == pytest.approx(1.0, rel=1e-12)


def test_file_round_trip_and_defaults():
    doc = {
        "format": "gaussqp-grasp/1",
        "name": "t",
        "wrench": [0, -9.81, 0],
        "contacts": [{"position": [-1, 0], "normal": [1, 0], "friction": 0.5}, {"position": [1, 0], "normal": [-1, 0]}],
    }
    g = loads(json.dumps(doc))
    assert [c.kind for c in g.contacts] == ["hard", "frictionless"]
    g2 = loads(dumps(g))
    np.testing.assert_allclose(g2.grasp_map(), g.grasp_map())
    np.testing.assert_allclose(g2.wrench, [0, -9.81, 0])


@pytest.mark.parametrize(
    "contact, error, field",
    [
        ({"position": [0, 0], "normal": [0, 0]}, ShapeError, "contacts[0].normal"),
        ({"position": [0, 0], "normal": [0, 2.0]}, ShapeError, "contacts[0].normal"),
        ({"position": [0, 0], "normal": [0, 1], "friction": -0.1}, NegativeFrictionError, "contacts[0].friction"),
        ({"position": [0, 0], "normal": [0, 1], "friction": True}, FileFormatError, "contacts[0].friction"),
        ({"position": [0, 0], "normal": [0, 1], "friction": "0.5"}, FileFormatError, "contacts[0].friction"),
        (
            {"position": [0, 0], "normal": [0, 1], "friction": 0.5, "kind": "soft", "torsional_friction": 0.1},
            UnknownValueError,
            "contacts[0].kind",
        ),
        ({"position": [0, 0, 0], "normal": [0, 1]}, ShapeError, "contacts[0].position"),
        ({"position": [0, 0], "normal": [0, 1], "kind": "sticky"}, UnknownValueError, "contacts[0].kind"),
        ({"position": [0, 0], "normal": [0, 1], "grip": 1}, FileFormatError, "contacts[0].grip"),
        ({"normal": [0, 1]}, FileFormatError, "contacts[0].position"),
    ],
)
def test_bad_contacts_name_the_field(contact, error, field):
    doc = {"format": "gaussqp-grasp/1", "torque_scale": 1.0, "contacts": [contact]}
    with pytest.raises(error) as exc:
        loads(json.dumps(doc))
    assert isinstance(exc.value, InputError) and exc.value.field == field


def test_hostile_files_are_refused():
    with pytest.raises(FileFormatError, match="twice"):
        loads('{"format": "gaussqp-grasp/1", "contacts": [], "contacts": []}')
    with pytest.raises(gaussqp.errors.InputTooLargeError):
        loads('{"format": "gaussqp-grasp/1", "contacts": ' + "[" * 100 + "]" * 100 + "}")
    with pytest.raises(gaussqp.errors.MagnitudeError):
        loads('{"format": "gaussqp-grasp/1", "contacts": [{"position": [1e400, 0], "normal": [0, 1]}]}')
    with pytest.raises(UnknownValueError, match="torque_scale"):  # every contact at the origin: no length
        Grasp([GraspContact([0, 0], [0, 1.0], 0.5)])
    with pytest.raises(ShapeError, match="empty"):
        loads('{"format": "gaussqp-grasp/1", "contacts": []}')


def test_from_contact_problem_is_the_transposed_rows():
    # a unit-mass planar box (x, y, θ) with inertia 1/6 on two corner contacts, from the library's conventions
    M = np.diag([1.0, 1.0, 1.0 / 6])
    cs = [
        Contact("unilateral", normal=[0, 1.0, s * 0.5], friction=0.5, mode="sticking", tangent=[[1.0, 0, 0.5]])
        for s in (-1, 1)
    ]
    p = ContactProblem(M, [0, 9.81, 0], cs, dimension=2, name="box")
    g = from_contact_problem(p)
    G = g.grasp_map(scaled=False)
    np.testing.assert_allclose(G[:, 0], [0, 1, -0.5])
    np.testing.assert_allclose(G[:, 1], 0.5 * np.array([1.0, 0, 0.5]))
    np.testing.assert_allclose(g.wrench, [0, -9.81, 0])
    assert g.torque_scale == pytest.approx(np.sqrt(1 / 6))
    with pytest.raises(ShapeError):
        from_contact_problem(p, [0, 1])
