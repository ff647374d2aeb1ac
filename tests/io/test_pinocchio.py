"""The Pinocchio importer (issue #11, item 2) against Pinocchio itself: rows equal to its frame Jacobians, drifts
equal to its classical accelerations, bilateral problems equal to ``constraintDynamics`` (1e-9), a box resting and
sliding on the ground against the closed form, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio", reason="needs the optional extra gaussqp[pinocchio] (the pin package)")

import gaussqp  # noqa: E402
from gaussqp.errors import (  # noqa: E402
    FileFormatError,
    InputError,
    MissingSlipError,
    NonFiniteError,
    ShapeError,  # noqa: E402
    UnknownValueError,
    WrongTypeError,
)
from gaussqp.io.pinocchio import (  # noqa: E402
    FrameContact,
    from_pinocchio,
    import_pinocchio,
    load_model,  # noqa: E402
    tangent_basis,
)

G = 9.81
BOX_MASS, BOX_X, BOX_Y, BOX_Z = 2.0, 0.4, 0.3, 0.2

BOX_URDF = (
    f"""<?xml version="1.0"?>
<robot name="box">
  <link name="body">
    <inertial><origin xyz="0 0 0"/><mass value="{BOX_MASS}"/>
      <inertia ixx="{BOX_MASS * (BOX_Y**2 + BOX_Z**2) / 12}" iyy="{BOX_MASS * (BOX_X**2 + BOX_Z**2) / 12}"
               izz="{BOX_MASS * (BOX_X**2 + BOX_Y**2) / 12}" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
"""
    + "".join(
        f"""  <link name="corner{i}"/>
  <joint name="corner{i}_joint" type="fixed"><parent link="body"/><child link="corner{i}"/>
    <origin xyz="{sx * BOX_X / 2} {sy * BOX_Y / 2} {-BOX_Z / 2}"/></joint>
