"""Fast unit tests of the structural certificates C1-C6 (gaussqp.certificates), issue #9 mutation testing.

Small hand-built problems; expected margins by hand (comments) or from the definitions with plain numpy.
"""

from __future__ import annotations

from gaussqp.settings import RANGE_RTOL

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import OptimizeResult

from gaussqp.certificates import report
from gaussqp.certificates import structural as cert
from gaussqp.errors import UndecidedError
from gaussqp.model.problem import Contact, ContactProblem


def prob(M, F, contacts, d=2):
    return ContactProblem(np.asarray(M, dtype=float), F, contacts, dimension=d)


def bil(n, b=0.0):
    return Contact("bilateral", normal=n, normal_drift=b)


def uni(n, b=0.0):
    return Contact("unilateral", normal=n, normal_drift=b)


def smin(A):
    return float(np.linalg.svd(np.asarray(A, dtype=float), compute_uv=False)[-1])


def _boom(*a, **k):
    raise UndecidedError("test double")


# ------------------------------------------------------------------------------------------------------ C1


def test_c1_definite_no_rows():
    c = cert.c1_kernel(prob(np.diag([4.0, 9.0]), [0.0, 0.0], []))
    assert c.id == "C1" and c.holds is True and c.margin == pytest.approx(1.0, rel=1e-12)  # rows of R normalized
    assert c.data == {"rank_J_b": 0, "rows_J_b": 0}
    assert c.implies.startswith("the KKT matrix (4) is nonsingular")


def test_c1_singular_mass_completed_by_bilateral_row():
    # R ∝ (1, 0), E = (0, 3): normalized S = I, σ_min 1 (unnormalized it would be min(2, 3) = 2)
    c = cert.c1_kernel(prob(np.diag([4.0, 0.0]), [0.0, 0.0], [bil([0.0, 3.0])]))
    assert c.holds is True and c.margin == pytest.approx(1.0, rel=1e-12)
    assert c.data == {"rank_J_b": 1, "rows_J_b": 1}


def test_c1_redundant_bilateral_rows():
    # S = [(1, 0); (0, 1); (0, 1)]: SᵀS = diag(1, 2), σ_min = 1; rank J_b = 1 < 2 rows
    c = cert.c1_kernel(prob(np.diag([1.0, 0.0]), [0.0, 0.0], [bil([0.0, 1.0]), bil([0.0, 2.0], 1.0)]))
    assert c.holds is True and c.margin == pytest.approx(1.0, rel=1e-12)
    assert c.data == {"rank_J_b": 1, "rows_J_b": 2}
    assert c.implies.startswith("redundant equality rows")


def test_c1_fails_with_too_few_rows():
    c = cert.c1_kernel(prob(np.diag([1.0, 0.0, 0.0]), [0.0, 0.0, 0.0], [bil([0.0, 1.0, 0.0])]))
    assert c.holds is False and c.margin == -1.0
    assert c.implies.startswith("ker M ∩ ker J_b ≠ {0}")


def test_c1_fails_with_rank_deficit_margin_shifted():
    # S = [(1, 0); (1, 1e-12)/‖·‖]: rank 1 at the library's rule, σ_min ~ 7e-13; margin = -1 + σ_min
    c = cert.c1_kernel(prob(np.diag([1.0, 0.0]), [0.0, 0.0], [bil([1.0, 1e-12])]))
    S = np.array([[1.0, 0.0], [1.0, 1e-12] / np.hypot(1.0, 1e-12)])
    assert c.holds is False
    assert c.margin == pytest.approx(-1.0 + smin(S), abs=1e-14)
    assert c.margin > -1.0


# ------------------------------------------------------------------------------------------------------ C2


def test_c2_no_constraints():
    c = cert.c2_independence(prob(np.eye(2), [0.0, 0.0], []))
    assert c.id == "C2" and c.holds is None and c.margin == 0.0 and c.implies == "no constraints"


def test_c2_independent_margin_of_normalized_rows():
    c = cert.c2_independence(prob(np.eye(2), [0.0, 0.0], [uni([3.0, 0.0]), uni([1.0, 1.0])]))
    assert c.holds is True
    assert c.margin == pytest.approx(smin([[1.0, 0.0], [2**-0.5, 2**-0.5]]), rel=1e-12)
    assert c.implies.startswith("the multipliers are unique")


def test_c2_dependent_rows_margin_is_rank_deficit():
    p = prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0]), uni([0.0, 2.0]), uni([1.0, 0.0])])
    c = cert.c2_independence(p)
    assert c.holds is False and c.margin == -1.0 and "rank 2 < 3" in c.implies


def test_c2_counts_sticking_tangent_rows():
    c = Contact("unilateral", normal=[0.0, 1.0], mode="sticking", friction=0.5, tangent=[[0.0, 2.0]])
    r = cert.c2_independence(prob(np.eye(2), [0.0, 1.0], [c]))
    assert r.holds is False and r.margin == -1.0 and "rank 1 < 2" in r.implies


# ------------------------------------------------------------------------------------------------------ C3


