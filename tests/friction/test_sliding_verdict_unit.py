"""Fast unit tests of the sliding verdict and its certificates (gaussqp.friction.verdict): issue #9 mutation
testing of ``enumeration_certificate``, ``p_matrix_certificate``, ``sliding_verdict``, ``_uniqueness`` and
``sticking_verdict`` (the function that attaches the sticking verdict to an F4 answer).

Expected values are independent of the code: the Painlevé rod's scalar LCP ``A λ + w`` (closed form in
``painleve_rod_lcp``: one solution when A > 0, none when A < 0 > w, two when A < 0 < w), the certificate texts
restated from the specification, hand-built enumerations, and the closed forms of the point mass on a floor
(M = I, F = (f, fn): λ_n = fn, λ_t = f; margin μ fn - |f| for one contact, (μ fn - |f|)/2 for two).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from gaussqp.certificates import enumeration as ce
from gaussqp.certificates import sliding_verdict as slv
from gaussqp.certificates import sticking_verdict as stv
from gaussqp.friction import sticking_analysis as sa
from gaussqp.friction.enumeration import Enumeration, PieceSolution, enumerate_solutions
from gaussqp.friction.sliding import reduce, sliding_lcp
from gaussqp.model.problem import Contact, ContactProblem
from gaussqp.problems.sliding_examples import painleve_rod, painleve_rod_lcp
from gaussqp.results import FAILED, INACCURATE, INFEASIBLE, SOLVED, UNBOUNDED, Certificate, Solution
from gaussqp.settings import PRESETS

HIGH = PRESETS["high"]
G = 9.81

# the three Painlevé rod cases (θ, μ, slip, θ̇) and their closed-form LCP
ROD_UNIQUE = (math.pi / 6, 0.5, -1.0, 0.0)  # A > 0: λ = -w / A
ROD_NONE = (math.atan(2.0), 2.0, -1.0, 0.0)  # A < 0, w < 0: no solution
ROD_TWO = (math.atan(2.0), 2.0, -1.0, 4.0)  # A < 0 < w: λ = 0 and λ = -w / A


def rod(case):
    th, mu, slip, td = case
    return painleve_rod(th, mu, slip, theta_dot=td)


def rod_lcp(case):
    th, mu, slip, td = case
    return painleve_rod_lcp(th, mu, slip, theta_dot=td)


def rod_acceleration(case, lam):
    """a = M⁻¹((n - μ s T) λ - F) with M = diag(1, 1, 1/3), n = (0, 1, -cos θ), T = (1, 0, sin θ), F = (0, g, 0)."""
    th, mu, slip, _ = case
    col = np.array([0.0, 1.0, -math.cos(th)]) - mu * slip * np.array([1.0, 0.0, math.sin(th)])
    return (col * lam - np.array([0.0, G, 0.0])) / np.array([1.0, 1.0, 1.0 / 3.0])


def sol_of(p, status=SOLVED, a=None, lam_n=None, lam_t=None, **kw):
    s = Solution(problem=p, status=status, formulation="test", solver="test", **kw)
    s.acceleration = None if a is None else np.asarray(a, dtype=float)
    s.lambda_normal = None if lam_n is None else np.asarray(lam_n, dtype=float)
    s.lambda_tangent = None if lam_t is None else np.asarray(lam_t, dtype=float)
    return s


def piece(a, lam_n, label="+", isolated=True, fixed=True, pieces=None):
    lam_n = np.atleast_1d(np.asarray(lam_n, dtype=float))
    return PieceSolution(
        np.asarray(a, dtype=float),
        lam_n,
        np.zeros((lam_n.size, 1)),
        label,
        isolated,
        fixed,
        list(pieces) if pieces is not None else [label],
    )


def enum_of(sols, mult="unique", lam_mult="unique", k=1, pieces=2, enumerated=(0,), scale=1.0, nearest=1.0):
    """A hand-built enumeration; without solutions its nearest solvable data is ``nearest`` away (1.0: "none" is
    certified, beyond settings.NONEXISTENCE_CHANGE)."""
    e = Enumeration(list(sols), pieces, list(enumerated), mult, lam_mult, scale, k)
    if not sols:
        e.nearest_change = nearest
    return e


def one_contact_problem(M=None, F=(0.0, 1.0), mode="sliding", typ="unilateral"):
    kw = dict(mode=mode, friction=0.5, tangent=[[1.0, 0.0]]) if mode != "frictionless" else {}
    if mode == "sliding":
        kw["slip"] = [1.0]
    c = Contact(typ, normal=[0.0, 1.0], **kw)
    return ContactProblem(np.eye(2) if M is None else np.asarray(M, dtype=float), list(F), [c], dimension=2)


# ------------------------------------------------------------------------------------ enumeration_certificate

ACCEL_TEXT = {
    "none": "no acceleration and contact forces satisfy the sliding problem (inconsistent case, "
    "Painlevé paradox / jamming): every piece was checked and is empty",
    "unique": "exactly one acceleration",
    "multiple": "3 distinct accelerations (indeterminate case, Painlevé paradox)",
    "continuum": "a continuum of accelerations (a piece on which the acceleration varies; indeterminate case)",
    "undecided": "one acceleration found; whether its (conic) piece holds other accelerations is not decided",
}
MULT_TEXT = {
    "none": "",
    "unique": "; the multipliers are unique",
    "multiple": "; 2 distinct multiplier vectors",
    "continuum": "; a continuum of multipliers (a piece is a polyhedron with more than one point)",
    "undecided": "; multiplier uniqueness on the (conic) piece is not decided",
}
SUFFIX = " at that one acceleration (not a paradox)"


@pytest.mark.parametrize("mult", list(ACCEL_TEXT))
@pytest.mark.parametrize("lam_mult", list(MULT_TEXT))
def test_enumeration_certificate_texts(mult, lam_mult):
    sols = [piece([1.0, 2.0], [0.5], "+"), piece([1.0, 2.0], [0.7], "0", isolated=None, pieces=["0", "+"])]
    e = enum_of(sols, mult, lam_mult, k=3, pieces=4, enumerated=[0, 2], scale=2.5)
    c = ce.enumeration_certificate(one_contact_problem(), e)
    suffix = SUFFIX if mult == "unique" and lam_mult != "unique" else ""
    assert c.implies == ACCEL_TEXT[mult] + MULT_TEXT[lam_mult] + suffix
    assert c.holds is (mult in ("none", "unique"))
    assert c.margin == 2.0 and isinstance(c.margin, float)
    assert c.id == "sliding_enumeration" and c.name == "solutions by exhaustive piece enumeration"
    assert c.source == "tutorial §3.2.1 (enumeration of (37)); (50), (58); sticking (71)"


def test_enumeration_certificate_data():
    s1 = piece([1.0, 2.0], [0.5], "+", isolated=True, pieces=["+"])
    s2 = piece([3.0, 4.0], [0.0], "0", isolated=None, pieces=["0", "+"])
    e = enum_of([s1, s2], "multiple", "multiple", k=2, pieces=4, enumerated=[0, 2], scale=2.5)
    c = ce.enumeration_certificate(one_contact_problem(), e)
    d = c.data
    assert set(d) == {
        "solutions",
        "pieces",
        "multiplicity",
        "acceleration_multiplicity",
        "multiplier_multiplicity",
        "nearest_change",
        "undecided_pieces",
        "distinct_accelerations",
        "acceleration_scale",
        "enumerated_contacts",
        "lambda_normal",
        "accelerations",
        "piece_labels",
        "isolated",
        "found_on_pieces",
        "modes",
        "coulomb_contacts",
        "evidence",
    }
    assert len(d["evidence"]["accelerations"]) == 2 and "verify" in d["evidence"]
    assert d["solutions"] == 2 and d["pieces"] == 4 and d["multiplicity"] == "multiple"
    assert d["acceleration_multiplicity"] == "multiple" and d["multiplier_multiplicity"] == "multiple"
    assert d["distinct_accelerations"] == 2 and d["acceleration_scale"] == 2.5
    assert d["enumerated_contacts"] == [0, 2] and isinstance(d["enumerated_contacts"], list)
    assert [list(x) for x in d["lambda_normal"]] == [[0.5], [0.0]]
    assert [list(x) for x in d["accelerations"]] == [[1.0, 2.0], [3.0, 4.0]]
    assert d["piece_labels"] == ["+", "0"] and d["isolated"] == [True, None]
    assert d["found_on_pieces"] == [["+"], ["0", "+"]]
    assert c.implies == "2 distinct accelerations (indeterminate case, Painlevé paradox); 2 distinct multiplier vectors"
    assert c.holds is False
    e2 = enum_of([s1], "continuum", "continuum", k=1)
    d2 = ce.enumeration_certificate(one_contact_problem(), e2).data
    assert d2["multiplicity"] == "continuum" and d2["acceleration_multiplicity"] == "continuum"
    assert d2["multiplier_multiplicity"] == "continuum" and d2["solutions"] == 1 and d2["distinct_accelerations"] == 1


def test_enumeration_certificate_empty():
    c = ce.enumeration_certificate(one_contact_problem(), enum_of([], "none", "none", k=0))
    assert c.holds is True and c.margin == 0.0 and c.implies == ACCEL_TEXT["none"]
    assert c.data["solutions"] == 0 and c.data["lambda_normal"] == [] and c.data["found_on_pieces"] == []


def test_enumeration_certificate_empty_but_within_the_loosest_preset():
    """No piece solvable, but data 1e-5 away are (within settings.NONEXISTENCE_CHANGE): the certificate claims no
    nonexistence (the verdict contract across tolerances), and says what was measured."""
    c = ce.enumeration_certificate(one_contact_problem(), enum_of([], "none", "none", k=0, nearest=1e-5))
    assert c.holds is False and "1.0e-05" in c.implies and "no claim" in c.implies
    assert c.data["nearest_change"] == 1e-5


@pytest.mark.parametrize("case, count", [(ROD_UNIQUE, 1), (ROD_NONE, 0), (ROD_TWO, 2)])
def test_enumeration_certificate_on_the_painleve_rod(case, count):
    A, w = rod_lcp(case)
    e = enumerate_solutions(rod(case))
    c = ce.enumeration_certificate(rod(case), e)
    assert c.margin == float(count) and c.data["pieces"] == 2 and c.data["enumerated_contacts"] == [0]
    lams = sorted(float(x[0]) for x in c.data["lambda_normal"])
    expected = {0: [], 1: [-w / A], 2: [0.0, -w / A]}[count]
    assert lams == pytest.approx(expected, abs=1e-9)
    for lam, acc in zip(c.data["lambda_normal"], c.data["accelerations"]):
        np.testing.assert_allclose(acc, rod_acceleration(case, float(lam[0])), atol=1e-9)
    assert c.holds is (count < 2)


# ---------------------------------------------------------------------------------------- p_matrix_certificate


@pytest.mark.parametrize("case", [ROD_UNIQUE, ROD_TWO])
def test_p_matrix_certificate_rod(case):
    A, _ = rod_lcp(case)
    c = slv.p_matrix_certificate(rod(case))
    assert c.id == "p_matrix" and c.name == "LCP (50) matrix is a P-matrix (exact, 1 principal minors)"
    assert c.source == "tutorial (41), (50), (58), Prop. 13; Cottle–Pang–Stone Thm 3.3.7"
    assert c.data["form"] == "LCP (50)"
    np.testing.assert_allclose(c.data["matrix"], [[A]], rtol=1e-12)
    # a 1×1 minor relative to its row norm is sign(A)
    assert c.margin == pytest.approx(math.copysign(1.0, A), rel=1e-12)
    if A > 0:
        assert c.holds is True and c.data["witness"] is None
        assert c.implies == "the sliding problem has exactly one solution for every load at this state"
    else:
        assert c.holds is False and c.data["witness"] == (0,)
        assert c.implies == (
            "not a P-matrix: some loads give no or several solutions at this state (principal minor (0,) is <= 0)"
        )


def _two_by_two(Mx):
    """A 2×2 matrix through a prebuilt LCP (the rod's LCP with its matrix replaced)."""
    L = sliding_lcp(reduce(rod(ROD_UNIQUE)))
    return dataclasses.replace(L, M=np.asarray(Mx, dtype=float), form="LCP (58)")


def test_p_matrix_certificate_uses_the_prebuilt_lcp():
    # [[1, 2], [0, 1]]: minors 1, 1, 1 (P); [[1, 2], [1, 1]]: det -1 (not P, witness (0, 1))
    c = slv.p_matrix_certificate(rod(ROD_UNIQUE), _two_by_two([[1.0, 2.0], [0.0, 1.0]]))
    assert c.holds is True and c.name == "LCP (58) matrix is a P-matrix (exact, 3 principal minors)"
    assert c.data["form"] == "LCP (58)" and c.data["witness"] is None
    np.testing.assert_array_equal(c.data["matrix"], [[1.0, 2.0], [0.0, 1.0]])
    # relative minors: 1/1, 1/1, det 1 / (√5 · 1)
    assert c.margin == pytest.approx(1 / math.sqrt(5), rel=1e-12)
    d = slv.p_matrix_certificate(rod(ROD_UNIQUE), _two_by_two([[1.0, 2.0], [1.0, 1.0]]))
    assert d.holds is False and d.data["witness"] == (0, 1)
    assert d.margin == pytest.approx(-1 / (math.sqrt(5) * math.sqrt(2)), rel=1e-12)
    assert "principal minor (0, 1) is <= 0" in d.implies


def _mixed_problem():
    """One frictionless bilateral, one sliding bilateral, one sliding unilateral contact: size 2 (the
    frictionless row is eliminated)."""
    cs = [
        Contact("bilateral", normal=[1.0, 0.0, 0.0]),
        Contact(
            "bilateral", normal=[0.0, 1.0, 0.0], mode="sliding", friction=0.1, tangent=[[0.0, 0.0, 1.0]], slip=[1.0]
        ),
        Contact(
            "unilateral", normal=[0.0, 0.0, 1.0], mode="sliding", friction=0.1, tangent=[[1.0, 0.0, 0.0]], slip=[1.0]
        ),
    ]
    return ContactProblem(np.eye(3), [0.0, 1.0, 1.0], cs, dimension=2)


def test_p_matrix_certificate_size_limit(monkeypatch):
    p = _mixed_problem()
    monkeypatch.setattr(slv, "P_MATRIX_EXACT_MAX", 1)
    c = slv.p_matrix_certificate(p)
    assert c.holds is None and math.isnan(c.margin) and c.id == "p_matrix"
    assert c.name == "LCP matrix (58) is a P-matrix"
    assert c.source == "tutorial (58), Prop. 13" and c.data == {}
    assert c.implies == (
        "size 2 > 1: the exact test by principal minors is not run; see friction_bounds for sufficient conditions"
    )
    monkeypatch.setattr(slv, "P_MATRIX_EXACT_MAX", 2)  # size 2 <= 2: the test runs
    d = slv.p_matrix_certificate(p)
    assert d.holds is True and d.data["form"] == "LCP (58)" and d.data["matrix"].shape == (2, 2)


def test_p_matrix_certificate_size_limit_is_checked_before_the_reduction(monkeypatch):
    # singular M: the reduction would raise, but the size test comes first
    p = one_contact_problem(M=np.diag([1.0, 0.0]))
    monkeypatch.setattr(slv, "P_MATRIX_EXACT_MAX", 0)
    assert slv.p_matrix_certificate(p).implies.startswith("size 1 > 0:")


def test_p_matrix_certificate_not_applicable():
    p = one_contact_problem(M=np.diag([1.0, 0.0]))
    c = slv.p_matrix_certificate(p)
    assert c.holds is None and math.isnan(c.margin) and c.id == "p_matrix"
    assert c.name == "LCP matrix (58) is a P-matrix" and c.source == "tutorial (58), Prop. 13"
    assert c.implies.startswith("not applicable: the sliding reduction (tutorial §3) needs M ≻ 0")


# -------------------------------------------------------------------------------------------------- _uniqueness


@pytest.mark.parametrize(
    "mult, expected", [("unique", True), ("multiple", False), ("continuum", False), ("none", None), ("undecided", None)]
)
def test_uniqueness_definite(mult, expected):
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([0.0, 5.0], [2.0])], mult, mult)
    assert ce.enumeration_uniqueness(one_contact_problem(), e) == {
        "acceleration": expected,
        "generalized_force": expected,
        "multipliers": expected,
    }


