"""Fast unit tests of the sticking verdict (gaussqp.sticking_verdict), issue #9 mutation testing.

Point masses on a floor: M = I, a = 0, load F = (f, 1): Λ(0) is {Σλ_n = 1, Σλ_t = f, λ_n >= 0}, so the
margin, the per-contact margins and μ_min have closed forms (see each test). Branches that depend on a
backend's status are driven by a scripted ``run``.
"""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp.friction import cones
from gaussqp.friction import mu_min as mu_mod
from gaussqp.friction import sticking_analysis as sa
from gaussqp.friction import sticking_margin as sm
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.settings import PRESETS

HIGH = PRESETS["high"]


def _runner(solver, tol, needs):
    """The ``run`` callable the verdict builds: one program through the single solve path, status back."""
    backend = sa.get_backend(solver, needs=needs)
    return lambda prob: sa.solve_program(prob, backend.name, tol, needs)[1]


RUN = _runner("clarabel", HIGH, "qp")


def floor(f, mus=(0.5, 0.5), types=None):
    """Contacts on one point mass, normal (0, 1), tangent (1, 0): Σλ_n = 1, Σλ_t = f at a = 0."""
    types = types or ["unilateral"] * len(mus)
    cs = [
        Contact(t, normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]]) for mu, t in zip(mus, types)
    ]
    return ContactProblem(np.eye(2), [f, 1.0], cs, dimension=2)


def single(f, mu=0.5, fn=1.0, typ="unilateral"):
    c = Contact(typ, normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]])
    return ContactProblem(np.eye(2), [f, fn], [c], dimension=2)


def scripted(*statuses):
    seq = list(statuses)

    def run(prob):
        return seq.pop(0)

    return run


# ----------------------------------------------------------------------------------------------------- margin


@pytest.mark.parametrize("f, expected", [(0.2, 0.15), (0.5, 0.0), (-0.7, -0.1)])
def test_margin_two_contacts_closed_form(f, expected):
    # max over splits of min_i (μ λ_n,i - |λ_t,i|) <= (μ Σλ_n - |Σλ_t|) / 2 = (0.5 - |f|) / 2, attained symmetrically
    p = floor(f)
    val, point = sm.margin(p, np.zeros(2), 1e-7, {}, RUN)
    assert val == pytest.approx(expected, abs=1e-7)
    lev, liv = point  # the multipliers at the optimum (λ_eq = the two λ_t, λ_in = the two λ_n) realize the margin
    assert lev.shape == (2,) and liv.shape == (2,)
    assert min(0.5 * liv - np.abs(lev)) == pytest.approx(expected, abs=1e-7)


def test_margin_detaching_contact_gets_no_slack():
    # contact 1 detaches (its floor is 1 below: slack n a + b = 1): λ_n,1 = 0, and it must not limit the margin
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    val, _ = sm.margin(p, np.zeros(2), 1e-7, {}, RUN)
    assert val == pytest.approx(0.5 - 0.2, abs=1e-7)  # all the load on contact 0


def test_margin_statuses():
    p = floor(0.2)
    a = np.zeros(2)
    assert sm.margin(p, a, 1e-7, {}, scripted("unbounded", "solved")) == (float("inf"), None)
    assert sm.margin(p, a, 1e-7, {}, scripted("unbounded", "infeasible")) == (None, None)
    assert sm.margin(p, a, 1e-7, {}, scripted("infeasible")) == (None, None)
    assert sm.margin(p, a, 1e-7, {}, scripted("inaccurate")) == (None, None)
    assert sm.margin(p, a, 1e-7, {}, scripted("solved")) == (None, None)  # t.value is None: nothing solved


def test_margin_all_detaching_infeasible_set_is_not_unbounded():
    # the only sticking contact detaches (drift 1) but the tangent row needs λ_t = 0.2 with λ_n = 0: t is free,
    # a backend may say "unbounded" while the set is empty
    c = Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
    p = ContactProblem(np.eye(2), [0.2, 0.0], [c], dimension=2)
    assert sm.margin(p, np.zeros(2), 1e-7, {}, RUN) == (None, None)
    q = ContactProblem(np.eye(2), [0.0, 0.0], [c], dimension=2)  # no tangential load: feasible, t unbounded
    assert sm.margin(q, np.zeros(2), 1e-7, {}, RUN) == (float("inf"), None)


def test_margin_bilateral_sign_pattern():
    # bilateral sticking contact pulled: λ_n = -1, λ_t = 0.2; with s = -1 the margin is 0.5 - 0.2, with s = +1
    # the cone asks |λ_t| + t <= -0.5: t = -0.7
    p = single(0.2, fn=-1.0, typ="bilateral")
    assert sm.margin(p, np.zeros(2), 1e-7, {0: -1}, RUN)[0] == pytest.approx(0.3, abs=1e-7)
    assert sm.margin(p, np.zeros(2), 1e-7, {0: 1}, RUN)[0] == pytest.approx(-0.7, abs=1e-7)


# -------------------------------------------------------------------------------------------- contact_margins