def test_c3_definite_trivial_and_ii_not_needed():
    out = cert.c3_tangent_cone(prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert [c.id for c in out] == ["C3", "C3(ii)"]
    assert out[0].holds is True and out[0].margin == float("inf")
    assert out[0].implies.startswith("F1 has a minimizer (the MLCP")
    assert out[1].holds is None and out[1].margin == float("inf") and out[1].implies == "not needed: C3(i) holds"


@pytest.mark.parametrize(
    "f2, holds, margin, words",
    [
        (2.0, True, 1.0, "F1 has a minimizer whenever"),
        (2e-12, True, 1.0, "F1 has a minimizer whenever"),
        (0.5e-15, True, 1.0, "F1 has a minimizer whenever"),
        (0.0, False, 0.0, "Fᵀv = 0 on a cone direction"),
        (-0.5e-15, False, -1.0, "a direction v in the cone with Fᵀv < 0"),
        (-0.5, False, -1.0, "a direction v in the cone with Fᵀv < 0"),
    ],
)
def test_c3_singular_cone_and_variant_ii(f2, holds, margin, words):
    # M = diag(1, 0), a2 >= 0: cone {v1 = 0, v2 >= 0} normalized by Gv = 1: v = (0, 1), min Fᵀv = F2; the margin is
    # Fᵀv relative to its terms |F|ᵀ|v| = |F2|: the sign of F2 whatever its unit (issue #9 part 3)
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [5.0, f2], [uni([0.0, 1.0])]))
    assert out[0].holds is False and out[0].implies.startswith("the cone is not {0}")
    w = out[0].data["witness"]
    assert abs(w[0]) < 1e-12 and w[1] > 0
    assert out[1].holds is holds and out[1].margin == pytest.approx(margin, rel=1e-9, abs=1e-20)
    assert out[1].data["value"] == pytest.approx(f2, rel=1e-9, abs=1e-300)
    assert out[1].implies.startswith(words)
    np.testing.assert_allclose(np.abs(out[1].data["direction"]), [0.0, 1.0], atol=1e-12)


def test_c3_uses_bilateral_rows():
    # M = diag(1, 0), bilateral a2 = 0 closes the kernel: trivial
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, -1.0], [bil([0.0, 1.0])]))
    assert out[0].holds is True


def test_c3_undecided(monkeypatch):
    p = prob(np.diag([1.0, 0.0]), [0.0, 1.0], [uni([0.0, 1.0])])
    monkeypatch.setattr(cert, "min_linear_on_cone", _boom)
    out = cert.c3_tangent_cone(p)
    assert [c.id for c in out] == ["C3", "C3(ii)"] and out[0].holds is False
    assert out[1].holds is None and np.isnan(out[1].margin) and out[1].implies == "undecided: test double"
    monkeypatch.setattr(cert, "cone_is_trivial", _boom)
    out = cert.c3_tangent_cone(p)
    assert len(out) == 1 and out[0].id == "C3" and out[0].holds is None and np.isnan(out[0].margin)
    assert out[0].implies == "undecided: test double"


# ------------------------------------------------------------------------------------------------------ C4


def test_c4_definite():
    c = cert.c4_singular_uniqueness(prob(np.eye(2), [0.0, 1.0], []))
    assert c.holds is True and c.margin == float("inf") and c.implies.startswith("M ≻ 0")


@pytest.mark.parametrize("F, margin", [([0.0, 2.0], 1.0), ([3.0, 1.0], 0.5), ([1.0, 3.0], 0.5), ([2e-9, 1e-9], 1 / 3)])
def test_c4_one_dimensional_kernel_in_ker_J(F, margin):
    # ker M = span e, e = (1, -1)/√2, J = (1, 1) ⟂ e: |Fᵀe| / (|F|ᵀ|e|) = |F1 - F2| / (|F1| + |F2|)
    c = cert.c4_singular_uniqueness(prob(np.ones((2, 2)), F, [uni([1.0, 1.0])]))
    assert c.holds is True and c.margin == pytest.approx(margin, rel=1e-9)
    assert c.data["kernel_dimension"] == 1 and c.data["J_on_kerM"] < 1e-15
    assert c.implies.startswith("at most one acceleration")


def test_c4_fails_when_kernel_not_in_ker_J():
    # J = (1, 1)/√2 on e2: viol = 1/√2; margin = min(cond2, -viol)
    c = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([1.0, 1.0])]))
    assert c.holds is False and c.margin == pytest.approx(-(2**-0.5), rel=1e-12)
    assert c.data["J_on_kerM"] == pytest.approx(2**-0.5, rel=1e-12)
    assert c.implies.startswith("not satisfied")


def test_c4_small_violation_thresholds():
    # J = (1, t)/‖·‖: viol ≈ t
    ok = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([1.0, 0.5e-9])]))
    assert ok.holds is True and ok.margin == pytest.approx(1.0, rel=1e-12)
    bad = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([1.0, 2e-9])]))
    assert bad.holds is False and bad.margin == pytest.approx(-2e-9, rel=1e-6)
    # F ⟂ ker M up to 1e-12 of its terms: ker M = span (1, -1)/√2, F = (1, 1 - δ): margin δ/(2 - δ)
    f = cert.c4_singular_uniqueness(prob(np.ones((2, 2)), [1.0, 1.0 - 1.8e-12], [uni([1.0, 1.0])]))
    assert f.holds is False and f.margin == pytest.approx(0.9e-12, rel=1e-3, abs=0)
    g = cert.c4_singular_uniqueness(prob(np.ones((2, 2)), [1.0, 1.0 - 2.2e-12], [uni([1.0, 1.0])]))
    assert g.holds is True and g.margin == pytest.approx(1.1e-12, rel=1e-3, abs=0)


