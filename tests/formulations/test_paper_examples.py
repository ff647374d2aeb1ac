"""The shipped examples reproduce their papers' statements."""

import json
import math

import numpy as np
import pytest

import gaussqp
from gaussqp import problems
from gaussqp.mechanics.delassus import constrained_delassus
from gaussqp.problems.examples import EXAMPLES, rod_closed_forms, rod_wall_guide, singular_pendulum
from gaussqp.certificates.residuals import kkt_residuals


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_shipped_json_matches_builder(name):
    shipped = json.loads(problems.path(name).read_text())
    assert shipped == json.loads(gaussqp.dumps(EXAMPLES[name]()))


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_shipped_json_validates_against_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    from importlib.resources import files

    schema = json.loads(files("gaussqp.io").joinpath("schema/gaussqp-1.schema.json").read_text())
    jsonschema.validate(json.loads(problems.path(name).read_text()), schema)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
@pytest.mark.parametrize("solver", ["clarabel", "osqp"])
def test_every_example_is_certified(name, solver):
    sol = gaussqp.solve(problems.load(name), solver=solver)
    assert sol.status == "solved" and sol.certified
    assert sol.max_residual() < 1e-6
    if sol.crosscheck is not None:
        assert sol.crosscheck.agree is True


def test_hyperstatic_block_unique_acceleration_nonunique_multipliers():
    p = problems.load("hyperstatic_block")
    sol = gaussqp.solve(p)
    np.testing.assert_allclose(sol.acceleration, [0.0, 0.0], atol=1e-9)
    assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": False}
    assert sol.lambda_normal.sum() == pytest.approx(9.81, rel=1e-9)
    assert sol.certificate("C2").holds is False
    # Lemke returns another valid multiplier vector: same generalized force
    assert sol.crosscheck.formulation == "lcp_lemke" and sol.crosscheck.agree


def test_hyperstatic_block_lifts_off_when_pulled():
    p = problems.build("hyperstatic_block", f=(-15.0, 0.0))  # pulled upward harder than its weight
    sol = gaussqp.solve(p)
    np.testing.assert_allclose(sol.acceleration, [15.0 - 9.81, 0.0], atol=1e-8)
    np.testing.assert_allclose(sol.lambda_normal, 0.0, atol=1e-9)
    assert sol.unique["multipliers"] is True  # all contacts open: λ = 0 is forced


@pytest.mark.parametrize("theta", np.linspace(0.05, math.pi - 0.05, 23))
def test_rod_constrained_delassus_closed_forms(theta):
    m, l = 1.3, 0.7
    cd = constrained_delassus(rod_wall_guide(theta=theta, m=m, l=l))
    A_c, Mc = rod_closed_forms(theta, m=m, l=l)
    assert cd.A_c.shape == (1, 1)
    assert abs(cd.A_c[0, 0] - A_c) <= 1e-10
    np.testing.assert_allclose(cd.Mc_inv, Mc, atol=1e-10, rtol=0)
    assert np.linalg.matrix_rank(Mc) == 2  # inertial: second and third columns colinear


def test_rod_lcp_route_matches_qp_over_theta():
    for theta in np.linspace(0.1, 3.0, 7):
        p = rod_wall_guide(theta=theta, theta_dot=1.5)
        qp = gaussqp.get_formulation("gauss_qp").solve(p)
        lcp = gaussqp.get_formulation("lcp_lemke").solve(p)
        np.testing.assert_allclose(qp.acceleration, lcp.acceleration, rtol=1e-6, atol=1e-8)


def test_singular_pendulum_paper_statements():
    sol = gaussqp.solve(problems.load("singular_pendulum"))
    assert sol.status == "solved" and sol.certified
    assert sol.certificate("C3").holds is True  # singular Prop. 6(i)
    assert sol.unique["acceleration"] and sol.unique["generalized_force"]


@pytest.mark.parametrize("F2, unique", [(-2.0, False), (0.0, True), (2.0, True)])
def test_singular_pendulum_multiplier_uniqueness_depends_on_loading(F2, unique):
    """singular §7.1 infers unique (λ, μ) from ker ∇h = {0} and ker ∇f = {0} separately; the four
    rows are dependent (f2 - h1 + l cos θ h2 = 0), so the exact answer depends on the load."""
    p = singular_pendulum(F2=F2)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    assert sol.unique["multipliers"] is unique
    if not unique:
        # independently: two different multiplier vectors both satisfy every KKT condition
        l = 1.0
        for t in (0.5, 1.5):
            lam = np.array([-9.81, t, -F2 - t, l * t])
            res = kkt_residuals(p, sol.acceleration, lam, np.zeros((4, 1)))
            assert max(res.values()) < 1e-12