def test_contact_margins_closed_form():
    # contact i alone: max μ λ_n,i - |λ_t,i| with the other inside its cone = μ - |f| (all load on i)
    cm = sm.contact_margins(floor(0.2), np.zeros(2), 1e-7, {}, RUN)
    assert set(cm) == {0, 1}
    assert cm[0] == pytest.approx(0.3, abs=1e-7) and cm[1] == pytest.approx(0.3, abs=1e-7)
    cm = sm.contact_margins(floor(0.2, mus=(0.5, 0.25)), np.zeros(2), 1e-7, {}, RUN)
    # contact 1 (μ = 0.25): max 0.25 λ_n2 - |λ_t2| with |λ_t0| <= 0.5 λ_n0: λ_t2 = s costs λ_n0 >= 2|0.2 - s|,
    # 0.25 (1 - 2|0.2 - s|) - |s| is largest at s = 0: 0.15; contact 0: 0.5 (1 - 4|s|) - |0.2 - s| -> 0.3
    assert cm[1] == pytest.approx(0.15, abs=1e-7) and cm[0] == pytest.approx(0.3, abs=1e-7)


def test_contact_margins_skip_detaching_and_statuses():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    cm = sm.contact_margins(p, np.zeros(2), 1e-7, {}, RUN)
    assert list(cm) == [0] and cm[0] == pytest.approx(0.3, abs=1e-7)
    q = floor(0.2)
    assert sm.contact_margins(
        q, np.zeros(2), 1e-7, {}, scripted("unbounded", "solved", "infeasible", "failed")
    ) == pytest.approx({0: float("inf"), 1: float("nan")}, nan_ok=True)
    out = sm.contact_margins(q, np.zeros(2), 1e-7, {}, scripted("unbounded", "infeasible", "inaccurate"))
    assert np.isnan(out[0]) and np.isnan(out[1])


def test_contact_margins_use_sign():
    p = single(0.2, fn=-1.0, typ="bilateral")
    assert sm.contact_margins(p, np.zeros(2), 1e-7, {0: -1}, RUN)[0] == pytest.approx(0.3, abs=1e-7)


# ------------------------------------------------------------------------------------------------------ mu_min


@pytest.mark.parametrize("f", [0.2, -0.3])
def test_mu_min_bisection_closed_form(f):
    # Σ|λ_t| >= |f| and Σλ_n = 1: the smallest common μ is |f| (normals not pinned: bisection)
    assert mu_mod.mu_min(floor(f), np.zeros(2), 1e-7, RUN) == pytest.approx(abs(f), rel=1e-6)


def test_mu_min_zero_and_large_and_infinite():
    assert mu_mod.mu_min(floor(0.0), np.zeros(2), 1e-7, RUN) == 0.0
    # μ_min = 3 > max(1, μ_i): the upper end grows by 4
    assert mu_mod.mu_min(floor(3.0, mus=(0.1, 0.1)), np.zeros(2), 1e-7, RUN) == pytest.approx(3.0, rel=1e-6)
    # no normal force: no μ works
    c = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 0.0], c, dimension=2)
    assert mu_mod.mu_min(p, np.zeros(2), 1e-7, RUN) == float("inf")


def test_mu_min_direct_when_normals_pinned():
    # normals (0,1,0) and (0,0,1) pinned at 1 and 2, one shared tangent (1,0,0) carrying 0.6: μ_min = 0.6 / 3
    cs = [
        Contact("unilateral", normal=[0.0, 1.0, 0.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(3), [0.6, 1.0, 2.0], cs, dimension=2)
    aff = mu_mod.AffineSet(p, np.zeros(3), 1e-7)
    assert aff.pinned_normals(p) == pytest.approx({0: 1.0, 1: 2.0})
    assert mu_mod.mu_min(p, np.zeros(3), 1e-7, RUN) == pytest.approx(0.2, rel=1e-7)


def test_mu_min_bisection_respects_undecided(monkeypatch):
    # a backend that decides nothing after the first feasible answer: μ_min is the achieved ratio of that answer
    calls = []

    def run(prob):
        calls.append(1)
        return RUN(prob) if len(calls) <= 2 else "failed"

    val = mu_mod.mu_min(floor(0.2), np.zeros(2), 1e-7, run)
    assert 0.2 - 1e-7 <= val <= 1.0 + 1e-9


def test_achieved_ratio():
    p = floor(0.2)
    L = cones.Layout(p)
    # λ_eq = (λ_t,0, λ_t,1), λ_in = (λ_n,0, λ_n,1)
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, 0.3]), np.array([0.5, 0.5]), set(), 1e-12) == pytest.approx(0.6)
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, 0.3]), np.array([0.5, 0.5]), {1}, 1e-12) == float("inf")
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, 1e-13]), np.array([0.5, 0.0]), set(), 1e-12) == pytest.approx(0.2)
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, 1e-12]), np.array([0.5, 0.0]), set(), 1e-12) == pytest.approx(0.2)
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, 2e-12]), np.array([0.5, 1e-12]), set(), 1e-12) == float("inf")
    assert mu_mod.achieved_ratio(p, L, np.array([0.1, -0.3]), np.array([-0.5, 1.0]), set(), 1e-12) == pytest.approx(0.3)