def test_c4_two_dimensional_kernel():
    c = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0, 0.0]), [0.0, 1.0, 1.0], [uni([1.0, 0.0, 0.0])]))
    assert c.holds is False and c.margin == 0.0 and c.data["kernel_dimension"] == 2


# ------------------------------------------------------------------------------------------- feasible point


def test_verified_feasible_point_and_none_when_infeasible():
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], -2.0), uni([0.0, 1.0], -1.0)])  # a1 = 2, a2 >= 1
    a = cert._verified_feasible_point(p)
    assert a[0] == pytest.approx(2.0, rel=1e-12) and a[1] >= 1.0 - 1e-12
    q = prob(np.eye(1), [0.0], [uni([1.0], -3.0), uni([-1.0], -1.0)])
    assert cert._verified_feasible_point(q) is None
    r = prob(np.eye(1), [0.0], [bil([1.0], -3.0), bil([1.0], -1.0)])
    assert cert._verified_feasible_point(r) is None
    assert cert._verified_feasible_point(prob(np.eye(1), [0.0], [])) is not None


def _fake_linprog(monkeypatch, x, status=0):
    import scipy.optimize

    monkeypatch.setattr(
        scipy.optimize,
        "linprog",
        lambda *a, **k: OptimizeResult(x=None if x is None else np.asarray(x, dtype=float), status=status),
    )


def test_verified_feasible_point_rejects_unverified_answers(monkeypatch):
    # a1 = 2 (bilateral), a2 - 1 >= 0; M = I, F = 0: accel = 2 (drifts 2 and 1), row scales 2 + 2 = 4 and 2 + 1 = 3;
    # at a = (2, 1) the equality scale is |E||a| + |e| + 4 = 8 and the inequality scale 1 + 1 + 3 = 5
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], -2.0), uni([0.0, 1.0], -1.0)])
    _fake_linprog(monkeypatch, [2.0 + 8 * 0.5e-9, 1.0])
    assert cert._verified_feasible_point(p) is not None
    _fake_linprog(monkeypatch, [2.0 + 8 * 2e-9, 1.0])
    assert cert._verified_feasible_point(p) is None
    _fake_linprog(monkeypatch, [2.0 - 8 * 2e-9, 1.0])
    assert cert._verified_feasible_point(p) is None
    _fake_linprog(monkeypatch, [2.0, 1.0 - 5 * 0.5e-9])
    assert cert._verified_feasible_point(p) is not None
    _fake_linprog(monkeypatch, [2.0, 1.0 - 5 * 2e-9])
    assert cert._verified_feasible_point(p) is None
    _fake_linprog(monkeypatch, [2.0, 1.0 + 5.0])  # slack on the inequality is fine
    assert cert._verified_feasible_point(p) is not None
    _fake_linprog(monkeypatch, [2.0, 1.0], status=2)
    assert cert._verified_feasible_point(p) is None
    _fake_linprog(monkeypatch, None)
    assert cert._verified_feasible_point(p) is None


# ------------------------------------------------------------------------------------------------------ C5


def test_c5_infeasible():
    # a >= 3 and a <= -1: y = (1/4, 1/4) (see test_instance_verification): margin -1 / |y|max = -4
    out = cert.c5_lcp_solvability(prob(np.eye(1), [0.0], [uni([1.0], -3.0), uni([-1.0], -1.0)]))
    assert out[0].id == "C5" and out[0].holds is False and out[0].margin == pytest.approx(-4.0, rel=1e-9)
    assert out[0].implies.startswith("the constraint set of the data as given is empty")
    np.testing.assert_allclose(out[0].data["farkas_vector"], [0.25, 0.25], rtol=1e-9)


def test_c5_feasible_definite_and_singular():
    out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert out[0].holds is True and out[0].margin == 0.0 and out[0].implies == "the contact LCP is solvable"
    assert out[0].data["farkas_vector"] is None
    out = cert.c5_lcp_solvability(prob(np.diag([1.0, 0.0]), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert len(out) == 1 and out[0].holds is True
    assert out[0].implies == "the constraint set K ∩ K_b is nonempty (Assumption 4)"


def test_c5_undecided(monkeypatch):
    monkeypatch.setattr(cert, "_verified_feasible_point", lambda p: None)
    monkeypatch.setattr(cert, "_point_on_independent_rows", lambda p: None)
    monkeypatch.setattr(cert, "_point_on_equalities", lambda p: None)
    out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert out[0].holds is None and np.isnan(out[0].margin) and out[0].implies.startswith("undecided")


def test_c5_without_lps_when_the_rows_are_independent(monkeypatch):
    """Issue #15: independent rows reach any right-hand side, so C5 holds with a verified least-squares point and
    no LP; dependent rows (or a point that fails its check) leave the decision to the LPs, with the same verdict."""
    independent = prob(np.eye(3), [0.0, 1.0, 0.0], [uni([0.0, 1.0, 0.0], -2.0), bil([1.0, 0.0, 1.0], 0.5)])
    a = cert._point_on_independent_rows(independent)
    E, e = independent.equalities
    G, g = independent.inequalities
    assert a is not None and abs(E @ a + e).max() < 1e-12 and (G @ a + g).min() > -1e-12
    with_lp = cert.c5_lcp_solvability(independent)[0]
    monkeypatch.setattr(cert, "farkas_vector", lambda *args: pytest.fail("an LP ran although C2 implies C5"))
    assert cert.c5_lcp_solvability(independent)[0].holds is True is with_lp.holds
    monkeypatch.undo()
    dependent = prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0], 1.0), uni([0.0, -1.0], -2.0)])  # a_2 >= -1, a_2 <= -2
    assert cert._point_on_independent_rows(dependent) is None  # rows ±(0, 1): dependent
    out = cert.c5_lcp_solvability(dependent)[0]
    assert out.holds is False and out.data["farkas_vector"] is not None  # the LP finds the Farkas vector


