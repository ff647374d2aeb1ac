"""The MuJoCo importer (issue #11, item 1) against MuJoCo itself at the same state.

Models are XML strings written here. What is checked: MuJoCo's identity ``M qacc = qfrc_smooth + Jᵀ efc_force``
with our ``M``, ``F`` and rows; the rows against ``efc_J`` (elliptic cones, dense Jacobian); the drifts against
finite differences of the rows along q̇ (and MuJoCo's own ``J̇v`` of its welds); gaussqp's answer against MuJoCo
with its softness driven down (the gap shrinks in proportion to the softness); planar reduction, zero rows,
friction loss, mixed condims, no side effects, and bad input.
"""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco", reason="needs the optional extra gaussqp[mujoco]")

import gaussqp  # noqa: E402
from gaussqp.errors import (  # noqa: E402
    FileFormatError,
    MissingSlipError,
    ShapeError,
    UnknownValueError,
    UnsupportedModelError,  # noqa: E402
    WrongTypeError,
)
from gaussqp.io.mujoco import from_mujoco, import_mujoco, load_mujoco  # noqa: E402


OPTION = "<option cone='elliptic' jacobian='dense' tolerance='1e-15' iterations='1000' ls_tolerance='1e-12'/>"


def ball_on_plane(condim: int, *, friction="1 0.02 0.01", eps: float | None = None, pair: str = "") -> str:
    """A ball on a plane, every geom with ``condim`` and ``friction``; ``eps`` the softness ``1 − solimp``."""
    imp = f"solimp='{1 - eps} {1 - eps} 0.001 0.5 2'" if eps else ""
    return f"""<mujoco>{OPTION}<default><geom condim='{condim}' friction='{friction}' {imp}/></default>
<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body name='ball' pos='0 0 0.1'><freejoint/><geom name='ball' type='sphere' size='.1'/></body>
</worldbody>{pair}</mujoco>"""


BOX_AND_CHAIN = f"""<mujoco>{OPTION}<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body name='box' pos='0 0 0.1'><freejoint/><geom name='box' type='box' size='.1 .2 .1'/></body>
<body name='a' pos='1 0 1'><joint name='h1' type='hinge' axis='0 1 0' range='-0.3 0.3' limited='true'/>
  <joint name='h2' type='hinge' axis='1 0 0'/><geom type='capsule' fromto='0 0 0 0.5 0 0' size='.05'/>
  <body name='b' pos='0.5 0 0'><joint name='bj' type='ball'/>
    <geom type='capsule' fromto='0 0 0 0.5 0.2 0' size='.05'/></body></body>
<body name='c' pos='2 0.3 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body></worldbody>
<equality><connect body1='b' body2='c' anchor='0.5 0.2 0'/>
  <weld body1='a' body2='c' torquescale='2' relpose='0.1 0.2 0.3 1 0.2 0 0.1'/></equality></mujoco>"""

PLANAR = f"""<mujoco>{OPTION}<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body name='slider' pos='0 0 0.1'><joint name='x' type='slide' axis='1 0 0'/><joint name='z' type='slide' axis='0 0 1'/>
  <joint name='ry' type='hinge' axis='0 1 0'/><geom name='block' type='box' size='.1 .2 .1'/></body>
</worldbody></mujoco>"""

SELF_CONTACT = f"""<mujoco>{OPTION}<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body pos='0 0 1'><freejoint/><geom name='base' type='box' size='.3 .3 .1'/>
  <body name='top' pos='0 0 0.195'><joint name='sx' type='slide' axis='1 0 0'/>
    <geom name='top' type='box' size='.1 .1 .1'/></body>
</body></worldbody><contact><pair geom1='base' geom2='top'/></contact></mujoco>"""

FRICTIONLOSS = f"""<mujoco>{OPTION}<worldbody><body><joint name='knee' type='hinge' axis='0 1 0' frictionloss='0.1'/>
<geom type='capsule' fromto='0 0 0 1 0 0' size='0.1'/></body></worldbody></mujoco>"""


def state(xml: str, steps: int = 300, qvel=None, xfrc=None, seed: int | None = None):
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    if seed is not None:
        rng = np.random.default_rng(seed)
        d.qvel[:] = rng.normal(size=m.nv)
    if steps:
        mujoco.mj_step(m, d, steps)
    if qvel is not None:
        d.qvel[:] = qvel
    if xfrc is not None:
        for body, w in xfrc.items():
            d.xfrc_applied[m.body(body).id] = w
    mujoco.mj_forward(m, d)
    return m, d