def test_uniqueness_acceleration_and_multipliers_separately():
    e = enum_of([piece([0.0, 0.0], [1.0])], "unique", "continuum")
    assert ce.enumeration_uniqueness(one_contact_problem(), e) == {
        "acceleration": True,
        "generalized_force": True,
        "multipliers": False,
    }
    e = enum_of([piece([0.0, 0.0], [1.0])], "undecided", "multiple")
    assert ce.enumeration_uniqueness(one_contact_problem(), e) == {
        "acceleration": None,
        "generalized_force": None,
        "multipliers": False,
    }


def _singular(F=(0.0, 2.0), M=((1.0, 1.0), (1.0, 1.0))):
    """M = [[1, 1], [1, 1]] (singular; M a depends on a1 + a2 only, row sums 2)."""
    return one_contact_problem(M=np.asarray(M), F=F)


@pytest.mark.parametrize("mult", ["multiple", "continuum"])
def test_uniqueness_singular_mass_same_generalized_force(mult):
    # a differs along the kernel (1, -1): M a is the same, so Jᵀλ may be unique: undecided
    p = _singular()
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([3.0, -3.0], [1.0]), piece([-1.0, 1.0], [1.0])], mult, "multiple")
    assert ce.enumeration_uniqueness(p, e) == {"acceleration": False, "generalized_force": None, "multipliers": False}
    # the third M a differs by 2 · 1 = 2: not unique (any, not only the second)
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([3.0, -3.0], [1.0]), piece([1.0, 0.0], [1.0])], mult, "multiple")
    assert ce.enumeration_uniqueness(p, e)["generalized_force"] is False


