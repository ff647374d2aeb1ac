"""The impulse level (issue 12, part C; inertial §6): ImpactProblem, its map onto a ContactProblem, the routes
(80)–(84) and the certificates Lemma 6, Props. 16–19, against answers derived by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
from gaussqp import Contact, ImpactProblem, impacts
from gaussqp.errors import NotApplicableError, RestitutionError, UnknownValueError
from gaussqp.problems.sticking_examples import rocking_block

ROUTES = ("qp80", "lcp81", "dual82", "dual83", "moreau84")
TOL = 1e-7


def ball(e: float, v: float = -3.0, m: float = 2.0) -> ImpactProblem:
    """A ball (height y, mass m) hitting the plane y = 0 at speed |v|."""
    return ImpactProblem([[m]], [v], [Contact("unilateral", normal=[1.0])], restitution=e, dimension=2)


def certs(sol_or_list):
    items = sol_or_list.certificates if hasattr(sol_or_list, "certificates") else sol_or_list
    return {c.id: c for c in items}


# ------------------------------------------------------------------ the ball
@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("route", ROUTES)
def test_ball_newton_law_by_hand(e, route):
    """By hand: v⁺ = −e v⁻ and P = m (1 + e)|v⁻|, on every route."""
    p = ball(e)
    a = impacts.ROUTES[route](p)
    assert a.status == "solved"
    assert a.velocity[0] == pytest.approx(3.0 * e, abs=TOL)
    assert a.percussion[0] == pytest.approx(2.0 * (1 + e) * 3.0, rel=TOL)


@pytest.mark.parametrize("e", [0.0, 0.5, 1.0])
def test_ball_solve_impact_and_energy(e):
    """Through gaussqp.solve_impact (dispatcher + certificates): e = 0 dissipates all of T⁻ (margin 1), e = 1
    conserves it (margin 0), e = 1/2 keeps e² of it."""
    p = ball(e)
    sol = gaussqp.solve_impact(p)
    assert sol.status == "solved" and sol.certified
    assert sol.acceleration[0] == pytest.approx(3.0 * e, abs=TOL)
    c = certs(sol)
    en = c["impact_energy"]
    assert en.holds is True and en.data["proven"]
    assert en.margin == pytest.approx(1 - e * e, abs=TOL)
    assert en.data["balance_error"] < TOL
    assert c["impact_restitution"].holds is True
    assert c["impact_existence"].holds is True and c["impact_lemma6"].holds is True
    assert c["impact_unique_percussion"].holds is True
    # Prop. 19's premises hold only for the plastic impact
    assert c["impact_prop19"].holds is (True if e == 0 else None)


def test_mapping_onto_contact_problem():
    """M v⁺ + F' = JᵀP with F' = −(M v⁻ + h f), unilateral drift E u⁻, bilateral drift 0."""
    M = np.diag([2.0, 3.0])
    p = ImpactProblem(
        M,
        [1.0, -2.0],
        [Contact("unilateral", normal=[0.0, 1.0]), Contact("bilateral", normal=[1.0, 0.0])],
        restitution=[0.5, 0.0],
        h=0.1,
        f=[0.0, -9.81 * 3.0],
    )
    cp = p.to_contact_problem()
    assert np.allclose(cp.F, -(M @ [1.0, -2.0] + 0.1 * np.array([0.0, -9.81 * 3.0])))
    assert np.allclose(cp.normal_drift, [0.5 * -2.0, 0.0])
    assert list(cp.types) == ["unilateral", "bilateral"]
    sol = gaussqp.solve_impact(p)
    # by hand: bilateral x: v⁺_x = 0, P_b = −2; y: free v = −2 − 0.981 = −2.981 < −e u⁻ = 1: contact pushes to 1
    assert sol.acceleration == pytest.approx([0.0, 1.0], abs=TOL)
    assert sol.lambda_normal == pytest.approx([3.0 * (1.0 + 2.981), -2.0], rel=TOL)


# ------------------------------------------------------------------ balls in a row
def test_two_balls_in_a_row_by_hand():
    """Ball 1 (m1, speed V) hits ball 2 (m2, at rest): one contact x2 − x1 >= 0, E = e. By hand (Moreau =
    Newton for one contact): P = m1 m2/(m1 + m2) (1 + e) V, v1⁺ = V − P/m1, v2⁺ = P/m2."""
    m1, m2, V, e = 1.0, 3.0, 2.0, 0.6
    p = ImpactProblem(np.diag([m1, m2]), [V, 0.0], [Contact("unilateral", normal=[-1.0, 1.0])], restitution=e)
    P = m1 * m2 / (m1 + m2) * (1 + e) * V
    for route in ROUTES:
        a = impacts.ROUTES[route](p)
        assert a.percussion == pytest.approx([P], rel=TOL), route
        assert a.velocity == pytest.approx([V - P / m1, P / m2], rel=TOL, abs=TOL), route


@pytest.mark.parametrize("e", [0.0, 1.0])
def test_newton_cradle_three_balls_moreau_by_hand(e):
    """Three equal balls touching, ball 1 arriving at V; contacts x2 − x1 >= 0, x3 − x2 >= 0, E = e I.
    Moreau's rule (a simultaneous impact), by hand: A = (1/m)[[2, −1], [−1, 2]], u⁻ = (−V, 0); with both
    percussions positive A P = (1 + e)(V, 0), so P = m (1 + e) V (2/3, 1/3) and
    v⁺ = (V − P1/m, (P1 − P2)/m, P2/m): e = 1 gives (−V/3, 2V/3, 2V/3) (not the sequential cradle's (0, 0, V):
    Moreau's law is simultaneous; energy is conserved all the same), e = 0 gives (V/3, V/3, V/3)."""
    m, V = 1.5, 2.0
    p = ImpactProblem(
        np.eye(3) * m,
        [V, 0.0, 0.0],
        [Contact("unilateral", normal=[-1.0, 1.0, 0.0]), Contact("unilateral", normal=[0.0, -1.0, 1.0])],
        restitution=e,
    )
    P = m * (1 + e) * V * np.array([2 / 3, 1 / 3])
    v = np.array([V - P[0] / m, (P[0] - P[1]) / m, P[1] / m])
    for route in ROUTES:
        a = impacts.ROUTES[route](p)
        assert a.percussion == pytest.approx(P, rel=TOL), route
        assert a.velocity == pytest.approx(v, rel=TOL, abs=TOL), route
    sol = gaussqp.solve_impact(p)
    assert sol.certified and sol.acceleration == pytest.approx(v, abs=TOL)
    en = certs(sol)["impact_energy"]
    assert en.holds and en.margin == pytest.approx(0.0 if e == 1 else 1 - 3 * (V / 3) ** 2 / V**2, abs=TOL)
    assert impacts.equivalence_certificate(p).holds is True


# ------------------------------------------------------------------ the rocking block
def rocking_impact(L: float, l: float, omega: float, e: float, modes="frictionless", m: float = 1.0, mu: float = 0.5):
    """The library's rocking block (problems.sticking_examples.rocking_block) landing flat (θ = 0) while
    rotating about A2 at θ̇⁻ = −ω: v⁻ = (ω l/2, −ω L/2, −ω) (A2 at rest), so u⁻ = (−ω L, 0)."""
    rows = rocking_block(theta=0.0, m=m, L=L, l=l, mu1=mu, mu2=mu)
    v = np.array([omega * l / 2, -omega * L / 2, -omega])
    return ImpactProblem.from_problem(rows, v, restitution=[e, e], modes=modes), v


def rocking_closed_form(L, l, omega, e, m=1.0):
    """Frictionless impact of the flat-landing rocking block, derived for this test. M = diag(m, m, I),
    I = m(l² + L²)/12, rows n1 = (0, 1, L/2), n2 = (0, 1, −L/2); A = [[a, c], [c, a]] with
    a = (1/m)(1 + 3L²/(l² + L²)), c = (1/m)(1 − 3L²/(l² + L²)); LCP 0 <= P ⟂ A P + (1 + e)(−ωL, 0) >= 0.
    Slender (2L² <= l², c >= 0): P = ((1 + e) ωL / a, 0) and A2 lifts off (u2⁺ = c P1 >= 0).
    Wide (c < 0): both corners take a percussion, P = (1 + e) ωL (a, −c)/(a² − c²).
    Then v⁺ = v⁻ + M⁻¹(n1 P1 + n2 P2); x is untouched (no friction)."""
    k = 3 * L * L / (l * l + L * L)
    a, c = (1 + k) / m, (1 - k) / m
    r = (1 + e) * omega * L
    P = np.array([r / a, 0.0]) if c >= 0 else r * np.array([a, -c]) / (a * a - c * c)
    I = m * (l * l + L * L) / 12
    v0 = np.array([omega * l / 2, -omega * L / 2, -omega])
    dv = np.array([0.0, (P[0] + P[1]) / m, (L / 2) * (P[0] - P[1]) / I])
    return P, v0 + dv


@pytest.mark.parametrize("L,l", [(1.0, 2.0), (2.0, 1.0)])  # slender (the library's default), wide
@pytest.mark.parametrize("e", [0.0, 0.5])
def test_rocking_block_frictionless_impact_closed_form(L, l, e):
    p, _ = rocking_impact(L, l, omega=1.3, e=e)
    P, v = rocking_closed_form(L, l, 1.3, e)
    # the wide block: both corners end at u⁺ = −e u⁻, (77) is solvable and every route gives Moreau's answer;
    # the slender one: A2 lifts off, only Moreau's rule is the law (see the next test)
    for route in ROUTES if (L, l) == (2.0, 1.0) else ("moreau84",):
        a = impacts.ROUTES[route](p)
        assert a.percussion == pytest.approx(P, rel=TOL, abs=TOL), route
        assert a.velocity == pytest.approx(v, rel=TOL, abs=TOL), route
    sol = gaussqp.solve_impact(p)
    assert sol.certified and sol.acceleration == pytest.approx(v, abs=TOL)


def test_slender_rocking_block_newton_law_is_not_moreau():
    """The slender block: A2 (u⁻ = 0) lifts off, so not every contact ends with u⁺ = −E u⁻: (77) has no solution
    (Prop. 17, decided by the LP), (80) gives a least-squares percussion that is not Moreau's, and the
    equivalence certificate says it does not apply (None) instead of claiming agreement."""
    p, _ = rocking_impact(1.0, 2.0, omega=1.3, e=0.5)
    c = certs(impacts.impact_certificates(p))
    assert c["impact_existence"].holds is False
    assert c["impact_lemma6"].holds is True  # the LCP itself is solvable (A_c ≻ 0)
    assert impacts.equivalence_certificate(p).holds is None
    qp, mo = impacts.percussion_qp(p), impacts.moreau_rule(p)
    assert qp.objective > 1e-3 and np.abs(qp.velocity - mo.velocity).max() > 1e-3


def test_rocking_block_housner_by_hand():
    """Given modes: A1 sticking (no slip, μ large), A2 frictionless; plastic (e = 0). Angular momentum about A1 is
    conserved: θ̇⁺/θ̇⁻ = (I_G + m(l² − L²)/4)/(I_G + m(l² + L²)/4) = 1 − (3/2) L²/(l² + L²) (Housner's
    1 − (3/2) sin²α), the block then pivots about A1 (its velocity is zero) and A2 lifts off."""
    L, l, w = 1.0, 2.0, 1.3
    p, _ = rocking_impact(L, l, omega=w, e=0.0, modes=["sticking", "frictionless"], mu=10.0)
    sol = gaussqp.solve_impact(p)
    assert sol.status == "solved" and sol.certified
    r = 1 - 1.5 * L * L / (l * l + L * L)
    th = -w * r
    v = sol.acceleration
    assert v[2] == pytest.approx(th, rel=TOL)
    # A1 = body (L/2, −l/2) at rest: ẋ + θ̇ l/2 = 0 and ẏ + θ̇ L/2 = 0
    assert v[0] == pytest.approx(-th * l / 2, rel=TOL) and v[1] == pytest.approx(-th * L / 2, rel=TOL)
    assert sol.lambda_normal[1] == pytest.approx(0.0, abs=TOL)
    assert certs(sol)["impact_energy"].holds is True


# ------------------------------------------------------------------ the routes agree (generated)
@st.composite
def solvable_impacts(draw):
    """A frictionless impact whose (77) is solvable by construction: random M ≻ 0, k unilateral rows (and maybe
    one bilateral row), E = diag(e), a planted percussion P* >= 0 and u⁻ = −(I + E)⁻¹ A_c P* (e_i = 0 where
    (A_c P*)_i < 0, so that E(I + E)⁻¹A_c P* >= 0); v⁻ with J_u v⁻ = u⁻ and J_b v⁻ = 0. A_c is computed by hand
    here (M_c⁻¹ = M⁻¹ − M⁻¹J_bᵀ(J_b M⁻¹J_bᵀ)⁻¹J_b M⁻¹)."""
    n = draw(st.integers(2, 5))
    nb = draw(st.integers(0, 1)) if n >= 3 else 0
    k = draw(st.integers(1, n - nb))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    M = B @ B.T + n * np.eye(n) * draw(st.sampled_from([0.1, 1.0]))
    J = rng.normal(size=(k + nb, n))
    Ju, Jb = J[:k], J[k:]
    Minv = np.linalg.inv(M)
    Mc = Minv if nb == 0 else Minv - Minv @ Jb.T @ np.linalg.solve(Jb @ Minv @ Jb.T, Jb @ Minv)
    A = Ju @ Mc @ Ju.T
    P = rng.uniform(0.0, 2.0, size=k) * (rng.uniform(size=k) < 0.8)
    e = rng.uniform(0.0, 1.0, size=k) * (rng.uniform(size=k) < 0.7)
    AP = A @ P
    e = np.where(AP < 0, 0.0, e)
    um = -AP / (1 + e)
    v = np.linalg.lstsq(J, np.concatenate([um, np.zeros(nb)]), rcond=None)[0]
    contacts = [Contact("unilateral", normal=r) for r in Ju] + [Contact("bilateral", normal=r) for r in Jb]
    return ImpactProblem(M, v, contacts, restitution=np.concatenate([e, np.zeros(nb)])), P, k


@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(solvable_impacts())
def test_routes_agree_on_generated_impacts(data):
    """QP (80), LCP (81), the Dorn duals (82)/(83) and Moreau's rule (84) give the same P and v⁺ whenever (77) is
    solvable; the certificates say so (existence, equivalence)."""
    p, P, k = data
    c = certs(impacts.impact_certificates(p))
    assert c["impact_existence"].holds is True
    assert c["impact_lemma6"].holds is True
    ref = impacts.percussion_lcp(p)
    assert ref.status == "solved"
    scale_v = max(np.abs(ref.velocity).max(), np.abs(p.v_minus).max(), 1.0)
    scale_p = max(np.abs(ref.percussion).max(), 1.0)
    unique = c["impact_unique_percussion"].holds
    for route in ROUTES:
        a = impacts.ROUTES[route](p)
        assert a.status == "solved", (route, a.message)
        assert np.abs(a.velocity - ref.velocity).max() <= 1e-6 * scale_v, route
        if unique:
            assert np.abs(a.percussion[:k] - ref.percussion[:k]).max() <= 1e-6 * scale_p, route
    if unique:
        assert np.abs(ref.percussion[:k] - P).max() <= 1e-6 * scale_p
    assert impacts.equivalence_certificate(p).holds is True


# ------------------------------------------------------------------ Prop. 16 and bilateral rows
def test_prop16_orthogonal_bilateral_takes_no_percussion():
    """Inertial Ex. 3 (the rod of §4.3 hitting the wall, a horizontal guide g = βy + δ): q = (x, y, θ),
    M = diag(m, m, I), wall row h = (1, 0, l sin θ), guide row (0, β, 0): kinetic-orthogonal, so p_b = 0 (74).
    With the tilted guide g = αx + βy + γ, (75) with α ẋ + β ẏ = 0 before and after gives
    α(p_u + α p_b) + β² p_b = 0: p_b = −α/(α² + β²) p_u (the paper prints +α/(α² + β²): a sign slip)."""
    m, I, l, th = 1.0, 0.3, 0.5, 0.7
    h = [1.0, 0.0, l * math.sin(th)]
    v = [-1.0, 0.0, 0.4]
    p = ImpactProblem(
        np.diag([m, m, I]), v, [Contact("unilateral", normal=h), Contact("bilateral", normal=[0, 2.0, 0])]
    )
    c = certs(impacts.impact_certificates(p))
    assert c["impact_no_bilateral_percussion"].holds is True
    a = impacts.moreau_rule(p)
    assert a.percussion[1] == pytest.approx(0.0, abs=TOL)
    al, be = 0.6, 0.8
    v2 = [-1.0, -al / be * -1.0, 0.4]  # keeps α ẋ + β ẏ = 0
    p2 = ImpactProblem(
        np.diag([m, m, I]), v2, [Contact("unilateral", normal=h), Contact("bilateral", normal=[al, be, 0.0])]
    )
    assert certs(impacts.impact_certificates(p2))["impact_no_bilateral_percussion"].holds is False
    for route in ROUTES:
        a = impacts.ROUTES[route](p2)
        assert a.percussion[1] == pytest.approx(-al / (al * al + be * be) * a.percussion[0], rel=1e-6), route
        assert al * a.velocity[0] + be * a.velocity[1] == pytest.approx(0.0, abs=TOL)


def test_prop18_singular_delassus_percussion_not_unique():
    """Two identical rows: A_c singular, the percussion is not unique (its sum is), v⁺ is."""
    p = ImpactProblem([[1.0]], [-2.0], [Contact("unilateral", normal=[1.0]), Contact("unilateral", normal=[1.0])])
    c = certs(impacts.impact_certificates(p))
    assert c["impact_unique_percussion"].holds is False
    for route in ROUTES:
        a = impacts.ROUTES[route](p)
        assert a.velocity == pytest.approx([0.0], abs=TOL), route
        assert a.percussion.sum() == pytest.approx(2.0, rel=TOL) and np.all(a.percussion >= -TOL), route


# ------------------------------------------------------------------ input and applicability
@pytest.mark.parametrize(
    "e,field",
    [
        (-0.1, "restitution[0]"),
        (1.5, "restitution[0]"),
        ([0.5, 0.5, 0.5], "restitution"),
        ([[0.5, 0.1], [0.1, 0.5]], "restitution[1]"),
    ],
)
def test_bad_restitution_refused(e, field):
    cs = [Contact("unilateral", normal=[0.0, 1.0]), Contact("bilateral", normal=[1.0, 0.0])]
    with pytest.raises(RestitutionError) as err:
        ImpactProblem(np.eye(2), [0.0, -1.0], cs, restitution=e)
    assert err.value.field == field


def test_other_bad_input_refused():
    cs = [Contact("unilateral", normal=[1.0])]
    with pytest.raises(UnknownValueError) as err:
        ImpactProblem([[1.0]], [-1.0], cs, h=-0.1)
    assert err.value.field == "h"
    with pytest.raises(UnknownValueError) as err:
        ImpactProblem([[1.0]], [-1.0], [Contact("unilateral", normal=[1.0], normal_drift=1.0)])
    assert err.value.field == "contacts[0].normal_drift"
    with pytest.raises(gaussqp.errors.ShapeError):
        ImpactProblem([[1.0]], [-1.0, 2.0], cs)
    with pytest.raises(gaussqp.errors.NonFiniteError):
        ImpactProblem([[1.0]], [float("nan")], cs)


def test_section6_routes_refuse_what_they_do_not_cover():
    p = ImpactProblem([[1.0]], [-1.0], [Contact("unilateral", normal=[1.0])], h=0.1, f=[-9.81])
    with pytest.raises(NotApplicableError, match="h = 0"):
        impacts.percussion_qp(p)
    assert impacts.moreau_rule(p).velocity == pytest.approx([0.0], abs=TOL)  # Moreau's rule takes a step
    sing = ImpactProblem(np.diag([1.0, 0.0]), [-1.0, 0.0], [Contact("unilateral", normal=[1.0, 0.0])])
    with pytest.raises(NotApplicableError, match="M ≻ 0"):
        impacts.percussion_lcp(sing)
    assert impacts.moreau_rule(sing).velocity[0] == pytest.approx(0.0, abs=TOL)
    c = certs(impacts.impact_certificates(sing))
    assert c["impact_section6"].holds is None
    stick = ImpactProblem(
        np.eye(2),
        [0.5, -1.0],
        [Contact("unilateral", normal=[0, 1.0], mode="sticking", friction=1.0, tangent=[[1.0, 0]])],
    )
    with pytest.raises(NotApplicableError, match="frictionless"):
        impacts.moreau_rule(stick)
    sol = gaussqp.solve_impact(stick)  # given-mode friction through the dispatcher
    assert sol.certified and sol.acceleration == pytest.approx([0.0, 0.0], abs=TOL)


def test_full_restitution_matrix_and_immutability():
    """A full E is accepted (inertial (76)); impact_restitution says Moreau's law is not recovered in general;
    every route still answers and, with (77) solvable here, they agree. The problem is immutable."""
    E = [[0.5, 0.2], [0.1, 0.5]]
    p = ImpactProblem(
        np.eye(2),
        [-1.0, -2.0],
        [Contact("unilateral", normal=[1.0, 0.0]), Contact("unilateral", normal=[0.0, 1.0])],
        restitution=E,
    )
    assert not p.is_diagonal_restitution
    c = certs(impacts.impact_certificates(p))
    assert c["impact_restitution"].holds is False
    assert c["impact_existence"].holds is True
    # by hand (decoupled rows, A = I): u⁺ = −E u⁻ = (0.9, 1.1)
    for route in ROUTES:
        assert impacts.ROUTES[route](p).velocity == pytest.approx([0.9, 1.1], abs=TOL), route
    with pytest.raises(AttributeError):
        p.h = 1.0
    with pytest.raises(ValueError):
        p.restitution[0, 0] = 0.0