def test_affine_set_projection():
    p = floor(0.2)
    aff = mu_mod.AffineSet(p, np.zeros(2), 1e-7)
    assert aff.load_terms == 1.0 and aff.det == set()
    le, li = aff.project(np.array([0.0, 0.0]), np.array([0.0, 0.0]))
    # min-norm correction onto λ_t0 + λ_t1 = 0.2, λ_n0 + λ_n1 = 1
    np.testing.assert_allclose(le, [0.1, 0.1], atol=1e-15)
    np.testing.assert_allclose(li, [0.5, 0.5], atol=1e-15)
    assert aff.pinned_normals(p) is None


# ------------------------------------------------------------------------------------------ singleton_verdict


def test_singleton_interior_and_boundary():
    p = single(0.2, mu=0.5)
    v = sa.singleton_verdict(p, np.zeros(2), np.array([1.0 + 1e-5]), np.array([[0.2 - 1e-5]]), True)
    # put on the affine hull: λ* = (1, 0.2): margin 0.5 - 0.2, μ_min 0.2, interior
    assert v.margin == pytest.approx(0.3, abs=1e-14) and v.mu_min == pytest.approx(0.2, abs=1e-14)
    assert v.boundary_contacts == [] and v.detaching_contacts == [] and v.feasible is True
    assert v.boundary_test == "exact (unique multipliers)" and v.signs == {}
    assert v.active_tolerance == pytest.approx(1e-7)
    w = sa.singleton_verdict(single(0.2, mu=0.2), np.zeros(2), np.array([1.0]), np.array([[0.2]]), True)
    assert abs(w.margin) < 1e-15 and w.boundary_contacts == [0]
    # just inside, by more than 1e-6 of the load 1: not on the boundary
    u = sa.singleton_verdict(single(0.2, mu=0.2 + 2e-6), np.zeros(2), np.array([1.0]), np.array([[0.2]]), True)
    assert u.boundary_contacts == []
    u = sa.singleton_verdict(single(0.2, mu=0.2 + 0.5e-6), np.zeros(2), np.array([1.0]), np.array([[0.2]]), True)
    assert u.boundary_contacts == [0]


def test_singleton_boundary_scale_is_the_load():
    # load 10: F = (2, 10), μ = 0.2 + 5e-7: slack 5e-6 <= 1e-6 * 10
    p = single(2.0, mu=0.2 + 5e-7, fn=10.0)
    v = sa.singleton_verdict(p, np.zeros(2), np.array([10.0]), np.array([[2.0]]), True)
    assert v.boundary_contacts == [0] and v.margin == pytest.approx(5e-6, rel=1e-6)


def test_singleton_infeasible_positive_margin_not_reported():
    p = single(0.2, mu=0.5)
    v = sa.singleton_verdict(p, np.zeros(2), np.array([1.0]), np.array([[0.2]]), False)
    assert v.margin is None and v.boundary_contacts == [] and v.feasible is False
    q = single(0.7, mu=0.5)
    v = sa.singleton_verdict(q, np.zeros(2), np.array([1.0]), np.array([[0.7]]), False)
    assert v.margin == pytest.approx(-0.2, abs=1e-14) and v.mu_min == pytest.approx(0.7, abs=1e-14)
    v = sa.singleton_verdict(single(0.5), np.zeros(2), np.array([1.0]), np.array([[0.5]]), False)
    assert v.margin == 0.0  # not positive: kept


def test_singleton_bilateral_sign():
    p = single(0.2, mu=0.5, fn=-1.0, typ="bilateral")
    v = sa.singleton_verdict(p, np.zeros(2), np.array([-1.0]), np.array([[0.2]]), True)
    assert v.signs == {0: -1} and v.margin == pytest.approx(0.3, abs=1e-14)
    q = single(0.2, mu=0.5, fn=1.0, typ="bilateral")
    assert sa.singleton_verdict(q, np.zeros(2), np.array([1.0]), np.array([[0.2]]), True).signs == {0: 1}
    z = single(0.0, mu=0.5, fn=0.0, typ="bilateral")
    assert sa.singleton_verdict(z, np.zeros(2), np.array([0.0]), np.array([[0.0]]), True).signs == {0: 1}


def _detaching_pair(ft):
    # n = 4: contact 0 on (e2, e1) loaded (λ_n = 1, λ_t = 0.2); contact 1 on (e3, e4) detaching (drift 1),
    # tangential load ft on e4
    cs = [
        Contact("unilateral", normal=[0.0, 1.0, 0, 0], mode="sticking", friction=0.5, tangent=[[1.0, 0, 0, 0]]),
        Contact(
            "unilateral",
            normal=[0, 0, 1.0, 0],
            normal_drift=1.0,
            mode="sticking",
            friction=0.5,
            tangent=[[0, 0, 0, 1.0]],
        ),
    ]
    return ContactProblem(np.eye(4), [0.2, 1.0, 0.0, ft], cs, dimension=2)


def test_singleton_detaching_contact():
    p = _detaching_pair(0.0)
    v = sa.singleton_verdict(p, np.zeros(4), np.array([1.0, 0.0]), np.array([[0.2], [0.0]]), True)
    assert v.detaching_contacts == [1] and v.margin == pytest.approx(0.3, abs=1e-14)
    assert v.mu_min == pytest.approx(0.2, abs=1e-14)
    q = _detaching_pair(0.1)  # the detaching contact carries a tangential force: no μ helps
    v = sa.singleton_verdict(q, np.zeros(4), np.array([1.0, 0.0]), np.array([[0.2], [0.1]]), True)
    assert v.margin is None and v.mu_min == float("inf") and v.boundary_contacts == []