def efc_J(m, d):
    return np.array(d.efc_J[: d.nefc * m.nv]).reshape(d.nefc, m.nv)


def check_rows_and_identity(m, d, imp, rtol=1e-12):
    """Rows equal to efc_J, and M qacc + F = J_nᵀλ_n + J_tᵀλ_t with MuJoCo's forces mapped to ours."""
    p = imp.problem
    J = efc_J(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    np.testing.assert_allclose(p.M, M, rtol=0, atol=1e-14)
    np.testing.assert_allclose(p.F, -d.qfrc_smooth, rtol=0, atol=1e-14)
    d1 = p.dimension - 1
    for i, row in enumerate(imp.rows):
        np.testing.assert_allclose(p.J_n[i], J[row.efc_address + row.component], rtol=0, atol=1e-14)
        if row.force_map is not None:
            k = row.force_map.shape[0]
            fr = J[row.efc_address + 1 : row.efc_address + 1 + k]
            np.testing.assert_allclose(p.J_t[i * d1 : (i + 1) * d1], row.force_map.T @ fr, rtol=0, atol=1e-13)
    ln, lt = imp.multipliers(d.efc_force)
    np.testing.assert_allclose(imp.efc_force(ln, lt), d.efc_force, rtol=0, atol=1e-12 * np.abs(d.efc_force).max())
    lhs = p.M @ d.qacc + p.F
    rhs = p.J_n.T @ ln + p.J_t.T @ lt.ravel()
    scale = np.abs(p.M @ d.qacc).max() + np.abs(p.F).max()
    np.testing.assert_allclose(lhs, rhs, rtol=0, atol=rtol * scale)


# ---------------------------------------------------------------- identity and rows


def test_identity_and_rows_box_chain_connect_weld_limit():
    m, d = state(BOX_AND_CHAIN, steps=200, seed=1)
    imp = import_mujoco(m, d)
    kinds = {(r.kind, r.subkind) for r in imp.rows}
    assert ("equality", "connect") in kinds and ("equality", "weld") in kinds and ("contact", "condim 3") in kinds
    assert sum(r.kind == "equality" for r in imp.rows) == 9
    assert imp.problem.dimension == 3
    check_rows_and_identity(m, d, imp)


def test_joint_limit_is_a_unilateral_frictionless_row():
    m, d = state(BOX_AND_CHAIN, steps=0, qvel=None)
    d.qpos[m.joint("h1").qposadr[0]] = 0.31
    d.qvel[m.joint("h1").dofadr[0]] = 0.01  # moving further past the limit: not separating
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d)
    lim = [i for i, r in enumerate(imp.rows) if r.kind == "joint limit"]
    assert len(lim) == 1 and imp.rows[lim[0]].name == "h1"
    i = lim[0]
    assert imp.problem.types[i] == "unilateral" and imp.problem.modes[i] == "frictionless"
    assert imp.problem.J_n[i][m.joint("h1").dofadr[0]] == -1.0  # the upper limit pushes back
    check_rows_and_identity(m, d, imp)


@pytest.mark.parametrize("condim", [1, 3])
def test_identity_ball(condim):
    m, d = state(ball_on_plane(condim), xfrc={"ball": [1.0, 0.5, 0, 0.001, 0.002, 0.003]})
    imp = import_mujoco(m, d)
    assert len(imp.rows) == 1
    assert imp.problem.has_tangent[0] == (condim > 1)
    check_rows_and_identity(m, d, imp)


def test_anisotropic_condim3_scaled_rows():
    pair = "<contact><pair geom1='floor' geom2='ball' condim='3' friction='1 0.5 0.01 0.001 0.001'/></contact>"
    xml = ball_on_plane(3, pair=pair).replace("<default><geom", "<default><geom contype='0' conaffinity='0'")
    m, d = state(xml, xfrc={"ball": [1.0, 2.0, 0, 0, 0, 0]})
    imp = import_mujoco(m, d)
    row = imp.rows[0]
    assert imp.problem.friction[0] == 1.0  # the elliptic cone as ‖ν‖ <= λ_n
    np.testing.assert_allclose(row.force_map, np.diag([1.0, 0.5]))
    check_rows_and_identity(m, d, imp)