def test_uniqueness_singular_mass_force_unit_from_f():
    # unit = max(‖F‖∞ = 2, row sum 2 · acceleration scale 0.5 = 1) = 2: M a differing by 3e-7 <= 1e-7 · 2? no
    p = _singular(F=(0.0, 2.0))

    def e(d, scale=0.5):
        return enum_of([piece([0.0, 0.0], [1.0]), piece([d / 2, 0.0], [1.0])], "multiple", "multiple", scale=scale)

    # M (d/2, 0) = (d/2, d/2): the difference is d/2
    assert ce.enumeration_uniqueness(p, e(2 * 1.9e-7))["generalized_force"] is None  # 1.9e-7 <= 2e-7
    assert ce.enumeration_uniqueness(p, e(2 * 2.1e-7))["generalized_force"] is False
    assert ce.enumeration_uniqueness(p, e(2 * 2.0e-7))["generalized_force"] is None  # inclusive


def test_uniqueness_singular_mass_force_unit_from_the_acceleration_scale():
    # ‖F‖∞ = 0.5, row sums 2 · acceleration scale 3 = 6: threshold 6e-7
    p = _singular(F=(0.0, 0.5))

    def e(diff):
        return enum_of([piece([0.0, 0.0], [1.0]), piece([diff, 0.0], [1.0])], "multiple", "multiple", scale=3.0)

    assert ce.enumeration_uniqueness(p, e(5.9e-7))["generalized_force"] is None
    assert ce.enumeration_uniqueness(p, e(6.1e-7))["generalized_force"] is False
    # the row sums use |M|: M = [[1, -1], [-1, 1]], row sums of |M| 2 (of M: 0)
    q = _singular(F=(0.0, 0.5), M=((1.0, -1.0), (-1.0, 1.0)))
    assert ce.enumeration_uniqueness(q, e(5.9e-7))["generalized_force"] is None


