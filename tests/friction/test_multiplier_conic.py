"""The sticking verdict's programs in Clarabel's form (gaussqp.friction.multiplier_conic, issue #15) against their
definition, the cvxpy programs of gaussqp.friction.verdict: closed forms on point masses, the whole verdict on every
shipped sticking problem with and without the direct path, and the fallback when the direct form decides nothing."""

from __future__ import annotations

import numpy as np
import pytest

from gaussqp import problems
from gaussqp.backends import get_backend
from gaussqp.friction import mu_min as mu_mod
from gaussqp.friction import sticking_analysis as sa
from gaussqp.friction import sticking_margin as sm
from gaussqp.friction.multiplier_conic import ConicAnswer, MultiplierSetConic
from gaussqp.friction.multiplier_set import active_tolerance
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.settings import PRESETS

HIGH = PRESETS["high"]
CLARABEL = get_backend("clarabel", needs="socp")


def conic(p, a, lam_n=None, atol=1e-7):
    return MultiplierSetConic(p, a, atol, lam_n, CLARABEL, HIGH)


def never(prob):  # the cvxpy path must not run when the direct path decides
    raise AssertionError("the cvxpy program ran although the direct path decided")


def floor(f, mus=(0.5, 0.5), dimension=2):
    """Point mass on a floor, M = I, a = 0: Σλ_n = 1, Σλ_t = f (2D) or (f, 0) (3D)."""
    tang = [[1.0, 0.0]] if dimension == 2 else [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    normal = [0.0, 1.0] if dimension == 2 else [0.0, 1.0, 0.0]
    cs = [Contact("unilateral", normal=normal, mode="sticking", friction=mu, tangent=tang) for mu in mus]
    F = [f, 1.0] if dimension == 2 else [f, 1.0, 0.0]
    return ContactProblem(np.eye(dimension), F, cs, dimension=dimension)


@pytest.mark.parametrize("unit", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("dimension", [2, 3])
@pytest.mark.parametrize("f, expected", [(0.2, 0.15), (0.5, 0.0), (-0.7, -0.1)])
def test_margin_closed_form(dimension, f, expected, unit):
    # max over splits of min_i (μ λ_n,i - ‖λ_t,i‖) = (0.5 - |f|) / 2, attained symmetrically; in any force unit
    p = floor(f, dimension=dimension)
    p = ContactProblem.from_blocks(
        unit * p.M,
        unit * p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        p.J_t,
        p.tangent_drift,
        p.friction,
        list(p.modes),
        None,
        [True, True],
        dimension,
    )
    a = np.zeros(dimension)
    val, (lev, liv) = sm.margin(p, a, 1e-7, {}, never, conic=conic(p, a))
    assert val == pytest.approx(unit * expected, abs=1e-7 * unit)
    lt = lev.reshape(2, dimension - 1)
    assert min(0.5 * liv - np.linalg.norm(lt, axis=1)) == pytest.approx(unit * expected, abs=1e-7 * unit)


@pytest.mark.parametrize("dimension", [2, 3])
def test_contact_margins_and_mu_min_closed_form(dimension):
    # one contact (μ = 0.5) and load (0.2, 1): its margin 0.5 - 0.2 = 0.3, μ_min = 0.2
    c = Contact(
        "unilateral",
        normal=[0.0, 1.0] + [0.0] * (dimension - 2),
        mode="sticking",
        friction=0.5,
        tangent=[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] if dimension == 3 else [[1.0, 0.0]],
    )
    p = ContactProblem(np.eye(dimension), [0.2, 1.0] + [0.0] * (dimension - 2), [c], dimension=dimension)
    a = np.zeros(dimension)
    k = conic(p, a)
    assert sm.contact_margins(p, a, 1e-7, {}, never, conic=k) == {0: pytest.approx(0.3, abs=1e-7)}
    assert mu_mod.mu_min(p, a, 1e-7, never, conic=k) == pytest.approx(0.2, rel=1e-7)


def test_mu_min_bisection_two_contacts():
    # different μ_i do not matter (μ_min is common): the load split evenly gives ratio |f| on both contacts. Near
    # μ = 0.3 Clarabel stalls on the direct form and on cvxpy's alike: the bisection then ends at its achieved ratio
    p = floor(0.3, mus=(0.1, 0.9))
    a = np.zeros(2)
    backend = get_backend("clarabel", needs="qp")
    calls = []

    def run(prob):
        calls.append(sa.solve_program(prob, backend, HIGH, "qp")[1])
        return calls[-1]

    assert mu_mod.mu_min(p, a, 1e-7, run, conic=conic(p, a)) == pytest.approx(0.3, rel=1e-6)
    assert set(calls) <= {"failed", "inaccurate"}  # cvxpy ran only where the direct form decided nothing


def test_unbounded_margin_is_decided_on_the_direct_path():
    # the only sticking contact detaches (drift 1): t is free; with a tangential load the set is empty
    c = Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]])
    a = np.zeros(2)
    p = ContactProblem(np.eye(2), [0.2, 0.0], [c], dimension=2)
    assert sm.margin(p, a, 1e-7, {}, never, conic=conic(p, a)) == (None, None)
    q = ContactProblem(np.eye(2), [0.0, 0.0], [c], dimension=2)
    assert sm.margin(q, a, 1e-7, {}, never, conic=conic(q, a)) == (float("inf"), None)