@pytest.mark.parametrize("condim", [4, 6])
def test_identity_condim_4_6_exact_mapping(condim):
    m, d = state(
        ball_on_plane(condim, friction="0.8 0.03 0.02"),
        qvel=[0.2, 0.1, 0, 0.3, -0.2, 0.5],
        xfrc={"ball": [1.0, 0.5, 0, 0.001, 0.002, 0.003]},
    )
    imp = import_mujoco(m, d)
    assert imp.problem.dimension == condim
    mu = np.array(d.contact[0].friction[: condim - 1])
    np.testing.assert_allclose(imp.rows[0].force_map, np.diag(mu))
    assert imp.problem.friction[0] == 1.0
    check_rows_and_identity(m, d, imp)
    # torsional="ignore" keeps the two sliding rows and reports the others
    imp3 = import_mujoco(m, d, torsional="ignore")
    assert imp3.problem.dimension == 3
    assert any("torsional" in what for what, _ in imp3.left_out)


# ---------------------------------------------------------------- drifts


def _fd_rows_drift(m, d, h=1e-6):
    """(J(q + h q̇) − J(q − h q̇)) q̇ / 2h: the finite-difference J̇q̇ of rows that are functions of q alone."""
    out = []
    for s in (1, -1):
        q = np.array(d.qpos)
        mujoco.mj_integratePos(m, q, d.qvel, s * h)
        dd = mujoco.MjData(m)
        dd.qpos[:] = q
        dd.qvel[:] = d.qvel
        mujoco.mj_forward(m, dd)
        out.append(efc_J(m, dd)[: d.ne] @ d.qvel)
    return (out[0] - out[1]) / (2 * h)


def test_jacdot_drift_of_connect_and_weld_equals_the_derivative_of_the_rows():
    m, d = state(
        BOX_AND_CHAIN.replace("<geom name='floor'", "<geom name='floor' contype='0' conaffinity='0'"), steps=0, seed=3
    )
    imp = import_mujoco(m, d)
    eq = [i for i, r in enumerate(imp.rows) if r.kind == "equality"]
    b = imp.problem.normal_drift[eq]
    fd = _fd_rows_drift(m, d)
    assert np.abs(b).max() > 1e-2  # a real test: the drift is not zero at this state
    np.testing.assert_allclose(b, fd, rtol=0, atol=1e-6 * np.abs(fd).max())
    # and MuJoCo's own J̇v of connect/weld, inside efc_aref = −B vel − K I (pos − margin) − J̇v
    kbip = np.array(d.efc_KBIP).reshape(-1, 4)[: d.ne]
    baum = -kbip[:, 1] * d.efc_vel[: d.ne] - kbip[:, 0] * kbip[:, 2] * (d.efc_pos[: d.ne] - d.efc_margin[: d.ne])
    np.testing.assert_allclose(b, baum - d.efc_aref[: d.ne], rtol=0, atol=1e-10 * np.abs(b).max())


def test_jacdot_drift_of_a_contact_is_the_material_points_relative_acceleration():
    """A spinning box on the plane: the normal drift is the acceleration at a = 0 of the box's material point at
    the contact position along the (fixed) normal: finite differences of that point's velocity along q̇."""
    m, d = state(BOX_AND_CHAIN, steps=0, qvel=None)
    d.qpos[2] = 0.099  # the box 1 mm into the floor
    d.qvel[:6] = [0.1, -0.2, 0.0, 1.5, -2.0, 0.7]
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d, velocity_tol=1e9, modes={k: "sticking" for k in range(d.ncon)})
    body = m.body("box").id
    checked = 0
    for i, row in enumerate(imp.rows):
        if row.kind != "contact" or set(row.geoms) != {"floor", "box"}:
            continue
        checked += 1
        con = d.contact[row.mujoco_id]
        frame = np.array(con.frame).reshape(3, 3)
        local = np.array(d.xmat[body]).reshape(3, 3).T @ (con.pos - d.xpos[body])

        def point_velocity(sign, h=1e-6):
            q = np.array(d.qpos)
            mujoco.mj_integratePos(m, q, d.qvel, sign * h)
            dd = mujoco.MjData(m)
            dd.qpos[:] = q
            mujoco.mj_kinematics(m, dd)
            mujoco.mj_comPos(m, dd)
            p = dd.xpos[body] + np.array(dd.xmat[body]).reshape(3, 3) @ local
            jp = np.zeros((3, m.nv))
            mujoco.mj_jac(m, dd, jp, None, p, body)
            return jp @ d.qvel

        side = 1.0 if m.geom_bodyid[con.geom[1]] == body else -1.0  # rows are (geom2's body) − (geom1's)
        fd = side * (point_velocity(1) - point_velocity(-1)) / 2e-6
        assert abs(imp.problem.normal_drift[i] - frame[0] @ fd) <= 1e-6 * np.abs(fd).max()
        np.testing.assert_allclose(
            imp.problem.tangent_drift[2 * i : 2 * i + 2], frame[1:] @ fd, atol=1e-6 * np.abs(fd).max()
        )
        assert abs(frame[0] @ fd) > 1e-3
    assert checked >= 1