def test_two_mass_spring_closed_form():
    p = problems.load("two_mass_spring")
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certificate("C3").holds
    # third row: m2 (q̈1 + q̈2) + k2 q̄2 = 0 and second: m2 (q̈1 + q̈2) = μ  =>  μ = -k2 q̄2
    assert sol.lambda_normal[0] == pytest.approx(-10.0 * 0.05, abs=1e-9)
    assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}


def test_manipulator_all_routes_agree():
    p = problems.load("cartesian_manipulator")
    accs = [
        gaussqp.get_formulation(f).solve(p).acceleration
        for f in ("gauss_qp", "projected_acceleration", "projected_eliminated", "delassus_qp", "lcp_lemke")
    ]
    for a in accs[1:]:
        np.testing.assert_allclose(a, accs[0], rtol=1e-6, atol=1e-9)


def _ladder_p_loss(red, hi=3.0):
    """First common μ at which the code's exact P-matrix test of (58) fails (grid, then bisection)."""
    from gaussqp.friction.sliding import sliding_lcp, p_matrix_test

    def is_p(mu):
        return p_matrix_test(sliding_lcp(red, [mu], [mu]).M).holds

    grid = np.linspace(0.0, hi, 301)
    first = next(mu for mu in grid if not is_p(mu))
    lo, up = first - grid[1], first
    for _ in range(40):
        mid = 0.5 * (lo + up)
        lo, up = (mid, up) if is_p(mid) else (lo, mid)
    return up


def _ladder_p_loss_closed_form(theta, kappa):
    """min of the three zeros: Schur complement (θ-free), the 1×1 minor A⁻¹Ā, the 2×2 determinant."""
    s, c, s2 = math.sin(theta), math.cos(theta), math.sin(2 * theta)
    zeros = [math.sqrt((1 + kappa) / (1 - kappa)), (kappa + s * s) / (s * c)]
    disc = s2 * s2 - (1 - kappa * kappa)
    if disc >= 0:
        zeros.append((s2 - math.sqrt(disc)) / (1 - kappa))
    return min(zeros)


@pytest.mark.parametrize("kappa", [0.1, 1.0 / 3.0, 0.5])
def test_ladder_common_mu_p_loss_depends_on_theta(kappa):
    """The ladder's P property with a common μ is not lost at √((1+κ)/(1-κ)) (√2 for a uniform rod) for
    every θ: only the Schur-complement zero is θ-free; the loss is the smallest of three zeros."""
    from gaussqp.problems.sliding_examples import falling_ladder
    from gaussqp.friction.sliding import reduce

    for theta in np.linspace(0.15, 1.4, 11):
        red = reduce(falling_ladder(theta, inertia=kappa))  # m = 1, l = 1: κ = I
        assert _ladder_p_loss(red) == pytest.approx(_ladder_p_loss_closed_form(theta, kappa), rel=1e-7)


def test_ladder_uniform_rod_p_loss_at_half_radian():
    """Uniform rod (κ = 1/3) at θ = 0.5: the P property goes at 1.339 (the minor A⁻¹Ā), not at √2; the
    Schur complement of (58) still vanishes at √2 there; at π/4 the loss is 1.0 (the determinant)."""
    from gaussqp.problems.sliding_examples import falling_ladder
    from gaussqp.friction.sliding import sliding_lcp, p_matrix_test, reduce

    red = reduce(falling_ladder(0.5))
    mu = _ladder_p_loss(red)
    s, c = math.sin(0.5), math.cos(0.5)
    assert mu == pytest.approx((1 / 3 + s * s) / (s * c), rel=1e-8) and round(mu, 3) == 1.339
    assert p_matrix_test(sliding_lcp(red, [1.338], [1.338]).M).holds
    assert p_matrix_test(sliding_lcp(red, [1.340], [1.340]).M).witness == (0,)
    schur = [sliding_lcp(red, [m], [m]).M[1, 1] for m in (math.sqrt(2) * (1 - 1e-6), math.sqrt(2) * (1 + 1e-6))]
    assert schur[0] > 0 > schur[1]
    assert _ladder_p_loss(reduce(falling_ladder(math.pi / 4))) == pytest.approx(1.0, rel=1e-8)
    assert _ladder_p_loss(reduce(falling_ladder(1.2))) == pytest.approx(math.sqrt(2), rel=1e-8)


