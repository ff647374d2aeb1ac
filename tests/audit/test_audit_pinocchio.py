"""The Pinocchio adapter of the audit (issue #29 item 4): Pinocchio's ADMM contact solver (Coulomb cones) at a state,
against the certified rigid answer and its force envelopes. Closed forms, models built in code (no URDF needed): a
box on four corners (each corner in [0, W/2], Pinocchio W/4), the box pushed beyond friction (a = g(p − μ), the
front/back split of the tipping moment), the box on a tilted gravity (sticks above tan θ, slides below with
a = g(sin θ − μ cos θ)), a four-legged robot with hinged legs standing with zero torques (each foot in [0, W/2]), a
box sliding at a velocity (Pinocchio's acceleration-level NCP sticks it: flagged; its time step does not), and bad
input."""

from __future__ import annotations

import math

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="needs the optional extra gaussqp[pinocchio] (the pin package)")
if not hasattr(pin, "ADMMConstraintSolver"):
    pytest.skip(f"pinocchio {pin.__version__} has no ADMMConstraintSolver (Pinocchio >= 4)", allow_module_level=True)

from gaussqp.audit import pinocchio_  # noqa: E402
from gaussqp.errors import NonFiniteError, NotApplicableError, ShapeError, UnknownValueError, WrongTypeError  # noqa: E402
from gaussqp.io.pinocchio import FrameContact  # noqa: E402

G = 9.81
MASS, LX, LY, LZ = 3.0, 0.2, 0.3, 0.2
W = MASS * G
MU = 0.4


def box_model(gravity=(0.0, 0.0, -G)):
    model = pin.Model()
    model.gravity.linear = np.asarray(gravity, dtype=float)
    j = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "box")
    model.appendBodyToJoint(j, pin.Inertia.FromBox(MASS, LX, LY, LZ), pin.SE3.Identity())
    names = []
    for sx in (1, -1):
        for sy in (1, -1):
            names.append(f"corner{sx:+d}{sy:+d}")
            model.addFrame(
                pin.Frame(
                    names[-1],
                    j,
                    0,
                    pin.SE3(np.eye(3), np.array([sx * LX / 2, sy * LY / 2, -LZ / 2])),
                    pin.FrameType.OP_FRAME,
                )
            )
    q = pin.neutral(model)
    q[2] = LZ / 2
    return model, q, names


def corners(names, mu=MU):
    return [FrameContact(n, friction=mu) for n in names]


def test_box_at_rest_each_corner_in_zero_to_half_weight():
    model, q, names = box_model()
    rep = pinocchio_.audit(model, q, contacts=corners(names))
    st = rep.states[0]
    assert st.status == "solved" and st.certified and not st.flags, st.flags
    assert rep.options["pinocchio"][0].startswith("solver pinocchio ADMMConstraintSolver")
    for c in st.contacts:
        assert c.mode == "sticking"
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * W) and c.normal_range[1] == pytest.approx(W / 2)
        assert c.engine_normal == pytest.approx(W / 4, rel=1e-8)  # Pinocchio's proximal ADMM: the even split
        assert c.engine_friction == pytest.approx(0.0, abs=1e-9 * W)
        assert c.hold_margin == pytest.approx(MU * W / 2, rel=1e-6)  # the corner carrying W/2, no friction
    assert st.engine_acceleration_gap == pytest.approx(0.0, abs=1e-9)


