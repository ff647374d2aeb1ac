"""The pieces of Coulomb's law (gaussqp.friction.coulomb_law) against independent formulas."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gaussqp.friction.coulomb_law import (
    SEPARATED,
    SLIDING,
    STICKING,
    contact_modes,
    de_saxce_shift,
    natural_map,
    natural_map_residual,
    project_cone,
    project_cone_jacobian,
)

finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def _project_by_optimization(x, mu):
    """Projection onto {‖t‖ <= μ n} by a brute-force 1D search over the normal part (independent of the closed
    form): for fixed n >= 0 the nearest point clips t to the disk of radius μ n."""
    xn, xt = x[0], x[1:]
    nt = np.linalg.norm(xt)
    ns = np.concatenate([[0.0], np.linspace(0, abs(xn) + nt + 1, 200001)])
    scale = np.minimum(1.0, mu * ns / nt) if nt > 0 else np.zeros_like(ns)
    dist = (ns - xn) ** 2 + (nt - scale * nt) ** 2
    k = int(np.argmin(dist))
    return np.concatenate([[ns[k]], scale[k] * xt])


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(finite, min_size=3, max_size=3), st.floats(0, 3))
def test_projection_3d_matches_brute_force(x, mu):
    x = np.array(x)
    p = project_cone(x, np.array([mu]), 3)
    assert np.allclose(p, _project_by_optimization(x, mu), atol=1e-3)
    # the projection is in the cone, and x - p is in the polar cone, orthogonal to p (Moreau's decomposition)
    assert np.linalg.norm(p[1:]) <= mu * p[0] + 1e-12
    w = x - p
    assert mu * np.linalg.norm(w[1:]) <= -w[0] + 1e-9
    assert abs(p @ w) <= 1e-9 * (1 + x @ x)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(finite, min_size=2, max_size=2), st.floats(0, 3))
def test_projection_2d_is_the_wedge(x, mu):
    x = np.array(x)
    p = project_cone(x, np.array([mu]), 2)
    assert np.allclose(p, _project_by_optimization(x, mu), atol=1e-3)
    assert abs(p[1]) <= mu * p[0] + 1e-12


@settings(derandomize=True, max_examples=40, deadline=None)
@given(st.lists(finite, min_size=6, max_size=6), st.floats(0.05, 2), st.floats(0.05, 2))
def test_jacobian_matches_finite_differences(x, mu1, mu2):
    x, mu = np.array(x), np.array([mu1, mu2])
    J = project_cone_jacobian(x, mu, 3)
    eps = 1e-7
    for j in range(2):
        blk = x[3 * j : 3 * j + 3]
        if abs(np.linalg.norm(blk[1:]) - mu[j] * blk[0]) < 1e-4 or abs(mu[j] * np.linalg.norm(blk[1:]) + blk[0]) < 1e-4:
            continue  # on a kink: any element of the subdifferential serves
        fd = np.column_stack(
            [
                (project_cone(blk + eps * e, mu[j : j + 1], 3) - project_cone(blk - eps * e, mu[j : j + 1], 3))
                / (2 * eps)
                for e in np.eye(3)
            ]
        )
        assert np.allclose(J[j], fd, atol=1e-5)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(st.lists(finite, min_size=6, max_size=6), st.lists(finite, min_size=6, max_size=6), st.floats(0, 2))
def test_residual_against_the_formula(r, u, mu):
    r, u, m = np.array(r), np.array(u), np.array([mu, mu])
    phi = natural_map(r, u, m, 3)
    expect = []
    for j in range(2):
        rj, uj = r[3 * j : 3 * j + 3], u[3 * j : 3 * j + 3]
        shifted = uj + np.array([mu * np.linalg.norm(uj[1:]), 0, 0])
        expect.append(rj - _closed_form(rj - shifted, mu))
    assert np.allclose(phi, np.concatenate(expect))
    q = np.ones(6)
    res = natural_map_residual(r, u, q, m, 3)
    a = np.linalg.norm(phi)
    assert res.absolute == pytest.approx(a)
    assert res.relative == pytest.approx(a / np.linalg.norm(q))
    assert res.siconos == pytest.approx(a / max(np.linalg.norm(q), np.linalg.norm(r), np.linalg.norm(u)))


def _closed_form(x, mu):
    """The projection written out as in Acary, Brémond, Huber (2018), for the residual test."""
    xn, xt = x[0], x[1:]
    t = np.linalg.norm(xt)
    if t <= mu * xn and xn >= 0:
        return x.copy()
    if mu * t <= -xn:
        return np.zeros(3)
    a = (xn + mu * t) / (1 + mu * mu)
    return np.concatenate([[a], mu * a * xt / t])


def test_residual_vanishes_exactly_on_the_three_modes():
    mu = np.array([0.5, 0.5, 0.5])
    r = np.array([0, 0, 0, 2, 0.3, -0.4, 2, -0.6, 0.8])  # separated, sticking inside, sliding on the boundary
    u = np.array([1.5, 0.2, 0.1, 0, 0, 0, 0, 3, -4])  # gap, rest, slip opposite to r_t
    res = natural_map_residual(r, u, np.ones(9), mu, 3)
    assert res.absolute <= 1e-15
    modes = contact_modes(r, u, mu, 3, velocity_scale=1.0, reaction_scale=1.0)
    assert [c.mode for c in modes] == [SEPARATED, STICKING, SLIDING]
    assert np.allclose(modes[2].direction, [0.6, -0.8])
    assert modes[0].margin == pytest.approx(1.5) and modes[1].margin == pytest.approx(0.5)
    # violating the law is seen: a sliding contact whose force does not oppose the slip
    bad = r.copy()
    bad[7:9] *= -1
    assert natural_map_residual(bad, u, np.ones(9), mu, 3).absolute > 0.1


def test_de_saxce_shift():
    assert np.allclose(de_saxce_shift(np.array([1.0, 3.0, 4.0]), np.array([0.5]), 3), [3.5, 3.0, 4.0])
    assert np.allclose(de_saxce_shift(np.array([1.0, -2.0]), np.array([0.5]), 2), [2.0, -2.0])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 9), d=st.sampled_from([2, 3]))
def test_contact_modes_with_per_contact_scales_are_each_contacts_own(seed, m, d):
    """Scales given per contact (a mixed problem's) decide each contact as a call on that contact alone would."""
    rng = np.random.default_rng(seed)
    r, u = rng.normal(size=m * d), rng.normal(size=m * d)
    r[::d] = np.where(rng.random(m) < 0.3, 0.0, np.abs(r[::d]))  # some contacts separated
    u[1::d] = np.where(rng.random(m) < 0.5, 0.0, u[1::d])  # some sticking
    if d == 3:
        u[2::d] = np.where(u[1::d] == 0.0, 0.0, u[2::d])
    mu = rng.choice([0.0, 0.5, 1.2], size=m)
    vs, rs = rng.choice([0.0, 1e-3, 2.0], size=m), rng.choice([0.0, 1e-6, 5.0], size=m)
    both = contact_modes(r, u, mu, d, velocity_scale=vs, reaction_scale=rs)
    for j in range(m):
        b = slice(j * d, (j + 1) * d)
        (one,) = contact_modes(r[b], u[b], mu[j : j + 1], d, velocity_scale=float(vs[j]), reaction_scale=float(rs[j]))
        assert both[j] == one


def test_contact_modes_with_scales_of_another_count_is_a_shape_error():
    from gaussqp.errors import ShapeError

    r = np.array([1.0, 0.1, 0.0, 1.0, 0.0, 0.2])
    with pytest.raises(ShapeError, match="velocity_scale"):
        contact_modes(r, r, np.ones(2), 3, velocity_scale=np.ones(3), reaction_scale=1.0)
    with pytest.raises(ShapeError, match="reaction_scale"):
        contact_modes(r, r, np.ones(2), 3, velocity_scale=1.0, reaction_scale=np.ones((2, 1)))


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 6),
    d=st.sampled_from([2, 3]),
    mu_exp=st.floats(-2, 10),
)
def test_the_velocity_change_makes_the_projected_reaction_exact(seed, m, d, mu_exp):
    """``(r − φ, u + Δu)`` satisfies Coulomb's law in De Saxcé's form: its natural map vanishes to the round-off of its
    terms, whatever μ (up to 1e10, where Δu_n ~ μ‖φ_t‖)."""
    from gaussqp.friction.coulomb_law import velocity_change

    rng = np.random.default_rng(seed)
    mu = np.full(m, 10.0**mu_exp) * rng.uniform(0.5, 1.5, size=m)
    r, u = rng.normal(size=m * d), rng.normal(size=m * d)
    phi = natural_map(r, u, mu, d)
    R, U, P = r.reshape(m, d), u.reshape(m, d), phi.reshape(m, d)
    ut, pt = U[:, 1:], P[:, 1:]
    du = np.concatenate(
        [(-P[:, 0] + mu * (np.linalg.norm(ut, axis=1) - np.linalg.norm(ut - pt, axis=1)))[:, None], -pt], axis=1
    )
    assert np.allclose(velocity_change(phi, u, mu, d), np.linalg.norm(du, axis=1), rtol=1e-12, atol=0)
    r2, u2 = (R - P).ravel(), (U + du).ravel()
    terms = np.abs(r2) + np.abs(u2) + np.repeat(mu, d) * np.repeat(np.linalg.norm(u2.reshape(m, d)[:, 1:], axis=1), d)
    assert np.all(np.abs(natural_map(r2, u2, mu, d)) <= 1e-12 * np.maximum(terms, 1.0))