def cvxpy_run(calls: list):
    """The verdict's ``run`` for its cvxpy programs (Clarabel, the ``high`` preset), each program appended to ``calls``."""
    backend = get_backend("clarabel", needs="qp")

    def run(prob):
        calls.append(prob)
        return sa.solve_program(prob, backend, HIGH, "qp")[1]

    return run


def test_failed_direct_answers_fall_back_to_the_cvxpy_programs(monkeypatch):
    p = floor(0.2)
    a = np.zeros(2)
    calls: list = []
    run = cvxpy_run(calls)
    monkeypatch.setattr(MultiplierSetConic, "_solve", lambda self, *args, **kw: ConicAnswer("failed"))
    k = conic(p, a)
    assert sm.margin(p, a, 1e-7, {}, run, conic=k)[0] == pytest.approx(0.15, abs=1e-7)
    assert mu_mod.mu_min(p, a, 1e-7, run, conic=k) == pytest.approx(0.2, rel=1e-6)
    assert len(calls) > 2  # the margin program and the bisection's programs ran through cvxpy


@pytest.mark.parametrize("undecided", ["failed", "inaccurate"])
def test_an_undecided_direct_margin_falls_back_to_its_cvxpy_program(undecided, monkeypatch):
    """Clarabel's form ending ``inaccurate`` decides nothing, as ``failed`` does: the cvxpy program measures the margin
    and each contact's margin (before, an inaccurate direct answer left the margin None with no reason)."""
    p = floor(0.2)
    a = np.zeros(2)
    calls: list = []
    run = cvxpy_run(calls)
    monkeypatch.setattr(MultiplierSetConic, "_solve", lambda self, *args, **kw: ConicAnswer(undecided))
    k = conic(p, a)
    assert sm.margin(p, a, 1e-7, {}, run, conic=k)[0] == pytest.approx(0.15, abs=1e-7)
    cm = sm.contact_margins(p, a, 1e-7, {}, run, conic=k)
    # each contact alone: λ_n,i <= 1 and the other contact's disk takes the load's remainder, μ λ_n,i − |λ_t,i| up to 0.3
    assert cm == {0: pytest.approx(0.3, abs=1e-6), 1: pytest.approx(0.3, abs=1e-6)}
    assert len(calls) == 1 + len(cm)