def test_box_pushed_beyond_friction_slides_with_the_closed_form():
    """A push p·W at the centre (p = 0.5 > μ): a = g(p − μ) along x; friction μW at the bottom tips it onto the
    front pair: front pair (W + μW·LZ/LX)/2, back pair the rest (moment balance about the centre)."""
    model, q, names = box_model()
    tau = np.zeros(model.nv)
    tau[0] = 0.5 * W
    st = pinocchio_.audit(model, q, tau=tau, contacts=corners(names)).states[0]
    assert st.certified and not st.flags, st.flags
    assert st.acceleration[0] == pytest.approx(G * (0.5 - MU), rel=1e-9)
    front = (W + MU * W * LZ / LX) / 2
    for c in st.contacts:
        assert c.mode == "sliding"
        want = front / 2 if c.label.startswith("corner+1") else (W - front) / 2
        assert c.engine_normal == pytest.approx(want, rel=1e-8)
        assert c.normal_range[0] - 1e-7 * W <= c.engine_normal <= c.normal_range[1] + 1e-7 * W
        assert c.engine_friction == pytest.approx(MU * c.engine_normal, rel=1e-8)
        assert c.engine_coulomb_residual <= 1e-9


@pytest.mark.parametrize("mu", [0.7, 0.3])
def test_box_on_a_tilted_gravity_sticks_or_slides(mu):
    """Gravity tilted by θ = 30° (a ramp): μ > tan θ sticks (a = 0), μ < tan θ slides with a = g(sin θ − μ cos θ)."""
    th = math.radians(30)
    model, q, names = box_model(gravity=(G * math.sin(th), 0.0, -G * math.cos(th)))
    st = pinocchio_.audit(model, q, contacts=corners(names, mu)).states[0]
    assert st.certified and not st.flags, st.flags
    a = st.acceleration
    expected = 0.0 if mu > math.tan(th) else G * (math.sin(th) - mu * math.cos(th))
    assert a[0] == pytest.approx(expected, abs=1e-9 * G)
    assert {c.mode for c in st.contacts} == {"sticking" if mu > math.tan(th) else "sliding"}
    assert sum(c.engine_normal for c in st.contacts) == pytest.approx(W * math.cos(th), rel=1e-8)


def legged_model():
    """A body (4 kg, 0.4 × 0.3 × 0.1) on four legs hinged about y at the hips, each leg 0.25 kg, 0.2 long, its centre
    of mass and its foot straight below the hinge: standing with zero torques is statics (a vertical foot force
    through the hinge axis has no moment), so each foot carries [0, W/2] as a table's legs do."""
    model = pin.Model()
    base = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    model.appendBodyToJoint(base, pin.Inertia.FromBox(4.0, 0.4, 0.3, 0.1), pin.SE3.Identity())
    feet = []
    for k, (sx, sy) in enumerate([(1, 1), (1, -1), (-1, 1), (-1, -1)]):
        hip = model.addJoint(
            base, pin.JointModelRY(), pin.SE3(np.eye(3), np.array([sx * 0.2, sy * 0.15, -0.05])), f"hip{k}"
        )
        model.appendBodyToJoint(
            hip, pin.Inertia(0.25, np.array([0.0, 0.0, -0.1]), np.diag([1e-3, 1e-3, 1e-4])), pin.SE3.Identity()
        )
        feet.append(f"foot{k}")
        model.addFrame(
            pin.Frame(feet[-1], hip, 0, pin.SE3(np.eye(3), np.array([0.0, 0.0, -0.2])), pin.FrameType.OP_FRAME)
        )
    q = pin.neutral(model)
    q[2] = 0.25
    return model, q, feet, (4.0 + 4 * 0.25) * G


def test_legged_robot_standing_with_zero_torques():
    model, q, feet, weight = legged_model()
    rep = pinocchio_.audit(model, q, contacts=[FrameContact(f, friction=0.8) for f in feet])
    st = rep.states[0]
    assert st.certified and not st.flags, st.flags
    assert np.abs(st.acceleration).max() <= 1e-9 * G
    for c in st.contacts:
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * weight)
        assert c.normal_range[1] == pytest.approx(weight / 2, rel=1e-7)
        assert 0.0 <= c.engine_normal <= weight / 2
    assert sum(c.engine_normal for c in st.contacts) == pytest.approx(weight, rel=1e-8)
    # independently: Pinocchio's forces and acceleration satisfy its own dynamics, M a + nle = τ + J_cᵀ f
    ans = pinocchio_.admm_answer(
        model, q, np.zeros(model.nv), np.zeros(model.nv), [FrameContact(f, friction=0.8) for f in feet]
    )
    data = model.createData()
    lhs = pin.rnea(model, data, q, np.zeros(model.nv), ans["acceleration"])
    assert np.allclose(lhs, ans["jacobian"].T @ ans["forces"].ravel(), atol=1e-9 * weight)