def test_uniqueness_singular_mass_unique_acceleration_is_not_recomputed():
    p = _singular()
    e = enum_of([piece([0.0, 0.0], [1.0])], "unique", "unique")
    assert ce.enumeration_uniqueness(p, e) == {"acceleration": True, "generalized_force": True, "multipliers": True}
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([5.0, 0.0], [1.0])], "undecided", "multiple")
    assert ce.enumeration_uniqueness(p, e) == {"acceleration": None, "generalized_force": None, "multipliers": False}


# ---------------------------------------------------------------------------------------------- sliding_verdict


def test_sliding_verdict_computes_the_enumeration_unique_rod():
    A, w = rod_lcp(ROD_UNIQUE)
    p = rod(ROD_UNIQUE)
    lam = -w / A
    s = sol_of(p, a=rod_acceleration(ROD_UNIQUE, lam), lam_n=[lam])
    slv.sliding_verdict(s)
    assert s.enumeration is not None and s.enumeration.multiplicity == "unique"
    assert [c.id for c in s.certificates] == ["p_matrix", "sliding_enumeration"]
    assert s.certificate("p_matrix").holds is True and s.certificate("sliding_enumeration").holds is True
    assert s.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}
    assert s.in_enumeration is True


def test_sliding_verdict_paradox_rod():
    A, w = rod_lcp(ROD_TWO)
    p = rod(ROD_TWO)
    s = sol_of(p, a=rod_acceleration(ROD_TWO, -w / A), lam_n=[-w / A])
    slv.sliding_verdict(s)
    assert s.enumeration.multiplicity == "multiple" and s.enumeration.count == 2
    assert s.certificate("p_matrix").holds is False and s.certificate("sliding_enumeration").holds is False
    assert s.unique == {"acceleration": False, "generalized_force": False, "multipliers": False}
    assert s.in_enumeration is True
    t = sol_of(p, a=rod_acceleration(ROD_TWO, 1.0), lam_n=[1.0])  # not a solution of the rod
    slv.sliding_verdict(t)
    assert t.in_enumeration is False


