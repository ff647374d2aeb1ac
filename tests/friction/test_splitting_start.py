"""The start of the mode-free Newton method from projected Gauss–Seidel sweeps (:mod:`gaussqp.friction.splitting_start`,
issue #27): the compiled sweeps against their reference, bit for bit; a solution is a fixed point of a sweep; the work
budget; and the 21-contact quadruped group (tests/data/generated/NOTICE.md) where every other start of the schedule
and the proximal rounds stall, solved by the route through the sweeps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp.formulations import coulomb
from gaussqp.friction import splitting_start
from gaussqp.friction.compiled import kernels
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.nonsmooth_newton import diagonal_blocks
from gaussqp.friction.splitting_start import gauss_seidel_sweeps_numpy, sweep_start
from gaussqp.settings import (
    COULOMB_NN_ACCEPT_RTOL,
    COULOMB_NN_SCHEDULE,
    COULOMB_RESIDUAL_RTOL,
    COULOMB_SWEEPS_CHECKS,
    COULOMB_SWEEPS_LOCAL_ITER,
)

ROOT = Path(__file__).resolve().parents[2]


def _problem(seed: int, m: int, d: int, *, symmetric: bool, rank: int | None = None):
    """A random W (PSD part of the given rank, plus a skew part when not ``symmetric``), q and μ over [0, 1]."""
    rng = np.random.default_rng(seed)
    N = m * d
    R = rng.normal(size=(N, rank or N))
    W = R @ R.T / N
    if not symmetric:
        S = rng.normal(size=(N, N))
        W = W + 0.3 * (S - S.T) / N
    q = rng.normal(size=N)
    mu = rng.uniform(0.0, 1.0, size=m)
    mu[0] = 0.0  # a frictionless contact
    return W, q, mu


def _arrays(W, d: int):
    Wc = sp.csr_matrix(W, dtype=float)
    Wc.sum_duplicates()
    m = Wc.shape[0] // d
    D = diagonal_blocks(Wc, m, d)
    norms = np.linalg.norm(D, 2, axis=(1, 2))
    rho = np.zeros(m)
    np.divide(1.0, norms, out=rho, where=norms > 0)
    return (np.asarray(Wc.indptr, np.int64), np.asarray(Wc.indices, np.int64), Wc.data, rho, D)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("case", ["dense", "sparse", "non-symmetric", "zero block", "frictionless rows"])
def test_the_compiled_sweeps_give_their_references_numbers_bit_for_bit(d, case):
    """From zero and from a random start (negative normal reactions too); "frictionless rows": a contact with μ = 0 and
    no tangential coupling, ``u_t`` exactly zero, whose normal reaction must not go negative."""
    k = kernels()
    if k is None:
        pytest.skip("the compiled kernels need numba (pip install 'gaussqp[fast]')")
    W, q, mu = _problem(3 + d, 9, d, symmetric=case != "non-symmetric", rank=5 * d)
    if case == "sparse":
        W = np.where(np.abs(W) > 0.05, W, 0.0)
    if case == "zero block":
        W[:d, :] = 0.0
        W[:, :d] = 0.0
    if case == "frictionless rows":  # contact 0 (μ = 0): its tangential rows and columns and q_t zero
        W[1:d, :] = 0.0
        W[:, 1:d] = 0.0
        q[1:d] = 0.0
        q[0] = abs(q[0]) + 1.0  # separating alone: the projection's polar and inside pieces both reached
    indptr, indices, data, rho, D = _arrays(W, d)
    if case == "zero block":
        assert rho[0] == 0.0  # the contact with no block is not moved
    start = np.random.default_rng(d).normal(size=q.size)
    for r0 in (np.zeros(q.size), start):
        a, b = r0.copy(), r0.copy()
        gauss_seidel_sweeps_numpy(indptr, indices, data, q, mu, rho, D, a, 25, COULOMB_SWEEPS_LOCAL_ITER, d)
        k.gauss_seidel_sweeps(indptr, indices, data, q, mu, rho, D, b, 25, COULOMB_SWEEPS_LOCAL_ITER, d)
        assert np.all(np.isfinite(a)) and np.any(a != 0.0)
        assert np.array_equal(a, b)
        if case == "frictionless rows":
            assert a[0] >= 0.0 and not np.any(a[1:d])


def test_the_diagonal_blocks_are_read_off_the_stored_entries():
    W, _, _ = _problem(1, 5, 3, symmetric=False)
    W[3:6, 3:6] = 0.0
    Wc = sp.csr_matrix(W)
    D = diagonal_blocks(Wc, 5, 3)
    for i in range(5):
        assert np.array_equal(D[i], W[3 * i : 3 * i + 3, 3 * i : 3 * i + 3])


@pytest.mark.parametrize("use_kernels", [False, True])
def test_a_sticking_solution_is_a_fixed_point_of_the_sweeps(use_kernels):
    """With every contact sticking strictly inside its cone and ``q = −W r*``, ``u = 0``: each local step maps r* to
    itself (up to the rounding of ``b``), so sweeps from r* stay there; from zero they approach it."""
    k = kernels() if use_kernels else None
    if use_kernels and k is None:
        pytest.skip("the compiled kernels need numba (pip install 'gaussqp[fast]')")
    sweep = k.gauss_seidel_sweeps if k is not None else gauss_seidel_sweeps_numpy
    d, m = 3, 8
    W, _, mu = _problem(11, m, d, symmetric=True)
    mu[:] = 0.8
    rs = np.zeros(m * d)
    rs[::d] = 1.0 + np.arange(m) / m
    rs[1::d] = 0.2
    q = -W @ rs
    indptr, indices, data, rho, D = _arrays(W, d)
    r = rs.copy()
    sweep(indptr, indices, data, q, mu, rho, D, r, 5, COULOMB_SWEEPS_LOCAL_ITER, d)
    assert np.allclose(r, rs, rtol=0, atol=1e-12)
    r = np.zeros(m * d)
    sweep(indptr, indices, data, q, mu, rho, D, r, 50, COULOMB_SWEEPS_LOCAL_ITER, d)
    before = natural_map_residual(np.zeros(m * d), q, q, mu, d).relative
    assert natural_map_residual(r, W @ r + q, q, mu, d).relative < 1e-3 * before


def _budget(monkeypatch, work: int) -> None:
    """The sweeps' work budget, compiled or not (whether the kernels are loaded depends on the process's history)."""
    monkeypatch.setattr(splitting_start, "COULOMB_SWEEPS_WORK_MAX", work)
    monkeypatch.setattr(splitting_start, "COULOMB_SWEEPS_WORK_NUMPY_MAX", work)


def test_the_sweeps_run_exactly_the_counts_within_their_work_budget(monkeypatch):
    """Two counts within the budget: the point is that of exactly the second count's sweeps from zero, with ρ_i =
    1/‖W_ii‖₂ (the reference run here with its own ρ); one count above it: no point."""
    W, q, mu = _problem(5, 10, 3, symmetric=True, rank=12)
    per_sweep = sp.csr_matrix(W).nnz + 10 * 9 * COULOMB_SWEEPS_LOCAL_ITER
    _budget(monkeypatch, COULOMB_SWEEPS_CHECKS[1] * per_sweep)
    r, report = sweep_start(W, q, mu, 3)
    assert report["work_per_sweep"] == per_sweep
    assert report["checks"][0][1] > COULOMB_NN_ACCEPT_RTOL  # the first check does not end them here
    assert [c for c, _ in report["checks"]] == list(COULOMB_SWEEPS_CHECKS[:2])
    assert report["sweeps"] == COULOMB_SWEEPS_CHECKS[1]
    if report["checks"][-1][1] > COULOMB_NN_ACCEPT_RTOL:
        assert report["reason"] == "the work budget"
    rho = np.array([1.0 / np.linalg.norm(W[3 * i : 3 * i + 3, 3 * i : 3 * i + 3], 2) for i in range(10)])
    indptr, indices, data, _, D = _arrays(W, 3)
    ref = np.zeros(q.size)
    gauss_seidel_sweeps_numpy(indptr, indices, data, q, mu, rho, D, ref, report["sweeps"], COULOMB_SWEEPS_LOCAL_ITER, 3)
    assert np.allclose(r, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    _budget(monkeypatch, per_sweep)
    r, report = sweep_start(W, q, mu, 3)
    assert r is None and report["reason"].startswith("not run") and report["sweeps"] == 0


def test_the_sweeps_leave_a_contact_without_a_block_and_the_callers_matrix_alone():
    """A contact whose rows and columns of W are zero stays at r = 0; a CSR W with repeated entries gives the point of
    its summed matrix and is not rewritten (its arrays are the caller's); sizes that do not match are refused."""
    W, q, mu = _problem(7, 6, 3, symmetric=True, rank=10)
    W[3:6, :] = 0.0
    W[:, 3:6] = 0.0
    r, _ = sweep_start(W, q, mu, 3)
    assert r is not None and not np.any(r[3:6]) and np.all(np.isfinite(r))
    # each stored entry of W twice, halves, rows in order and columns as they come: not canonical
    C = sp.coo_matrix(W)
    rows, cols, half = np.tile(C.row, 2), np.tile(C.col, 2), np.tile(C.data / 2, 2)
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=W.shape[0]))])
    dup_raw = sp.csr_matrix((half[order], cols[order], indptr), shape=W.shape)
    assert not dup_raw.has_canonical_format
    before = (dup_raw.data.copy(), dup_raw.indices.copy(), dup_raw.indptr.copy())
    r_dup, _ = sweep_start(dup_raw, q, mu, 3)
    assert all(np.array_equal(a, b) for a, b in zip(before, (dup_raw.data, dup_raw.indices, dup_raw.indptr)))
    r_sum, _ = sweep_start(sp.csr_matrix(W), q, mu, 3)
    assert np.allclose(r_dup, r_sum, rtol=0, atol=1e-12 * np.abs(r_sum).max())
    with pytest.raises(ValueError, match="give W"):
        sweep_start(W[:12, :12], q, mu, 3)