def test_sliding_at_a_velocity_acceleration_level_sticks_time_step_does_not():
    """A box sliding at 1 m/s along x, no push: rigid mechanics decelerates it at μg. Pinocchio's NCP posed at the
    acceleration level applies De Saxcé's law to the tangential acceleration and sticks it (no friction): the audit
    flags the Coulomb violation and the acceleration gap. The velocity-level time step sees the slip: no flag."""
    model, q, names = box_model()
    v = np.zeros(model.nv)
    v[0] = 1.0
    st = pinocchio_.audit(model, q, v, contacts=corners(names)).states[0]
    assert st.certified and st.acceleration[0] == pytest.approx(-MU * G, rel=1e-9)
    kinds = {f.split(":")[0] for f in st.flags}
    assert {"coulomb_violation", "acceleration_gap"} <= kinds
    assert st.engine_acceleration_gap > 0.1
    st = pinocchio_.audit(model, q, v, contacts=corners(names), dt=1e-3).states[0]
    assert not st.flags, st.flags
    assert st.engine_acceleration_gap <= 1e-6


def test_separating_contacts_get_no_force():
    model, q, names = box_model()
    v = np.zeros(model.nv)
    v[2] = 1.0  # lifting off
    st = pinocchio_.audit(model, q, v, contacts=corners(names), dt=1e-3).states[0]
    assert [c.index for c in st.contacts] == [-1] * 4 and not st.flags
    assert all(c.engine_normal == pytest.approx(0.0, abs=1e-12) for c in st.contacts)
    assert any(what == "contact" for what, _ in st.left_out)


def test_bad_input():
    model, q, names = box_model()
    with pytest.raises(NotApplicableError, match="bilateral"):
        pinocchio_.audit(model, q, contacts=[FrameContact(names[0], type="bilateral")])
    with pytest.raises(UnknownValueError):
        pinocchio_.audit(model, q, contacts=[FrameContact("no_such_frame", friction=0.5)])
    with pytest.raises(NonFiniteError):
        pinocchio_.audit(model, np.full(model.nq, np.nan), contacts=corners(names))
    with pytest.raises(ShapeError):
        pinocchio_.audit(model, q, tau=np.zeros(3), contacts=corners(names))
    with pytest.raises(ShapeError):
        pinocchio_.audit(model, q, contacts=[])


def test_several_states():
    model, q, names = box_model()
    Q = np.vstack([q, q])
    T = np.zeros((2, model.nv))
    T[1, 0] = 0.5 * W
    rep = pinocchio_.audit(model, Q, tau=T, contacts=corners(names))
    assert [s.step for s in rep.states] == [0, 1]
    assert rep.states[1].acceleration[0] == pytest.approx(G * (0.5 - MU), rel=1e-9)
    assert rep.summary()["states"] == 2 and rep.as_dict()["states"][0]["contacts"][0]["geoms"] == [
        names[0],
        "environment",
    ]


def hanging_box(points):
    """The box held at ``points`` (body coordinates) by bilateral CONTACT_3D constraints to the world."""
    model, q, _ = box_model()
    q[2] = 1.0
    cms = [
        pin.RigidConstraintModel(
            pin.ContactType.CONTACT_3D,
            model,
            1,
            pin.SE3(np.eye(3), np.asarray(p, float)),
            pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
        )
        for p in points
    ]
    return model, q, cms