def test_a_margin_nobody_measured_says_why(monkeypatch):
    """When neither Clarabel's form nor the cvxpy program decides, the verdict's margin is None with its reason (a
    feasible verdict whose margin is missing without a word read as if the margin had not been asked)."""
    p = floor(0.2)
    a = np.zeros(2)
    monkeypatch.setattr(MultiplierSetConic, "_solve", lambda self, *args, **kw: ConicAnswer("inaccurate"))
    why: list = []
    assert sm.margin(p, a, 1e-7, {}, lambda prob: "inaccurate", conic=conic(p, a), why=why) == (None, None)
    assert why == [
        "the margin program decided nothing (Clarabel's form ended 'inaccurate'; the cvxpy program ended 'inaccurate')"
    ]
    monkeypatch.setattr(sa, "solve_program", lambda *args, **kw: (None, "inaccurate", {}))
    v = sa.analyze(p, a, True, None, HIGH, want_mu_min=False)
    assert v.margin is None and "decided nothing" in v.margin_reason
    assert v.as_dict()["margin_reason"] == v.margin_reason
    monkeypatch.undo()
    v = sa.analyze(p, a, True, None, HIGH, want_mu_min=False)
    assert v.margin == pytest.approx(0.15, abs=1e-7) and v.margin_reason is None


SHIPPED = [n for n in problems.names() + problems.real_names() if len(problems.load(n).sticking)]


@pytest.mark.parametrize("name", SHIPPED)
def test_verdict_equals_the_cvxpy_programs_on_shipped_problems(name, monkeypatch):
    import gaussqp

    p = problems.load(name)
    sol = gaussqp.solve(p, crosscheck=False, certify=False)
    assert sol.status == "solved"
    a, lam_n = sol.acceleration, sol.lambda_normal
    direct = sa.analyze(p, a, True, "clarabel", HIGH, lam_n=lam_n)
    # the margin's and μ_min's programs run when first read: read them here, on the direct path, before it is taken
    # away below (read afterwards, they ran as cvxpy programs and the comparison compared that path with itself)
    _ = (direct.margin, direct.mu_min)
    assert direct.margin_pending is None and direct.mu_min_pending is None
    monkeypatch.setattr(sa, "DIRECT_CONIC_BACKENDS", ())
    slow = sa.analyze(p, a, True, "clarabel", HIGH, lam_n=lam_n)
    scale = float(np.abs(np.asarray(p.M @ a).ravel() + p.F).max())
    if slow.margin is None and direct.margin is not None:
        # real/manipulator_grasp (its answer F4's active-set point): the cvxpy program ends inaccurate at this preset,
        # decides nothing, and decides at the looser one, where the two are compared
        assert "ended 'inaccurate'" in (slow.margin_reason or "")
        slow = sa.analyze(p, a, True, "clarabel", PRESETS["mid"], lam_n=lam_n)
    assert (direct.margin is None) == (slow.margin is None)
    if slow.margin is not None:
        assert direct.margin == pytest.approx(slow.margin, rel=1e-6, abs=1e-7 * scale)
    assert direct.boundary_contacts == slow.boundary_contacts
    assert direct.detaching_contacts == slow.detaching_contacts
    # μ_min: a ratio achieved exactly at a point of Λ(a) on both paths, above the μ each path proved too small: the
    # two proven brackets [mu_min_lower, mu_min] overlap. Where the bisection closes they agree to its acceptance; on
    # real/stacker_boxes it ends undecided near the optimum (a 1 % bracket, in which each path's best achieved ratio
    # moves with the answer's round-off: 2.6e-3 apart), and on real/manipulator_grasp a ratio of ~1e-7 is solver noise
    for x, y in ((direct, slow), (slow, direct)):
        assert x.mu_min >= (y.mu_min_lower or 0.0) * (1 - 1e-9)
    if name != "real/stacker_boxes":
        assert direct.mu_min == pytest.approx(slow.mu_min, rel=1e-6, abs=1e-6)
    else:
        assert direct.mu_min_lower > 0.98 * direct.mu_min  # (the cvxpy path's bracket is 12 % wide there)


def test_active_set_matches_the_cvxpy_constraints():
    # a detaching row is pinned to λ = 0 on the direct path too: all the load on the row that stays
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
        Contact("unilateral", normal=[0.0, 1.0], normal_drift=1.0, mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.2, 1.0], cs, dimension=2)
    a = np.zeros(2)
    k = conic(p, a, atol=active_tolerance(p, a))
    assert k.det == frozenset({1})
    ans = k.feasible(None, {})
    assert ans.status == "solved" and ans.liv == pytest.approx([1.0, 0.0], abs=1e-7)