"""
        for i, (sx, sy) in enumerate([(1, 1), (1, -1), (-1, 1), (-1, -1)])
    )
    + "</robot>\n"
)

CORNERS = [f"corner{i}" for i in range(4)]


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("urdf") / "box.urdf"
    path.write_text(BOX_URDF)
    return load_model(path, floating_base=True)


def box_state(vx=0.0):
    q = np.array([0.0, 0.0, BOX_Z / 2, 0.0, 0.0, 0.0, 1.0])
    v = np.zeros(6)
    v[0] = vx
    return q, v


@pytest.fixture(scope="module")
def humanoid():
    pin.seed(0)  # the sample humanoid has random inertias and placements: the same ones on every run
    return pin.buildSampleModelHumanoidRandom()


def random_state(model, seed):
    pin.seed(seed)
    rng = np.random.default_rng(seed)
    q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
    return q, rng.standard_normal(model.nv), rng.standard_normal(model.nv)


def constraint_dynamics(model, q, v, tau, cms):
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for cm in cms:
        models.append(cm)
        datas.append(cm.createData())
    data = model.createData()
    pin.initConstraintDynamics(model, data, models, datas)
    settings = pin.ProximalSettings(1e-14, 1e-14, 0.0, 100)  # mu = 0: the exact KKT system
    a = pin.constraintDynamics(model, data, q, v, tau, models, datas, settings)
    return a.copy(), data.lambda_c.copy(), models


# ------------------------------------------------------------------------------------------------ constraintDynamics
CASES = [
    (ct, ref, two)
    for ct in ("CONTACT_3D", "CONTACT_6D")
    for ref in ("LOCAL_WORLD_ALIGNED", "LOCAL")
    for two in (False, True)
]


@pytest.mark.parametrize("ctype,ref,two_joints", CASES)
def test_bilateral_constraints_agree_with_constraint_dynamics(humanoid, ctype, ref, two_joints):
    model = humanoid
    q, v, tau = random_state(model, 1)
    pin.seed(7)
    j1, j2 = model.getJointId("rarm4_joint"), model.getJointId("larm5_joint")
    ct, rf = getattr(pin.ContactType, ctype), getattr(pin.ReferenceFrame, ref)
    cms = [
        pin.RigidConstraintModel(ct, model, j1, pin.SE3.Random(), j2, pin.SE3.Random(), rf)
        if two_joints
        else pin.RigidConstraintModel(ct, model, j1, pin.SE3.Random(), rf),
        pin.RigidConstraintModel(
            pin.ContactType.CONTACT_3D, model, model.getJointId("lleg6_joint"), pin.SE3.Random(), rf
        ),
    ]
    a_ref, lam_ref, models = constraint_dynamics(model, q, v, tau, cms)
    imp = import_pinocchio(model, q, v, tau, constraint_models=models)
    assert [o.source for o in imp.origins] == ["constraint_model"] * len(lam_ref)
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved" and sol.certified
    assert np.abs(sol.acceleration - a_ref).max() <= 1e-9 * max(1.0, np.abs(a_ref).max())
    # gaussqp's λ is the force on the system along the rows; Pinocchio's lambda_c is the same vector
    assert np.abs(sol.lambda_normal - lam_ref).max() <= 1e-9 * max(1.0, np.abs(lam_ref).max())


def test_baumgarte_terms_are_pinocchios(humanoid):
    model = humanoid
    q, v, tau = random_state(model, 2)
    pin.seed(3)
    cms = []
    for ct, j1, j2 in (
        (pin.ContactType.CONTACT_6D, "rarm6_joint", "lleg4_joint"),
        (pin.ContactType.CONTACT_3D, "larm6_joint", "rleg6_joint"),
    ):
        cm = pin.RigidConstraintModel(
            ct, model, model.getJointId(j1), pin.SE3.Random(), model.getJointId(j2), pin.SE3.Random(), pin.LOCAL
        )
        cm.m_baumgarte_parameters.Kp = 4.0
        cm.m_baumgarte_parameters.Kd = 1.5
        cms.append(cm)
    a_ref, lam_ref, models = constraint_dynamics(model, q, v, tau, cms)
    sol = gaussqp.solve(from_pinocchio(model, q, v, tau, constraint_models=models))
    assert sol.status == "solved"
    assert np.abs(sol.acceleration - a_ref).max() <= 1e-9 * max(1.0, np.abs(a_ref).max())
    # without the corrector the answer is another one: the terms matter and are counted
    for cm in models:
        cm.m_baumgarte_parameters.Kp = 0.0
        cm.m_baumgarte_parameters.Kd = 0.0
    other = gaussqp.solve(from_pinocchio(model, q, v, tau, constraint_models=models))
    assert np.abs(other.acceleration - a_ref).max() > 1e-3


def test_armature_is_in_the_mass_matrix_as_in_constraint_dynamics():
    model = pin.buildSampleModelManipulator()
    model.armature = np.linspace(0.1, 0.6, model.nv)
    q, v, tau = pin.neutral(model) + 0.2, np.ones(model.nv), np.zeros(model.nv)
    cm = pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, model, model.njoints - 1, pin.SE3.Identity(), pin.LOCAL)
    a_ref, lam_ref, models = constraint_dynamics(model, q, v, tau, [cm])
    p = from_pinocchio(model, q, v, tau, constraint_models=models)
    bare = pin.buildSampleModelManipulator()
    np.testing.assert_allclose(
        np.diag(p.M) - np.diag(pin.crba(bare, bare.createData(), q)), model.armature, rtol=0, atol=1e-12
    )
    sol = gaussqp.solve(p)
    assert np.abs(sol.acceleration - a_ref).max() <= 1e-9 * max(1.0, np.abs(a_ref).max())


def test_desired_acceleration_of_the_model_is_noted(humanoid):
    model = humanoid
    q, v, tau = random_state(model, 4)
    cm = pin.RigidConstraintModel(
        pin.ContactType.CONTACT_3D, model, model.getJointId("rarm6_joint"), pin.SE3.Identity(), pin.LOCAL
    )
    cm.desired_contact_acceleration = pin.Motion(np.array([1.0, 2.0, 3.0, 0.0, 0.0, 0.0]))
    a_ref, _, models = constraint_dynamics(model, q, v, tau, [cm])
    imp = import_pinocchio(model, q, v, tau, constraint_models=models)
    assert any("desired_contact_acceleration" in n for n in imp.notes)
    assert np.abs(gaussqp.solve(imp.problem).acceleration - a_ref).max() <= 1e-9 * max(1.0, np.abs(a_ref).max())


@pytest.mark.parametrize("kind,ctype", [("point", "CONTACT_3D"), ("6d", "CONTACT_6D")])
def test_frame_contacts_equal_rigid_constraints_at_a_welded_state(kind, ctype):
    """A bilateral FrameContact and the RigidConstraintModel of the same frame give the same answer when the frame
    is at rest (the classical and the spatial accelerations agree there) — the manipulator with its effector held."""
    model = pin.buildSampleModelManipulator()
    q = pin.neutral(model) + 0.3
    fid = model.getFrameId("effector_body")
    data = model.createData()
    # a velocity that keeps the effector frame at rest: the null space of its 6 x 6 Jacobian is {0}, so v = 0 for
    # 6d; for a point, any v in the kernel of the linear rows
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    J = pin.getFrameJacobian(model, data, fid, pin.LOCAL_WORLD_ALIGNED)
    rows = J[:3] if kind == "point" else J
    v = np.linalg.svd(rows)[2][-1] if kind == "point" else np.zeros(model.nv)
    tau = np.linspace(-1.0, 1.0, model.nv)
    cm = pin.RigidConstraintModel(
        getattr(pin.ContactType, ctype),
        model,
        model.frames[fid].parentJoint,
        model.frames[fid].placement,
        pin.LOCAL_WORLD_ALIGNED,
    )
    a_ref, lam_ref, _ = constraint_dynamics(model, q, v, tau, [cm])
    sol = gaussqp.solve(from_pinocchio(model, q, v, tau, [FrameContact("effector_body", kind=kind, type="bilateral")]))
    assert sol.status == "solved"
    assert np.abs(sol.acceleration - a_ref).max() <= 1e-9 * max(1.0, np.abs(a_ref).max())
    assert np.abs(sol.lambda_normal - lam_ref).max() <= 1e-9 * max(1.0, np.abs(lam_ref).max())


# ------------------------------------------------------------------------------------------------ rows and drifts
@pytest.mark.parametrize("ref_name,ref", [("local_world_aligned", "LOCAL_WORLD_ALIGNED"), ("local", "LOCAL")])
def test_rows_are_frame_jacobians_and_drifts_classical_accelerations(humanoid, ref_name, ref):
    model = humanoid
    q, v, tau = random_state(model, 5)
    frames = ["rarm6_joint", "lleg6_joint", "chest_joint"]
    normal = np.array([0.3, -0.2, 1.0])
    contacts = [
        FrameContact(frames[0], kind="6d", type="bilateral"),
        FrameContact(frames[1], type="bilateral"),
        FrameContact(frames[2], normal=tuple(normal), friction=0.5, mode="sticking"),
    ]
    imp = import_pinocchio(model, q, v, tau, contacts, reference_frame=ref_name)
    p = imp.problem
    data = model.createData()
    pin.forwardKinematics(model, data, q, v, np.zeros(model.nv))
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    rf = getattr(pin.ReferenceFrame, ref)
    J = [pin.getFrameJacobian(model, data, model.getFrameId(f), rf) for f in frames]
    acc = [pin.getFrameClassicalAcceleration(model, data, model.getFrameId(f), rf).vector for f in frames]
    Jn, b = p.J_n, p.normal_drift
    np.testing.assert_allclose(Jn[:6], J[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b[:6], acc[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(Jn[6:9], J[1][:3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b[6:9], acc[1][:3], rtol=0, atol=1e-12)
    n, t1, t2 = tangent_basis(normal)
    np.testing.assert_allclose(Jn[9], n @ J[2][:3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b[9], n @ acc[2][:3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.J_t[-2:], np.vstack([t1, t2]) @ J[2][:3], rtol=0, atol=1e-12)
    np.testing.assert_allclose(p.tangent_drift[-2:], np.array([t1, t2]) @ acc[2][:3], rtol=0, atol=1e-12)
    assert [o.row for o in imp.origins] == [
        "x",
        "y",
        "z",
        "angular x",
        "angular y",
        "angular z",
        "x",
        "y",
        "z",
        "normal",
    ]
    # M and F: crba (symmetric) and nle − tau
    np.testing.assert_allclose(
        p.M, pin.crba(model, model.createData(), q), rtol=0, atol=1e-12 * np.abs(p.M).max(), err_msg="upper triangle"
    )
    assert np.array_equal(p.M, p.M.T)
    np.testing.assert_allclose(p.F, pin.nonLinearEffects(model, model.createData(), q, v) - tau, rtol=0, atol=1e-12)


def test_drift_is_the_second_derivative_of_the_point(humanoid):
    """The rows and drift give d²/dt² of the frame's world position along a trajectory q(t) = q ⊕ (t v + t² a/2)."""
    model = humanoid
    q, v, _ = random_state(model, 6)
    a = np.random.default_rng(6).standard_normal(model.nv)
    fid = model.getFrameId("larm6_joint")
    p = from_pinocchio(model, q, v, contacts=[FrameContact("larm6_joint", type="bilateral")])
    data = model.createData()

    def position(t):
        qt = pin.integrate(model, q, t * v + 0.5 * t * t * a)
        pin.framesForwardKinematics(model, data, qt)
        return data.oMf[fid].translation.copy()

    h = 1e-4
    second = (position(h) - 2 * position(0.0) + position(-h)) / h**2
    np.testing.assert_allclose(p.J_n @ a + p.normal_drift, second, rtol=0, atol=1e-5 * max(1.0, np.abs(second).max()))


