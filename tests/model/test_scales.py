"""Decisions at the data's scale, row by row (issue #9): each test failed on the code before the fix."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.model.scales import data_scales
from gaussqp.certificates.residuals import kkt_residuals

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from exact_oracle import dual_energy_gap, energy_gap, energy_scale, exact_frictionless  # noqa: E402


def _exact(p):
    E, e = p.equalities
    G, g = p.inequalities
    return exact_frictionless(p.M, p.F, E, e, G, g)


def _assert_right_or_honest(p, sol, gap=1e-6):
    """A ``solved`` answer must be the exact one (energy norms); anything else must not claim success."""
    ref = _exact(p)
    if sol.status != "solved":
        assert not sol.certified
        return
    assert sol.certified
    assert ref is not None
    a_ref, f_ref = ref
    scale = energy_scale(p.M, p.F, a_ref)
    assert energy_gap(p.M, a_ref, sol.acceleration) <= gap * scale
    assert dual_energy_gap(p.M, f_ref, sol.generalized_force) <= gap * scale


@pytest.mark.parametrize("big", [1e6, 1e10, 1e12])
def test_diagonal_mass_over_decades_is_definite_and_bounded(big):
    """M = diag(1, big), F = (-1, 0): was certified 'unbounded' (the eigenvalue 1 called zero next to 1e10)."""
    p = ContactProblem(np.diag([1.0, big]), [-1.0, 0.0], [], dimension=2)
    assert p.classify().mass == "definite"
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    np.testing.assert_allclose(sol.acceleration, [1.0, 0.0], atol=1e-12)


def test_rotated_ill_conditioned_mass_never_gives_a_ray():
    """A definite M at cond 1e12 (not diagonal): no 'unbounded' verdict, whatever the route decides."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    M = (Q * np.array([1.0, 1e-3, 1e-8, 1e-12])) @ Q.T
    M = 0.5 * (M + M.T)
    p = ContactProblem(M, rng.standard_normal(4), [], dimension=2)
    sol = gaussqp.solve(p)
    assert sol.status != "unbounded"
    if sol.status == "solved":
        np.testing.assert_allclose(M @ sol.acceleration, -p.F, atol=1e-9 * np.abs(p.F).max())


def test_small_row_next_to_a_large_one():
    """Two bilateral rows of norms 0.16 and 2.6e-6 at cond(M) = 1e4: Jᵀλ was off by 76-92 % while certified."""
    M = np.diag([1.0, 1e-4])
    J = np.array([[0.12, 0.1058], [2.0e-6, -1.6e-6]])
    b = np.array([0.3, 1.0e-6])
    F = np.array([1.0, -2.0])
    for types in ("bilateral", "unilateral"):
        p = ContactProblem.from_blocks(M, F, J, b, types=types)
        for formulation in ("auto", "gauss_qp"):
            _assert_right_or_honest(p, gaussqp.solve(p, formulation=formulation))


def test_small_row_violation_is_seen_at_its_own_scale():
    """The residual of a row of norm 1e-6 is judged against that row's terms, not the largest row."""
    M = np.eye(2)
    J = np.array([[1.0, 0.0], [0.0, 1e-6]])
    b = np.array([-1.0, -1e-6])
    p = ContactProblem.from_blocks(M, [0.0, 0.0], J, b, types="bilateral")
    exact = np.array([1.0, 1.0])
    lam = M @ exact  # J^T λ = M a + F
    lam_n = np.array([lam[0], lam[1] / 1e-6])
    assert kkt_residuals(p, exact, lam_n, np.zeros((2, 1)))["primal"] < 1e-15
    wrong = np.array([1.0, 0.5])  # the small row violated by 5e-7: invisible next to a unit row
    assert kkt_residuals(p, wrong, lam_n, np.zeros((2, 1)))["primal"] > 0.1


def test_garbage_answer_is_not_judged_on_its_own_scale():
    """Two bilateral rows sharing a normal with different drifts have no solution; an answer with
    |a| = 1e15 (along a massless coordinate that a third row sees) made the old primal scale
    max(1, ‖b‖, ‖J_n a‖) = 1e15, so the O(1) violation of the first two rows passed at 5e-16."""
    p = ContactProblem.from_blocks(
        np.diag([1.0, 0.0]),
        [0.0, 0.0],
        np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
        [1.0, 2.0, 0.0],
        types=["bilateral", "bilateral", "unilateral"],
    )
    a = np.array([-1.5, 1e15])
    lam = np.array([-0.75, -0.75, 0.0])  # M a + F = J^T λ exactly; the third row is inactive with λ = 0
    res = kkt_residuals(p, a, lam, np.zeros((3, 1)))
    assert res["dynamics"] == 0.0 and res["complementarity"] == 0.0
    assert res["primal"] > 0.1