@pytest.mark.parametrize("d", [2, 3])
def test_a_huge_friction_coefficient_is_not_a_certified_fall_through_the_floor(d):
    """A unit point on the floor pushed sideways by 3 N, μ = 1e10 (found by a new user's trial): it sticks, λ_n = 9.81.
    The Newton method can stop at r = 0 (the point falling through the floor), whose natural map is 1e-10 of ‖q‖ but
    which is exact only for a normal velocity changed by ~μ‖φ_t‖ ~ 1: not ``solved``. Whatever the route answers, a
    certified answer is the sticking one."""
    import gaussqp
    from gaussqp import Contact, ContactProblem

    tangent = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]][: d - 1]
    normal = [0.0, 0.0, 1.0]
    for mu in (1e10, 1e12):
        c = Contact("unilateral", normal=normal, friction=mu, tangent=tangent)
        p = ContactProblem(np.eye(3), [-3.0, 0.0, 9.81], [c], dimension=d)
        for crosscheck in (True, False):
            s = gaussqp.solve(p, crosscheck=crosscheck)
            if s.status == "solved":
                assert np.allclose(s.acceleration, 0.0, atol=1e-9) and s.lambda_normal[0] == pytest.approx(9.81)
            else:
                assert not s.certified
        res = s.certificate("natural_map")
        if res is not None and not res.holds:
            assert res.data["velocity_change_relative"] > 1e-8