def test_sliding_verdict_inconsistent_rod():
    p = rod(ROD_NONE)
    s = sol_of(p, status=INFEASIBLE)
    slv.sliding_verdict(s)
    assert s.enumeration.multiplicity == "none" and s.certificate("sliding_enumeration").holds is True
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}
    assert s.in_enumeration is None


def test_sliding_verdict_uses_the_given_enumeration():
    p = rod(ROD_UNIQUE)
    e = enum_of([piece(np.zeros(3), [0.5])], "multiple", "multiple", k=2)
    s = sol_of(p, a=np.zeros(3), lam_n=[0.5])
    slv.sliding_verdict(s, e)
    assert s.enumeration is e and s.certificate("sliding_enumeration").data["distinct_accelerations"] == 2
    assert s.unique == {"acceleration": False, "generalized_force": False, "multipliers": False}


def test_sliding_verdict_replaces_an_old_enumeration_certificate():
    p = rod(ROD_UNIQUE)
    old = Certificate(id="sliding_enumeration", source="old", holds=False, margin=7.0, implies="old")
    other = Certificate(id="other", source="x", holds=True, margin=1.0, implies="x")
    s = sol_of(p, status=INFEASIBLE, certificates=[old, other])
    e = enum_of([], "none", "none", k=0)
    slv.sliding_verdict(s, e)
    assert [c.id for c in s.certificates] == ["other", "p_matrix", "sliding_enumeration"]
    assert s.certificate("sliding_enumeration").source != "old"
    assert s.certificate("sliding_enumeration").margin == 0.0


def test_sliding_verdict_above_the_enumeration_limit(monkeypatch):
    monkeypatch.setattr(slv, "ENUMERATION_MAX", 0)
    old = Certificate(id="sliding_enumeration", source="old", holds=False, margin=7.0, implies="old")
    A, w = rod_lcp(ROD_UNIQUE)
    s = sol_of(rod(ROD_UNIQUE), a=np.zeros(3), lam_n=[-w / A], certificates=[old])
    slv.sliding_verdict(s)
    # no enumeration: the old certificate stays, the P-matrix test decides uniqueness
    assert s.enumeration is None and s.in_enumeration is None
    assert [c.id for c in s.certificates] == ["sliding_enumeration", "p_matrix"]
    assert s.certificates[0] is old
    assert s.unique == {"acceleration": True, "generalized_force": True, "multipliers": True}
    t = sol_of(rod(ROD_TWO), a=np.zeros(3), lam_n=[0.0])
    slv.sliding_verdict(t)
    assert t.enumeration is None and [c.id for c in t.certificates] == ["p_matrix"]
    assert t.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}


def test_sliding_verdict_enumeration_limit_is_inclusive(monkeypatch):
    monkeypatch.setattr(slv, "ENUMERATION_MAX", 1)  # one enumerated contact: enumerated
    s = sol_of(rod(ROD_UNIQUE), status=FAILED)
    slv.sliding_verdict(s)
    assert s.enumeration is not None and s.enumeration.pieces == 2


def test_sliding_verdict_p_matrix_not_applicable_cert_without_holds(monkeypatch):
    # P-matrix certificate not decided (holds None) and no enumeration: nothing is unique
    monkeypatch.setattr(slv, "ENUMERATION_MAX", 0)
    monkeypatch.setattr(slv, "P_MATRIX_EXACT_MAX", 0)
    s = sol_of(rod(ROD_UNIQUE), status=FAILED)
    slv.sliding_verdict(s)
    assert s.certificate("p_matrix").holds is None
    assert s.unique == {"acceleration": None, "generalized_force": None, "multipliers": None}


def test_sliding_verdict_uses_the_lcp_in_extras():
    s = sol_of(rod(ROD_UNIQUE), status=FAILED)
    s.extras["lcp"] = _two_by_two([[1.0, 2.0], [1.0, 1.0]])
    slv.sliding_verdict(s, enum_of([], "none", "none", k=0))
    assert s.certificate("p_matrix").data["witness"] == (0, 1)


def test_sliding_verdict_no_p_matrix_for_singular_mass():
    p = one_contact_problem(M=np.diag([1.0, 0.0]), F=(0.0, 1.0))
    s = sol_of(p, status=FAILED)
    slv.sliding_verdict(s, enum_of([], "none", "none", k=0))
    assert [c.id for c in s.certificates] == ["sliding_enumeration"]


def test_sliding_verdict_no_p_matrix_with_sticking_contacts():
    cs = [
        Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.5, tangent=[[1.0, 0.0]], slip=[1.0]),
        Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[1.0, 0.0]]),
    ]
    p = ContactProblem(np.eye(2), [0.0, 1.0], cs, dimension=2)
    s = sol_of(p, status=FAILED)
    slv.sliding_verdict(s, enum_of([], "none", "none", k=0))
    assert [c.id for c in s.certificates] == ["sliding_enumeration"]


@pytest.mark.parametrize(
    "lam, delta, found",
    [
        (0.5, 0.9e-6, True),
        (0.5, 1.1e-6, False),
        (0.5, -1.1e-6, False),
        (10.0, 0.9e-6, True),
        (10.0, 1.1e-6, False),
        (-10.0, -0.9e-6, True),
        (-10.0, 1.1e-6, False),
    ],
)
def test_sliding_verdict_in_enumeration_tolerance(lam, delta, found):
    # |Δλ̂| <= 1e-6 in the data's units λ̂ = λ ‖(J S)_row‖∞ / force (issue #9 part 4; not max(1, ‖λ_n‖∞)):
    # delta is given in those units, the same bound whatever the size of λ
    from gaussqp.model.scales import data_scales

    p = rod(ROD_UNIQUE)
    sc = data_scales(p)
    unit = sc.force / sc.normal_weight[0]
    e = enum_of([piece(np.zeros(3), [lam])], "unique", "unique")
    s = sol_of(p, a=np.zeros(3), lam_n=[lam + delta * unit])
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is found


