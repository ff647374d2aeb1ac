"""The sufficient condition for one solution of the mode-free Coulomb problem (strong monotonicity of De Saxcé's map,
``gaussqp.friction.coulomb_uniqueness``, issue #27 item 2): proven cases checked by solving them from several
starts and by two methods, a condition independent of units, refused where it does not hold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
from gaussqp.formulations.coulomb import solve_local
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.coulomb_uniqueness import coulomb_uniqueness
from gaussqp.friction.nonsmooth_newton import solve_newton
from gaussqp.friction.proximal_newton import solve_proximal


def well_conditioned(seed: int, m: int = 5, d: int = 3, coupling: float = 0.15, mu: float = 0.2):
    """A Delassus-like W = I + coupling·(sym. noise), positive definite, and a q with every mode present."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m * d, m * d))
    W = np.eye(m * d) + coupling * (A + A.T) / np.sqrt(m * d)
    q = rng.normal(size=m * d)
    q[::d] -= 0.5
    return W, q, np.full(m, mu), d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), push=st.floats(-2.0, 2.0))
def test_a_proven_unique_problem_gives_the_same_reaction_from_every_start_and_method(seed, push):
    W, q, mu, d = well_conditioned(seed)
    q = q + push * np.tile([0.0, 1.0, 0.3], mu.size)  # pushed sideways: sliding contacts too
    unique, why = coulomb_uniqueness(W, mu, d)
    assert unique is True, why
    answers = [
        solve_newton(W, q, mu, d).r,
        solve_newton(W, q, mu, d, r0=np.tile([5.0, 1.0, -1.0], mu.size)).r,
        solve_proximal(W, q, mu, d, r0=np.tile([0.1, 0.0, 0.0], mu.size)).r,
        solve_local(W, q, mu, d, solver="CLARABEL").r,  # the convex iteration + polish: another method
    ]
    for r in answers:
        assert natural_map_residual(r, W @ r + q, q, mu, d).relative <= 1e-9
    scale = max(1.0, float(np.abs(answers[0]).max()))
    for r in answers[1:]:
        assert np.allclose(r, answers[0], rtol=0, atol=1e-7 * scale)


def test_the_verdict_does_not_depend_on_units():
    """Contact j's force in other units: W → D W D with D = diag(d_j I) per contact; the same verdict."""
    W, q, mu, d = well_conditioned(3)
    D = np.repeat(np.array([1e-4, 1.0, 30.0, 1e3, 7.0]), d)
    assert coulomb_uniqueness(W, mu, d)[0] is True
    assert coulomb_uniqueness(D[:, None] * W * D[None, :], mu, d)[0] is True


def test_a_singular_w_and_a_large_mu_are_not_decided():
    W, q, mu, d = well_conditioned(4)
    J = np.vstack([np.eye(3), np.eye(3)])  # two contacts at the same point: a rank-3 W of 6 unknowns
    singular, why = coulomb_uniqueness(J @ J.T, np.array([0.2, 0.2]), 3)
    assert singular is None and "not positive definite" in why
    big, why = coulomb_uniqueness(W, np.full(mu.size, 5.0), d)
    assert big is None and "too large" in why


def test_the_threshold_is_where_the_factorization_says():
    """Below the bound the test proves uniqueness, well above it it does not: μ_max‖W̃_t‖₂ against λ_min(W̃_s)."""
    W, q, mu, d = well_conditioned(5)
    m = mu.size
    nrm = np.linalg.norm(W.reshape(m, d, m, d)[np.arange(m), :, np.arange(m), :].reshape(m, -1), axis=1)
    s = np.repeat(1 / np.sqrt(nrm), d)
    Wt = s[:, None] * W * s[None, :]
    lam = np.linalg.eigvalsh((Wt + Wt.T) / 2).min()
    tau = np.linalg.norm(Wt.reshape(m, d, m * d)[:, 1:, :].reshape(-1, m * d), 2)
    assert coulomb_uniqueness(W, np.full(m, 0.9 * lam / tau), d)[0] is True
    assert coulomb_uniqueness(W, np.full(m, 1.1 * lam / tau), d)[0] is None


def test_the_route_reports_the_proof_on_a_local_problem():
    W, q, mu, d = well_conditioned(6)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert sol.status == "solved"
    assert sol.unique["multipliers"] is True and "strongly monotone" in sol.extras["uniqueness"]


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_no_contact_and_frictionless_cases(mu):
    assert coulomb_uniqueness(np.zeros((0, 0)), np.zeros(0), 3)[0] is True
    W, q, _, d = well_conditioned(7)
    assert coulomb_uniqueness(W, np.full(5, mu), d)[0] is True


def test_sparse_and_dense_w_get_the_same_verdict():
    import scipy.sparse as sp

    W, q, mu, d = well_conditioned(8)
    for m_mu in (0.2, 5.0):
        dense = coulomb_uniqueness(W, np.full(5, m_mu), d)
        sparse = coulomb_uniqueness(sp.csr_matrix(W), np.full(5, m_mu), d)
        assert dense == sparse


def test_more_unknowns_than_coordinates_is_singular_without_a_factorization(monkeypatch):
    """W = J M⁻¹ Jᵀ has rank ≤ n: more unknowns than coordinates (the humanoid: 42 for n = 27) is rejected before
    any Cholesky."""
    import gaussqp.friction.coulomb_uniqueness as cu

    def no_cholesky(*a, **k):
        raise AssertionError("a factorization was run")

    W, q, mu, d = well_conditioned(9)
    monkeypatch.setattr(cu.np.linalg, "cholesky", no_cholesky)
    unique, why = coulomb_uniqueness(W, mu, d, coordinates=W.shape[0] - 1)
    assert unique is None and "singular" in why
    # the diagonal pre-check: a μ whose tangential rows beat the diagonal cannot pass, no factorization either
    assert coulomb_uniqueness(W, np.full(5, 50.0), d)[0] is None


def test_above_the_size_limit_the_test_is_not_run_and_says_so(monkeypatch):
    import gaussqp.friction.coulomb_uniqueness as cu

    W, q, mu, d = well_conditioned(10)
    monkeypatch.setattr(cu, "COULOMB_UNIQUENESS_UNKNOWNS_MAX", W.shape[0] - 1)
    unique, why = coulomb_uniqueness(W, mu, d)
    assert unique is None and "not run" in why