def test_drift_mujoco_is_minus_aref_and_differs_from_jacdot_by_the_baumgarte_terms():
    m, d = state(BOX_AND_CHAIN, steps=100, seed=2)
    jd = import_mujoco(m, d, drift="jacdot")
    mj = import_mujoco(m, d, drift="mujoco")
    kbip = np.array(d.efc_KBIP).reshape(-1, 4)
    baum = kbip[:, 1] * d.efc_vel + kbip[:, 0] * kbip[:, 2] * (d.efc_pos - d.efc_margin)  # B vel + K I (pos − margin)
    for i, row in enumerate(mj.rows):
        a = row.efc_address + row.component
        assert mj.problem.normal_drift[i] == -d.efc_aref[a]
        # MuJoCo's aref carries J̇v for connect/weld rows only; contacts: −aref = Baumgarte terms alone
        expected = baum[a] + (jd.problem.normal_drift[i] if row.kind == "equality" else 0.0)
        assert abs(mj.problem.normal_drift[i] - expected) <= 1e-9 * max(1.0, abs(expected))
    assert np.abs(mj.problem.normal_drift - jd.problem.normal_drift).max() > 1e-3  # they differ at this state


# ---------------------------------------------------------------- against MuJoCo with its softness driven down


def _gap(condim, eps, pair=""):
    xml = ball_on_plane(condim, friction="0.8 0.03 0.02", eps=eps, pair=pair)
    if pair:
        xml = xml.replace("<default><geom", "<default><geom contype='0' conaffinity='0'")
    m, d = state(xml, steps=400)
    d.qvel[:] = 0
    d.xfrc_applied[m.body("ball").id] = [1.0, 0.5, 0, 0.001, 0.002, 0.003]
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d, drift="mujoco")
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved" and sol.certified
    f = imp.efc_force(sol.lambda_normal, sol.lambda_tangent)
    scale = np.abs(d.efc_force).max()
    unit = np.abs(d.qacc_smooth).max()  # the free acceleration: MuJoCo's qacc may be ~0 (a ball that sticks)
    return np.abs(sol.acceleration - d.qacc).max() / unit, np.abs(f - d.efc_force).max() / scale


def _assert_proportional(gaps):
    (a1, f1), (a2, f2) = gaps
    # softness 1e-2 → 1e-4: MuJoCo's regularization R ∝ (1 − d)/d shrinks 99×, and so must the gaps
    for g1, g2 in ((a1, a2), (f1, f2)):
        assert 50 < g1 / g2 < 200, (g1, g2)


@pytest.mark.parametrize("condim", [1, 3])
def test_softness_sweep_gap_shrinks_in_proportion(condim):
    _assert_proportional([_gap(condim, eps) for eps in (1e-2, 1e-4)])


def test_softness_sweep_anisotropic_condim3():
    pair = (
        "<contact><pair geom1='floor' geom2='ball' condim='3' friction='1 0.4 0.01 0.001 0.001' "
        "solimp='{0} {0} 0.001 0.5 2'/></contact>"
    )
    _assert_proportional([_gap(3, eps, pair=pair.format(1 - eps)) for eps in (1e-2, 1e-4)])