@pytest.mark.parametrize("k", [1.0, 1e4, 1e8, 1e9])
def test_f9_measures_the_velocity_change_in_its_own_units(k):
    """F9 (auto on a mode-free contact beside a massless coordinate held by a bilateral row) judges the velocity change
    in the law's own variables (λ/ls, u/us per contact), as its contact residual: a sliding unit point entered with its
    mass and force scaled by k is certified whatever k (a reviewer found 'inaccurate' from k = 1e8 when the change was
    taken from the unscaled map, newtons added to accelerations). By hand it slides along x with a_x = 7 − μ g."""
    import gaussqp
    from gaussqp import Contact, ContactProblem

    c1 = Contact("unilateral", [0.0, 1.0, 0.0, 0.0], friction=0.5, mode="coulomb", tangent=[[1, 0, 0, 0], [0, 0, 1, 0]])
    c2 = Contact("bilateral", [0.0, 0.0, 0.0, 1.0])
    p = ContactProblem(k * np.diag([1.0, 1.0, 1.0, 0.0]), -k * np.array([7.0, -9.81, 0.0, 0.0]), [c1, c2], dimension=3)
    s = gaussqp.solve(p, crosscheck=False)
    assert s.formulation == "coulomb_mixed" and s.status == "solved", s.message
    assert np.allclose(s.acceleration, [7.0 - 0.5 * 9.81, 0.0, 0.0, 0.0], atol=1e-9)
    assert s.natural_map_residual.velocity_change_relative <= 1e-12