def test_c5_range_without_bilateral_rows():
    # two rows (0, 1): A_c = [[1, 1], [1, 1]]; drift g projected on span (1, 1)
    def r(g):
        out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0], g[0]), uni([0.0, 1.0], g[1])]))
        assert [c.id for c in out] == ["C5", "C5(range)"]
        return out[1]

    c = r((0.0, 1.0))  # residual (0.5, 0.5) max 0.5 / 1 (relative to ‖drift‖∞, issue #9 part 4)
    assert (
        c.holds is False
        and c.margin == pytest.approx(RANGE_RTOL - 0.5, rel=1e-12)
        and c.implies.startswith("not satisfied")
    )
    c = r((0.0, 3.0))  # residual 1.5 / 3
    assert c.margin == pytest.approx(RANGE_RTOL - 0.5, rel=1e-12)
    c = r((0.0, 0.5))  # residual 0.25 / 0.5 (before: / max(1, 0.5))
    assert c.margin == pytest.approx(RANGE_RTOL - 0.5, rel=1e-12)
    c = r((2.0, 2.0))
    assert c.holds is True and c.margin > 0 and c.implies == "the contact LCP is solvable"
    c = r((2.0, 2.0 + 2e-9))  # residual 1e-9 / 2 = 5e-10: holds
    assert c.holds is True
    c = r((0.0, 4e-9))  # residual 2e-9 / 4e-9: fails
    assert c.holds is False


def test_c5_range_with_bilateral_row():
    # M = I, bilateral a1 = 2 (row (1, 0), b = -2), unilateral rows (1, 1) twice with g = (0, 1):
    # A_c = J_u diag(0, 1) J_uᵀ = [[1, 1], [1, 1]]; drift = J_u (2, 0) + g = (2, 3): residual 0.5 / 3
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], -2.0), uni([1.0, 1.0], 0.0), uni([1.0, 1.0], 1.0)])
    out = cert.c5_lcp_solvability(p)
    assert out[1].margin == pytest.approx(RANGE_RTOL - 0.5 / 3.0, rel=1e-12)


def test_c5_takes_a_candidate_point_that_verifies(monkeypatch):
    """A judged answer's acceleration, verified row by row, is C5's feasible point (no least-squares point, no LP); a
    candidate that fails the check (or is not finite) leaves the decision to the usual points."""
    p = prob(np.eye(3), [0.0, 1.0, 0.0], [uni([0.0, 1.0, 0.0], -2.0), bil([1.0, 0.0, 1.0], 0.5)])
    good = np.array([-0.5, 3.0, 0.0])  # a1 + a3 = -0.5, a2 >= 2
    monkeypatch.setattr(cert, "_point_on_independent_rows", lambda p: pytest.fail("the candidate verified"))
    out = cert.c5_lcp_solvability(p, good)[0]
    assert out.holds is True and np.array_equal(out.data["evidence"]["feasible_point"], good)
    monkeypatch.undo()
    for bad in (np.array([-0.5, 1.0, 0.0]), np.array([0.0, 3.0, 0.0]), np.array([np.nan, 3.0, 0.0])):
        out = cert.c5_lcp_solvability(p, bad)[0]  # a2 < 2; a1 + a3 != -0.5; NaN
        assert out.holds is True and not np.array_equal(out.data["evidence"]["feasible_point"], bad)
    infeasible = prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0], 1.0), uni([0.0, -1.0], -2.0)])
    assert cert.c5_lcp_solvability(infeasible, np.zeros(2))[0].holds is False  # no candidate makes it feasible
    # a1 + a2 >= 1 and a1 + a2 <= 0.5: infeasible; a huge candidate whose terms cancel is held to the data's scale
    # (with each row's own terms |J_i||a| in its scale, (0.75 - t, t) passed from t = 2e8)
    rows = [uni([1.0, 1.0], -1.0), uni([-1.0, -1.0], 0.5)]
    for t in (0.0, 2e8, 1e12):
        out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 0.0], rows), np.array([0.75 - t, t]))[0]
        assert out.holds is False and out.data["farkas_vector"] is not None