def test_singleton_zero_forces_and_no_contacts():
    # no tangential force: μ_min 0, margin μ λ_n
    v = sa.singleton_verdict(single(0.0, mu=0.5), np.zeros(2), np.array([1.0]), np.array([[0.0]]), True)
    assert v.mu_min == 0.0 and v.margin == pytest.approx(0.5)
    # tangential force below 1e-9 of the load counts as zero
    v = sa.singleton_verdict(single(1e-10, mu=0.5), np.zeros(2), np.array([1.0]), np.array([[1e-10]]), True)
    assert v.mu_min == 0.0
    v = sa.singleton_verdict(single(2e-9, mu=0.5), np.zeros(2), np.array([1.0]), np.array([[2e-9]]), True)
    assert v.mu_min == pytest.approx(2e-9)
    p = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0])], dimension=2)
    v = sa.singleton_verdict(p, np.array([0.0, -1.0 + 1.0]), np.array([1.0]), np.zeros((1, 1)), True)
    assert v.margin == float("inf") and v.mu_min == 0.0


def test_singleton_load_uses_ma_terms():
    # a ≠ 0: load = max(|M a|, |F|); M = I, a = (0, -3) leaving the floor? use a bilateral floor: a2 = 0 forced
    p = single(0.2, mu=0.2 + 5e-7, fn=1.0, typ="bilateral")
    # F = (0.2, 1), a = (5, 0) gives M a + F = (5.2, 1): λ_t = 5.2, λ_n = 1 -> boundary test with load 5
    v = sa.singleton_verdict(p, np.array([5.0, 0.0]), np.array([1.0]), np.array([[5.2]]), True)
    assert v.mu_min == pytest.approx(5.2) and v.margin == pytest.approx(0.2 + 5e-7 - 5.2)


# ---------------------------------------------------------------------------------------------------- analyze