def _gap_at_rest(eps):
    """The default import (drift J̇q̇, zero at rest) against MuJoCo with its Baumgarte terms off (solref time
    constant 1e4 s) and solimp 1 − eps: MuJoCo's hard limit is then exactly the imported problem."""
    xml = ball_on_plane(3, friction="0.8 0.03 0.02", eps=eps).replace("<default><geom", "<default><geom solref='1e4 1'")
    m, d = state(xml, steps=0)
    d.qpos[2] = 0.099
    d.xfrc_applied[m.body("ball").id] = [1.0, 0.5, 0, 0.001, 0.002, 0.003]
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d)
    assert np.all(imp.problem.normal_drift == 0) and imp.problem.modes[0] == "sticking"
    sol = gaussqp.solve(imp.problem)
    assert sol.status == "solved"
    f = imp.efc_force(sol.lambda_normal, sol.lambda_tangent)
    return (
        np.abs(sol.acceleration - d.qacc).max() / np.abs(d.qacc_smooth).max(),
        np.abs(f - d.efc_force).max() / np.abs(d.efc_force).max(),
    )


def test_softness_sweep_at_rest_with_baumgarte_off_against_the_default_import():
    _assert_proportional([_gap_at_rest(eps) for eps in (1e-2, 1e-4)])


@pytest.mark.parametrize("condim", [4, 6])
def test_softness_sweep_condim_4_6(condim):
    _assert_proportional([_gap(condim, eps) for eps in (1e-2, 1e-4)])


# ---------------------------------------------------------------- modes, planar, zero rows


def test_modes_from_the_state_and_overrides():
    m, d = state(ball_on_plane(3), steps=300, qvel=[0.5, 0, 0, 0, 0, 0])
    imp = import_mujoco(m, d)
    assert imp.problem.modes[0] == "sliding"
    # the slip direction is the tangential velocity's, in the contact frame's tangent rows
    frame = np.array(d.contact[0].frame).reshape(3, 3)
    np.testing.assert_allclose(imp.problem.slip[0], frame[1:] @ [1, 0, 0] / np.linalg.norm(frame[1:] @ [1, 0, 0]))
    assert import_mujoco(m, d, modes={0: "sticking"}).problem.modes[0] == "sticking"
    assert import_mujoco(m, d, modes={0: "frictionless"}).problem.modes[0] == "frictionless"
    out = import_mujoco(m, d, modes={0: "separating"})
    assert out.problem.m == 0 and "separating" in out.left_out[0][1]
    d.qvel[:] = [0, 0, 0.5, 0, 0, 0]  # leaving the floor
    mujoco.mj_forward(m, d)
    out = import_mujoco(m, d)
    assert out.problem.m == 0 and out.left_out[0][1].startswith("separating")
    d.qvel[:] = 0
    mujoco.mj_forward(m, d)
    assert import_mujoco(m, d).problem.modes[0] == "sticking"
    with pytest.raises(MissingSlipError):
        import_mujoco(m, d, modes={0: "sliding"})


def test_planar_model_gives_dimension_2_contacts():
    m, d = state(PLANAR, steps=300, xfrc={"slider": [2.0, 0, 0, 0, 0, 0]})
    imp = import_mujoco(m, d)
    p = imp.problem
    assert p.dimension == 2 and p.m == 4 and not imp.left_out
    check_rows_and_identity(m, d, imp)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"


def test_zero_normal_rows_are_reported_and_dropped():
    m, d = state(SELF_CONTACT, steps=0)
    assert d.ncon > 0
    imp = import_mujoco(m, d)
    dropped = [why for what, why in imp.left_out if "normal row is zero" in why]
    assert len(dropped) >= 1
    assert all(r.geoms != ("base", "top") for r in imp.rows)


def test_no_side_effects_on_model_and_data():
    xml = BOX_AND_CHAIN.replace(OPTION, "<option cone='pyramidal' jacobian='sparse'/>")
    m, d = state(xml, steps=50, seed=4)
    before = {k: np.array(getattr(d, k)).copy() for k in ("qpos", "qvel", "qacc", "efc_force", "qfrc_smooth")}
    nefc = d.nefc
    imp = import_mujoco(m, d)
    assert m.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL and m.opt.jacobian == mujoco.mjtJacobian.mjJAC_SPARSE
    assert d.nefc == nefc
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(d, k), v)
    assert imp.nefc < nefc  # elliptic cones: fewer rows than the pyramid's
    assert from_mujoco(m, d).m == imp.problem.m


# ---------------------------------------------------------------- refused and bad input