@pytest.mark.parametrize("seed", range(20))
def test_c5_range_from_independent_rows_agrees_with_the_least_squares_test(seed, monkeypatch):
    """M ≻ 0 and independent rows ``[J_b; J_u]`` (C2): C5(range) holds without a solve; the least-squares test it
    replaces gives the same verdict on the same random problems (bilateral rows or not, any drifts; rows of sizes
    within a decade: with rows of sizes 1e-3 to 1e3 the least-squares test truncated A_c's small singular values and
    missed the condition by a residual of 3e-9, where the exact argument holds)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    k = int(rng.integers(1, n + 1))
    R = rng.normal(size=(n, n))
    M = R @ R.T + 0.1 * np.eye(n)
    rows = rng.normal(size=(k, n)) * 10.0 ** rng.uniform(-1, 1, size=(k, 1))
    nb = int(rng.integers(0, k))  # the first nb rows bilateral, at least one unilateral
    contacts = [(bil if i < nb else uni)(rows[i], float(rng.normal())) for i in range(k)]
    p = prob(M, rng.normal(size=n), contacts, d=2)
    assert cert._rows_independent(p)
    short = cert.c5_lcp_solvability(p)[1]
    assert short.id == "C5(range)" and short.holds is True
    assert short.margin == cert.c2_independence(p).margin > 0  # C2's margin: the rows' smallest singular value
    monkeypatch.setattr(cert, "_rows_independent", lambda p: False)
    solved = cert.c5_lcp_solvability(prob(M, p.F, contacts, d=2))[1]
    assert solved.id == "C5(range)" and solved.holds is True
    monkeypatch.undo()
    dependent = prob(M, p.F, contacts + [uni(rows[-1], 1.0)], d=2)  # a repeated row: the least-squares test decides
    assert not cert._rows_independent(dependent)
    lstsq = cert.c5_lcp_solvability(dependent)[1]
    assert (
        lstsq.id == "C5(range)"
        and lstsq.margin <= RANGE_RTOL
        and lstsq.source == "tutorial Prop. 3(v), 7(vi), Remark 2"
    )


def test_c5_range_absent_without_unilateral_rows():
    assert len(cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], -2.0)]))) == 1


# ------------------------------------------------------------------------------------------------------ C6


def test_c6_not_applicable():
    assert cert.c6_delassus(prob(np.diag([1.0, 0.0]), [0.0, 0.0], [bil([1.0, 0.0]), uni([0.0, 1.0])])) == []
    assert cert.c6_delassus(prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0])])) == []
    assert cert.c6_delassus(prob(np.eye(2), [0.0, 0.0], [bil([0.0, 1.0])])) == []


def test_c6_orthogonal_rows():
    p = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 0, 1.0])])
    out = cert.c6_delassus(p)
    assert [c.id for c in out] == ["C6", "C6(angles)", "C6(count)"]
    assert out[0].holds is True and out[0].margin == pytest.approx(1.0, rel=1e-12)
    assert out[1].holds is True and out[1].margin == pytest.approx(1.0, rel=1e-12)
    assert out[1].implies == "A_c ≻ 0 (kinetic-angle form)" and out[1].data["kinetic_angles"].shape == (2, 1)
    assert out[2].holds is True and out[2].margin == 0.0 and out[2].implies == "necessary for A_c ≻ 0 holds"


def test_c6_angle_between_unilateral_and_bilateral():
    # E = (1, 0, 0), G = (1, 1, 0); M = diag(1, 1, 2): cos θ = -1/√2: 1 - cos² = 1/2;
    # A_c = J_u diag(0, 1, 1/2) J_uᵀ = 1 against the reference J_u M⁻¹ J_uᵀ = 2: margin 1/2 too
    p = prob(np.diag([1.0, 1.0, 2.0]), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([1.0, 1.0, 0])])
    out = cert.c6_delassus(p)
    assert out[0].margin == pytest.approx(0.5, rel=1e-12) and out[0].holds is True
    assert out[1].margin == pytest.approx(0.5, rel=1e-12) and out[1].holds is True
    assert out[1].data["kinetic_angles"][0, 0] == pytest.approx(np.pi - np.arccos(2**-0.5), rel=1e-12)


def test_c6_colinear_rows_not_definite():
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0]), uni([2.0, 0.0])])
    out = cert.c6_delassus(p)
    assert out[0].holds is False and abs(out[0].margin) < 1e-12
    assert out[0].implies.startswith("A_c is not certified positive definite")
    assert out[1].holds is False and abs(out[1].margin) < 1e-12 and out[1].implies == "A_c is not positive definite"


def test_c6_nearly_colinear_thresholds():
    # E = (1, 0), G = (1, t): A_c = t² against 1 + t²; 1 - cos² = t² / (1 + t²)
    for t, ok in ((2e-5, True), (0.5e-5, False)):
        out = cert.c6_delassus(prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0]), uni([1.0, t])]))
        assert out[0].margin == pytest.approx(t * t / (1 + t * t), rel=1e-5) and out[0].holds is ok
        assert out[1].margin == pytest.approx(t * t / (1 + t * t), rel=1e-3) and out[1].holds is ok


def test_c6_not_orthogonal_premises_fail():
    p = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 1.0, 1.0])])
    out = cert.c6_delassus(p)
    assert out[1].holds is None and out[1].margin == 0.0 and "not mutually orthogonal" in out[1].implies
    q = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), bil([1.0, 1.0, 0]), uni([0, 0, 1.0])])
    out = cert.c6_delassus(q)
    assert out[1].holds is None and "not mutually orthogonal" in out[1].implies


def test_c6_zero_row_has_no_angle():
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0]), uni([0.0, 1.0]), uni([0.0, 0.0], 1.0)])
    out = cert.c6_delassus(p)
    assert out[0].margin == 0.0 and out[0].holds is False
    assert out[1].holds is None and out[1].margin == 0.0 and "a zero constraint row" in out[1].implies
    z = prob(np.eye(2), [0.0, 0.0], [bil([0.0, 0.0], 0.0), uni([0.0, 1.0])])
    assert "a zero constraint row" in cert.c6_delassus(z)[1].implies


def test_c6_count():
    out = cert.c6_delassus(prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0]), uni([0.0, 1.0]), uni([1.0, 1.0])]))
    assert out[-1].id == "C6(count)" and out[-1].holds is False and out[-1].margin == -1.0
    assert out[-1].implies.startswith("A_c cannot be positive definite")


# ------------------------------------------------------------------------------------------- check, report


def test_structural_certificates_order_and_sliding():
    p = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 0, 1.0])])
    assert [c.id for c in cert.structural_certificates(p)] == [
        "C1",
        "C2",
        "C3",
        "C3(ii)",
        "C4",
        "C5",
        "C5(range)",
        "C6",
        "C6(angles)",
        "C6(count)",
    ]
    s = Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.5, tangent=[[1.0, 0.0]], slip=[1.0])
    assert cert.structural_certificates(prob(np.eye(2), [0.0, 1.0], [s])) == []


def test_check_report():
    p = prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])])
    rep = report.check(p)
    assert rep.skipped == "" and rep.system_class.n == 2
    assert rep.certificate("C1").holds is True and rep.certificate("nope") is None
    d = rep.as_dict()
    assert d["skipped"] == "" and "friction_bounds" not in d and [c["id"] for c in d["certificates"]][0] == "C1"
    assert d["system_class"]["n"] == 2


def test_check_sliding_gets_p_matrix_and_friction_bounds():
    s = Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.5, tangent=[[1.0, 0.0]], slip=[1.0])
    rep = report.check(prob(np.eye(2), [0.0, 1.0], [s]))
    ids = [c.id for c in rep.certificates]
    assert len(ids) == 1 and rep.friction_bounds
    assert "friction_bounds" in rep.as_dict()
    # singular M: no P-matrix test
    rep = report.check(prob(np.diag([1.0, 0.0]), [0.0, 1.0], [s]))
    assert rep.certificates == []
    # with a sticking contact too: no P-matrix test (the sticking contacts are not in the LCP (58))
    t = Contact("unilateral", normal=[1.0, 0.0], mode="sticking", friction=0.5, tangent=[[0.0, 1.0]])
    rep = report.check(prob(np.eye(2), [0.0, 1.0], [s, t]))
    assert rep.certificates == []


def test_check_skips_large_problems(monkeypatch):
    n = 1501
    p = ContactProblem.from_blocks(sp.identity(n, format="csr"), np.ones(n), sp.csr_matrix((0, n)), None, [])
    rep = report.check(p)
    assert rep.certificates == [] and rep.skipped == "structural certificates skipped: n = 1501 > 1500"
    monkeypatch.setattr(report, "STRUCTURAL_N_MAX", 2)
    assert report.check(prob(np.eye(2), [0.0, 1.0], [])).skipped == ""
    assert report.check(prob(np.eye(3), [0.0, 1.0, 0.0], [])).skipped != ""


def test_stack_skips_empty_and_normalizes():
    S = cert._stack(np.array([[3.0, 4.0]]), np.zeros((0, 2)), None, np.array([[0.0, 2.0]]), n=2)
    np.testing.assert_allclose(S, [[0.6, 0.8], [0.0, 1.0]])
    assert cert._stack(None, n=3).shape == (0, 3)


# ------------------------------------------------------------------------------ the user-facing text (JSON output)


def _t(c):
    return (c.id, c.name, c.source, c.implies)


def test_c1_c2_texts():
    assert _t(cert.c1_kernel(prob(np.eye(2), [0.0, 0.0], []))) == (
        "C1",
        "ker M ∩ ker J_b = {0}",
        "tutorial Prop. 1; sticking Prop. 1",
        "the KKT matrix (4) is nonsingular: for bilateral constraints a and λ_b are unique for any right-hand side "
        "(Prop. 1(i))",
    )
    c = cert.c1_kernel(prob(np.diag([1.0, 0.0]), [0.0, 0.0], [bil([0.0, 1.0]), bil([0.0, 2.0], 1.0)]))
    assert c.implies == (
        "redundant equality rows: when they are compatible, a and the generalized force J_bᵀλ_b "
        "are unique, λ_b is not (Prop. 1(ii))"
    )
    c = cert.c1_kernel(prob(np.diag([1.0, 0.0, 0.0]), [0.0, 0.0, 0.0], [bil([0.0, 1.0, 0.0])]))
    assert c.implies == "ker M ∩ ker J_b ≠ {0}: the bilateral KKT system (4) does not determine a uniquely (Prop. 1)"
    assert _t(cert.c2_independence(prob(np.eye(2), [0.0, 0.0], []))) == (
        "C2",
        "independent constraint rows",
        "tutorial Prop. 3(i), 7(i)",
        "no constraints",
    )
    assert _t(cert.c2_independence(prob(np.eye(2), [0.0, 0.0], [uni([3.0, 0.0])]))) == (
        "C2",
        "independent constraint rows",
        "tutorial Prop. 3(i), 7(i); inertial Prop. 4(ii)",
        "the multipliers are unique whenever a solution exists; with M ≻ 0, A_c ≻ 0 and the contact LCP has a "
        "unique solution for every right-hand side",
    )
    c = cert.c2_independence(prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0]), uni([0.0, 2.0]), uni([1.0, 0.0])]))
    assert c.implies == (
        "rows dependent (rank 2 < 3): multipliers may be non-unique; the exact test decides per instance"
    )


def test_c3_c4_texts(monkeypatch):
    src = "tutorial Prop. 3(vi), 7(vii); singular Props. 3(i), 4(i), 6(i)"
    out = cert.c3_tangent_cone(prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert _t(out[0]) == (
        "C3",
        "T_S ∩ ker J_b ∩ ker M = {0}",
        src,
        "F1 has a minimizer (the MLCP (16) is solvable) whenever the constraint set is nonempty",
    )
    ii = ("C3(ii)", "Fᵀv > 0 on T_S ∩ ker J_b ∩ ker M \\ {0}", "singular Props. 3(ii), 4(ii), 6(ii)")
    assert _t(out[1]) == ii + ("not needed: C3(i) holds",)
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([0.0, 1.0])]))
    assert _t(out[0]) == (
        "C3",
        "T_S ∩ ker J_b ∩ ker M = {0}",
        src,
        "the cone is not {0}: solvability depends on F (see C3(ii))",
    )
    assert _t(out[1]) == ii + ("F1 has a minimizer whenever the constraint set is nonempty",)
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, -2.0], [uni([0.0, 1.0])]))
    assert out[1].implies == "a direction v in the cone with Fᵀv < 0: F1 is unbounded below if feasible"
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, 0.0], [uni([0.0, 1.0])]))
    assert out[1].implies == "Fᵀv = 0 on a cone direction: a minimizer may exist but is then not unique"
    monkeypatch.setattr(cert, "min_linear_on_cone", _boom)
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([0.0, 1.0])]))
    assert _t(out[1]) == ii + ("undecided: test double",)
    monkeypatch.setattr(cert, "cone_is_trivial", _boom)
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([0.0, 1.0])]))
    assert _t(out[0]) == ("C3", "T_S ∩ ker J_b ∩ ker M = {0}", src, "undecided: test double")
    c4 = ("C4", "uniqueness with singular M", "singular Prop. 5(b)")
    assert _t(cert.c4_singular_uniqueness(prob(np.eye(2), [0.0, 1.0], []))) == c4 + (
        "M ≻ 0: at most one acceleration (vacuous form of Prop. 5(b))",
    )
    assert _t(cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([1.0, 0.0])]))) == c4 + (
        "at most one acceleration. Note: with ker M ⊆ ker J and Fᵀe ≠ 0 the objective of F1 decreases without bound "
        "along ±e, so these conditions in fact exclude any solution (see C3(ii))",
    )
    assert _t(cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([0.0, 1.0])]))) == c4 + (
        "not satisfied (dim ker M >= 2 or ker M ⊄ ker J or F ⟂ ker M): no conclusion",
    )


def test_c5_c6_texts(monkeypatch):
    c5 = ("C5", "λ_u >= 0, Jᵀλ = 0 ⇒ bᵀλ >= 0", "tutorial Prop. 3(iv), 7(v); inertial Lemma 4")
    out = cert.c5_lcp_solvability(prob(np.eye(1), [0.0], [uni([1.0], -3.0), uni([-1.0], -1.0)]))
    assert _t(out[0]) == c5 + (
        "the constraint set of the data as given is empty: no solution of these exact data (a Farkas vector exists); "
        "whether data within the tolerance have one is the verdict's question (a certified infeasible must survive "
        "gaussqp.settings.NONEXISTENCE_CHANGE)",
    )
    out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 0.0], [uni([0.0, 1.0], 0.0), uni([0.0, 1.0], 1.0)]))
    assert _t(out[0]) == c5 + ("the contact LCP is solvable",)
    assert _t(out[1]) == (
        "C5(range)",
        "drift part of w_c in im A_c",
        "tutorial Prop. 3(v), 7(vi), Remark 2",
        "not satisfied: no conclusion (sufficient condition)",
    )
    monkeypatch.setattr(cert, "_verified_feasible_point", lambda p: None)
    monkeypatch.setattr(cert, "_point_on_independent_rows", lambda p: None)
    monkeypatch.setattr(cert, "_point_on_equalities", lambda p: None)
    out = cert.c5_lcp_solvability(prob(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])]))
    assert out[0].implies == "undecided: neither a Farkas vector nor a feasible point could be verified"
    out = cert.c6_delassus(prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 0, 1.0])]))
    assert _t(out[0]) == (
        "C6",
        "A_c ≻ 0",
        "tutorial Prop. 7(i); inertial Prop. 10",
        "the constrained contact LCP (31) has a unique solution for every w_c",
    )
    ang = "I - [Σ cos θ_ji cos θ_ki] ≻ 0"
    assert _t(out[1]) == ("C6(angles)", ang, "inertial Thm. 1, Prop. 7, Cor. 2-3", "A_c ≻ 0 (kinetic-angle form)")
    assert _t(out[2]) == ("C6(count)", "m + p <= n", "inertial Cor. 5", "necessary for A_c ≻ 0 holds")
    out = cert.c6_delassus(prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 1.0, 1.0])]))
    assert _t(out[1]) == (
        "C6(angles)",
        ang,
        "inertial Thm. 1",
        "premises fail (constraints not mutually orthogonal in the kinetic metric); see C6",
    )
    out = cert.c6_delassus(prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0]), uni([0.0, 1.0]), uni([0.0, 0.0], 1.0)]))
    assert _t(out[1]) == (
        "C6(angles)",
        ang,
        "inertial Thm. 1",
        "premises fail (a zero constraint row has no kinetic angle); see C6",
    )
    assert out[1].data["kinetic_angles"].shape == (2, 1)
    assert out[-1].implies == "A_c cannot be positive definite (m + p > n)"


# ------------------------------------------------------------------------- second round: survivors of the first run


@pytest.mark.parametrize(
    "delta, holds, words",
    [
        (1.8e-12, False, "Fᵀv = 0 on a cone direction"),
        (2.2e-12, True, "F1 has a minimizer"),
        (-1.8e-12, False, "Fᵀv = 0 on a cone direction"),
        (-2.2e-12, False, "a direction v in the cone with Fᵀv < 0"),
    ],
)
def test_c3_ii_bounds_are_strict(delta, holds, words):
    # ker M = span (1, -1), the row a1 - a2 >= 0 keeps v = t (1, -1), t > 0; F = (1, 1 - δ): Fᵀv / |F|ᵀ|v| = δ/(2 - δ)
    out = cert.c3_tangent_cone(prob(np.ones((2, 2)), [1.0, 1.0 - delta], [uni([1.0, -1.0])]))
    assert out[1].margin == pytest.approx(delta / 2, rel=1e-3) and out[1].holds is holds
    assert out[1].implies.startswith(words)


def test_c3_ii_with_two_unilateral_rows():
    # M = diag(1, 0, 0); a2 >= 0, a3 >= 0; F = (0, 1, 3): min Fᵀv over {v1 = 0, v >= 0, v2 + v3 = 1} = 1
    out = cert.c3_tangent_cone(prob(np.diag([1.0, 0.0, 0.0]), [0.0, 1.0, 3.0], [uni([0, 1.0, 0]), uni([0, 0, 1.0])]))
    assert out[0].holds is False and out[1].holds is True and out[1].margin == pytest.approx(1.0, rel=1e-9)


def test_c4_without_contacts_and_inclusive_bounds():
    c = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], []))
    assert c.holds is True and c.data["J_on_kerM"] == 0.0 and c.margin == pytest.approx(1.0, rel=1e-12)
    # J = (1, 1e-9) (norm 1.0 in floating point): viol exactly 1e-9, allowed; the margin is cond2 then
    c = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [0.0, 2.0], [uni([1.0, 1e-9])]))
    assert c.data["J_on_kerM"] == 1e-9 and c.holds is True and c.margin == pytest.approx(1.0, rel=1e-12)
    # F vanishing on ker M: 0 relative to its terms, whatever F elsewhere
    c = cert.c4_singular_uniqueness(prob(np.diag([1.0, 0.0]), [1.0, 0.0], [uni([1.0, 0.0])]))
    assert c.margin == 0.0 and c.holds is False


def test_verified_feasible_point_free_variables():
    # the only feasible point has negative coordinates: a1 = -2, a2 <= -1
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], 2.0), uni([0.0, -1.0], -1.0)])
    a = cert._verified_feasible_point(p)
    assert a is not None and a[0] == pytest.approx(-2.0, rel=1e-12) and a[1] <= -1.0 + 1e-12


def test_verified_feasible_point_scales_include_the_drift(monkeypatch):
    # as in test_verified_feasible_point_rejects_unverified_answers: scales 8 (equality) and 5 (inequality) at
    # a = (2, 1), of which |e| = 2 and |g| = 1: residuals of 0.7 of the bound pass
    p = prob(np.eye(2), [0.0, 0.0], [bil([1.0, 0.0], -2.0), uni([0.0, 1.0], -1.0)])
    _fake_linprog(monkeypatch, [2.0 + 8 * 0.7e-9, 1.0])
    assert cert._verified_feasible_point(p) is not None
    _fake_linprog(monkeypatch, [2.0, 1.0 - 5 * 0.7e-9])
    assert cert._verified_feasible_point(p) is not None


def test_c6_orthogonality_tolerance():
    # unilateral rows (0, 1, 0), (0, 5e-9, 1): cos 5e-9 > 1e-9: not orthogonal, premises fail
    p = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), uni([0, 1.0, 0]), uni([0, 5e-9, 1.0])])
    out = cert.c6_delassus(p)
    assert out[1].holds is None and "not mutually orthogonal" in out[1].implies
    assert out[1].data["kinetic_angles"].shape == (2, 1)
    q = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), bil([5e-9, 1.0, 0]), uni([0, 0, 1.0])])
    assert cert.c6_delassus(q)[1].holds is None
    # two orthogonal bilateral rows: premises hold
    r = prob(np.eye(3), [0.0, 0.0, 0.0], [bil([1.0, 0, 0]), bil([0, 1.0, 0]), uni([0, 0, 1.0])])
    out = cert.c6_delassus(r)
    assert out[1].holds is True and out[1].margin == pytest.approx(1.0, rel=1e-12)


def test_check_report_fields():
    p = ContactProblem(np.eye(2), [0.0, 1.0], [uni([0.0, 1.0])], dimension=2, name="box")
    d = report.check(p).as_dict()
    assert d["problem"] == "box"
    s = Contact("unilateral", normal=[0.0, 1.0], mode="sliding", friction=0.5, tangent=[[1.0, 0.0]], slip=[1.0])
    d = report.check(prob(np.eye(2), [0.0, 1.0], [s])).as_dict()
    assert isinstance(d["friction_bounds"], list) and d["friction_bounds"]


def test_check_skipped_report_fields():
    n = 1501
    p = ContactProblem.from_blocks(sp.identity(n, format="csr"), np.ones(n), sp.csr_matrix((0, n)), None, [])
    rep = report.check(p)
    assert rep.problem is p and rep.system_class.n == n and rep.friction_bounds == []