def test_sliding_verdict_in_enumeration_every_solution_and_component():
    p = _mixed_problem()
    e = enum_of(
        [piece(np.zeros(3), [0.0, 1.0, 2.0]), piece(np.zeros(3), [0.0, 3.0, 4.0])],
        "multiple",
        "multiple",
        k=2,
        enumerated=[1, 2],
        pieces=4,
    )
    s = sol_of(p, a=np.zeros(3), lam_n=[0.0, 3.0, 4.0])  # the second one
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is True
    t = sol_of(p, a=np.zeros(3), lam_n=[0.0, 3.0, 2.0])  # one component of each
    slv.sliding_verdict(t, e)
    assert t.in_enumeration is False
    # tolerance 1e-6 in the data's units λ̂ = λ ‖(J S)_row‖∞ / force, row by row
    from gaussqp.model.scales import data_scales

    unit = data_scales(p).force / data_scales(p).normal_weight[2]
    u = sol_of(p, a=np.zeros(3), lam_n=[0.0, 1.0, 2.0 + 0.9e-6 * unit])
    slv.sliding_verdict(u, e)
    assert u.in_enumeration is True
    u = sol_of(p, a=np.zeros(3), lam_n=[0.0, 1.0, 2.0 + 1.1e-6 * unit])
    slv.sliding_verdict(u, e)
    assert u.in_enumeration is False


def test_sliding_verdict_in_enumeration_continuum_and_status():
    p = rod(ROD_UNIQUE)
    e = enum_of([piece(np.zeros(3), [0.5])], "unique", "continuum")
    s = sol_of(p, a=np.zeros(3), lam_n=[0.9])  # not found, but the multipliers form a continuum
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is True
    e = enum_of([piece(np.zeros(3), [0.5])], "unique", "multiple")
    s = sol_of(p, a=np.zeros(3), lam_n=[0.9])
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is False
    for status in (INACCURATE, INFEASIBLE):
        s = sol_of(p, status=status, a=np.zeros(3), lam_n=[0.5])
        slv.sliding_verdict(s, e)
        assert s.in_enumeration is None
    s = sol_of(p, a=None, lam_n=[0.5])  # solved without an acceleration: not looked up
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is None


# --------------------------------------------------------------------------------------------- sticking_verdict


def floor(f, mus=(0.5, 0.5), fn=1.0):
    cs = [Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=mu, tangent=[[1.0, 0.0]]) for mu in mus]
    return ContactProblem(np.eye(2), [f, fn], cs, dimension=2)


def single(f, mu=0.5, fn=1.0):
    return floor(f, (mu,), fn)


def unique_cert(holds=True, independent=True):
    return Certificate(
        id="unique_multipliers", source="", holds=holds, margin=0.0, implies="", data={"rows_independent": independent}
    )


def test_sticking_verdict_singleton_path():
    p = single(0.2)
    s = sol_of(p, a=np.zeros(2), lam_n=[1.0], lam_t=[[0.2]], certificates=[unique_cert()])
    stv.sticking_verdict(s, "clarabel", HIGH)
    v = s.sticking
    assert v.boundary_test == "exact (unique multipliers)" and v.feasible is True
    assert v.margin == pytest.approx(0.3, abs=1e-14) and v.mu_min == pytest.approx(0.2, abs=1e-14)


@pytest.mark.parametrize(
    "certs",
    [
        [],
        [unique_cert(holds=False)],
        [unique_cert(holds=None)],
        [unique_cert(independent=False)],
        [Certificate(id="unique_multipliers", source="", holds=True, margin=0.0, implies="")],
    ],
)
def test_sticking_verdict_analyze_path(certs):
    p = single(0.2)
    s = sol_of(p, a=np.zeros(2), lam_n=[1.0], lam_t=[[0.2]], certificates=certs)
    stv.sticking_verdict(s, "clarabel", HIGH)
    v = s.sticking
    assert v.boundary_test == "exact" and v.feasible is True
    assert v.margin == pytest.approx(0.3, abs=1e-7) and v.mu_min == pytest.approx(0.2, rel=1e-6)


def test_sticking_verdict_inaccurate_is_not_feasible():
    p = single(0.2)
    s = sol_of(p, status=INACCURATE, a=np.zeros(2), lam_n=[1.0], lam_t=[[0.2]], certificates=[unique_cert()])
    s.unique["multipliers"] = False
    stv.sticking_verdict(s, "clarabel", HIGH)
    # not feasible: the F1 multipliers (none given) and the analyze path; margin 0.3, but no boundary downgrade
    assert s.sticking.feasible is False and s.sticking.boundary_test == "exact"
    assert s.sticking.margin == pytest.approx(0.3, abs=1e-7)
    assert s.unique["multipliers"] is False