def test_analyze_two_contacts():
    v = sa.analyze(floor(0.2), np.zeros(2), True, "clarabel", HIGH)
    assert v.margin == pytest.approx(0.15, abs=1e-7) and v.boundary_contacts == []
    assert v.mu_min == pytest.approx(0.2, rel=1e-6) and v.boundary_test == "exact"
    assert v.feasible is True and v.detaching_contacts == [] and v.signs == {}
    assert v.active_tolerance == pytest.approx(1e-7)
    w = sa.analyze(floor(0.5), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert abs(w.margin) < 1e-7 and w.boundary_contacts == [0, 1] and w.mu_min is None


def test_analyze_boundary_only_for_feasible_finite():
    v = sa.analyze(floor(0.5), np.zeros(2), False, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_contacts == [] and v.feasible is False
    v = sa.analyze(floor(-0.7), np.zeros(2), None, "clarabel", HIGH, want_mu_min=False)
    assert v.margin == pytest.approx(-0.1, abs=1e-7) and v.boundary_contacts == []


def test_analyze_picks_best_sign_pattern():
    p = single(0.2, mu=0.5, fn=-1.0, typ="bilateral")
    v = sa.analyze(p, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.margin == pytest.approx(0.3, abs=1e-7) and v.signs == {0: -1}
    q = single(0.2, mu=0.5, fn=1.0, typ="bilateral")
    v = sa.analyze(q, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.margin == pytest.approx(0.3, abs=1e-7) and v.signs == {0: 1}


def test_analyze_boundary_at_max_margin_forces(monkeypatch):
    monkeypatch.setattr(sa, "BOUNDARY_EXACT_MAX", 0)
    v = sa.analyze(floor(0.5), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_test == "at the max-margin multipliers" and v.boundary_contacts == [0, 1]
    v = sa.analyze(floor(0.2), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_contacts == []


def test_analyze_3d_uses_socp():
    c = Contact(
        "unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )
    p = ContactProblem(np.eye(3), [0.3, 0.4, 2.0], [c], dimension=3)
    v = sa.analyze(p, np.zeros(3), True, "osqp", HIGH)
    # λ_n = 2, ‖λ_t‖ = 0.5: margin 1 - 0.5, μ_min 0.25
    assert v.margin == pytest.approx(0.5, abs=1e-6) and v.mu_min == pytest.approx(0.25, rel=1e-6)


def test_verdict_as_dict():
    v = sa.StickingVerdict(
        feasible=True,
        margin=float("inf"),
        boundary_contacts=[1],
        detaching_contacts=[2],
        mu_min=0.5,
        mu_min_lower=0.4999,
        active_tolerance=1e-7,
        margin_lower=2.5,
    )
    assert v.as_dict() == {
        "feasible": True,
        "margin": "inf",
        "margin_lower": 2.5,
        "boundary_contacts": [1],
        "detaching_contacts": [2],
        "mu_min": 0.5,
        "mu_min_lower": 0.4999,
        "mu_min_reason": None,
        "margin_reason": None,
        "active_tolerance": 1e-7,
        "boundary_test": "exact",
    }
    w = sa.StickingVerdict(feasible=None, margin=None)
    assert w.as_dict()["margin"] is None and w.as_dict()["mu_min"] is None and w.as_dict()["mu_min_lower"] is None
    assert w.as_dict()["margin_lower"] is None


# ========================================================== second round: survivors of the first mutation run


def counting(run=RUN):
    calls = []

    def wrapped(prob):
        calls.append(1)
        return run(prob)

    return wrapped, calls


def test_mu_min_pinned_normals_is_one_program():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0, 0.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(3), [0.6, 1.0, 2.0], cs, dimension=2)
    run, calls = counting()
    assert mu_mod.mu_min(p, np.zeros(3), 1e-7, run) == pytest.approx(0.2, rel=1e-7)
    assert len(calls) == 2  # the direct program and the proof of the lower end, no bisection
    lo, hi = mu_mod.mu_min_bracket(p, np.zeros(3), 1e-7, RUN)
    assert lo == pytest.approx(0.2 * (1 - mu_mod.MU_LOWER_PROOF_RTOL), rel=1e-7) and lo < 0.2 <= hi * (1 + 1e-9)
    # 3D: one contact, its normal pinned at 2, tangent load (0.3, 0.4): μ_min = 0.5 / 2 (a 2-norm)
    c = Contact(
        "unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )
    q = ContactProblem(np.eye(3), [0.3, 0.4, 2.0], [c], dimension=3)
    run3 = _runner("clarabel", HIGH, "socp")
    run, calls = counting(run3)
    assert mu_mod.mu_min(q, np.zeros(3), 1e-7, run) == pytest.approx(0.25, rel=1e-7) and len(calls) == 2


def test_mu_min_direct_failure_falls_back_to_bisection():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0, 0.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(3), [0.6, 1.0, 2.0], cs, dimension=2)
    first = []

    def run(prob):
        if not first:
            first.append(1)
            return "failed"
        return RUN(prob)

    assert mu_mod.mu_min(p, np.zeros(3), 1e-7, run) == pytest.approx(0.2, rel=1e-6)
    aff = mu_mod.AffineSet(p, np.zeros(3), 1e-7)
    # μ is a variable of the direct program: "infeasible" means no μ works; anything else decides nothing
    assert mu_mod._direct_mu_min(p, np.zeros(3), 1e-7, scripted("infeasible"), None, aff, {0: 1.0, 1: 2.0}) == float(
        "inf"
    )
    assert mu_mod._direct_mu_min(p, np.zeros(3), 1e-7, scripted("inaccurate"), None, aff, {0: 1.0, 1: 2.0}) is None


def test_direct_mu_min_with_bilateral_contacts():
    # bilateral sticking contacts only (no λ_in): normals pinned at 1 and -2, shared tangent load 0.6
    cs = [
        Contact("bilateral", normal=[0.0, 1.0, 0.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
        Contact("bilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(3), [0.6, 1.0, -2.0], cs, dimension=2)
    aff = mu_mod.AffineSet(p, np.zeros(3), 1e-7)
    normals = aff.pinned_normals(p)
    assert normals == pytest.approx({0: 1.0, 1: -2.0})
    assert mu_mod._direct_mu_min(p, np.zeros(3), 1e-7, RUN, None, aff, normals) == pytest.approx(0.2, rel=1e-7)


def _offset_floor(f, mus=(0.5, 0.5)):
    """floor(f) seen at a = (0, 1e-5): the rows' slack 1e-5 exceeds the active tolerance 1e-7, so without the
    solution's multipliers both contacts would detach; with λ_n = (0.5, 0.5) they stay active (Σλ_n = 1 + 1e-5)."""
    return floor(f, mus), np.array([0.0, 1e-5]), np.array([0.5, 0.5])


def test_verdict_keeps_rows_with_a_force_active():
    p, a, ln = _offset_floor(0.2)
    load = 1.0 + 1e-5
    val, _ = sm.margin(p, a, 1e-7, {}, RUN, ln)
    assert val == pytest.approx((0.5 * load - 0.2) / 2, abs=1e-7)
    cm = sm.contact_margins(p, a, 1e-7, {}, RUN, ln)
    assert cm[0] == pytest.approx(0.5 * load - 0.2, abs=1e-7) and set(cm) == {0, 1}
    assert mu_mod.mu_min(p, a, 1e-7, RUN, ln) == pytest.approx(0.2 / load, rel=1e-6)
    v = sa.analyze(p, a, True, "clarabel", HIGH, lam_n=ln)
    assert v.margin == pytest.approx((0.5 * load - 0.2) / 2, abs=1e-7) and v.detaching_contacts == []
    assert v.mu_min == pytest.approx(0.2 / load, rel=1e-6)
    aff = mu_mod.AffineSet(p, a, 1e-7, ln)
    assert aff.det == set()


def test_pinned_normals_with_the_solutions_multipliers():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0, 0.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(3), [0.6, 1.0, 2.0], cs, dimension=2)
    a = np.array([0.0, 1e-5, 1e-5])
    ln = np.array([1.0, 2.0])
    run, calls = counting()
    assert mu_mod.mu_min(p, a, 1e-7, run, ln) == pytest.approx(0.6 / (3.0 + 2e-5), rel=1e-7) and len(calls) == 2


def test_singleton_uses_the_solutions_multipliers_for_detachment():
    p = single(0.2, mu=0.5)
    a = np.array([0.0, 1e-5])  # slack 1e-5 > 1e-7, but λ_n = 1 keeps the row active
    v = sa.singleton_verdict(p, a, np.array([1.0 + 1e-5]), np.array([[0.2]]), True)
    assert v.detaching_contacts == [] and v.margin == pytest.approx(0.5 * (1 + 1e-5) - 0.2, abs=1e-12)


def test_contact_margins_detaching_first_and_3d():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    cm = sm.contact_margins(p, np.zeros(2), 1e-7, {}, RUN)
    assert list(cm) == [1] and cm[1] == pytest.approx(0.3, abs=1e-7)
    v = sa.analyze(p, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.detaching_contacts == [0]
    c = Contact(
        "unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )
    q = ContactProblem(np.eye(3), [0.3, 0.4, 2.0], [c], dimension=3)
    cm = sm.contact_margins(q, np.zeros(3), 1e-7, {}, _runner("clarabel", HIGH, "socp"))
    assert cm[0] == pytest.approx(1.0 - 0.5, abs=1e-6)  # Euclidean norm of (0.3, 0.4)


def test_analyze_detaching_lists_only_sticking_contacts():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0),  # frictionless, detaching
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=2.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    v = sa.analyze(p, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.detaching_contacts == [2] and v.margin == pytest.approx(0.3, abs=1e-7)
    w = sa.singleton_verdict(p, np.zeros(2), np.array([1.0, 0.0, 0.0]), np.array([[0.2], [0.0], [0.0]]), True)
    assert w.detaching_contacts == [2]


def test_analyze_equal_sign_patterns_keep_the_first():
    # a bilateral sticking contact without load: both signs give the margin 0; the hint (+1) is kept
    v = sa.analyze(single(0.0, fn=0.0, typ="bilateral"), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.signs == {0: 1} and abs(v.margin) < 1e-7


def test_analyze_boundary_scale():
    # |M a + F| < 2: contact margins 1.5e-6 > 1e-6 * 1: not on the boundary
    v = sa.analyze(floor(0.5 - 1.5e-6), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_contacts == []
    # load 10: contact margins 5e-6 <= 1e-6 * 10
    p = ContactProblem(
        np.eye(2),
        [5.0 - 5e-6, 10.0],
        [
            Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
            for _ in range(2)
        ],
        dimension=2,
    )
    assert sa.analyze(p, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False).boundary_contacts == [0, 1]


def test_analyze_boundary_scale_uses_m_a_plus_f():
    # bilateral floor, a = (5, 0): M a + F = (5.2, 1): λ_t = 5.2; μ = 5.2 + 5.1e-6: margin 5.1e-6 <= 1e-6 * 5.2
    p = single(0.2, mu=5.2 + 5.1e-6, fn=1.0, typ="bilateral")
    v = sa.analyze(p, np.array([5.0, 0.0]), True, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_contacts == [0]


def test_analyze_max_margin_path_details(monkeypatch):
    monkeypatch.setattr(sa, "BOUNDARY_EXACT_MAX", 2)
    assert sa.analyze(floor(0.5), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False).boundary_test == "exact"
    monkeypatch.setattr(sa, "BOUNDARY_EXACT_MAX", 0)
    # bilateral contact pulled (λ_n = -1): the slack uses the sign, 0.5 * 1 - 0.2 = 0.3: not on the boundary
    v = sa.analyze(single(0.2, fn=-1.0, typ="bilateral"), np.zeros(2), True, "clarabel", HIGH, want_mu_min=False)
    assert v.boundary_test == "at the max-margin multipliers" and v.boundary_contacts == []
    # detaching contact first: skipped, the others still judged
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
    ] + [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]) for _ in range(2)
    ]
    p = ContactProblem(np.eye(2), [0.5, 1.0], cs, dimension=2)
    assert sa.analyze(p, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False).boundary_contacts == [1, 2]
    # load 10, slack (5 - f) / 2 = 2.5e-6 <= 1e-5
    q = ContactProblem(
        np.eye(2),
        [5.0 - 5e-6, 10.0],
        [
            Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
            for _ in range(2)
        ],
        dimension=2,
    )
    assert sa.analyze(q, np.zeros(2), True, "clarabel", HIGH, want_mu_min=False).boundary_contacts == [0, 1]


def test_analyze_chooses_the_backend(monkeypatch):
    # the backend asked for: the user's in 2D (LPs), none for OSQP in 3D (no cones: the first SOCP backend), the
    # user's otherwise; Clarabel takes the direct path, any other backend runs the cvxpy programs
    asked, cvxpy_backends = [], []
    real_direct, real_get = sa.direct_backend, sa.get_backend

    def direct(solver, needs, allowed):
        asked.append((solver, needs))
        return real_direct(solver, needs, allowed)

    def get(solver, needs="qp"):
        cvxpy_backends.append((solver, needs))
        return real_get(solver, needs=needs)

    monkeypatch.setattr(sa, "direct_backend", direct)
    monkeypatch.setattr(sa, "get_backend", get)
    v = sa.analyze(floor(0.2), np.zeros(2), True, "osqp", HIGH, want_mu_min=False)
    assert asked == cvxpy_backends == []  # nothing chosen before a program runs
    _ = v.margin
    assert cvxpy_backends == [("osqp", "qp")]  # OSQP has no direct conic path: its cvxpy programs ran
    c = Contact(
        "unilateral", normal=[0.0, 0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    )
    q = ContactProblem(np.eye(3), [0.3, 0.4, 2.0], [c], dimension=3)
    _ = sa.analyze(q, np.zeros(3), True, "osqp", HIGH, want_mu_min=False).margin
    _ = sa.analyze(q, np.zeros(3), True, "clarabel", HIGH, want_mu_min=False).margin
    assert asked == [("osqp", "qp"), (None, "socp"), ("clarabel", "socp")]
    assert cvxpy_backends == [("osqp", "qp")]  # Clarabel's direct path decided the 3D verdicts


def test_singleton_small_load_and_exact_thresholds():
    # load 0.1: μ = 0.2 + 5e-6 on F = (0.02, 0.1): slack 5e-7 > 1e-6 * 0.1: interior
    p = single(0.02, mu=0.2 + 5e-6, fn=0.1)
    assert sa.singleton_verdict(p, np.zeros(2), np.array([0.1]), np.array([[0.02]]), True).boundary_contacts == []
    # slack exactly 1e-6 * load: on the boundary (inclusive)
    q = single(0.0, mu=1e-6)
    assert sa.singleton_verdict(q, np.zeros(2), np.array([1.0]), np.array([[0.0]]), True).boundary_contacts == [0]
    # tangential force exactly 1e-9 of the load counts as zero
    v = sa.singleton_verdict(single(1e-9), np.zeros(2), np.array([1.0]), np.array([[1e-9]]), True)
    assert v.mu_min == 0.0
    # normal force exactly 1e-9 of the load counts as zero: no μ works
    v = sa.singleton_verdict(single(1.0, fn=1e-9), np.zeros(2), np.array([1e-9]), np.array([[1.0]]), True)
    assert v.mu_min == float("inf")
    # ratio is t / |λ_n|: λ_n = 2, λ_t = 0.4
    v = sa.singleton_verdict(single(0.4, fn=2.0), np.zeros(2), np.array([2.0]), np.array([[0.4]]), True)
    assert v.mu_min == pytest.approx(0.2, abs=1e-15)
    # a detaching contact carrying exactly the zero force is not pinned
    w = sa.singleton_verdict(_detaching_pair(1e-9), np.zeros(4), np.array([1.0, 0.0]), np.array([[0.2], [1e-9]]), True)
    assert w.margin == pytest.approx(0.3, abs=1e-14)
    # infeasible: no boundary contacts even at zero slack
    u = sa.singleton_verdict(single(0.5), np.zeros(2), np.array([1.0]), np.array([[0.5]]), False)
    assert u.boundary_contacts == []


def test_mu_min_asymmetric_contacts():
    # contact 1 has rows scaled by 2: u_i = w_i λ_i gives the same closed form μ_min = |f|, but the solver's
    # feasibility points are not symmetric, so the bisection must work for it
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 2.0], mode="sticking", friction=0.5, tangent=[[2.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    assert mu_mod.mu_min(p, np.zeros(2), 1e-7, RUN) == pytest.approx(0.2, rel=1e-6)


def test_affine_set_load_and_zero():
    p = single(0.02, fn=0.1)
    aff = mu_mod.AffineSet(p, np.array([0.0, 3.0]), 1e-7)
    assert aff.load_terms == 3.0 and mu_mod.zero_force(aff) == pytest.approx(3e-9, rel=1e-15)
    aff = mu_mod.AffineSet(p, np.zeros(2), 1e-7)
    assert aff.load_terms == 0.1 and mu_mod.zero_force(aff) == pytest.approx(1e-10, rel=1e-15)


def test_achieved_ratio_bilateral_normal_and_order():
    p = single(0.2, fn=-1.0, typ="bilateral")
    L = cones.Layout(p)
    # λ_eq = (λ_n, λ_t) for a bilateral sticking contact
    assert mu_mod.achieved_ratio(p, L, np.array([-2.0, 0.5]), np.zeros(0), set(), 1e-12) == pytest.approx(0.25)
    q = floor(0.2)
    Lq = cones.Layout(q)
    # first contact without tangential force, second with: both looked at
    assert mu_mod.achieved_ratio(q, Lq, np.array([0.0, 0.3]), np.array([0.5, 0.5]), set(), 1e-12) == pytest.approx(0.6)


# =========================================================== third round: survivors of the second mutation run


def _asymmetric():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 2.0], mode="sticking", friction=0.5, tangent=[[2.0, 0.0]]),
    ]
    return ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)


def test_mu_min_bisection_tries_the_quarters_when_the_midpoint_is_undecided():
    # the backend decides nothing at μ = 1/2 (the first midpoint of [0, 1]): the quarter 1/4 is tried instead and
    # the bisection goes on to μ_min = 0.2; an undecided midpoint is never read as infeasible
    def run(prob):
        mu = [x for x in prob.parameters()]
        if mu and float(np.max(mu[0].value)) == 0.5:
            return "failed"
        return RUN(prob)

    assert mu_mod.mu_min(_asymmetric(), np.zeros(2), 1e-7, run) == pytest.approx(0.2, rel=1e-6)


def test_mu_min_number_of_programs():
    run, calls = counting()
    assert mu_mod.mu_min(floor(0.0), np.zeros(2), 1e-7, run) == 0.0
    assert len(calls) == 1  # feasible at μ = 0: done
    run, calls = counting()
    mu_mod.mu_min(_asymmetric(), np.zeros(2), 1e-7, run)
    assert len(calls) <= 60  # the bisection stops at its relative tolerance


def test_mu_min_bilateral_contacts_not_pinned():
    # two bilateral sticking contacts on one normal: λ_n = (1 + s, -s) for any s (internal force), so
    # |λ_n,i| grows without bound and the infimum of the working μ is 0 (not attained: the bisection's tolerance)
    p = floor(0.2, types=["bilateral", "bilateral"])
    assert 0.0 < mu_mod.mu_min(p, np.zeros(2), 1e-7, RUN) < 1e-6


def test_mu_min_detaching_contact_with_tangential_load_is_one_program():
    c = Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
    p = ContactProblem(np.eye(2), [0.2, 0.0], [c], dimension=2)
    run, calls = counting()
    assert mu_mod.mu_min(p, np.zeros(2), 1e-7, run) == float("inf") and len(calls) == 1


def test_singleton_without_multiplier_rows():
    # only a detaching frictionless contact: Λ(a) has no rows at all
    p = ContactProblem(np.eye(2), [0.0, 1.0], [Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0)], dimension=2)
    v = sa.singleton_verdict(p, np.zeros(2), np.array([0.0]), np.zeros((1, 1)), True)
    assert v.margin == float("inf") and v.mu_min == 0.0 and v.detaching_contacts == []


def test_analyze_boundary_with_the_solutions_multipliers():
    p, a, ln = _offset_floor(0.5 * (1 + 1e-5))  # margin 0: both contacts on the boundary, kept active by λ_n
    v = sa.analyze(p, a, True, "clarabel", HIGH, want_mu_min=False, lam_n=ln)
    assert v.boundary_contacts == [0, 1]


def test_runner_needs_a_backend_that_supports_the_program():
    from gaussqp.errors import UnknownSolverError

    with pytest.raises(UnknownSolverError):
        _runner("osqp", HIGH, "socp")
    assert "socp" in sa.get_backend(None, needs="socp").supports


def _wide(n, m):
    """n coordinates, m sticking contacts on the first m of them... contact i: normal e_i, tangent e_{n-1}
    (shared); M = I, F = (0.2 on the shared tangent coordinate, 1 on each normal)."""
    cs = []
    for i in range(m):
        nrm = np.zeros(n)
        nrm[i] = 1.0
        tan = np.zeros(n)
        tan[n - 1] = 1.0
        cs.append(Contact("unilateral", normal=nrm, mode="sticking", friction=0.5, tangent=[tan]))
    F = np.zeros(n)
    F[:m] = 1.0
    F[n - 1] = 0.2
    return ContactProblem(np.eye(n), F, cs, dimension=2)


@pytest.mark.parametrize("n, m, exact", [(600, 1, True), (601, 1, False)])
def test_singleton_recomputes_multipliers_up_to_600(n, m, exact):
    # one contact: λ* = (1, 0.2); the given λ_t is off by 1e-3: put on the hull when n, m <= 600
    p = _wide(n, m)
    lam_n = np.ones(m)
    lam_t = np.zeros((m, 1))
    lam_t[0, 0] = 0.2 + 1e-3 if m == 1 else 0.0
    if m > 1:
        lam_t[:, 0] = 0.2 / m
        lam_t[0, 0] += 1e-3
    v = sa.singleton_verdict(p, np.zeros(n), lam_n, lam_t, True)
    if m == 1:
        assert v.margin == pytest.approx(0.3 if exact else 0.3 - 1e-3, abs=1e-12)
    else:
        assert v.mu_min == pytest.approx(0.2 / m + 1e-3, abs=1e-12)  # not recomputed beyond 600 coordinates


def test_singleton_accepts_integer_multipliers():
    # integer input must not truncate the recomputed λ* = (1, 0.2) (margin 0.5 - 0.2, μ_min 0.2)
    v = sa.singleton_verdict(single(0.2), np.zeros(2), np.array([1]), np.array([[0]]), True)
    assert v.margin == pytest.approx(0.3, abs=1e-14) and v.mu_min == pytest.approx(0.2, abs=1e-14)
    # λ*_n = 1.5 from integer input 1: not truncated (margin 0.5 * 1.5 - 0.2)
    w = sa.singleton_verdict(single(0.2, fn=1.5), np.zeros(2), np.array([1]), np.array([[0]]), True)
    assert w.margin == pytest.approx(0.55, abs=1e-14)


def test_mu_min_bracket_is_proven_and_closes():
    # the bisection's lower end is a μ proven too small (every program infeasible there), close below μ_min = |f|
    # here; μ = 0 feasible gives (0, 0)
    lo, mu = mu_mod.mu_min_bracket(floor(0.3), np.zeros(2), 1e-7, RUN)
    # (a program within 4e-5 of the optimum decides nothing here: the bisection stops with that bracket)
    assert mu == pytest.approx(0.3, rel=1e-6) and 0.999 * mu < lo <= mu
    assert mu_mod.mu_min_bracket(floor(0.0), np.zeros(2), 1e-7, RUN) == (0.0, 0.0)
    assert mu_mod.mu_min(floor(0.3), np.zeros(2), 1e-7, RUN) == mu