def test_constraint_dynamics_hanging_from_one_point():
    """One point above the centre: the constraint carries W straight up (a point envelope: independent rows)."""
    model, q, cms = hanging_box([(0.0, 0.0, 0.1)])
    st = pinocchio_.audit_constraint_dynamics(model, q, constraint_models=cms).states[0]
    assert st.certified and not st.flags, st.flags
    z = [c for c in st.contacts if c.label.endswith("[z]")][0]
    assert z.kind == "equality" and z.engine_normal == pytest.approx(W, rel=1e-12)
    assert z.normal_range[0] == pytest.approx(W, rel=1e-9) and z.normal_range[1] == pytest.approx(W, rel=1e-9)


def test_constraint_dynamics_two_points_tension_is_free_and_exact_kkt_gives_nan():
    """Two points at x = ±0.1: each carries W/2 up; the tension along x is any number (range (−∞, ∞), certified by
    a ray). Pinocchio's exact KKT (its default settings) is singular there and returns NaN: flagged; with a proximal
    μ it returns the tensionless member of the set, inside every range."""
    model, q, cms = hanging_box([(0.1, 0.0, 0.1), (-0.1, 0.0, 0.1)])
    st = pinocchio_.audit_constraint_dynamics(model, q, constraint_models=cms).states[0]
    assert any(f.startswith("engine_not_finite") for f in st.flags)
    st = pinocchio_.audit_constraint_dynamics(
        model, q, constraint_models=cms, settings=pin.ProximalSettings(1e-12, 1e-12, 1e-6, 100)
    ).states[0]
    assert st.certified and not st.flags, st.flags
    for c in st.contacts:
        if c.label.endswith("[x]"):
            assert c.normal_range == (-math.inf, math.inf) and abs(c.engine_normal) <= 1e-6 * W
        if c.label.endswith("[z]"):
            assert c.normal_range[0] == pytest.approx(W / 2, rel=1e-9) == c.engine_normal


@pytest.mark.parametrize("reference_frame", ["local_world_aligned", "local"])
def test_a_yawed_box_pushed_in_its_own_axes_either_reference_frame(reference_frame):
    """The pushed box turned by 0.5 rad about z, the push along its own x (a free flyer's torques are in the body
    frame): the same closed-form split whatever axes the normals are given in."""
    model, q, names = box_model()
    quat = pin.Quaternion(pin.utils.rpyToMatrix(0.0, 0.0, 0.5))
    q[3:] = [quat.x, quat.y, quat.z, quat.w]
    tau = np.zeros(model.nv)
    tau[0] = 0.5 * W
    st = pinocchio_.audit(model, q, tau=tau, contacts=corners(names), reference_frame=reference_frame).states[0]
    assert st.certified and not st.flags, st.flags
    front = (W + MU * W * LZ / LX) / 2
    for c in st.contacts:
        assert c.engine_normal == pytest.approx(
            front / 2 if c.label.startswith("corner+1") else (W - front) / 2, rel=1e-8
        )


def test_every_contact_separating_is_free_motion_without_calling_the_admm_solver():
    """A box lifting off at 1 m/s (found by a new user's trial): every corner separates, so no contact is given to
    Pinocchio's ADMM solver, which ended the process (a segmentation fault) on an empty constraint set. The state is
    audited as free motion: the engine's acceleration is M⁻¹(τ − h), certified equal to the rigid answer."""
    model, q, names = box_model()
    v = np.zeros(model.nv)
    v[2] = 1.0
    rep = pinocchio_.audit(model, q, v, contacts=corners(names))
    st = rep.states[0]
    assert st.status == "solved" and st.certified and not st.flags, st.flags
    assert "Pinocchio's ADMM not called" in rep.options["pinocchio"][0]
    assert st.contacts == [] and st.engine_acceleration_gap == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(st.acceleration[:3], [0.0, 0.0, -G], atol=1e-12)
    with pytest.raises(WrongTypeError) as err:  # the audit's worker count is checked for every engine (audit_states)
        pinocchio_.audit(model, q, v, contacts=corners(names), workers=0)
    assert err.value.field == "workers"