@pytest.mark.parametrize("theta", [-0.4, 0.3, math.pi / 12])
@pytest.mark.parametrize("Fx, Fy", [(2.0, 5.0), (-3.0, -1.0)])
def test_rocking_block_ex2_free_term_is_derived_not_printed_41(theta, Fx, Fy):
    """The constrained free term w_c of sticking Ex. 2 (only A2, sticking) is -Fy/m + ... (derived from
    (39)), not the printed (41) (+Fy/m, a sign slip, and l/2 sin θ + L/2 cos θ for l/2 cos θ + L/2 sin θ)."""
    from gaussqp.problems.sticking_examples import rocking_block_A2, rocking_block_ex2_free_term

    m, L, l = 1.3, 1.0, 2.0
    s = gaussqp.solve(
        rocking_block_A2(theta, m=m, L=L, l=l, Fx=Fx, Fy=Fy), formulation="sticking_lcp", crosscheck=False
    )
    w = s.extras["w_c"][0]
    assert w == pytest.approx(rocking_block_ex2_free_term(theta, Fx, Fy, m=m, L=L, l=l), rel=1e-10, abs=1e-12)
    # independently of the closed form: the downward load presses the contact (w decreases with Fy)
    s2 = gaussqp.solve(
        rocking_block_A2(theta, m=m, L=L, l=l, Fx=Fx, Fy=Fy + 1.0), formulation="sticking_lcp", crosscheck=False
    )
    assert s2.extras["w_c"][0] - w == pytest.approx(-1.0 / m, rel=1e-10)
    k12 = 12.0 / (l * l + L * L)
    c = l / 2 * math.cos(theta) + L / 2 * math.sin(theta)
    printed = (
        Fy / m
        + k12
        * (l / 2 * math.sin(theta) - L / 2 * math.cos(theta))
        * (l / 2 * math.sin(theta) + L / 2 * math.cos(theta))
        / (1 + k12 * c * c)
        * Fx
    )
    assert abs(w - printed) > 0.1


@pytest.mark.parametrize("alpha", [math.pi / 3, 0.2, 2.5])
def test_block_pendulum_mass_matrix_is_the_kinetic_energy_hessian(alpha):
    """M of sticking Ex. 3 re-derived from the kinetic energy (87) with the stated x_p, y_p (numerical
    Jacobian of the pendulum's centre): M_θθ = I_G + m̄(a² + l²)/4 + m̄ a l/2 sin α, not the printed
    (88)'s I_G + (a² + l²)/2 + (a l/2) cos α."""
    from gaussqp.problems.sticking_examples import block_pendulum

    m, L, l, mb, a = 1.0, 1.0, 2.0, 0.5, 1.0
    p = block_pendulum(alpha=alpha, m=m, L=L, l=l, m_bar=mb, a=a)

    def centre(q):
        x, y, th, al = q
        return np.array(
            [x + a / 2 * math.cos(al + th) - l / 2 * math.sin(th), y + l / 2 * math.cos(th) + a / 2 * math.sin(al + th)]
        )

    q0, h = np.array([0.0, l / 2, 0.0, alpha]), 1e-6
    Jp = np.column_stack([(centre(q0 + h * e) - centre(q0 - h * e)) / (2 * h) for e in np.eye(4)])
    IG, Ip = m * (l * l + L * L) / 12.0, mb * a * a / 12.0
    M = np.diag([m, m, IG, Ip]) + mb * Jp.T @ Jp  # T = ½ q̇ᵀ M q̇ from (87)
    np.testing.assert_allclose(p.M, M, atol=1e-8)
    assert p.M[2, 2] == pytest.approx(IG + mb * (a * a + l * l) / 4 + mb * a * l / 2 * math.sin(alpha), rel=1e-12)
    printed = IG + (a * a + l * l) / 2 + a * l / 2 * math.cos(alpha)
    assert abs(p.M[2, 2] - printed) > 0.5


def _rows(p):
    n = p.n
    Jn = np.asarray(p.J_n.toarray() if hasattr(p.J_n, "toarray") else p.J_n, dtype=float).reshape(p.m, n)
    Jt = np.asarray(p.J_t.toarray() if hasattr(p.J_t, "toarray") else p.J_t, dtype=float).reshape(-1, n)
    return Jn, Jt.reshape(p.m, p.dimension - 1, n)