# ------------------------------------------------------------------------------------ the quadruped's group
@pytest.fixture(scope="module")
def group():
    """Group 24 of the 4,162-contact quadruped scene: 21 contacts, W of rank 53 for 63 unknowns."""
    pytest.importorskip("h5py", reason="reading FCLIB files needs h5py (pip install 'gaussqp[fclib]')")
    from gaussqp.io import fclib

    return fclib.load(ROOT / "tests" / "data" / "generated" / "quadruped-4162-group24.hdf5")


def _data(p):
    W = p.W.toarray() if sp.issparse(p.W) else np.asarray(p.W)
    return W, np.asarray(p.q, dtype=float), np.asarray(p.mu, dtype=float), p.dimension


def test_every_start_but_the_sweeps_stalls_on_the_quadruped_group(group):
    """The schedule without its sweeps pairs, the rounds after it: no answer within the Newton's acceptance (what the
    sweeps are there for; if a change of the other stages solves this group, the test below no longer tests them)."""
    W, q, mu, d = _data(group)
    without = tuple(pair for pair in COULOMB_NN_SCHEDULE if pair[1] != "sweeps")
    ans = coulomb._solve_connected(W, q, mu, d, schedule=without, last_resort=False)
    assert ans.backend_status != "converged"
    assert natural_map_residual(ans.r, ans.u, q, mu, d).relative > 1e2 * COULOMB_NN_ACCEPT_RTOL


