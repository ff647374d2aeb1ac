"""The exact 2D enumeration of Coulomb's stick/slip pieces (issue #12, part B): ``coulomb_enumeration``.

A 2D contact with mode "coulomb" is separated, or active and then sticking, slipping forwards or backwards
(u_t = T a + c its tangential acceleration). Closed forms (the box on a plane, the Painlevé rod of the
library at zero tangential velocity), a property test against a brute force written here in the multiplier
space of the Delassus matrix, and the refusal limit.

The Painlevé rod with its lower end at rest (mode "coulomb"), m = l = 1 (``painleve_rod``): with
``c = cos θ, s = sin θ`` the Delassus matrix of (n, T) is ``W = [[1 + 3c², -3cs], [-3cs, 1 + 3s²]]``
(det W = 4), the free accelerations are ``w = -g + s θ̇²`` (normal) and ``v = c θ̇² - F_x`` (tangential,
``F_x`` a horizontal load in the F-convention, 0 in the library). The four pieces:

- separated: ``w >= 0``;
- stick: ``λ_n = (-w(1 + 3s²) - 3cs v)/4 >= 0``, ``λ_t = (-(1 + 3c²) v - 3cs w)/4``, ``|λ_t| <= μ λ_n``;
- slip+ (``λ_t = -μ λ_n``): ``λ_n = -w/A₊``, ``A₊ = 1 + 3c² + 3μcs > 0``, needs ``u_t = -(3cs + μ(1 + 3s²)) λ_n + v >= 0``;
- slip- (``λ_t = +μ λ_n``): ``λ_n = -w/A₋``, ``A₋ = 1 + 3c² - 3μcs`` (< 0 beyond Painlevé's ``μ_P = (1 + 3c²)/(3cs)``),
  needs ``u_t = (μ(1 + 3s²) - 3cs) λ_n + v <= 0``.

With ``v >= 0`` (the library's rod, no horizontal load, θ ∈ (0, π/2)) there is exactly one solution for every
μ and θ̇: ``w > 0``: separated only (slip- with A₋ < 0 has ``μ(1 + 3s²) > 3cs`` hence ``u_t > 0``; stick and slip+
have ``λ_n < 0``); ``w < 0``, θ̇ = 0: slip- for ``μ < μ_s = 3cs/(1 + 3s²)``, stick for ``μ > μ_s``, and at ``μ = μ_s``
the one point on both pieces. A contact at rest is never paradoxical without a tangential load: for one 2D
contact with W ≻ 0 the homogeneous problem (w = v = 0) has only λ = 0 (A₋ = 0 forces ``u_t > 0``), so a
solution always exists (``none`` is impossible), and three solutions (separated, stick, slip-) appear when
``w > 0``, ``μ > μ_P`` and the horizontal load makes ``v <= -(μ(1 + 3s²) - 3cs) w/|A₋|`` (at that threshold the
stick piece meets the slip- piece: stick holds from the same v on, so the count jumps from one to three). The sliding rod of the library (mode "sliding", slip -1) keeps its
Painlevé answers (none for ``w < 0``, two for ``w > 0`` when ``μ > μ_P``) through the same route.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.errors import NotApplicableError, TooLargeError
from gaussqp.formulations import FORMULATIONS, get_formulation
from gaussqp.friction.cones import ConeModel
from gaussqp.friction.enumeration import enumerate_solutions, piece_count
from gaussqp.problems.sliding_examples import G, painleve_rod

ROUTE = "coulomb_enumeration"


def solve(p: ContactProblem):
    return gaussqp.solve(p, formulation=ROUTE, crosscheck=False)


def box(push: float, mu: float = 0.5, m: float = 2.0, g: float = 9.81) -> ContactProblem:
    """A block of mass m on the ground (normal +y), pushed along +x by ``push`` (F = -applied)."""
    M, F = m * np.eye(2), np.array([-push, m * g])
    return ContactProblem(
        M,
        F,
        [Contact("unilateral", normal=[0, 1.0], friction=mu, mode="coulomb", tangent=[[1.0, 0]])],
        dimension=2,
        name="coulomb box",
    )


def as_coulomb(p: ContactProblem, **changes) -> ContactProblem:
    """The same problem with every contact in mode "coulomb" (or other ``changes`` to each contact)."""
    cts = [dataclasses.replace(c, mode="coulomb", slip=None, **changes) for c in p.contacts]
    return ContactProblem(p.M, p.F, cts, dimension=p.dimension, name=p.name)


# ------------------------------------------------------------------------------------------- the sliding box
def test_box_below_mu_m_g_sticks():
    sol = solve(box(5.0))
    e = sol.enumeration
    assert sol.status == "solved" and sol.certified
    assert e.multiplicity == "unique" and e.multiplier_multiplicity == "unique" and e.count == 1
    assert e.solutions[0].modes == ["sticking"]
    np.testing.assert_allclose(sol.acceleration, [0, 0], atol=1e-12)
    assert sol.lambda_normal[0] == pytest.approx(2 * 9.81) and sol.lambda_tangent[0, 0] == pytest.approx(-5.0)
    assert sol.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}


@pytest.mark.parametrize("push, mode", [(15.0, "sliding+"), (-15.0, "sliding-")])
def test_box_above_mu_m_g_slides_with_the_closed_form(push, mode):
    sol = solve(box(push))
    e = sol.enumeration
    assert sol.status == "solved" and sol.certified and e.multiplicity == "unique" and e.count == 1
    assert e.solutions[0].modes == [mode]
    a_x = abs(push) / 2.0 - 0.5 * 9.81  # F/m - μ g = 2.595
    assert a_x == pytest.approx(2.595)
    np.testing.assert_allclose(sol.acceleration, [math.copysign(a_x, push), 0.0], atol=1e-12)
    assert sol.lambda_tangent[0, 0] == pytest.approx(-math.copysign(0.5 * 2 * 9.81, push))


def test_box_exactly_at_mu_m_g_is_one_solution_on_two_pieces():
    sol = solve(box(0.5 * 2.0 * 9.81))
    e = sol.enumeration
    assert e.count == 1 and e.multiplicity == "unique" and e.multiplier_multiplicity == "unique"
    s = e.solutions[0]
    assert sorted(s.pieces) == [">", "s"] and s.modes == ["sticking|sliding+"]
    np.testing.assert_allclose(sol.acceleration, [0, 0], atol=1e-12)
    cert = sol.certificate("sliding_enumeration")
    assert cert.holds and cert.data["modes"] == [["sticking|sliding+"]] and cert.data["pieces"] == 4


def rest_box(push: float = 0.0, mu: float = 0.5) -> ContactProblem:
    """A 2D box (half width w = 0.5, half height h = 0.3) at rest on its two bottom corners, q = (x, y, θ)."""
    m, w, h = 1.5, 0.5, 0.3
    M, F = np.diag([m, m, m * (4 * w * w + 4 * h * h) / 12]), np.array([-push, m * G, 0.0])
    cts = [
        Contact("unilateral", normal=[0, 1.0, rx], friction=mu, mode="coulomb", tangent=[[1.0, 0, h]]) for rx in (-w, w)
    ]
    return ContactProblem(M, F, cts, dimension=2, name="box on two corners")


@pytest.mark.parametrize("push", [0.0, 3.0])
def test_box_on_two_contacts_unique_acceleration_continuum_of_multipliers(push):
    p = rest_box(push)
    sol = solve(p)
    e = sol.enumeration
    assert sol.status == "solved" and sol.certified
    assert e.multiplicity == "unique" and e.multiplier_multiplicity == "continuum"
    assert sol.unique["acceleration"] is True and sol.unique["multipliers"] is False
    for s in e.solutions:
        np.testing.assert_allclose(s.a, 0.0, atol=1e-9)
        assert s.lam_n.sum() == pytest.approx(1.5 * G)
        assert s.lam_t.sum() == pytest.approx(-push)  # the horizontal balance; the split is free
    assert len(p.coulomb) == 2 and e.coulomb == [0, 1] and e.pieces == 16


# ------------------------------------------------------------------------------------------- Painlevé's rod
def rod_pieces(theta: float, mu: float, theta_dot: float = 0.0, push: float = 0.0) -> list[tuple[str, float]]:
    """(piece, λ_n) of every solution of the coulomb rod by the closed forms of the module docstring."""
    c, s = math.cos(theta), math.sin(theta)
    w, v = -G + s * theta_dot**2, c * theta_dot**2 - push
    out = []
    if w >= 0:
        out.append(("separated", 0.0))
    ln, lt = (-w * (1 + 3 * s * s) - 3 * c * s * v) / 4, (-(1 + 3 * c * c) * v - 3 * c * s * w) / 4
    if ln >= 0 and abs(lt) <= mu * ln and ln > 0:
        out.append(("sticking", ln))
    ap = 1 + 3 * c * c + 3 * mu * c * s
    if -w / ap > 0 and -(3 * c * s + mu * (1 + 3 * s * s)) * (-w / ap) + v >= 0:
        out.append(("sliding+", -w / ap))
    am = 1 + 3 * c * c - 3 * mu * c * s
    if am != 0 and -w / am > 0 and (mu * (1 + 3 * s * s) - 3 * c * s) * (-w / am) + v <= 0:
        out.append(("sliding-", -w / am))
    return out


def coulomb_rod(theta=math.pi / 6, mu=0.5, theta_dot=0.0, push=0.0) -> ContactProblem:
    p = as_coulomb(painleve_rod(theta=theta, mu=mu, theta_dot=theta_dot))
    return ContactProblem(p.M, p.F + np.array([push, 0, 0]), p.contacts, dimension=2)


@pytest.mark.parametrize(
    "theta, mu, theta_dot, push, expected",
    [
        (math.pi / 6, 0.5, 0.0, 0.0, ["sliding-"]),  # μ < μ_s = 3cs/(1 + 3s²) = 0.742: the foot slips outwards
        (math.pi / 6, 1.0, 0.0, 0.0, ["sticking"]),
        (math.atan(2.0), 2.0, 4.0, 0.0, ["separated"]),  # painleve_rod_paradox at rest: w > 0, v > 0
        (math.atan(2.0), 2.0, 0.0, 0.0, ["sticking"]),  # μ > μ_P = 4/3 but at rest: no paradox
        (math.atan(2.0), 2.0, 4.0, 50.0, ["separated", "sticking", "sliding-"]),  # pushed: three solutions
        # v = -28.8: stick and slip- appear together at v = -31.5 (their common boundary point), so 1 or 3
        (math.atan(2.0), 2.0, 4.0, 36.0, ["separated"]),
        (math.pi / 3, 0.3, 0.0, 0.0, ["sliding-"]),  # μ_s(π/3) = 0.4
        (math.pi / 3, 0.3, 2.0, 0.0, ["sticking"]),  # rotating: v = c θ̇² > 0 and w < 0 move the same rod to stick
    ],
)
def test_painleve_rod_at_rest_matches_its_closed_form(theta, mu, theta_dot, push, expected):
    closed = rod_pieces(theta, mu, theta_dot, push)
    assert [k for k, _ in closed] == expected  # the derivation, checked on its own
    sol = solve(coulomb_rod(theta, mu, theta_dot, push))
    e = sol.enumeration
    assert e.count == len(expected) and e.distinct_accelerations == len(expected)
    assert sorted(s.modes[0] for s in e.solutions) == sorted(expected)
    for (_, ln), s in zip(sorted(closed), sorted(e.solutions, key=lambda s: s.modes[0])):
        assert s.lam_n[0] == pytest.approx(ln, rel=1e-9, abs=1e-12)
    assert e.multiplicity == ("unique" if len(expected) == 1 else "multiple")
    assert sol.unique["acceleration"] is (len(expected) == 1)


def test_painleve_rod_at_rest_boundary_of_stick_and_slip_is_one_solution():
    theta = math.pi / 6
    c, s = math.cos(theta), math.sin(theta)
    mu_s = 3 * c * s / (1 + 3 * s * s)
    e = solve(coulomb_rod(theta, mu_s)).enumeration
    assert e.count == 1 and e.solutions[0].modes == ["sticking|sliding-"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    theta=st.floats(0.05, 1.5),
    mu=st.floats(0.0, 5.0).map(lambda x: round(x, 6)),
    theta_dot=st.floats(0.0, 6.0).map(lambda x: round(x, 6)),
    push=st.floats(-60.0, 60.0).map(lambda x: round(x, 6)),
)
def test_painleve_rod_at_rest_count_matches_the_closed_form(theta, mu, theta_dot, push):
    closed = rod_pieces(theta, mu, theta_dot, push)
    e = enumerate_solutions(coulomb_rod(theta, mu, theta_dot, push))
    assert e.count >= 1  # one 2D contact with W ≻ 0: never "none"
    if e.count == len(closed):
        return
    # only where two closed-form pieces meet (a boundary) may the merged count be smaller
    assert e.count < len(closed)
    lns = sorted(ln for _, ln in closed)
    assert any(abs(x - y) <= 1e-6 * max(1.0, abs(x)) for x, y in zip(lns, lns[1:]))


def test_library_sliding_rod_keeps_its_painleve_answers_through_the_same_route():
    """The stick/slip enumeration with every mode given is the special case: none for w < 0, two for w > 0."""
    none = gaussqp.solve(painleve_rod(theta=math.atan(2.0), mu=2.0), formulation=ROUTE, crosscheck=False)
    assert none.status == "infeasible" and none.certified and none.enumeration.multiplicity == "none"
    two = gaussqp.solve(gaussqp.problems.load("painleve_rod_paradox"), formulation=ROUTE, crosscheck=False)
    assert two.enumeration.multiplicity == "multiple" and two.enumeration.distinct_accelerations == 2
    ref = gaussqp.solve(
        gaussqp.problems.load("painleve_rod_paradox"), formulation="sliding_enumeration", crosscheck=False
    )
    assert two.enumeration.count == ref.enumeration.count


def test_no_solution_is_reported_only_with_the_enumeration_as_proof():
    """Two opposite unilateral rows that cannot both hold: every piece is empty, and the certificate says so."""
    M, F = np.eye(2), np.array([0.0, 9.81])
    cts = [
        Contact("unilateral", normal=[0, 1.0], normal_drift=-1.0, friction=0.5, mode="coulomb", tangent=[[1.0, 0]]),
        Contact("unilateral", normal=[0, -1.0], normal_drift=-1.0, friction=0.5, mode="coulomb", tangent=[[1.0, 0]]),
    ]
    sol = solve(ContactProblem(M, F, cts, dimension=2))
    assert sol.status == "infeasible" and sol.certified and sol.acceleration is None
    c = sol.certificate("sliding_enumeration")
    assert c.holds and c.data["solutions"] == 0 and c.data["pieces"] == 16


# ------------------------------------------------------------------------------------------- property test
def random_problem(seed: int, m: int, extra: int, frictionless: int = 0):
    """A generic 2D problem with ``m`` coulomb contacts and ``frictionless`` frictionless unilateral ones (without
    tangent rows, inserted at random places) on ``n = 2m + frictionless + extra`` coordinates (W ≻ 0 when
    extra >= 0)."""
    rng = np.random.default_rng(seed)
    n = max(1, 2 * m + frictionless + extra)
    R = rng.normal(size=(n, n))
    M = R @ R.T + 0.5 * np.eye(n)
    F = rng.normal(size=n) * 3
    cts = [
        Contact(
            "unilateral",
            normal=rng.normal(size=n),
            normal_drift=float(rng.normal()),
            friction=float(rng.uniform(0.0, 2.0)),
            mode="coulomb",
            tangent=[rng.normal(size=n)],
            tangent_drift=[float(rng.normal())],
        )
        for _ in range(m)
    ]
    for _ in range(frictionless):
        cts.insert(
            int(rng.integers(0, len(cts) + 1)),
            Contact("unilateral", normal=rng.normal(size=n), normal_drift=float(rng.normal())),
        )
    return ContactProblem(M, F, cts, dimension=2)


def coulomb_law_violation(p: ContactProblem, a, lam_n, lam_t, contacts=None) -> float:
    """The 2D Coulomb law recomputed here, relative to the data: dynamics, normal complementarity, and
    ``λ_t ∈ -μ λ_n Sgn(u_t)`` (stick: |λ_t| <= μ λ_n; u_t > 0: λ_t = -μ λ_n; u_t < 0: λ_t = +μ λ_n)."""
    Jn, Jt = np.asarray(p.J_n), np.asarray(p.J_t)
    fscale = max(1.0, np.abs(p.F).max(), np.abs(lam_n).max(initial=0), np.abs(lam_t).max(initial=0))
    ascale = max(1.0, np.abs(a).max())
    dyn = np.abs(p.M @ a + p.F - Jn.T @ lam_n - Jt.T @ lam_t.ravel()).max() / (fscale * max(1.0, np.abs(p.M).max()))
    un, ut = Jn @ a + p.normal_drift, Jt @ a + p.tangent_drift
    uscale = ascale * max(1.0, np.abs(Jn).max(), np.abs(Jt).max()) + np.abs(p.normal_drift).max()
    out = [dyn]
    for i in range(p.m) if contacts is None else contacts:
        mu, ln, lt = p.friction[i], lam_n[i], lam_t[i, 0]
        out += [max(0.0, -ln) / fscale, max(0.0, -un[i]) / uscale, min(abs(ln) / fscale, abs(un[i]) / uscale)]
        out.append(max(0.0, abs(lt) - mu * ln) / fscale)
        slip = ut[i] / uscale
        # sliding: the friction force is at the bound opposite to u_t (measured by the smaller of the two)
        if slip > 0:
            out.append(min(abs(lt + mu * ln) / fscale, slip))
        elif slip < 0:
            out.append(min(abs(lt - mu * ln) / fscale, -slip))
    return float(max(out))


def brute_force(p: ContactProblem) -> list[np.ndarray]:
    """Every solution, in multiplier space: u = W λ + w with W = J M⁻¹ Jᵀ ≻ 0, J = [n_1; t_1; ...], each of
    the 4^m pieces a square linear system (generic data), its inequalities checked; accelerations returned."""
    m = p.m
    J = np.vstack([np.vstack([np.asarray(p.J_n)[i], np.asarray(p.J_t)[i]]) for i in range(m)])
    Minv = np.linalg.inv(p.M)
    W = J @ Minv @ J.T
    w = J @ (-Minv @ p.F) + np.concatenate([[p.normal_drift[i], p.tangent_drift[i]] for i in range(m)])
    tol = 1e-9 * max(1.0, np.abs(w).max())
    found = []
    import itertools

    for pat in itertools.product(range(4), repeat=m):
        A, r = np.zeros((2 * m, 2 * m)), np.zeros(2 * m)
        for i, k in enumerate(pat):
            n_, t_ = 2 * i, 2 * i + 1
            mu = p.friction[i]
            if k == 0:  # λ_n = 0, λ_t = 0
                A[n_, n_] = 1
                A[t_, t_] = 1
            else:  # u_n = 0
                A[n_], r[n_] = W[n_], -w[n_]
                if k == 1:  # u_t = 0
                    A[t_], r[t_] = W[t_], -w[t_]
                else:  # λ_t ± μ λ_n = 0
                    A[t_, t_], A[t_, n_] = 1, (mu if k == 2 else -mu)
        lam = np.linalg.solve(A, r)
        u = W @ lam + w
        ok = True
        for i, k in enumerate(pat):
            ln, lt, un, ut = lam[2 * i], lam[2 * i + 1], u[2 * i], u[2 * i + 1]
            mu = p.friction[i]
            ok &= (un >= -tol) if k == 0 else (ln >= -tol)
            if k == 1:
                ok &= abs(lt) <= mu * ln + tol
            elif k == 2:
                ok &= ut >= -tol
            elif k == 3:
                ok &= ut <= tol
        if ok:
            a = Minv @ (J.T @ lam - p.F)
            if not any(np.abs(a - b).max() <= 1e-6 * max(1.0, np.abs(a).max()) for b in found):
                found.append(a)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 4), extra=st.integers(-2, 2))
def test_every_enumerated_solution_satisfies_coulombs_law_and_matches_a_brute_force(seed, m, extra):
    p = random_problem(seed, m, extra)
    e = enumerate_solutions(p)
    assert e.pieces == 4**m == piece_count(p)
    scale = max(1.0, np.abs(p.F).max())
    for s in e.solutions:
        assert coulomb_law_violation(p, s.a, s.lam_n, s.lam_t) <= 1e-7
        assert len(s.modes) == m
        for i, md in enumerate(s.modes):  # the reported mode is the point's own
            u_t = float(np.asarray(p.J_t)[i] @ s.a + p.tangent_drift[i])
            u_n = float(np.asarray(p.J_n)[i] @ s.a + p.normal_drift[i])
            if md == "sliding+":
                assert u_t >= -1e-7 and abs(u_n) <= 1e-7
            elif md == "sliding-":
                assert u_t <= 1e-7 and abs(u_n) <= 1e-7
            elif md == "sticking":
                assert abs(u_t) <= 1e-7 and abs(u_n) <= 1e-7
            elif md == "separated":
                assert abs(s.lam_n[i]) <= 1e-12 * scale and abs(s.lam_t[i, 0]) <= 1e-12 * scale
    if 2 * m <= p.n:  # W ≻ 0: the brute force in multiplier space is exact on generic data
        bf = brute_force(p)
        assert e.multiplicity in ("none", "unique", "multiple")
        assert e.distinct_accelerations == len(bf)
        for a in bf:
            assert any(np.abs(a - s.a).max() <= 1e-6 * max(1.0, np.abs(a).max()) for s in e.solutions)


def test_mixed_with_given_modes():
    """A coulomb contact beside a frictionless and a sticking one (all 2D): the law holds at every solution."""
    p0 = random_problem(7, 3, 1)
    cts = list(p0.contacts)
    cts[1] = dataclasses.replace(cts[1], mode="frictionless", friction=0.0)
    cts[2] = dataclasses.replace(cts[2], type="bilateral", mode="sticking", friction=5.0)
    p = ContactProblem(p0.M, p0.F, cts, dimension=2)
    e = enumerate_solutions(p)
    assert e.pieces == 4 * 2 * 2 and e.coulomb == [0]
    for s in e.solutions:
        assert coulomb_law_violation(p, s.a, s.lam_n, s.lam_t, contacts=[0]) <= 1e-7
        assert s.modes[1] in ("frictionless", "separated") and s.modes[2] == "sticking"
        assert abs(float(np.asarray(p.J_t)[2] @ s.a + p.tangent_drift[2])) <= 1e-7


# ------------------------------------------------------------------------------------------- limits, registry
def many(k: int, others: int = 0) -> ContactProblem:
    M, F = np.eye(2), np.array([0.0, 9.81])
    cts = [Contact("unilateral", normal=[0, 1.0], friction=0.5, mode="coulomb", tangent=[[1.0, 0]]) for _ in range(k)]
    cts += [Contact("unilateral", normal=[0, 1.0]) for _ in range(others)]
    return ContactProblem(M, F, cts, dimension=2)


@pytest.mark.parametrize("k, others, pieces", [(7, 0, 4**7), (5, 3, 4**5 * 8)])
def test_refusal_limit_counts_four_pieces_per_coulomb_contact(k, others, pieces):
    p = many(k, others)
    assert piece_count(p) == pieces
    with pytest.raises(TooLargeError, match=f"{pieces} pieces"):
        enumerate_solutions(p)
    f = get_formulation(ROUTE)
    ok, why = f.accepts(p, p.classify())
    assert not ok and str(pieces) in why
    with pytest.raises(NotApplicableError, match=str(pieces)):
        f.solve(p)


def test_at_the_limit_is_accepted():
    p = many(6)
    assert piece_count(p) == 4096 and get_formulation(ROUTE).accepts(p, p.classify()) == (True, "")


def test_three_dimensional_coulomb_is_refused_by_the_exact_route_naming_the_mode():
    T = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    p = ContactProblem(
        np.eye(3),
        [0, 0, 9.81],
        [Contact("unilateral", normal=[0, 0, 1.0], friction=0.5, mode="coulomb", tangent=T)],
        dimension=3,
    )
    ok, why = get_formulation(ROUTE).accepts(p, p.classify())
    assert not ok and "coulomb" in why and "coulomb_enumeration_inner" in why
    with pytest.raises(NotApplicableError, match="coulomb"):
        enumerate_solutions(p)
    with pytest.raises(NotApplicableError, match="coulomb"):
        enumerate_solutions(p, cone=ConeModel("disk"))
    with pytest.raises(NotApplicableError, match="coulomb"):
        get_formulation(ROUTE).solve(p)
    with pytest.raises(NotApplicableError, match="no polygon"):
        get_formulation(ROUTE).with_facets(6)


# ------------------------------------------------------------------------------------------- 3D, facetized
def box3(push: float, angle: float, mu: float = 0.5, m: float = 2.0, g: float = 9.81) -> ContactProblem:
    """The block in 3D, pushed by ``push`` along the horizontal direction at ``angle`` from x."""
    M, F = m * np.eye(3), np.array([-push * math.cos(angle), -push * math.sin(angle), m * g])
    T = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    return ContactProblem(
        M,
        F,
        [Contact("unilateral", normal=[0, 0, 1.0], friction=mu, mode="coulomb", tangent=T)],
        dimension=3,
        name="coulomb box 3D",
    )


# the 8-gons: facet normals at 22.5° + j·45°, vertices at j·45°; the inscribed one has its vertices on the circle
# (radius 1) and its facets at cos 22.5°, the circumscribed one its facets on the circle and its vertices at
# 1/cos 22.5°. Pushed along a vertex (0°) or a facet normal (22.5°) by 15 N: |a| = 7.5 - μ g ρ with ρ that radius.
@pytest.mark.parametrize(
    "kind, angle, rho, mode",
    [
        ("inner", 0.0, 1.0, "sliding (vertex 3)"),
        ("inner", math.pi / 8, math.cos(math.pi / 8), "sliding (facet 4)"),
        ("outer", 0.0, 1 / math.cos(math.pi / 8), "sliding (vertex 3)"),
        ("outer", math.pi / 8, 1.0, "sliding (facet 4)"),
    ],
)
def test_facetized_box_slides_with_the_polygons_closed_form(kind, angle, rho, mode):
    sol = gaussqp.solve(box3(15.0, angle), formulation=f"{ROUTE}_{kind}", crosscheck=False)
    e = sol.enumeration
    assert sol.status == "solved" and sol.certified and e.multiplicity == "unique" and e.count == 1
    assert e.solutions[0].modes == [mode] and e.pieces == 2 + 2 * 8
    a = 15.0 / 2 - 0.5 * 9.81 * rho
    np.testing.assert_allclose(sol.acceleration, [a * math.cos(angle), a * math.sin(angle), 0.0], atol=1e-10)
    np.testing.assert_allclose(
        sol.lambda_tangent[0], -0.5 * 2 * 9.81 * rho * np.array([math.cos(angle), math.sin(angle)]), atol=1e-10
    )


@pytest.mark.parametrize("kind", ["inner", "outer"])
def test_facetized_box_sticks_below_the_polygon(kind):
    sol = gaussqp.solve(box3(4.0, 0.3), formulation=f"{ROUTE}_{kind}", crosscheck=False)
    assert sol.enumeration.count == 1 and sol.enumeration.solutions[0].modes == ["sticking"]
    np.testing.assert_allclose(sol.acceleration, 0.0, atol=1e-12)


def test_facetized_box_between_a_facet_and_a_vertex_slides_along_the_facet_normal():
    """Maximum dissipation on a polygon quantizes the slip direction: pushed at 0.3 rad, the inner 8-gon's
    block accelerates along the facet normal at 22.5° (its friction force is on that facet)."""
    sol = gaussqp.solve(box3(15.0, 0.3), formulation=f"{ROUTE}_inner", crosscheck=False)
    a = sol.acceleration
    assert math.atan2(a[1], a[0]) == pytest.approx(math.pi / 8, abs=1e-9)
    assert sol.enumeration.solutions[0].modes == ["sliding (facet 4)"]


def polygon_law_violation(p: ContactProblem, a, lam_n, lam_t, kind: str, k: int) -> float:
    """The facetized law recomputed here from the polygon's vertices: λ_t in μ λ_n P, and maximum dissipation
    ``-u_t·λ_t = μ λ_n max_v(-u_t·v)`` over the vertices v of P (radius 1 inner, 1/cos(π/k) outer)."""
    rho = 1.0 if kind == "inner" else 1 / math.cos(math.pi / k)
    ang = 2 * math.pi * np.arange(k) / k
    V = rho * np.column_stack([np.cos(ang), np.sin(ang)])
    Jt = np.asarray(p.J_t)
    fscale = max(1.0, np.abs(p.F).max(), np.abs(lam_n).max(initial=0))
    out = []
    for i in p.coulomb:
        mu, ln, lt = p.friction[i], lam_n[i], lam_t[i]
        ut = Jt[2 * i : 2 * i + 2] @ a + p.tangent_drift[2 * i : 2 * i + 2]
        # inside: the support function of P in each facet direction (between two vertices)
        mid = (V + np.roll(V, -1, axis=0)) / 2
        normals = mid / np.linalg.norm(mid, axis=1, keepdims=True)
        out.append(max(0.0, float((normals @ lt).max() - mu * ln * np.linalg.norm(mid[0]))) / fscale)
        diss = float(-ut @ lt) - mu * ln * float((V @ -ut).max())
        out.append(abs(diss) / (fscale * max(1.0, np.abs(ut).max())))
    return max(out, default=0.0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 2),
    kind=st.sampled_from(["inner", "outer"]),
    k=st.sampled_from([3, 4, 6]),
)
def test_every_facetized_solution_satisfies_the_polygon_law(seed, m, kind, k):
    rng = np.random.default_rng(seed)
    n = 3 * m + 1
    R = rng.normal(size=(n, n))
    M, F = R @ R.T + 0.5 * np.eye(n), rng.normal(size=n) * 3
    cts = [
        Contact(
            "unilateral",
            normal=rng.normal(size=n),
            normal_drift=float(rng.normal()),
            friction=float(rng.uniform(0.1, 2.0)),
            mode="coulomb",
            tangent=rng.normal(size=(2, n)),
            tangent_drift=rng.normal(size=2),
        )
        for _ in range(m)
    ]
    p = ContactProblem(M, F, cts, dimension=3)
    cone = ConeModel(kind, k)
    e = enumerate_solutions(p, cone=cone)
    assert e.pieces == (2 + 2 * k) ** m == piece_count(p, cone)
    assert e.count >= 1  # W ≻ 0: as in 2D, a solution exists
    for s in e.solutions:
        dyn = np.abs(p.M @ s.a + p.F - np.asarray(p.J_n).T @ s.lam_n - np.asarray(p.J_t).T @ s.lam_t.ravel()).max()
        assert dyn <= 1e-8 * max(1.0, np.abs(p.F).max(), np.abs(s.lam_n).max())
        un = np.asarray(p.J_n) @ s.a + p.normal_drift
        assert (un >= -1e-8).all() and (s.lam_n >= -1e-9).all() and (np.minimum(un, s.lam_n) <= 1e-7).all()
        assert polygon_law_violation(p, s.a, s.lam_n, s.lam_t, kind, k) <= 1e-7


def test_facetized_limit_counts_the_polygon_pieces():
    T = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    cts = [Contact("unilateral", normal=[0, 0, 1.0], friction=0.5, mode="coulomb", tangent=T) for _ in range(3)]
    p = ContactProblem(np.eye(3), [0, 0, 9.81], cts, dimension=3)
    f = get_formulation(f"{ROUTE}_inner")
    assert piece_count(p, f.model) == 18**3
    ok, why = f.accepts(p, p.classify())
    assert not ok and str(18**3) in why
    with pytest.raises(TooLargeError, match=f"{18**3} pieces"):
        enumerate_solutions(p, cone=f.model)
    assert f.with_facets(4).accepts(p, p.classify()) == (True, "")  # 10³ = 1000 pieces


def test_registered_and_the_only_route_deciding_modes_here():
    f = FORMULATIONS[ROUTE]
    assert f.decides_modes and f.kind == "direct"
    assert f.accepts(box(1.0), box(1.0).classify()) == (True, "")
    # the special case: a problem with every mode given is accepted too and answers as sliding_enumeration
    p = gaussqp.problems.load("painleve_rod")
    assert f.accepts(p, p.classify())[0]


def test_find_tells_whether_another_routes_answer_is_an_enumerated_solution():
    """The check the convex-iteration route is held to (issue #12 acceptance): ``enum.find(a, λ) is not None``."""
    e = solve(box(15.0)).enumeration
    a, ln, lt = np.array([2.595, 0.0]), np.array([19.62]), np.array([[-9.81]])
    assert e.find(a, ln, lt) is e.solutions[0] and e.find(a) is e.solutions[0]
    assert e.find(np.array([2.595 * (1 + 1e-5), 0.0]), ln, lt) is None  # another acceleration
    assert e.find(a, ln, np.array([[-9.0]])) is None  # the right acceleration with a force off the law
    # a continuum of multipliers: another split of the internal tangential force is the same solution
    r = solve(rest_box()).enumeration
    assert r.find(np.zeros(3), np.array([1.5 * G / 2] * 2), np.array([[0.1], [-0.1]])) is not None
    assert r.find(np.array([0.0, 0.0, 1e-3])) is None
    with pytest.raises(NotApplicableError):
        dataclasses.replace(e, units=None).find(a)