#: builders whose rows depend on q only through θ = q[2], as functions of θ (shipped parameters otherwise)
_THETA_BUILDERS = {
    "rod_wall_guide": lambda th, td=0.0: problems.build("rod_wall_guide", theta=th, theta_dot=td),
    "painleve_rod": lambda th, td=0.0: problems.build("painleve_rod", theta=th, theta_dot=td),
    "painleve_rod_paradox": lambda th, td=4.0: problems.build(
        "painleve_rod", theta=th, mu=2.0, slip=-1.0, theta_dot=td
    ),
    "falling_ladder": lambda th, td=0.0: problems.build("falling_ladder", theta=th, theta_dot=td),
    "rocking_block": lambda th, td=0.0: problems.build("rocking_block", theta=th, theta_dot=td),
    "rocking_block_A2": lambda th, td=0.0: problems.build("rocking_block_A2", theta=th, theta_dot=td),
}
_SHIPPED_THETA = {
    "rod_wall_guide": math.pi / 6,
    "painleve_rod": math.pi / 6,
    "painleve_rod_paradox": math.atan(2.0),
    "falling_ladder": math.pi / 4,
    "rocking_block": 0.0,
    "rocking_block_A2": math.pi / 12,
}


def _check_drifts_by_finite_differences(build, theta, theta_dot, qdot):
    """b_i = d/dt(n_i) q̇ and c_i = d/dt(T_i) q̇, differentiating the builder's rows along θ."""
    h = 1e-6
    Jn_p, Jt_p = _rows(build(theta + h * theta_dot, theta_dot))
    Jn_m, Jt_m = _rows(build(theta - h * theta_dot, theta_dot))
    p = build(theta, theta_dot)
    np.testing.assert_allclose(p.normal_drift, (Jn_p - Jn_m) @ qdot / (2 * h), atol=1e-7)
    np.testing.assert_allclose(np.asarray(p.tangent_drift).reshape(p.m, -1), (Jt_p - Jt_m) @ qdot / (2 * h), atol=1e-7)


@pytest.mark.parametrize("name", sorted(problems.VELOCITIES))
def test_shipped_state_velocity_keeps_every_contact_active(name):
    """∇hᵀq̇ = 0 for every (active) contact of every shipped state, T q̇ = 0 for sticking contacts, the slip
    signs of sliding contacts agree with T q̇ (or the slip is impending), and the drifts are d/dt(row) q̇
    (zero at rest; by finite differences of the builder along θ otherwise). The Cartesian manipulator
    used to move along its ellipse with stop velocity 0.47 > 0 (a separating contact)."""
    p = problems.load(name)
    qdot = problems.velocity(name)
    Jn, Jt = _rows(p)
    assert qdot.shape == (p.n,)
    np.testing.assert_allclose(Jn @ qdot, 0.0, atol=1e-12)
    for i in p.sticking:
        np.testing.assert_allclose(Jt[i] @ qdot, 0.0, atol=1e-12)
    for i in p.sliding:
        assert np.all(np.asarray(p.slip[i]) * (Jt[i] @ qdot) >= -1e-12)
    if not qdot.any():
        assert not np.any(p.normal_drift) and not np.any(p.tangent_drift)
    if name in _THETA_BUILDERS:
        _check_drifts_by_finite_differences(_THETA_BUILDERS[name], _SHIPPED_THETA[name], float(qdot[2]), qdot)


@pytest.mark.parametrize("name", ["rod_wall_guide", "painleve_rod", "falling_ladder", "rocking_block_A2"])
@pytest.mark.parametrize("theta_dot", [-1.3, 2.0])
def test_moving_states_have_an_active_velocity_and_consistent_drifts(name, theta_dot):
    """With θ̇ != 0 the builders' states admit a q̇ = (ẋ, ẏ, θ̇) with every normal row (and sticking
    tangent row) zero, and their drifts are d/dt(row) q̇."""
    theta = 0.4
    build = _THETA_BUILDERS[name]
    p = build(theta, theta_dot)
    Jn, Jt = _rows(p)
    rows = np.vstack([Jn] + [Jt[i] for i in p.sticking])
    xy, *_ = np.linalg.lstsq(rows[:, :2], -rows[:, 2] * theta_dot, rcond=None)
    qdot = np.array([xy[0], xy[1], theta_dot])
    np.testing.assert_allclose(rows @ qdot, 0.0, atol=1e-12)
    _check_drifts_by_finite_differences(build, theta, theta_dot, qdot)