def test_the_route_solves_the_quadruped_group_from_the_sweeps(group):
    W, q, mu, d = _data(group)
    r, report = sweep_start(W, q, mu, d)
    assert report["reason"] == "a Newton step from the sweeps converged"
    assert report["checks"][-1][1] <= COULOMB_NN_ACCEPT_RTOL < report["checks"][-2][1]
    ans = coulomb._solve_connected(W, q, mu, d, last_resort=False)
    assert ans.backend_status == "converged" and ans.path == "newton"
    attempts = ans.newton_kernel["attempts"]
    assert attempts[-1]["start"] == "Gauss–Seidel sweeps" and attempts[-1]["residual"] <= COULOMB_NN_ACCEPT_RTOL
    assert ans.newton_kernel["sweeps"]["sweeps"] == report["sweeps"]
    assert "sweeps_start" in ans.newton_kernel["times"] and "sweeps" in ans.times and "proximal" in ans.times
    # the work of every stage counted: the schedule's runs (the sweeps' included) and the rounds before them
    assert ans.newton_kernel["iterations"] == sum(a["iterations"] for a in attempts)
    assert ans.newton_iterations == ans.newton_kernel["iterations"] + ans.proximal["iterations"] > 0
    sol = gaussqp.solve(group, crosscheck=False)
    assert sol.status == "solved" and sol.certified
    assert sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL


