"""Grasp checks with the hand (gaussqp/grasp/hand.py): equilibrium and closure under joint-torque limits (Han–Trinkle–Li
as an SOCP), certificates recomputed here independently, and the papers' dynamic check against sticking Ex. 6."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gaussqp.errors import InputError, ShapeError, UnknownValueError
from gaussqp.grasp import Grasp, GraspContact, Hand
from gaussqp.grasp.hand import dynamic_check, hand_closure, hand_contact_problem, hand_equilibrium, physical_scaling
from gaussqp.linalg.dense import as_dense
from gaussqp.problems import grasps as E
from gaussqp.problems.sticking_examples import (
    hard_finger_grasp,
    hard_finger_grasp_6dof,
    hard_finger_grasp_6dof_closed_form,
    three_finger,
    three_finger_closed_form,
)

g = 9.81


def pair(limits=(10.0, 10.0), mu=0.5):
    """Sticking Ex. 6 as a grasp: two hard fingers at (∓1, 0) moving along x only."""
    cs = [GraspContact([-1.0, 0.0], [1.0, 0.0], mu, "hard"), GraspContact([1.0, 0.0], [-1.0, 0.0], mu, "hard")]
    J = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, -1.0], [0.0, 0.0]])
    return Grasp(cs, torque_scale=1.0, wrench=[0.0, -g, 0.0], hand=Hand(J, torque_limits=list(limits)))


def torque_map(grasp):
    return np.asarray(grasp.hand.jacobian, float).T * physical_scaling(grasp)[None, :]


def in_cones(grasp, v, tol):
    return all(v[s.start] >= np.linalg.norm(v[s.start + 1 : s.stop]) - tol for s in grasp.offsets())


def random_admissible(grasp, rng, n):
    """Random x in the cones within the torque limits (cone samples scaled down into the limits)."""
    A, tau = torque_map(grasp), np.asarray(grasp.hand.torque_limits, float)
    out = []
    for _ in range(n):
        x = []
        for s in grasp.sizes():
            fn = rng.uniform(0, 1)
            nu = rng.normal(size=s - 1)
            nu = nu / max(np.linalg.norm(nu), 1e-12) * fn * rng.uniform(0, 1) if s > 1 else nu
            x += [fn, *nu]
        x = np.array(x)
        tq = np.abs(A @ x)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(tq > 0, tau / tq, np.inf)
        x = x * min(1.0, float(np.min(ratio)))
        out.append(x)
    return out


# -------------------------------------------------------------------------------------------- equilibrium
def test_torque_limits_that_suffice_hold_the_weight_with_the_published_margin():
    r = hand_equilibrium(pair())
    assert r.holds is True and r.certified and r.certificate.id == "hand_forces"
    # normal forces up to 10 (|τ| <= 10), friction 4.905 each: slack 10 − 9.905 in x coordinates = 0.095
    assert r.margin == pytest.approx(0.095, abs=1e-6)
    G, A = pair().grasp_map(True), torque_map(pair())
    x = r.value["x"]
    assert np.linalg.norm(G @ x + pair().scaled_wrench([0, -g, 0])) < 1e-8
    assert np.all(np.abs(A @ x) <= 10 + 1e-8) and in_cones(pair(), x, 1e-9)


def test_weak_torque_limits_fail_with_a_recomputed_separating_direction():
    gr = pair(limits=(4.0, 4.0))  # normal forces <= 4: friction <= 2 + 2 < 9.81
    r = hand_equilibrium(gr)
    assert r.holds is False and r.certified and r.certificate.id == "hand_separation"
    z, rr = r.value["separating_wrench"], r.value["joint_weights"]
    G, A, tau = gr.grasp_map(True), torque_map(gr), np.array([4.0, 4.0])
    w = gr.scaled_wrench(gr.wrench)
    assert in_cones(gr, G.T @ z + A.T @ rr, 1e-9)
    value = z @ w - tau @ np.abs(rr)
    assert value > 1 and r.margin == pytest.approx(-value, rel=1e-6)
    # the certificate's inequality on random admissible forces: zᵀ(−G x) can never reach zᵀw
    for x in random_admissible(gr, np.random.default_rng(0), 200):
        assert -z @ (G @ x) <= tau @ np.abs(rr) + 1e-9


@pytest.mark.parametrize("limit, holds", [(9.7, False), (9.9, True), (20.0, True)])
def test_the_torque_threshold_is_where_friction_stops_carrying_the_weight(limit, holds):
    # 2 μ τ >= g  ⇔  τ >= 9.81
    r = hand_equilibrium(pair(limits=(limit, limit)))
    assert r.holds is holds and r.certified


def test_a_wrench_argument_overrides_the_grasp_wrench_and_none_is_refused():
    assert hand_equilibrium(pair(), [0.0, -1.0, 0.0]).margin > 1
    gr = Grasp(pair().contacts, torque_scale=1.0, hand=pair().hand)
    with pytest.raises(InputError, match="wrench"):
        hand_equilibrium(gr)


def test_without_limits_it_is_plain_equilibrium_with_exact_cones():
    gr = Grasp(pair().contacts, torque_scale=1.0, hand=Hand(pair().hand.jacobian))
    assert hand_equilibrium(gr, [0.0, -g, 0.0]).holds is True
    assert hand_equilibrium(gr, [5.0, 0.0, 0.0]).holds is True  # planar force closure: any wrench is resisted
    points = [GraspContact([-1.0, 0.0], [1.0, 0.0], 0.0, "hard"), GraspContact([1.0, 0.0], [-1.0, 0.0], 0.0, "hard")]
    frictionless = Grasp(points, torque_scale=1.0, hand=Hand(np.array([[1.0, 0.0], [0.0, -1.0]])))
    r = hand_equilibrium(frictionless, [0.0, -g, 0.0])  # nothing carries the weight
    assert r.holds is False and r.certified
    z = r.value["separating_wrench"]
    assert z[1] < 0 and np.allclose(r.value["joint_weights"], 0)


@pytest.mark.parametrize(
    "hand, err",
    [
        (Hand(np.zeros((3, 2)), torque_limits=[1.0, 1.0]), ShapeError),
        (Hand(np.zeros((4, 2)), torque_limits=[1.0]), ShapeError),
        (Hand(np.zeros((4, 2)), torque_limits=[1.0, -1.0]), UnknownValueError),
    ],
)
def test_bad_hands_are_typed_errors(hand, err):
    with pytest.raises(err):  # refused when the grasp is built, before any check runs
        Grasp(pair().contacts, torque_scale=1.0, wrench=[0.0, -g, 0.0], hand=hand)


def test_a_grasp_without_hand_is_refused():
    gr = Grasp(pair().contacts, torque_scale=1.0, wrench=[0.0, -g, 0.0])
    with pytest.raises(InputError, match="hand"):
        hand_equilibrium(gr)
    with pytest.raises(InputError, match="hand"):
        hand_closure(gr)


# -------------------------------------------------------------------------------------------- closure
def test_closure_radius_bracket_and_every_wrench_inside_the_lower_radius_is_resisted():
    gr = pair()
    r = hand_closure(gr)
    assert r.holds is True and r.certified and r.certificate.id == "hand_closure_wrenches"
    lo, hi = r.value["radius_lower"], r.value["radius_upper"]
    assert hi == pytest.approx(10.0, rel=1e-6) and lo == pytest.approx(10.0 / math.sqrt(3), rel=1e-6)
    rng = np.random.default_rng(1)
    for _ in range(15):
        u = rng.normal(size=3)
        u *= 0.999 * lo / np.linalg.norm(u)
        phys = np.array([u[0], u[1], u[2] * gr.torque_scale])
        assert hand_equilibrium(gr, phys).holds is True
    # and some wrench of norm just above the upper radius is not (the +x axis reaches exactly 10)
    assert hand_equilibrium(gr, [10.5, 0.0, 0.0]).holds is False


def test_a_passive_joint_breaks_closure_with_a_direction_no_admissible_force_pushes_along():
    gr = pair(limits=(0.0, 10.0))  # finger 1 cannot push
    r = hand_closure(gr)
    assert r.holds is False and r.certified and r.certificate.id == "hand_closure_separation"
    z = r.value["separating_wrench"]
    G = gr.grasp_map(True)
    for x in random_admissible(gr, np.random.default_rng(2), 300):
        assert z @ (G @ x) <= 1e-9
    # the unresisted external wrench: along d (here −x: the hand cannot push the object towards +x)
    d = r.value["unresisted_direction"]
    assert hand_equilibrium(gr, d).holds is False


def test_hard_parallel_jaws_cannot_resist_a_torque_about_their_axis():
    gr = E.parallel_jaw("hard")
    r = hand_closure(gr)
    assert r.holds is False and r.certified
    z = r.value["separating_wrench"] / np.linalg.norm(r.value["separating_wrench"])
    assert abs(abs(z[3]) - 1) < 1e-6  # a pure torque about x
    soft = hand_closure(E.parallel_jaw("soft"))
    assert soft.holds is True and soft.certified and soft.value["radius_lower"] > 0


# -------------------------------------------------------------------------------------------- dynamic check
def test_dynamic_check_reproduces_sticking_example_6_first_version():
    r = dynamic_check(hard_finger_grasp())  # F1 = −10, F2 = 10, μ = 0.5: −μF1 + μF2 = 10 >= g
    assert r.holds is True and r.certified and r.certificate.id == "coulomb_cones"
    assert r.margin == pytest.approx(5 - g / 2, abs=1e-6)  # max min(μλ_n − |λ_t|) with λ_t1 + λ_t2 = g
    assert r.value["mu_min"] == pytest.approx(g / 20, rel=1e-3)
    assert np.allclose(r.value["lambda_normal"][1:], [10, 10]) and r.value["lambda_normal"][0] == pytest.approx(0)
    fails = dynamic_check(hard_finger_grasp(F1=-4.0, F2=4.0))  # 4 < g: Step 6 fails
    assert fails.holds is False and fails.certified and fails.margin < 0


def test_the_grasp_built_problem_of_example_6_gives_the_same_numbers():
    r = dynamic_check(E.hard_finger_pair(), object_mass_matrix=E.object_mass_matrix("hard_finger_pair"))
    assert r.holds is True and r.certified
    assert r.margin == pytest.approx(5 - g / 2, abs=1e-6) and r.value["mu_min"] == pytest.approx(g / 20, rel=1e-3)
    assert np.allclose(r.value["lambda_normal"], [10, 10])


@pytest.mark.parametrize("F1y", [1.0, -2.0])
def test_example_6_second_version_paper_closed_form(F1y):
    # the paper's closed form assumes F1y = F2y: λ_t = (g − F1y)/3 on each finger, ÿ = −(g + 2 F1y)/3
    cf = hard_finger_grasp_6dof_closed_form(-10.0, F1y, 10.0, F1y)
    assert cf["lambda_t"][0] == pytest.approx((g - F1y) / 3) and cf["yddot"] == pytest.approx(-(g + 2 * F1y) / 3)
    paper = dynamic_check(hard_finger_grasp_6dof(F1x=-10.0, F1y=F1y, F2x=10.0, F2y=F1y))
    grasp = dynamic_check(
        E.hard_finger_pair_moving(F1y=F1y, F2y=F1y), object_mass_matrix=E.object_mass_matrix("hard_finger_pair_moving")
    )
    for r in (paper, grasp):
        assert r.holds is True and r.certified
        assert r.margin == pytest.approx(5 - abs(g - F1y) / 3, abs=1e-6)
        assert r.value["mu_min"] == pytest.approx(abs(g - F1y) / 30, rel=1e-3)
    assert grasp.value["acceleration"][1] == pytest.approx(-(g + 2 * F1y) / 3, abs=1e-7)
    # the grasp's tangential multipliers are along its tangents (finger 2's points down): upward loads (g − F1y)/3
    lt = np.ravel(grasp.value["lambda_tangent"])
    assert lt[0] == pytest.approx((g - F1y) / 3, abs=1e-7) and -lt[1] == pytest.approx((g - F1y) / 3, abs=1e-7)


def test_example_5_grasp_builds_the_papers_contact_problem_and_slips_with_a_weak_squeeze():
    p = hand_contact_problem(E.three_finger_planar(), E.object_mass_matrix("three_finger_planar"))
    q = three_finger()
    for a, b in ((p.M, q.M), (p.J_n, q.J_n), (p.J_t, q.J_t)):
        assert np.allclose(as_dense(a), as_dense(b))
    assert np.allclose(p.F, q.F)
    r = dynamic_check(p)
    cf = three_finger_closed_form()
    assert np.allclose(r.value["lambda_normal"], cf["lambda_n"], atol=1e-7)
    assert np.allclose(np.ravel(r.value["lambda_tangent"]), cf["lambda_t"], atol=1e-7)
    weak = dynamic_check(
        E.three_finger_planar(push=(10.0, 5.0, 10.0)), object_mass_matrix=E.object_mass_matrix("three_finger_planar")
    )
    assert weak.holds is False and weak.certified  # |λ_t,1| = 7.405 > μ 10 = 5


def test_dynamic_check_bad_input():
    with pytest.raises(InputError, match="object_mass_matrix"):
        dynamic_check(E.hard_finger_pair())
    with pytest.raises(ShapeError, match="object_mass_matrix"):
        dynamic_check(E.hard_finger_pair(), object_mass_matrix=np.eye(2))
    with pytest.raises(UnknownValueError):
        dynamic_check("hard_finger_pair")
    with pytest.raises(InputError, match="mass_matrix"):
        dynamic_check(pair(), object_mass_matrix=np.eye(3))


def test_a_wrench_of_the_wrong_size_is_a_shape_error():
    with pytest.raises(ShapeError, match="wrench"):
        hand_equilibrium(pair(), [0.0, -g])