def test_tangent_basis_is_orthonormal_and_stated():
    for normal in ([0, 0, 1], [1, 0, 0], [0.3, -0.2, 1.0], [-1, 1, 1]):
        n, t1, t2 = tangent_basis(normal)
        B = np.vstack([t1, t2, n])
        np.testing.assert_allclose(B @ B.T, np.eye(3), atol=1e-15)
        assert np.linalg.det(B) > 0
    # the frame of gaussqp.mechanics.frames (issue #26: the grasps' frame, t₁ = n × e / ‖n × e‖): it was
    # (x, y, z) for n = z before the two tangent bases became one
    n, t1, t2 = tangent_basis([0, 0, 2])
    assert np.array_equal(np.vstack([t1, t2, n]), [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
    n, t1, t2 = tangent_basis([3, 0, 0])
    assert np.array_equal(np.vstack([t1, t2, n]), [[0, 0, 1], [0, -1, 0], [1, 0, 0]])


# ------------------------------------------------------------------------------------------------ the box on the ground
def test_resting_box_carries_its_weight(box):
    q, v = box_state()
    imp = import_pinocchio(box, q, v, contacts=[FrameContact(c, friction=0.5) for c in CORNERS])
    assert [o.mode for o in imp.origins] == ["sticking"] * 4 and not imp.left_out
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved" and sol.certified
    assert np.abs(sol.acceleration).max() <= 1e-9
    assert abs(sol.lambda_normal.sum() - BOX_MASS * G) <= 1e-9 * BOX_MASS * G
    assert np.all(sol.lambda_normal >= -1e-9)
    # the four corners are hyperstatic: the acceleration is unique, the individual forces are not
    assert sol.unique["acceleration"] is True and sol.unique["multipliers"] is False


def test_pushed_box_sticks_below_mu_m_g_and_slides_above(box):
    q, v = box_state()
    contacts = [FrameContact(c, friction=0.5) for c in CORNERS]
    push = np.zeros(6)
    push[0] = 0.4 * BOX_MASS * G  # at the centre of mass: below μ m g, the box holds
    sol = gaussqp.solve(from_pinocchio(box, q, v, push, contacts))
    assert sol.status == "solved" and np.abs(sol.acceleration).max() <= 1e-9
    _, t1, t2 = tangent_basis([0, 0, 1])
    friction_x = (sol.lambda_tangent @ np.vstack([t1, t2]))[:, 0].sum()  # the world x component of the friction
    assert abs(friction_x + push[0]) <= 1e-9 * push[0]  # balances the push
    assert np.all(np.linalg.norm(sol.lambda_tangent, axis=1) <= 0.5 * sol.lambda_normal + 1e-9)
    push[0] = 0.6 * BOX_MASS * G  # above μ m g: no sticking answer, certified
    sol = gaussqp.solve(from_pinocchio(box, q, v, push, contacts))
    assert sol.status == "infeasible" and sol.certified


def test_sliding_box_decelerates_by_mu_g(box):
    mu = 0.3
    q, v = box_state(vx=1.5)
    imp = import_pinocchio(box, q, v, contacts=[FrameContact(c, friction=mu) for c in CORNERS])
    assert [o.mode for o in imp.origins] == ["sliding"] * 4
    _, t1, t2 = tangent_basis([0, 0, 1])
    assert np.array_equal(imp.problem.slip, np.tile([t1[0], t2[0]], (4, 1)))  # along x, in the (t₁, t₂) frame
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved" and sol.certified
    expected = np.array([-mu * G, 0, 0, 0, 0, 0])  # no tipping: the friction moment is carried by the normal forces
    assert np.abs(sol.acceleration - expected).max() <= 1e-9 * G
    assert abs(sol.lambda_normal.sum() - BOX_MASS * G) <= 1e-9 * BOX_MASS * G


@pytest.mark.parametrize("degrees", [30.0, 17.0])
def test_box_sliding_down_a_slope_keeps_its_contacts(box, degrees):
    """A box flat on a slope, sliding along it (found by a new user's trial): in the box's own axes its velocity has no
    normal part, so the normal rows' own terms at that velocity are round-off (3e-26 against a normal velocity of
    3e-17 from the rotation), which once read as "separating": every corner left out and free fall certified. The
    corners are kept, sliding, and the box accelerates by g(sin θ − μ cos θ) along the slope."""
    import pinocchio as pin_

    mu, th = 0.5, np.radians(degrees)
    R = pin_.utils.rotate("y", th)
    q = np.concatenate([R @ [0.0, 0.0, BOX_Z / 2], pin_.Quaternion(R).coeffs()])
    v = np.zeros(6)
    v[0] = 0.5  # along the slope, in the box's axes
    contacts = [FrameContact(c, normal=tuple(R[:, 2]), friction=mu) for c in CORNERS]
    imp = import_pinocchio(box, q, v, contacts=contacts)
    assert imp.problem.m == 4 and not imp.left_out
    assert [o.mode for o in imp.origins] == ["sliding"] * 4
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved" and sol.certified
    a_world = R @ sol.acceleration[:3]
    down_slope = np.array([np.cos(th), 0.0, -np.sin(th)])
    expected = G * (np.sin(th) - mu * np.cos(th))
    assert np.abs(a_world - expected * down_slope).max() <= 1e-9 * G


def test_lifting_box_leaves_the_ground_and_modes_override(box):
    q, v = box_state()
    v[2] = 0.1  # moving up: every corner separates
    imp = import_pinocchio(box, q, v, contacts=[FrameContact(c, friction=0.5) for c in CORNERS])
    assert imp.problem.m == 0 and [lo.frame for lo in imp.left_out] == CORNERS
    assert all(lo.normal_velocity == pytest.approx(0.1) for lo in imp.left_out)
    kept = import_pinocchio(
        box, q, v, contacts=[FrameContact(c, friction=0.5) for c in CORNERS], modes={0: "sticking", 1: "frictionless"}
    )
    assert [o.mode for o in kept.origins] == ["sticking", "frictionless"]
    assert [lo.index for lo in kept.left_out] == [2, 3]
    q, v = box_state()
    v[2] = -0.1
    assert import_pinocchio(box, q, v, contacts=[FrameContact(CORNERS[0])]).approaching == (0,)
    with pytest.raises(MissingSlipError, match=r"contacts\[0\]\.mode"):
        import_pinocchio(box, *box_state(), contacts=[FrameContact(CORNERS[0], friction=0.5, mode="sliding")])


# ------------------------------------------------------------------------------------------------ bad input
def test_bad_input(box, tmp_path):
    q, v = box_state()
    with pytest.raises(UnknownValueError, match="corner0") as err:
        from_pinocchio(box, q, v, contacts=[FrameContact("corner9")])
    assert "close names" in str(err.value) and "contacts[0].frame" in str(err.value)
    with pytest.raises(ShapeError, match="^q"):
        from_pinocchio(box, q[:6], v)
    with pytest.raises(ShapeError, match="^v"):
        from_pinocchio(box, q, np.zeros(7))
    with pytest.raises(ShapeError, match="^tau"):
        from_pinocchio(box, q, v, np.zeros(5))
    for name, args in (("q", (np.r_[q[:6], np.nan], v)), ("v", (q, np.r_[np.inf, v[1:]]))):
        with pytest.raises(NonFiniteError, match=f"^{name}"):
            from_pinocchio(box, *args)
    with pytest.raises(NonFiniteError, match="^tau"):
        from_pinocchio(box, q, v, np.full(6, np.nan))
    with pytest.raises(InputError, match="quaternion"):
        from_pinocchio(box, np.r_[q[:6], 2.0], v)
    with pytest.raises(UnknownValueError, match=r"contacts\[0\]\.kind"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", kind="line")])
    with pytest.raises(UnknownValueError, match=r"contacts\[0\]\.type"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", type="glued")])
    with pytest.raises(UnknownValueError, match=r"contacts\[0\]\.type"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", kind="6d")])
    with pytest.raises(UnknownValueError, match="reference_frame"):
        from_pinocchio(box, q, v, reference_frame="world")
    with pytest.raises(UnknownValueError, match=r"modes\[0\]"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0")], modes={0: "flying"})
    with pytest.raises(UnknownValueError, match="modes"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0")], modes={3: "sticking"})
    with pytest.raises(InputError, match=r"contacts\[0\]\.normal") as err:
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", normal=(0, 0, 0))])
    assert type(err.value) is InputError
    with pytest.raises(InputError, match=r"contacts\[0\]\.friction"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", friction=-0.1)])
    with pytest.raises(InputError, match=r"contacts\[0\]\.friction"):
        from_pinocchio(box, q, v, contacts=[FrameContact("corner0", type="bilateral", friction=0.1)])
    with pytest.raises(WrongTypeError, match="model"):
        from_pinocchio("box.urdf", q, v)
    with pytest.raises(WrongTypeError, match=r"contacts\[0\]"):
        from_pinocchio(box, q, v, contacts=["corner0"])
    with pytest.raises(ShapeError, match="^data"):
        from_pinocchio(box, q, v, data=pin.buildSampleModelManipulator().createData())
    with pytest.raises(WrongTypeError, match="constraint_models"):
        from_pinocchio(box, q, v, constraint_models=[FrameContact("corner0")])
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'></robot")
    with pytest.raises(FileFormatError, match="bad.urdf"):
        load_model(bad)
    with pytest.raises(FileFormatError, match="missing.urdf"):
        load_model(tmp_path / "missing.urdf")
    with pytest.raises(UnknownValueError, match="model.obj"):
        load_model(tmp_path / "model.obj")
    badx = tmp_path / "bad.xml"
    badx.write_text("<mujoco><worldbody><body name='b'><geom type='sphere' size='0.1'/></worldbody></mujoco>")
    with pytest.raises(FileFormatError, match="bad.xml"):
        load_model(badx)


def test_mjcf_model_loads(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text("""<mujoco><worldbody><body name="arm" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05" mass="1"/>
      <site name="tip" pos="0 0 -0.5"/></body></worldbody></mujoco>""")
    model = load_model(path)
    assert model.nv == 1 and model.existFrame("tip")
    p = from_pinocchio(model, np.zeros(1), np.zeros(1), contacts=[FrameContact("tip", type="bilateral")])
    assert p.n == 1 and p.m == 3


# ------------------------------------------------------------------------------------------------ new-user review
ARM_URDF = """<robot name='arm'><link name='base'/>
<link name='l1'><inertial><mass value='1'/><inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial>
</link><joint name='j1' type='revolute'><parent link='base'/><child link='l1'/><axis xyz='0 1 0'/>
<limit lower='-3' upper='3' effort='1' velocity='1'/></joint>
<link name='tip'/><joint name='jt' type='fixed'><parent link='l1'/><child link='tip'/><origin xyz='1 0 0'/></joint>
</robot>"""


def test_one_dof_model_with_a_point_contact(tmp_path):
    """Pinocchio returns the Jacobian of a one-dof model as a 1-D array: the rows must still be 1 × nv."""
    f = tmp_path / "arm.urdf"
    f.write_text(ARM_URDF)
    model = load_model(f)
    assert model.nv == 1
    p = from_pinocchio(
        model, pin.neutral(model), np.zeros(1), None, [FrameContact("tip"), FrameContact("tip", type="bilateral")]
    )
    assert p.n == 1 and p.J_n.shape == (4, 1)
    # the tip at (1, 0, 0) moves along −z for a positive rotation about y: the normal row is −1
    assert p.J_n[0, 0] == pytest.approx(-1.0)


def test_model_without_degrees_of_freedom_is_refused_not_a_crash(tmp_path):
    f = tmp_path / "fixed.urdf"
    f.write_text(BOX_URDF)
    model = load_model(f)  # no --floating-base: every joint fixed
    with pytest.raises(ShapeError, match="floating_base"):
        from_pinocchio(model, pin.neutral(model), np.zeros(0), None, [FrameContact("corner0")])