def test_frictionloss_refused_or_ignored():
    m, d = state(FRICTIONLOSS, steps=0)
    with pytest.raises(UnsupportedModelError, match="knee") as exc:
        import_mujoco(m, d)
    assert "frictionloss='ignore'" in str(exc.value)
    imp = import_mujoco(m, d, frictionloss="ignore")
    assert imp.problem.m == 0 and "knee" in imp.left_out[0][0]


def test_mixed_condim_refused_unless_torsional_ignored():
    xml = ball_on_plane(3).replace(
        "<body name='ball'",
        "<body name='cube' pos='1 0 0.1'><freejoint/>"
        "<geom name='cube' type='box' size='.1 .1 .1' condim='4'/></body><body name='ball'",
    )
    m, d = state(xml, steps=100)
    with pytest.raises(UnsupportedModelError, match="condim 3: .*condim 4") as exc:
        import_mujoco(m, d)
    assert "torsional='ignore'" in str(exc.value)
    imp = import_mujoco(m, d, torsional="ignore")
    assert imp.problem.dimension == 3 and imp.problem.m >= 2


@pytest.mark.parametrize(
    "option,value", [("drift", "baumgarte"), ("frictionloss", "drop"), ("torsional", "exactly"), ("drift", None)]
)
def test_unknown_option_values(option, value):
    m, d = state(ball_on_plane(3), steps=10)
    with pytest.raises(UnknownValueError, match=option):
        import_mujoco(m, d, **{option: value})


def test_bad_modes_and_velocity_tol():
    m, d = state(ball_on_plane(3), steps=300)
    with pytest.raises(UnknownValueError, match="modes"):
        import_mujoco(m, d, modes={7: "sticking"})
    with pytest.raises(UnknownValueError, match="modes"):
        import_mujoco(m, d, modes={0: "rolling"})
    with pytest.raises(WrongTypeError, match="velocity_tol"):
        import_mujoco(m, d, velocity_tol=-1.0)
    with pytest.raises(WrongTypeError, match="model"):
        import_mujoco("model.xml", d)


def test_load_mujoco(tmp_path):
    good = tmp_path / "ball.xml"
    good.write_text(
        ball_on_plane(3).replace("</mujoco>", "<keyframe><key name='up' qpos='0 0 1 1 0 0 0'/></keyframe></mujoco>")
    )
    m, d = load_mujoco(good, keyframe="up")
    assert d.qpos[2] == 1.0 and d.ncon == 0
    m, d = load_mujoco(good, settle=200)
    assert d.ncon == 1 and from_mujoco(m, d).m == 1
    m, d = load_mujoco(good, qpos=[0, 0, 2, 1, 0, 0, 0], qvel=np.zeros(6))
    assert d.qpos[2] == 2.0
    with pytest.raises(UnknownValueError, match="keyframe") as exc:
        load_mujoco(good, keyframe="down")
    assert "up" in str(exc.value)
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco><worldbody><body><geom type='sphere'</worldbody></mujoco>")
    with pytest.raises(FileFormatError, match="bad.xml"):
        load_mujoco(bad)
    with pytest.raises(FileFormatError, match="missing.xml"):
        load_mujoco(tmp_path / "missing.xml")
    with pytest.raises(gaussqp.errors.ShapeError, match="qpos"):
        load_mujoco(good, qpos=[0, 0, 1])


def test_contacts_of_different_rank_share_the_dimension_with_zero_rows():
    """A block on an x/z slider (tangent rank 1) beside a free ball (rank 2): the block's contacts get a zero
    second tangent row (it carries no force), and gaussqp answers MuJoCo's problem."""
    xml = f"""<mujoco>{OPTION}<worldbody><geom name='floor' type='plane' size='5 5 .1'/>
<body name='slider' pos='0 0 0.1'><joint name='x' type='slide' axis='1 0 0'/><joint name='z' type='slide' axis='0 0 1'/>
  <geom name='block' type='box' size='.1 .2 .1'/></body>
<body name='ball' pos='1 0 0.1'><freejoint/><geom name='ball' type='sphere' size='.1'/></body></worldbody></mujoco>"""
    m, d = state(xml, steps=300, qvel=np.zeros(8), xfrc={"slider": [2, 1, 0, 0, 0, 0]})
    imp = import_mujoco(m, d)
    p = imp.problem
    assert p.dimension == 3 and p.m == 5
    block = [i for i, r in enumerate(imp.rows) if "block" in r.geoms]
    assert block and all(np.all(p.J_t[2 * i + 1] == 0) for i in block)
    check_rows_and_identity(m, d, imp)
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified


def test_ball_joint_limit_refused_for_jacdot_and_imported_with_drift_mujoco():
    xml = f"""<mujoco>{OPTION}<worldbody><body pos='0 0 1'><joint name='shoulder' type='ball' range='0 0.2'
  limited='true'/><geom type='capsule' fromto='0 0 0 0.5 0 0' size='.05'/></body></worldbody></mujoco>"""
    m, d = state(xml, steps=0)
    d.qpos[:] = [np.cos(0.15), 0, np.sin(0.15), 0]  # rotated 0.3 rad about y: past the 0.2 rad limit
    mujoco.mj_forward(m, d)
    assert d.nefc == 1
    with pytest.raises(UnsupportedModelError, match="shoulder.*drift='mujoco'"):
        import_mujoco(m, d)
    imp = import_mujoco(m, d, drift="mujoco")
    assert imp.rows[0].kind == "joint limit" and imp.problem.types[0] == "unilateral"
    check_rows_and_identity(m, d, imp)


# ---------------------------------------------------------------- found by a new user (review of issue #11)
def test_data_of_another_model_or_with_nan_is_refused():
    m, d = state(ball_on_plane(3), steps=10)
    m2, d2 = state(PLANAR, steps=0)
    with pytest.raises(ShapeError, match="another model"):
        import_mujoco(m, d2)
    d.qpos[0] = np.nan
    with pytest.raises(gaussqp.errors.NonFiniteError, match="data.qpos"):
        import_mujoco(m, d)


def test_sliding_override_at_rest_has_no_slip_direction():
    """A settled contact's tangential velocity is round-off: 'sliding' must not take its direction from it."""
    m, d = state(ball_on_plane(3), steps=400)
    imp = import_mujoco(m, d)
    assert imp.problem.m == 1 and imp.problem.modes[0] == "sticking"
    with pytest.raises(MissingSlipError, match="velocity_tol"):
        import_mujoco(m, d, modes={0: "sliding"})


def test_efc_force_checks_its_arguments():
    m, d = state(ball_on_plane(3), steps=400)
    imp = import_mujoco(m, d)
    with pytest.raises(ShapeError, match="lambda_tangent"):
        imp.efc_force(np.zeros(2), None)


def test_settle_is_bounded(tmp_path):
    f = tmp_path / "ball.xml"
    f.write_text(ball_on_plane(3))
    with pytest.raises(gaussqp.errors.InputTooLargeError, match="settle"):
        load_mujoco(f, settle=2_000_000_000)


@pytest.mark.parametrize("scene", ["chain", "box_pile", "quadruped"])
def test_the_sparse_import_is_the_dense_import(scene, monkeypatch):
    """Above MUJOCO_DENSE_COORDINATES_MAX coordinates the importer reads MuJoCo's sparse M and rows (issue #27:
    piles of thousands of contacts): the same problem, entry for entry, as the dense import, at a moving state
    (slip, drifts) of an articulated chain, a pile and a legged robot."""
    import scipy.sparse as sp

    import gaussqp.io.mujoco as importer
    from gaussqp.problems import fclib_scenes as fs

    xml, _ = fs.scene_xml(scene, 1, 0, 30)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, 300)
    dense = import_mujoco(m, d)
    monkeypatch.setattr(importer, "MUJOCO_DENSE_COORDINATES_MAX", 0)
    sparse = import_mujoco(m, d)
    a, b = dense.problem, sparse.problem
    assert not sp.issparse(a.M) and sp.issparse(b.M) and sp.issparse(b.J_n) and sp.issparse(b.J_t)
    for key in ("M", "F", "J_n", "J_t", "normal_drift", "tangent_drift", "friction", "has_tangent"):
        x, y = getattr(a, key), getattr(b, key)
        np.testing.assert_array_equal(
            np.asarray(x.toarray() if sp.issparse(x) else x), y.toarray() if sp.issparse(y) else y
        )
    assert list(a.modes) == list(b.modes) and list(a.types) == list(b.types) and a.dimension == b.dimension
    assert [r.mujoco_id for r in dense.rows] == [r.mujoco_id for r in sparse.rows] and dense.left_out == sparse.left_out
