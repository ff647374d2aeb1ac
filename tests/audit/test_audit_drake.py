"""The Drake adapter of the audit (issue #29 item 4): a MultibodyPlant state and its ContactResults against the
certified rigid answer and its force envelopes. Closed forms on a box resting on four corner spheres (radius R) on a
half space: each corner's normal force in [0, W/2] with Drake's W/4 inside, at rest on a discrete and a continuous
plant; sliding at a velocity, a = −μg and the tipping split of the front and back pairs; and refusals. Skipped, with
the reason, where Drake's Python package (``pip install drake``) is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pydrake", reason="needs Drake's Python package (pip install drake); not a gaussqp extra yet")

from pydrake.geometry import HalfSpace, Sphere  # noqa: E402
from pydrake.math import RigidTransform  # noqa: E402
from pydrake.multibody.math import SpatialForce, SpatialVelocity  # noqa: E402
from pydrake.multibody.plant import (
    AddMultibodyPlantSceneGraph,
    ContactModel,
    CoulombFriction,  # noqa: E402
    ExternallyAppliedSpatialForce,
)
from pydrake.multibody.tree import SpatialInertia, UnitInertia  # noqa: E402
from pydrake.systems.analysis import Simulator  # noqa: E402
from pydrake.systems.framework import DiagramBuilder  # noqa: E402

from gaussqp.audit import drake_  # noqa: E402
from gaussqp.errors import NotApplicableError, WrongTypeError  # noqa: E402

G = 9.81
MASS, LX, LY, LZ, R = 3.0, 0.2, 0.3, 0.2, 0.01
W = MASS * G
MU = 0.4


def box_scene(time_step: float, settle: float = 1.0, velocity=None, more: float = 0.1):
    """The box on its four corner spheres, dropped from touching and simulated ``settle`` seconds (then, with
    ``velocity``, given that linear velocity and simulated ``more`` seconds)."""
    b = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(b, time_step=time_step)
    box = plant.AddRigidBody("box", SpatialInertia(MASS, np.zeros(3), UnitInertia.SolidBox(LX, LY, LZ)))
    friction = CoulombFriction(MU, MU)
    for sx in (1, -1):
        for sy in (1, -1):
            plant.RegisterCollisionGeometry(
                box, RigidTransform([sx * LX / 2, sy * LY / 2, -LZ / 2]), Sphere(R), f"corner{sx:+d}{sy:+d}", friction
            )
    plant.RegisterCollisionGeometry(plant.world_body(), RigidTransform(), HalfSpace(), "ground", friction)
    plant.set_contact_model(ContactModel.kPoint)
    plant.Finalize()
    diagram = b.Build()
    root = diagram.CreateDefaultContext()
    ctx = plant.GetMyMutableContextFromRoot(root)
    plant.SetFreeBodyPose(ctx, plant.GetBodyByName("box"), RigidTransform([0.0, 0.0, LZ / 2 + R]))
    sim = Simulator(diagram, root)
    sim.AdvanceTo(settle)
    if velocity is not None:
        plant.SetFreeBodySpatialVelocity(
            ctx, plant.GetBodyByName("box"), SpatialVelocity(np.zeros(3), np.asarray(velocity, dtype=float))
        )
        sim.AdvanceTo(settle + more)
    return diagram, plant, root, ctx


@pytest.mark.parametrize("time_step", [1e-3, 0.0])
def test_box_at_rest_each_corner_in_zero_to_half_weight(time_step):
    diagram, plant, root, _ = box_scene(time_step)
    rep = drake_.audit(plant, root, diagram=diagram if time_step else None)
    st = rep.states[0]
    assert st.certified and not st.flags, st.flags
    assert len(st.contacts) == 4
    for c in st.contacts:
        assert c.mode == "sticking" and c.geoms[1] == "ground"
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * W) and c.normal_range[1] == pytest.approx(W / 2)
        assert c.engine_normal == pytest.approx(W / 4, rel=1e-2)  # Drake's compliant contact: the even split
    assert sum(c.engine_normal for c in st.contacts) == pytest.approx(W, rel=1e-2)


def test_box_sliding_decelerates_at_mu_g_with_the_tipping_split():
    """Sliding along x: a = −μg; friction μW at the contact points, R + LZ/2 below the centre, loads the front pair
    with (W + μW (LZ/2 + R)/(LX/2))/2 and the back pair with the rest."""
    diagram, plant, root, _ = box_scene(1e-3, settle=0.5, velocity=(1.0, 0.0, 0.0), more=0.1)
    st = drake_.audit(plant, root, diagram=diagram).states[0]
    assert st.certified and not st.flags, st.flags
    ax = st.acceleration[plant.GetBodyByName("box").floating_velocities_start_in_v() + 3]
    assert ax == pytest.approx(-MU * G, rel=1e-9)
    front = (W + MU * W * (LZ / 2 + R) / (LX / 2)) / 2
    for c in st.contacts:
        assert c.mode == "sliding"
        want = front / 2 if c.label.startswith("corner+1") else (W - front) / 2
        assert c.engine_normal == pytest.approx(want, rel=1e-3)
        assert c.engine_friction == pytest.approx(MU * c.engine_normal, rel=1e-6)
    assert st.engine_acceleration_gap <= 1e-6


def test_refusals():
    diagram, plant, root, ctx = box_scene(1e-3, settle=0.2)
    with pytest.raises(NotApplicableError, match="discrete"):
        drake_.audit(plant, root)  # a discrete plant's answer is its next step: the diagram is needed
    with pytest.raises(WrongTypeError):
        drake_.audit(object(), root)
    # a force the rigid problem does not model (an applied spatial force): refused, not judged
    diagram, plant, root, ctx = box_scene(0.0, settle=0.2)
    push = ExternallyAppliedSpatialForce()
    push.body_index = plant.GetBodyByName("box").index()
    push.F_Bq_W = SpatialForce(np.zeros(3), np.array([0.3 * W, 0.0, 0.0]))
    plant.get_applied_spatial_force_input_port().FixValue(ctx, [push])
    with pytest.raises(NotApplicableError, match="does not model"):
        drake_.audit(plant, root)