def test_the_sweeps_run_only_after_the_rounds_and_a_failed_run_is_one_more_candidate(monkeypatch):
    """The sweeps' pairs run after the proximal rounds, and only when those did not converge (on a box pile of the
    study the rounds converge, and sweeps run before them cost 56 → 81 ms). When their runs do not converge either
    (here: no Newton iteration allowed, the rounds without budget, the convex program without a point), their best run
    is one more candidate: the convex iteration's answer is kept where it is better (the same answer as with no sweeps
    at all), and without the last resort the best run by the Newton's residual answers; their attempts, time and work
    reported."""
    from test_convex_start import random_problem  # tests/friction is on sys.path

    W, q, mu, d = random_problem(6, m=12, rank=20)
    real = coulomb.solve_newton
    monkeypatch.setattr(coulomb, "solve_newton", lambda *a, **k: real(*a, **{**k, "max_iter": 0}))
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)
    order: list = []
    real_rounds, real_sweeps = coulomb._proximal_rounds, coulomb.sweep_start

    def rounds(*a):
        order.append("rounds")
        return real_rounds(*a)

    def sweeps(*a):
        order.append("sweeps")
        return real_sweeps(*a)

    monkeypatch.setattr(coulomb, "_proximal_rounds", rounds)
    monkeypatch.setattr(coulomb, "sweep_start", sweeps)
    ans = coulomb._solve_connected(W, q, mu, d)
    assert order == ["rounds"] and ans.path == "proximal newton"  # the rounds converged: no sweeps
    order.clear()
    monkeypatch.setattr(coulomb, "COULOMB_PROX_WORK_MAX", 0)
    marker = np.full(q.size, 0.125)  # a point from which no run converges (no iteration allowed)
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: order.append("sweeps") or (marker, {"reason": "a test"}))
    ans = coulomb._solve_connected(W, q, mu, d)
    assert order == ["rounds", "sweeps"] and ans.path == "convex iteration"
    attempts = ans.newton_kernel["attempts"]
    assert [a.get("start") for a in attempts[-3:]] == ["Gauss–Seidel sweeps"] * 3
    assert "sweeps" in ans.times and ans.newton_kernel["sweeps"] == {"reason": "a test"}
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: (None, {"reason": "not run: a test"}))
    without = coulomb._solve_connected(W, q, mu, d)
    assert np.array_equal(ans.r, without.r) and without.path == "convex iteration"
    # without the last resort: the best answer by the Newton's residual, the sweeps' time and work counted
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: (marker, {"reason": "a test"}))
    ans = coulomb._solve_connected(W, q, mu, d, last_resort=False)
    assert ans.newton_kernel["fallback"] == "not run: last_resort=False" and "sweeps" in ans.times
    attempts = ans.newton_kernel["attempts"]
    assert ans.newton_iterations == sum(a["iterations"] for a in attempts) + ans.proximal["iterations"]
    best = min(a["residual"] for a in attempts)
    assert natural_map_residual(ans.r, ans.u, q, mu, d).relative == pytest.approx(best, rel=1e-6)


def test_the_sweeps_do_not_run_after_rounds_within_the_skip_bound(monkeypatch):
    """Rounds whose point is within ``COULOMB_PROX_FALLBACK_SKIP_RTOL`` (here: converged rounds reported at 2e-10, not
    called converged) are the answer: the sweeps are not computed."""
    from test_convex_start import random_problem  # tests/friction is on sys.path

    W, q, mu, d = random_problem(6, m=12, rank=20)
    real = coulomb.solve_newton
    monkeypatch.setattr(coulomb, "solve_newton", lambda *a, **k: real(*a, **{**k, "max_iter": 0}))
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)
    real_rounds = coulomb._proximal_rounds

    def near(*a):
        px, report = real_rounds(*a)
        px.residual, px.converged, px.reason = 2 * COULOMB_NN_ACCEPT_RTOL, False, "stalled"
        return px, report

    called: list = []
    monkeypatch.setattr(coulomb, "_proximal_rounds", near)
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: called.append(1) or (None, {}))
    ans = coulomb._solve_connected(W, q, mu, d)
    assert ans.path == "proximal newton" and not called and "sweeps" not in ans.times
    assert ans.newton_kernel["fallback"].startswith("not run: the rounds' residual")
