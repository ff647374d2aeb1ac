"""Force envelopes (issue #29 item 1): closed forms, and every bound re-derived by an independent program (HiGHS on
inscribed / circumscribed polygons of the friction disks, scipy.optimize.linprog)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp import force_ranges
from gaussqp.certificates.force_envelopes import ForceSet, contact_laws

G = 9.81


def rigid_body_rows(points, normal=(0.0, 0.0, 1.0), t1=(1.0, 0.0, 0.0), t2=(0.0, 1.0, 0.0)):
    """Rows of point contacts on one free body (coordinates x, y, z, rx, ry, rz about its centre)."""
    out = []
    for r in points:
        r = np.asarray(r, dtype=float)
        row = lambda e: np.concatenate([e, np.cross(r, e)])  # noqa: E731
        out.append(
            (row(np.asarray(normal, float)), np.vstack([row(np.asarray(t1, float)), row(np.asarray(t2, float))]))
        )
    return out


def body_problem(points, mass=2.0, mu=0.5, mode="coulomb", F_extra=None):
    M = np.diag([mass, mass, mass, 0.1, 0.2, 0.3])
    F = np.array([0.0, 0.0, mass * G, 0.0, 0.0, 0.0]) + (0 if F_extra is None else np.asarray(F_extra))
    contacts = [Contact("unilateral", normal=n, friction=mu, mode=mode, tangent=T) for n, T in rigid_body_rows(points)]
    return ContactProblem(M, F, contacts, dimension=3, name="body")


def polygon_bracket(problem, a, objective, sense, k=256):
    """Independent bracket of max/min ``objective(λ)`` over the force set at ``a`` (every contact sticking or
    frictionless): HiGHS on the inscribed (inner) and circumscribed (outer) k-gons of each disk. ``objective`` is a
    vector over the stacked variables (λ_n,i, λ_t,i (2)) per contact. Returns (inner value, outer value)."""
    p = problem
    m = p.m
    r = p.M @ a + p.F
    Jn, Jt = np.asarray(p.J_n), np.asarray(p.J_t)
    cols = []
    for i in range(m):
        cols += [Jn[i], Jt[2 * i], Jt[2 * i + 1]]
    A = np.array(cols).T
    out = []
    for radius in (math.cos(math.pi / k), 1.0):  # inner polygon: facets at distance cos(π/k) μλ_n; outer: μλ_n
        rows = []
        for i in range(m):
            mu = p.friction[i]
            for j in range(k):
                th = 2 * math.pi * (j + 0.5) / k
                row = np.zeros(3 * m)
                row[3 * i + 1], row[3 * i + 2], row[3 * i] = math.cos(th), math.sin(th), -mu * radius
                rows.append(row)
        c = -objective if sense == "max" else objective
        res = linprog(
            c,
            A_ub=np.array(rows),
            b_ub=np.zeros(len(rows)),
            A_eq=A,
            b_eq=r,
            bounds=[(0, None) if j % 3 == 0 else (None, None) for j in range(3 * m)],
            method="highs",
        )
        assert res.status == 0, res.message
        out.append(-res.fun if sense == "max" else res.fun)
    return out[0], out[1]  # inner (a point of the true set: max inner <= true max), outer (true max <= outer)


def check_against_polygons(problem, fr, k=256):
    a = fr.acceleration
    m = problem.m
    cos = math.cos(math.pi / k)
    for c in fr.contacts:
        obj = np.zeros(3 * m)
        obj[3 * c.index] = 1.0
        inner, outer = polygon_bracket(problem, a, obj, "max", k)
        # true max in [inner, outer / 1] (outer contains the disk); ours in [attained, value]
        assert c.normal_max.attained <= outer + 1e-7 * max(1, outer)
        assert c.normal_max.value >= inner - 1e-7 * max(1, inner)
        inner, outer = polygon_bracket(problem, a, obj, "min", k)
        assert c.normal_min.attained >= outer - 1e-7 * max(1, abs(outer))
        assert c.normal_min.value <= inner + 1e-7 * max(1, abs(inner))
        # the largest friction force: max over directions of the support, bracketed by the polygons
        sup_in, sup_out = [], []
        for j in range(32):
            th = 2 * math.pi * j / 32
            obj = np.zeros(3 * m)
            obj[3 * c.index + 1], obj[3 * c.index + 2] = math.cos(th), math.sin(th)
            i_, o_ = polygon_bracket(problem, a, obj, "max", k)
            sup_in.append(i_)
            sup_out.append(o_)
        lower, upper = max(sup_in), max(sup_out) / math.cos(math.pi / 32) / cos
        assert c.tangent_max.value >= lower - 1e-6 * max(1, lower)
        assert c.tangent_max.attained <= upper + 1e-6 * max(1, upper)


def test_table_on_four_legs_each_leg_zero_to_half_weight():
    W = 2.0 * G
    legs = [(0.35, 0.25, -0.3), (-0.35, 0.25, -0.3), (0.35, -0.25, -0.3), (-0.35, -0.25, -0.3)]
    p = body_problem(legs, mass=2.0, mu=0.6)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    fr = force_ranges(p, sol, groups={"all": [0, 1, 2, 3], "front": [0, 1], "diagonal": [0, 3]})
    assert fr.certified and fr.contains_answer and fr.unique_forces is False
    for c in fr.contacts:
        assert c.law == "sticking"
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * W)
        assert c.normal_range[1] == pytest.approx(W / 2, rel=1e-8)
        assert c.normal_min.width <= 1e-7 * W and c.normal_max.width <= 1e-7 * W
        assert c.normal_min.certificate.holds and c.normal_max.certificate.data["evidence"]["y"] is not None
        # the largest hold margin: the leg carrying W/2 with no friction force, μ W/2 (certified, every contact)
        assert c.hold_margin.value == pytest.approx(0.6 * W / 2, rel=1e-7) and c.hold_margin.width <= 1e-7 * W
    g = {x.name: x for x in fr.groups}
    assert g["all"].normal_min.value == pytest.approx(W, rel=1e-8)
    assert g["all"].normal_max.value == pytest.approx(W, rel=1e-8)
    assert g["front"].normal_min.value == pytest.approx(W / 2, rel=1e-7)  # statics: each side carries W/2
    assert g["front"].normal_max.value == pytest.approx(W / 2, rel=1e-7)
    assert g["diagonal"].normal_min.value == pytest.approx(0.0, abs=1e-7 * W)
    assert g["diagonal"].normal_max.value == pytest.approx(W, rel=1e-8)
    check_against_polygons(p, fr)


def test_box_on_a_plane_each_corner_zero_to_half_weight():
    W = 3.0 * G
    corners = [(sx * 0.1, sy * 0.15, -0.1) for sx in (1, -1) for sy in (1, -1)]
    p = body_problem(corners, mass=3.0, mu=0.4)
    fr = force_ranges(p)
    for c in fr.contacts:
        assert c.normal_range[0] == pytest.approx(0.0, abs=1e-7 * W)
        assert c.normal_range[1] == pytest.approx(W / 2, rel=1e-8)
    check_against_polygons(p, fr, k=128)


def test_unique_forces_collapse_to_the_point():
    # three non-collinear legs: three normal forces from three equations (statics), friction none needed
    legs = [(0.3, 0.0, -0.2), (-0.15, 0.26, -0.2), (-0.15, -0.26, -0.2)]
    p = body_problem(legs, mass=1.5, mu=0.0, mode="frictionless")
    fr = force_ranges(p)
    assert fr.point and fr.unique_forces
    for c in fr.contacts:
        assert c.law == "frictionless"
        assert c.normal_range[0] == pytest.approx(1.5 * G / 3, rel=1e-10)
        assert c.normal_range[1] == pytest.approx(1.5 * G / 3, rel=1e-10)
        assert c.normal_max.how == "point" and c.tangent_max.value == 0.0


def ramp_point(theta, mu, m=1.0):
    """A point mass on a ramp, 2D (coordinates x along the ramp downhill, y normal), one Coulomb contact."""
    M = np.eye(2) * m
    F = np.array([-m * G * math.sin(theta), m * G * math.cos(theta)])  # M a + F = Jᵀλ; gravity pulls downhill (+x)
    c = Contact("unilateral", normal=np.array([0.0, 1.0]), friction=mu, tangent=np.array([[1.0, 0.0]]))
    return ContactProblem(M, F, [c], dimension=2, name="ramp_point")


@pytest.mark.parametrize("mu", [0.3, 0.8])
def test_point_on_a_ramp_sticks_or_slides(mu):
    theta = math.radians(30)
    p = ramp_point(theta, mu)
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    fr = force_ranges(p, sol)
    c = fr.contacts[0]
    N = G * math.cos(theta)
    if mu > math.tan(theta):
        assert c.law == "sticking" and np.allclose(sol.acceleration, 0, atol=1e-9)
        assert c.tangent_max.value == pytest.approx(G * math.sin(theta), rel=1e-7)
        assert c.hold_margin.value == pytest.approx(mu * N - G * math.sin(theta), rel=1e-6)
    else:
        assert c.law == "sliding"
        assert sol.acceleration[0] == pytest.approx(G * (math.sin(theta) - mu * math.cos(theta)), rel=1e-7)
        assert c.tangent_max.value == pytest.approx(mu * N, rel=1e-8) and c.tangent_max.how == "scaled"
        assert c.hold_margin is None
    assert c.normal_range[0] == pytest.approx(N, rel=1e-8) and c.normal_range[1] == pytest.approx(N, rel=1e-8)
    # independent: HiGHS on the one-contact law
    lam = linprog([1.0], A_eq=[[1.0]], b_eq=[p.M[1, 1] * sol.acceleration[1] + p.F[1]], bounds=[(0, None)]).x[0]
    assert lam == pytest.approx(c.normal_range[1], rel=1e-8)


@pytest.mark.parametrize("mu", [0.8, 2.0])
def test_a_tangent_map_with_a_zero_row_gives_the_friction_bound_of_its_rank(mu):
    """A planar contact seen with the engine's two tangents (MuJoCo's planar models: P = [0; 1], a new user's lever):
    ‖P λ_t‖ = |λ_t|, so the friction maximum is the one without the map, certified. The direction the set does not
    reach (the first tangent) had a support program with a zero objective whose dual did not verify: not certified,
    and the audit flagged an exact answer. P of rank 0 bounds the friction by 0; P = 2·[1; 1] scales it by 2√2."""
    theta = math.radians(30)
    p = ramp_point(theta, mu)
    sol = gaussqp.solve(p)
    plain = force_ranges(p, sol).contacts[0].tangent_max
    for P, factor in (([[0.0], [1.0]], 1.0), ([[1.0], [0.0]], 1.0), ([[2.0], [2.0]], 2.0 * math.sqrt(2.0))):
        fr = force_ranges(p, sol, tangent_maps={0: np.array(P)})
        assert fr.certified and fr.contacts[0].tangent_max.value == pytest.approx(factor * plain.value, rel=1e-9)
    zero = force_ranges(p, sol, tangent_maps={0: np.zeros((2, 1))}).contacts[0].tangent_max
    assert zero.value == 0.0


def test_sliding_box_law_and_ranges():
    """A 3D box (half-length a = 0.1 along x, centre h = 0.1 above its base) pushed along x by W past μ W: every
    corner slides (λ_t = −μ λ_n x̂); friction at the base pitches the load forward, statics gives the front pair
    F_f = W (1 + μ h / a) / 2, each side W/2, so a front corner carries [F_f − W/2, W/2], a back one [0, W − F_f],
    and its friction max is μ times its normal max."""
    W, mu, a_, h = 2.0 * G, 0.3, 0.1, 0.1
    corners = [(sx * a_, sy * 0.15, -h) for sx in (1, -1) for sy in (1, -1)]
    p = body_problem(corners, mass=2.0, mu=mu, F_extra=[-1.0 * W, 0, 0, 0, 0, 0])  # push of W along +x
    sol = gaussqp.solve(p)
    assert sol.status == "solved"
    assert sol.acceleration[0] == pytest.approx(W / 2.0 - mu * G, rel=1e-6)
    fr = force_ranges(p, sol)
    Ff = W * (1 + mu * h / a_) / 2
    for c in fr.contacts:
        front = corners[c.index][0] > 0
        lo, hi = (Ff - W / 2, W / 2) if front else (0.0, W - Ff)
        assert c.law == "sliding" and np.allclose(c.slip, [1.0, 0.0], atol=1e-9)
        assert c.normal_range[0] == pytest.approx(lo, abs=1e-7 * W)
        assert c.normal_range[1] == pytest.approx(hi, rel=1e-7)
        assert c.tangent_max.value == pytest.approx(mu * hi, rel=1e-7)
    # independent: HiGHS with the sliding columns, max λ_n,0
    fs = ForceSet(p, sol.acceleration, contact_laws(p, sol.acceleration))
    res = linprog(-np.eye(4)[0], A_eq=fs.A, b_eq=fs.r, bounds=[(0, None)] * 4, method="highs")
    assert -res.fun == pytest.approx(fr.contacts[0].normal_range[1], rel=1e-8)


def test_a_bound_that_does_not_verify_is_none(monkeypatch):
    """A dual certificate that fails its check gives None with a reason, never a number (the test can fail)."""
    from gaussqp.certificates import force_envelopes as fe

    legs = [(0.35, 0.25, -0.3), (-0.35, 0.25, -0.3), (0.35, -0.25, -0.3), (-0.35, -0.25, -0.3)]
    p = body_problem(legs)
    real = fe._clarabel

    def spoiled(fs, q, extra, cones):
        ans = real(fs, q, extra, cones)
        if ans["status"] == "solved":
            ans["y"] = ans["y"] * 1.01
        return ans

    monkeypatch.setattr(fe, "_clarabel", spoiled)
    monkeypatch.setattr(fe, "_cvxpy", lambda *a: {"status": "failed", "solver": "off"})
    fr = force_ranges(p)
    c = fr.contacts[0]
    assert c.normal_max.value is None and "dual certificate does not verify" in c.normal_max.reason
    assert not fr.certified


def test_json_of_ranges():
    legs = [(0.35, 0.25, -0.3), (-0.35, 0.25, -0.3), (0.35, -0.25, -0.3), (-0.35, -0.25, -0.3)]
    import json

    d = json.loads(json.dumps(force_ranges(body_problem(legs)).as_dict()))
    assert d["contacts"][0]["normal_range"][1] == pytest.approx(G, rel=1e-8)
    assert d["contacts"][0]["bounds"]["normal_max"]["certificate"]["evidence"]["verify"]


def test_cli_solve_ranges(capsys):
    from gaussqp.cli import main

    assert main(["solve", "hyperstatic_block", "--ranges", "--json"]) == 0
    import json

    d = json.loads(capsys.readouterr().out)
    fr = d["force_ranges"]
    assert fr["certified"] and len(fr["contacts"]) == 3
    assert main(["solve", "hyperstatic_block", "--ranges"]) == 0
    out = capsys.readouterr().out
    assert "force ranges certified" in out and "normal min" in out


def test_the_certificate_layer_needs_the_answer_and_the_public_function_solves_first():
    """``gaussqp.force_ranges(problem)`` solves first; the builder in certificates/ takes the answer (it does not
    reach up to the dispatcher: no package cycle, tests/test_layout.py)."""
    from gaussqp.certificates.force_envelopes import force_ranges as envelopes_of

    p = ContactProblem(np.eye(2), [0.0, 9.81], [Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    with pytest.raises(gaussqp.errors.WrongTypeError, match="^solution"):
        envelopes_of(p)
    fr = force_ranges(p)
    # one unilateral contact under its weight: the set is the point λ = 9.81 and both routes say so
    c = fr.contacts[0]
    assert c.normal_min.value == pytest.approx(9.81, rel=1e-9) and c.normal_max.value == pytest.approx(9.81, rel=1e-9)
    same = envelopes_of(p, gaussqp.solve(p)).contacts[0]
    assert (same.normal_min.value, same.normal_max.value) == (c.normal_min.value, c.normal_max.value)