def test_sticking_verdict_feasible_analyze_uses_the_solutions_multipliers():
    # a = (0, 1e-5): the rows' slack exceeds the active tolerance; λ_n = (0.5, 0.5) keeps them active
    p = floor(0.2)
    s = sol_of(p, a=[0.0, 1e-5], lam_n=[0.5, 0.5], lam_t=[[0.1], [0.1]])
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.detaching_contacts == []
    assert s.sticking.margin == pytest.approx((0.5 * (1 + 1e-5) - 0.2) / 2, abs=1e-7)
    # infeasible (F1's acceleration) ignores the answer's multipliers: both rows detach
    t = sol_of(
        p, status=INFEASIBLE, lam_n=[0.5, 0.5], lam_t=[[0.1], [0.1]], extras={"a_cones_removed": np.array([0.0, 1e-5])}
    )
    stv.sticking_verdict(t, "clarabel", HIGH)
    assert t.sticking.detaching_contacts == [0, 1] and t.sticking.feasible is False


def test_sticking_verdict_infeasible_with_f1_multipliers_singleton():
    p = single(0.7)
    s = sol_of(
        p,
        status=INFEASIBLE,
        extras={
            "a_cones_removed": np.zeros(2),
            "cones_removed_multipliers": {
                "rows_independent": True,
                "lambda_normal": np.array([1.0]),
                "lambda_tangent": np.array([[0.7]]),
            },
        },
    )
    stv.sticking_verdict(s, "clarabel", HIGH)
    v = s.sticking
    assert v.feasible is False and v.boundary_test == "exact (unique multipliers)"
    assert v.margin == pytest.approx(-0.2, abs=1e-14) and v.mu_min == pytest.approx(0.7, abs=1e-14)


def test_sticking_verdict_infeasible_with_f1_acceleration_only():
    p = single(0.7)
    s = sol_of(
        p,
        status=INFEASIBLE,
        extras={"a_cones_removed": np.zeros(2), "cones_removed_multipliers": {"rows_independent": False}},
    )
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.boundary_test == "exact" and s.sticking.feasible is False
    assert s.sticking.margin == pytest.approx(-0.2, abs=1e-7) and s.sticking.mu_min == pytest.approx(0.7, rel=1e-6)
    t = sol_of(p, status=INFEASIBLE, extras={"a_cones_removed": np.zeros(2)})  # no F1 multipliers at all
    stv.sticking_verdict(t, "clarabel", HIGH)
    assert t.sticking.boundary_test == "exact" and t.sticking.margin == pytest.approx(-0.2, abs=1e-7)


@pytest.mark.parametrize("status", [INFEASIBLE, UNBOUNDED])
def test_sticking_verdict_infeasible_or_unbounded_without_acceleration(status):
    s = sol_of(single(0.7), status=status)
    stv.sticking_verdict(s, "clarabel", HIGH)
    v = s.sticking
    assert v.feasible is False and v.margin is None and v.mu_min == float("inf")
    assert v.boundary_contacts == [] and v.detaching_contacts == [] and v.boundary_test == "exact"


def test_sticking_verdict_unbounded_ignores_a_cones_removed():
    s = sol_of(single(0.2), status=UNBOUNDED, extras={"a_cones_removed": np.zeros(2)})
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin is None and s.sticking.mu_min == float("inf")


@pytest.mark.parametrize("status, a", [(FAILED, np.zeros(2)), (SOLVED, None), (INACCURATE, None)])
def test_sticking_verdict_no_verdict(status, a):
    s = sol_of(single(0.2), status=status, a=a, lam_n=[1.0], lam_t=[[0.2]])
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking is None


def _two_contacts_solution(f, fn=1.0, unique=False, message=""):
    p = floor(f, fn=fn)
    s = sol_of(p, a=np.zeros(2), lam_n=[fn / 2, fn / 2], lam_t=[[f / 2], [f / 2]], message=message)
    s.unique = {"acceleration": True, "generalized_force": True, "multipliers": unique}
    return s


MSG = "multiplier uniqueness inside the cones undecided (a contact is on its cone boundary)"


def test_sticking_verdict_boundary_downgrade():
    s = _two_contacts_solution(0.5)  # margin (0.5 - 0.5) / 2 = 0
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert abs(s.sticking.margin) < 1e-7
    assert s.unique == {"acceleration": True, "generalized_force": True, "multipliers": None}
    assert s.message == MSG
    t = _two_contacts_solution(0.5, message="earlier")
    stv.sticking_verdict(t, "clarabel", HIGH)
    assert t.message == "earlier; " + MSG and t.unique["multipliers"] is None


def test_sticking_verdict_boundary_downgrade_only_for_non_unique_multipliers():
    for unique in (True, None):
        s = _two_contacts_solution(0.5, unique=unique)
        stv.sticking_verdict(s, "clarabel", HIGH)
        assert s.unique["multipliers"] is unique and s.message == ""


def test_sticking_verdict_interior_margin_keeps_non_unique():
    # margin (0.5 - f) / 2 = 2e-6 > 1e-6 · max(1, ‖Jᵀλ‖∞ = 1)
    s = _two_contacts_solution(0.5 - 4e-6)
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin == pytest.approx(2e-6, abs=2e-7)
    assert s.unique["multipliers"] is False and s.message == ""


def test_sticking_verdict_boundary_scale_is_the_generalized_force():
    # load 10: margin (5 - f) / 2 = 8e-6 <= 1e-6 · 10 (‖Jᵀλ‖∞ = 10)
    s = _two_contacts_solution(5.0 - 1.6e-5, fn=10.0)
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin == pytest.approx(8e-6, abs=1e-6)
    assert s.unique["multipliers"] is None
    # and 1.2e-5 > 1e-5: kept
    s = _two_contacts_solution(5.0 - 2.4e-5, fn=10.0)
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.unique["multipliers"] is False