def test_complementarity_per_row_with_integer_data():
    """Integer data, duplicated rows, a row active with zero multiplier (M = diag(3,0,3,0,0,4), 8 rows): the
    answer was 5e-5 off and certified; the complementarity residual was divided by max(1,|λ|)·max(1,|g|)."""
    M = np.diag([3.0, 0, 3, 0, 0, 4])
    J = np.array(
        [
            [1, 0, 0, 0, 0, 0],
            [0, 1, 0, 0, 0, 0],
            [0, 0, 0, 1, 0, 0],
            [0, 0, 0, 0, 1, 0],
            [1, 0, 1, 0, 0, 0],
            [1, 0, 1, 0, 0, 0],
            [0, 0, 0, 0, 0, 1],
            [0, 1, 0, 1, 1, 0],
        ],
        dtype=float,
    )
    b = np.array([0, 0, 0, 0, 1, 1, 2, 0], dtype=float)
    F = np.array([3.0, 0, 3, 0, 0, 4])
    types = ["bilateral"] * 4 + ["unilateral"] * 4
    p = ContactProblem.from_blocks(M, F, J, b, types=types)
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    # the exact answer by hand: a4, a5, a2 pinned to 0 by the bilateral rows (a1 = 0 too); a1 + a3 >= -1
    # with M a + F ≥ ... gives a3 = -1 (row 5/6 active), a6 = -1 (3 a... 4 a6 + 4 = λ7 ≥ 0, a6 + 2 >= 0 → a6 = -1)
    np.testing.assert_allclose(sol.acceleration[[0, 2, 5]], [0.0, -1.0, -1.0], atol=1e-9)
    lam = sol.lambda_normal
    np.testing.assert_allclose(lam[4] + lam[5], 0.0, atol=1e-9)
    assert sol.residuals["complementarity"] <= 1e-9


def test_scales_come_from_the_data_only():
    """data_scales depends on the problem, not on any answer, and is invariant in shape under row scaling."""
    M = np.diag([1.0, 1e8])
    J = np.array([[1.0, 1e-4], [1e-6, 0.0]])
    p = ContactProblem.from_blocks(M, [1.0, 1e4], J, [0.5, 1e-6], types="unilateral")
    sc = data_scales(p)
    q = ContactProblem.from_blocks(M, [1.0, 1e4], J * np.array([[1e3], [1e-3]]), [500.0, 1e-9], types="unilateral")
    sq = data_scales(q)
    np.testing.assert_allclose(sq.normal_row / sc.normal_row, [1e3, 1e-3], rtol=1e-12)
    np.testing.assert_allclose(sq.normal_weight / sc.normal_weight, [1e3, 1e-3], rtol=1e-12)
    assert sq.accel == pytest.approx(sc.accel) and sq.force == pytest.approx(sc.force)


def test_generated_badly_scaled_problems_against_the_exact_oracle():
    """A slice of benchmarks/scaled_sweep.py: cond(M) to 1e12+, rows over 1e±6, redundant rows, integer data."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import scaled_sweep

    verdicts = [scaled_sweep.run_one((fam, seed)) for seed in range(40) for fam in ("units", "stress", "integer")]
    bad = [v for v in verdicts if v[2] in ("wrong", "raised") and (v[3] or v[2] == "raised")]
    assert not bad, bad
    assert sum(v[2] == "right" for v in verdicts) >= 80


@pytest.mark.parametrize("cond", [1e0, 1e5, 1e10])
def test_free_accel_of_a_definite_mass(cond):
    # M ≻ 0: ‖M̃⁻¹ S F‖∞ through M̃'s eigenpairs ((R S)ᵀ w⁻² (R S)) equals M̃⁻¹ S F solved on M̃ itself, masses and
    # lever arms over decades included (cond(M̃) up to 1e10, coordinates in units 1e±6: cond(M) ~ 1e34); least squares
    # on the unequilibrated R were 1.8e-6 off at cond(M̃) = 1 (R's own cond ~ 1e12 cut its spectrum)
    from gaussqp.model import scales

    rng = np.random.default_rng(int(np.log10(cond)))
    n = 9
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = np.logspace(0, np.log10(cond), n)
    D = np.diag(np.logspace(-6, 6, n))
    M = D @ (Q * w) @ Q.T @ D
    M = 0.5 * (M + M.T)
    p = ContactProblem(M, D @ rng.standard_normal(n), [Contact("unilateral", normal=np.eye(n)[0])])
    fac = p.mass_factor
    assert fac.definite
    s = fac.scaling
    Mt = s[:, None] * M * s[None, :]  # M̃ = S M S, unit diagonal
    ref = float(np.abs(np.linalg.solve(Mt, s * p.F)).max())  # ‖M̃⁻¹ S F‖∞ on the equilibrated matrix itself
    assert scales._free_accel(p, s) == pytest.approx(ref, rel=max(1e-9, 1e3 * cond * np.finfo(float).eps))
