"""Closure and equilibrium checks (issue #13 item 2): analytic cases, certificates recomputed here in NumPy, a
property test (closure ⇒ every wrench resisted; no closure ⇒ the certificate's wrench is not), bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gaussqp.errors import ShapeError, UnknownValueError
from gaussqp.grasp import Grasp, GraspContact
from gaussqp.grasp.closure import (
    equilibrium,
    force_closure,
    form_closure,
    internal_forces,
    largest_disturbance,
    min_weight,
)

RTOL = 1e-6


# ---------------------------------------------------------------------------------------------- independent checks
def in_cones(g: Grasp, x: np.ndarray, atol: float) -> bool:
    """Every x_i in its exact cone ‖ν‖ <= f_n, recomputed here."""
    return all(np.linalg.norm(x[s][1:]) - x[s][0] <= atol and x[s][0] >= -atol for s in g.offsets())


def assert_unresisted(g: Grasp, chk) -> None:
    """The no-closure certificate: y ≠ 0 with Gᵀy in the (self-dual) cones, so G x + y = 0 has no x in the cones."""
    assert chk.holds is False and chk.certified
    y = chk.value["unresisted_wrench_scaled"]
    assert np.linalg.norm(y) > 0.5
    G = g.grasp_map()
    if chk.check == "form_closure":
        assert np.all(G[:, [s.start for s in g.offsets()]].T @ y >= -RTOL)
    else:
        assert in_cones(g, G.T @ y, RTOL * np.linalg.norm(G, 2))
    np.testing.assert_allclose(g.scaled_wrench(chk.value["unresisted_wrench"]), y)


def assert_closure(g: Grasp, chk) -> None:
    """The closure certificate: G full row rank and G x = 0 with x strictly inside the cones."""
    assert chk.holds is True and chk.certified
    G = g.grasp_map()
    x = chk.value["internal_force"]
    assert np.linalg.matrix_rank(G) == G.shape[0]
    assert np.linalg.norm(G @ x) <= RTOL * np.linalg.norm(x)
    if chk.check == "form_closure":
        assert np.all(x[[s.start for s in g.offsets()]] > 0)
    else:
        assert min(x[s][0] - np.linalg.norm(x[s][1:]) for s in g.offsets()) > chk.margin * (1 - RTOL) > 0


# ---------------------------------------------------------------------------------------------- grasps
def planar_pair(mu: float, angle: float) -> Grasp:
    """Hard fingers at (∓1, 0) whose inward normals make the angle ``angle`` with the line joining them."""
    n1, n2 = [np.cos(angle), np.sin(angle)], [-np.cos(angle), np.sin(angle)]
    return Grasp([GraspContact([-1.0, 0.0], n1, mu, "hard"), GraspContact([1.0, 0.0], n2, mu, "hard")])


def spatial_pair(kind: str, mu: float = 0.5, mut: float = 0.1) -> Grasp:
    return Grasp(
        [GraspContact([-1.0, 0, 0], [1.0, 0, 0], mu, kind, mut), GraspContact([1.0, 0, 0], [-1.0, 0, 0], mu, kind, mut)]
    )


def disk_three(mu: float, radius: float = 2.0) -> Grasp:
    th = 2 * np.pi * np.arange(3) / 3
    return Grasp(
        [
            GraspContact(
                radius * np.array([np.cos(t), np.sin(t)]),
                -np.array([np.cos(t), np.sin(t)]),
                mu,
                "frictionless" if mu == 0 else "hard",
            )
            for t in th
        ]
    )


#: seven frictionless contacts on the cube [-1, 1]³ in form closure: (face axis, side, in-face coordinates)
CUBE7 = [
    (0, 1, 0.2, 0.4),
    (0, -1, -0.3, -0.1),
    (1, 1, -0.1, 0.0),
    (1, -1, -0.7, 0.0),
    (2, 1, -0.4, 0.1),
    (2, -1, -0.7, -0.3),
    (2, -1, -0.6, 0.4),
]


def cube_fixture(spec) -> Grasp:
    cs = []
    for ax, side, u, v in spec:
        p, n = np.zeros(3), np.zeros(3)
        p[ax] = side
        p[[k for k in range(3) if k != ax]] = u, v
        n[ax] = -side
        cs.append(GraspContact(p, n, 0.0, "frictionless"))
    return Grasp(cs)


# ---------------------------------------------------------------------------------------------- analytic cases
@pytest.mark.parametrize("factor", [1.05, 0.95])
def test_planar_pair_closure_iff_joining_line_inside_both_cones(factor):
    angle = np.arctan(0.3)
    g = planar_pair(factor * 0.3, angle)  # μ above / below tan(angle)
    chk = force_closure(g)
    if factor > 1:
        assert_closure(g, chk)
    else:
        assert_unresisted(g, chk)
        assert equilibrium(g, chk.value["unresisted_wrench"]).holds is False


def test_planar_pair_symmetric_closed_forms():
    mu = 0.4
    g = planar_pair(mu, 0.0)
    chk = force_closure(g)
    assert_closure(g, chk)
    # Σ f_n = 2, squeeze f_n = 1 each with ν = 0: the margin is exactly 1 whatever μ
    assert chk.margin == pytest.approx(1.0, rel=1e-6)
    # the unit normal budget: a pure torque (or a force across the line) up to μ (L = 1)
    for d in ([0, 0, 1.0], [0, 1.0, 0]):
        ld = largest_disturbance(g, d)
        assert ld.certified and ld.value["lower"] == pytest.approx(mu, rel=1e-6)
        assert ld.value["upper"] == pytest.approx(mu, rel=1e-6)
    # along the joining line the pair pushes with f_n up to 1 (the other finger idle)
    assert largest_disturbance(g, [1.0, 0, 0]).value["s"] == pytest.approx(1.0, rel=1e-6)


def test_spatial_hard_pair_never_closure_torque_about_the_axis():
    for mu in (0.2, 1.0, 5.0):
        g = spatial_pair("hard", mu)
        chk = force_closure(g)
        assert_unresisted(g, chk)
        assert chk.certificate.id == "grasp_force_closure_rank"
        # the certificate is the torque about the joining (x) axis
        y = chk.value["unresisted_wrench_scaled"]
        np.testing.assert_allclose(np.abs(y), [0, 0, 0, 1, 0, 0], atol=1e-9)
        for sign in (1, -1):
            e = equilibrium(g, sign * chk.value["unresisted_wrench"])
            assert e.holds is False and e.certified


def test_spatial_soft_pair_closure():
    g = spatial_pair("soft", 0.5, 0.1)
    chk = force_closure(g)
    assert_closure(g, chk)
    # torsion about the axis: 2 μ_t f_n with f_n = ½ each: 0.1 (torque scale L = 1)
    ld = largest_disturbance(g, [0, 0, 0, 1.0, 0, 0])
    assert ld.certified and ld.value["s"] == pytest.approx(0.1, rel=1e-5)
    assert form_closure(g).holds is False
    # the hard pair cannot resist that torque at all: the bracket closes at 0 (dual bound, verified)
    h = largest_disturbance(spatial_pair("hard"), [0, 0, 0, 1.0, 0, 0])
    assert h.holds is False and h.certified and h.value["upper"] <= 1e-9


@pytest.mark.parametrize("mu", [0.0, 1e-3, 0.3, 2.0])
def test_three_fingers_on_a_disk(mu):
    """Normals through the centre: closure iff μ > 0 (μ = 0: no torque, rank 2). Closed forms with the unit normal
    budget: a pure torque up to R μ Σ f_n = R μ, i.e. μ scaled by L = R; margin 1 (f_n = 1, ν = 0) for every μ > 0."""
    g = disk_three(mu)
    chk = force_closure(g)
    if mu == 0:
        assert_unresisted(g, chk)
        np.testing.assert_allclose(np.abs(chk.value["unresisted_wrench_scaled"]), [0, 0, 1], atol=1e-9)
        return
    assert_closure(g, chk)
    assert chk.margin == pytest.approx(1.0, rel=1e-6)
    ld = largest_disturbance(g, [0, 0, 1.0])
    assert ld.value["lower"] == pytest.approx(mu, rel=1e-5) and ld.value["upper"] == pytest.approx(mu, rel=1e-5)
    assert form_closure(g).holds is False


def test_frictionless_fixture_needs_seven_contacts():
    good = cube_fixture(CUBE7)
    chk = form_closure(good)
    assert_closure(good, chk)
    assert force_closure(good).holds is True  # frictionless: the same question
    for drop in range(7):
        six = cube_fixture(CUBE7[:drop] + CUBE7[drop + 1 :])
        c6 = form_closure(six)
        assert_unresisted(six, c6)
        assert equilibrium(six, c6.value["unresisted_wrench"]).holds is False
    bad = cube_fixture(CUBE7[:6] + [CUBE7[0]])  # a seventh contact repeating the first
    assert_unresisted(bad, form_closure(bad))


def test_equilibrium_certificates_both_ways():
    g = spatial_pair("hard", 0.5)
    w = np.array([0, 0, -0.3, 0, 0, 0])  # weight along −z: friction holds it
    e = equilibrium(g, w)
    assert e.holds and e.certified
    x = e.value["forces"]
    assert in_cones(g, x, 1e-9 * np.linalg.norm(x))
    np.testing.assert_allclose(g.grasp_map(scaled=False) @ x + w, 0, atol=1e-8)
    assert 0 < e.margin <= 1
    # the same load on frictionless fingers: a separating wrench with yᵀw > 0
    g0 = spatial_pair("hard", 0.0)
    e0 = equilibrium(g0, w)
    assert e0.holds is False and e0.certified
    y = e0.value["separating_wrench_scaled"]
    assert y @ g0.scaled_wrench(w) > 0
    assert np.all(g0.grasp_map().T @ y >= -1e-9)
    # the grasp's own wrench is the default; none given is an error naming the field
    assert equilibrium(Grasp(g.contacts, wrench=w)).holds
    with pytest.raises(ShapeError, match="wrench"):
        equilibrium(g)
    with pytest.raises(ShapeError, match="wrench"):
        equilibrium(g, [1.0, 2.0])


def test_internal_forces_and_uniqueness():
    g = spatial_pair("hard", 0.5)
    chk = internal_forces(g)
    N = chk.value["basis"]
    assert chk.value["dimension"] == 1 and np.allclose(g.grasp_map() @ N, 0, atol=1e-12)
    # ker G is the squeeze (6 columns, rank 5). Holding a weight, the squeeze is free (the fingers can squeeze harder): not unique, with a witness
    x = equilibrium(g, [0, 0, -0.3, 0, 0, 0]).value["forces"]
    u = internal_forces(g, x)
    assert u.holds is False and u.certified
    d = u.value["witness"]
    assert np.linalg.norm(g.grasp_map() @ d) <= 1e-9 * np.linalg.norm(d) and in_cones(g, x + d, 1e-7)
    # three fingers on a disk, one pushing nothing: the kernel is the squeeze, and x = 0 is unique (apexes)
    g3 = disk_three(0.0)
    u3 = internal_forces(g3, np.zeros(3))
    assert u3.value["dimension"] == 1 and u3.holds is True and u3.certified
    # full column rank: unique by rank
    g1 = Grasp([GraspContact([0.0, 0.0, 1.0], [0, 0, -1.0], 0.0, "frictionless")])
    assert internal_forces(g1, [1.0]).holds is True
    with pytest.raises(ShapeError, match="x"):
        internal_forces(g, [1.0, 2.0])
    with pytest.raises(UnknownValueError, match="cones"):
        internal_forces(g, [1.0, 5.0, 0, 1, 0, 0])


def test_min_weight_lp_and_socp():
    g = disk_three(0.5)
    lp, so = min_weight(g), min_weight(g, cones="exact")
    assert lp.holds and so.holds and lp.certified and so.certified
    # SOCP: Σ f_n = 1, f_n = ⅓ each with ν = 0: s = ⅓
    assert so.value["min_weight"] == pytest.approx(1 / 3, rel=1e-6)
    # LP: planar hard fingers are exact with 2 edges: 6 weights, each ⅙ at best
    W, _ = g.primitive_wrenches(8, "inner")
    a = lp.value["weights"]
    assert lp.value["min_weight"] == pytest.approx(1 / 6, rel=1e-6)
    assert np.linalg.norm(W @ a) <= 1e-9 and a.sum() == pytest.approx(1.0) and a.min() > 0
    # no closure: 0 with the certificate
    h = spatial_pair("hard")
    for cones in ("inscribed", "exact"):
        m = min_weight(h, cones=cones)
        assert m.holds is False and m.value["min_weight"] == 0.0 and m.certified
    with pytest.raises(UnknownValueError, match="cones"):
        min_weight(g, cones="outer")


# ---------------------------------------------------------------------------------------------- property test
def random_grasp(seed: int, m: int, mu: float, kind: str) -> Grasp:
    rng = np.random.default_rng(seed)
    cs = []
    for _ in range(m):
        p = rng.normal(size=3)
        p /= np.linalg.norm(p)
        cs.append(GraspContact(p, -p, mu, kind, 0.05))
    return Grasp(cs)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    m=st.integers(2, 4),
    mu=st.sampled_from([0.1, 0.3, 0.8]),
    kind=st.sampled_from(["hard", "soft"]),
)
def test_closure_means_every_wrench_is_resisted(seed, m, mu, kind):
    g = random_grasp(seed, m, mu, kind)
    chk = force_closure(g)
    assert chk.certified
    rng = np.random.default_rng(seed + 1)
    if chk.holds:
        for _ in range(3):
            e = equilibrium(g, rng.normal(size=6))
            assert e.holds is True and e.certified
    else:
        e = equilibrium(g, chk.value["unresisted_wrench"])
        assert e.holds is False and e.certified


# ---------------------------------------------------------------------------------------------- bad input
def test_zero_normal_refused_by_the_model():
    with pytest.raises(ShapeError, match="normal"):
        Grasp([GraspContact([1.0, 0, 0], [0, 0, 0], 0.5)])


def test_singular_grasp_map_is_an_explicit_result():
    g = Grasp([GraspContact([1.0, 0, 0], [-1.0, 0, 0], 0.5, "hard")])  # one finger: rank 3 < 6
    for chk in (force_closure(g), form_closure(g)):
        assert chk.holds is False and chk.certified and "rank" in chk.reason
        assert_unresisted(g, chk)


def test_contacts_all_at_one_point():
    p = [0.5, 0.0, 0.0]
    cs = [GraspContact(p, n, 0.7, "hard") for n in ([-1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], [0, 0, -1.0])]
    g = Grasp(cs)
    chk = force_closure(g)
    assert_unresisted(g, chk)
    assert chk.value["rank"] == 3  # the wrenches (f, p × f) of forces at one point p span 3 dimensions only
    at_origin = Grasp([GraspContact([0.0, 0, 0], c.normal, 0.7, "hard") for c in cs], torque_scale=1.0)
    c0 = force_closure(at_origin)
    assert c0.holds is False and c0.certified and c0.value["rank"] == 3
    with pytest.raises(UnknownValueError, match="torque_scale"):
        Grasp([GraspContact([0.0, 0, 0], c.normal, 0.7, "hard") for c in cs])


def test_results_serialize_to_json():
    import json

    g = disk_three(0.5)
    x = force_closure(g).value["internal_force"]
    for chk in (
        force_closure(g),
        form_closure(g),
        equilibrium(g, [1.0, 0, 0]),
        internal_forces(g),
        internal_forces(g, x),
        min_weight(g),
        largest_disturbance(g, [0, 1.0, 0]),
    ):
        d = json.loads(json.dumps(chk.to_dict()))
        assert d["check"] == chk.check and d["certified"] is True and d["certificate"]["holds"] is True


def test_zero_direction_refused():
    with pytest.raises(UnknownValueError, match="direction"):
        largest_disturbance(disk_three(0.5), [0, 0, 0])