def test_sticking_verdict_boundary_scale_has_no_floor():
    # small load 0.1: margin (0.05 - f) / 2 = 8e-7 > 1e-6 · 0.1, the load's terms (issue #9 part 4: before, the
    # scale was max(1, 0.1) and the contact was on its boundary): kept
    s = _two_contacts_solution(0.05 - 1.6e-6, fn=0.1)
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin == pytest.approx(8e-7, abs=2e-8)
    assert s.unique["multipliers"] is False


def test_sticking_verdict_no_downgrade_without_a_margin():
    # a detaching contact carrying a tangential force: the singleton margin is None (no μ helps)
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
    p = ContactProblem(np.eye(4), [0.2, 1.0, 0.0, 0.1], cs, dimension=2)
    s = sol_of(p, a=np.zeros(4), lam_n=[1.0, 0.0], lam_t=[[0.2], [0.1]], certificates=[unique_cert()])
    s.unique["multipliers"] = False
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin is None and s.unique["multipliers"] is False and s.message == ""


# ======================================================================== second round: survivors of the first run


def test_p_matrix_certificate_size_counts_sliding_bilateral_rows(monkeypatch):
    # one sliding bilateral and one unilateral contact, no frictionless row: size 2
    cs = [
        Contact(
            "bilateral", normal=[0.0, 1.0, 0.0], mode="sliding", friction=0.1, tangent=[[0.0, 0.0, 1.0]], slip=[1.0]
        ),
        Contact(
            "unilateral", normal=[0.0, 0.0, 1.0], mode="sliding", friction=0.1, tangent=[[1.0, 0.0, 0.0]], slip=[1.0]
        ),
    ]
    p = ContactProblem(np.eye(3), [0.0, 1.0, 1.0], cs, dimension=2)
    monkeypatch.setattr(slv, "P_MATRIX_EXACT_MAX", 1)
    assert slv.p_matrix_certificate(p).implies.startswith("size 2 > 1:")


def test_sliding_verdict_in_enumeration_tolerance_is_inclusive():
    # |Δλ̂| = 1e-6 (λ̂ = λ ‖(J S)_row‖∞ / force), the bound itself: found
    from gaussqp.model.scales import data_scales

    p = rod(ROD_UNIQUE)
    sc = data_scales(p)
    e = enum_of([piece(np.zeros(3), [0.0])], "unique", "unique")
    s = sol_of(p, a=np.zeros(3), lam_n=[1e-6 * sc.force / sc.normal_weight[0]])
    slv.sliding_verdict(s, e)
    assert s.in_enumeration is True


def test_uniqueness_singular_mass_small_units():
    # M = 0.25 [[1, 1], [1, 1]] (row sums 0.5), ‖F‖∞ = 0.1, acceleration scale 1: unit 0.5 (not floored at 1),
    # threshold 5e-8; M a differs by 0.25 · 2.8e-7 = 7e-8
    p = _singular(F=(0.0, 0.1), M=((0.25, 0.25), (0.25, 0.25)))
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([2.8e-7, 0.0], [1.0])], "multiple", "multiple", scale=1.0)
    assert ce.enumeration_uniqueness(p, e)["generalized_force"] is False
    e = enum_of([piece([0.0, 0.0], [1.0]), piece([1.2e-7, 0.0], [1.0])], "multiple", "multiple", scale=1.0)
    assert ce.enumeration_uniqueness(p, e)["generalized_force"] is None


def test_uniqueness_singular_mass_compares_differences_of_nonzero_forces():
    # a = (1, 0) and (0, 1): M a = (1, 1) for both (a differs along the kernel), not 0
    p = _singular()
    e = enum_of([piece([1.0, 0.0], [1.0]), piece([0.0, 1.0], [1.0])], "multiple", "multiple")
    assert ce.enumeration_uniqueness(p, e)["generalized_force"] is None


def test_uniqueness_singular_mass_continuum_with_one_point():
    # one representative of a piece on which the acceleration varies: nothing to compare, undecided
    p = _singular()
    e = enum_of([piece([1.0, 0.0], [1.0], isolated=False, fixed=False)], "continuum", "continuum")
    assert ce.enumeration_uniqueness(p, e) == {"acceleration": False, "generalized_force": None, "multipliers": False}


def test_sticking_verdict_passes_solver_and_tolerance(monkeypatch):
    seen = []
    real = sa.analyze

    def recording(p, a, feasible, solver, tol, **kw):
        seen.append((solver, tol))
        return real(p, a, feasible, solver, tol, **kw)

    monkeypatch.setattr(stv, "analyze", recording)
    s = sol_of(single(0.2), a=np.zeros(2), lam_n=[1.0], lam_t=[[0.2]])
    stv.sticking_verdict(s, "osqp", HIGH)
    assert seen == [("osqp", HIGH)] and s.sticking.margin == pytest.approx(0.3, abs=1e-6)


def test_sticking_verdict_boundary_downgrade_is_inclusive():
    # singleton: margin μ λ_n - |λ_t| = 1e-6 · 1 - 0 = 1e-6 exactly = 1e-6 · max(1, ‖Jᵀλ‖∞ = 1)
    s = sol_of(single(0.0, mu=1e-6), a=np.zeros(2), lam_n=[1.0], lam_t=[[0.0]], certificates=[unique_cert()])
    s.unique["multipliers"] = False
    stv.sticking_verdict(s, "clarabel", HIGH)
    assert s.sticking.margin == 1e-6 and s.unique["multipliers"] is None and s.message == MSG
