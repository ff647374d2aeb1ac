"""The convex program's start of the mode-free Newton method (``gaussqp.friction.convex_start``, issue #27): its
answer solves the program with De Saxcé's shift at zero, the route runs the damping schedule from it when the
schedule stalls from its own starts, certifies a box wall no route certified before, and never claims ``solved`` for
an answer the judge's recomputed residual rejects."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp.formulations import coulomb
from gaussqp.friction import nonsmooth_newton as nn
from gaussqp.friction.coulomb_law import natural_map_residual, project_cone
from gaussqp.friction.convex_start import convex_start
from gaussqp.settings import COULOMB_NN_ACCEPT_RTOL, COULOMB_NN_REG_THETAS, COULOMB_RESIDUAL_RTOL


def residual(W, q, mu, d, r) -> float:
    """Our certificate's number, recomputed here from the data: ‖φ_1(r)‖/‖q‖ with u = W r + q."""
    return natural_map_residual(r, np.asarray(W @ r).ravel() + q, q, mu, d).relative


def random_problem(seed: int, m: int = 10, d: int = 3, rank: int | None = None, skew: float = 0.0):
    """W = AAᵀ (+ a skew part), of rank ``rank`` (redundant contacts) or full; q mostly compressive; some μ = 0."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m * d, rank or m * d))
    S = rng.normal(size=(m * d, m * d))
    W = A @ A.T + skew * (S - S.T)
    q = rng.normal(size=m * d)
    q[::d] -= 1.0
    mu = rng.uniform(0.2, 1.0, size=m)
    mu[0] = 0.0  # a frictionless contact: r_t = 0 and r_n >= 0
    return W, q, mu, d


def associated_residual(W, q, mu, d, r) -> float:
    """The program's optimality system ``K ∋ r ⟂ W_s r + q ∈ K*`` as a natural map without the shift, ÷‖q‖ (W_s the
    symmetric part), recomputed in NumPy: ``‖r − P_K(r − (W_s r + q))‖ / ‖q‖``."""
    Ws = (W + W.T) / 2
    u0 = np.asarray(Ws @ r).ravel() + q
    return float(np.linalg.norm(r - project_cone(r - u0, mu, d)) / np.linalg.norm(q))


@pytest.mark.parametrize(
    "seed, d, rank, skew, sparse",
    [
        (0, 3, None, 0.0, False),
        (1, 3, 18, 0.0, False),
        (2, 3, None, 0.3, False),
        (3, 2, 12, 0.0, True),
        (4, 3, 20, 0.0, True),
    ],
)
def test_the_start_solves_the_program_with_the_shift_at_zero(seed, d, rank, skew, sparse):
    W, q, mu, d = random_problem(seed, d=d, rank=rank, skew=skew)
    r = convex_start(sp.csr_matrix(W) if sparse else W, q, mu, d)
    assert r is not None and r.shape == q.shape
    # in the cones (up to Clarabel's tolerance) and optimal: the unshifted natural map vanishes
    assert np.linalg.norm(r - project_cone(r, mu, d)) <= 1e-7 * max(1.0, np.linalg.norm(r))
    assert associated_residual(W, q, mu, d, r) <= 1e-6
    R = r.reshape(-1, d)
    assert R[0, 0] >= -1e-9 * np.abs(r).max() and np.allclose(R[0, 1:], 0.0, atol=1e-7 * np.abs(r).max())


def test_a_zero_q_gives_the_zero_start():
    W, q, mu, d = random_problem(5)
    assert np.array_equal(convex_start(W, np.zeros_like(q), mu, d), np.zeros_like(q))


def test_the_route_runs_the_schedule_from_the_convex_start_only_after_its_own_starts(monkeypatch):
    """A schedule limited to its starts (0 iterations) stalls; the route then computes the convex start once and runs
    the schedule from it, and says so in its attempts; when the convex start gives no point the rounds answer, and the
    sweeps' start, which runs only after rounds that do not converge, is not computed."""
    real = nn.solve_newton
    calls: list = []
    starts: list = []

    def limited(*a, **k):
        calls.append((k.get("reg_theta"), k.get("guess_only", False)))
        return real(*a, **{**k, "max_iter": 0})

    def counted(*a):
        starts.append(1)
        return None  # no point: the rounds answer

    def swept(*a):
        starts.append(2)
        return None, {"reason": "not run: a test"}

    monkeypatch.setattr(coulomb, "solve_newton", limited)
    monkeypatch.setattr(coulomb, "convex_start", counted)
    monkeypatch.setattr(coulomb, "sweep_start", swept)
    W, q, mu, d = random_problem(6, m=12, rank=20)
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert calls == [(th, False) for th in COULOMB_NN_REG_THETAS] and starts == [1]
    monkeypatch.setattr(coulomb, "convex_start", convex_start)
    calls.clear()
    sol = gaussqp.solve(gaussqp.LocalContactProblem(W, q, mu, d), crosscheck=False)
    assert calls[: len(COULOMB_NN_REG_THETAS)] == [(th, False) for th in COULOMB_NN_REG_THETAS]
    assert all(g for _, g in calls[len(COULOMB_NN_REG_THETAS) :]) and len(calls) > len(COULOMB_NN_REG_THETAS)
    attempts = sol.extras["nonsmooth_newton"]["attempts"]
    assert [a.get("start") for a in attempts[len(COULOMB_NN_REG_THETAS) :]] == ["convex program"] * (
        len(attempts) - len(COULOMB_NN_REG_THETAS)
    )
    assert sol.status == "solved" and sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL


def _generated(tmp_path, start: int):
    pytest.importorskip("mujoco", reason="generating the problem needs the optional extra gaussqp[mujoco]")
    pytest.importorskip("h5py", reason="reading FCLIB files needs the optional extra gaussqp[fclib]")
    from gaussqp.io import fclib
    from gaussqp.problems import fclib_scenes

    (path,) = fclib_scenes.generate(tmp_path, 1, seed=1, start=start, min_contacts=10, max_contacts=250)
    return fclib.load(path)


def test_a_generated_box_wall_no_route_certified_before_is_certified_from_the_convex_start(tmp_path):
    """``box_wall-s1-i0113-m90`` of the study (90 contacts of boxes against a wall): every θ of the schedule stalls
    from its starts (1e-6 to 8e-6), the rounds from there stall at 6.6e-7 and the route answered ``inaccurate``
    after ~6 s; from the convex program's answer the schedule reaches round-off."""
    p = _generated(tmp_path, 113)
    cd = coulomb.condense(p)
    own = [nn.solve_newton(cd.W, cd.q, cd.mu, 3, reg_theta=th).residual for th in COULOMB_NN_REG_THETAS]
    if min(own) <= COULOMB_NN_ACCEPT_RTOL:
        pytest.skip(f"with this MuJoCo version the scene's state is one the Newton alone solves ({min(own):.1e})")
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == "solved" and sol.certified
    assert sol.natural_map_residual.relative <= COULOMB_RESIDUAL_RTOL
    attempts = sol.extras["nonsmooth_newton"]["attempts"]
    assert attempts[-1].get("start") == "convex program" and attempts[-1]["residual"] <= COULOMB_NN_ACCEPT_RTOL


def test_the_convex_start_never_makes_the_route_claim_solved_above_the_tolerance(tmp_path, monkeypatch):
    """The Newton's claim from the convex start is not the verdict: a run that reports convergence for a point 1e-4
    of ‖q‖ from a solution (its answer shifted) makes the route answer that point, and the judge, recomputing the
    residual on the original data, does not say solved."""
    p = _generated(tmp_path, 113)
    real = nn.solve_newton
    lied: list = []

    def lying(W, q, mu, d, **k):
        out = real(W, q, mu, d, **k)
        if k.get("guess_only"):
            lied.append(1)
            out.r = out.r.copy()
            out.r[::d] += 1e-4 * np.linalg.norm(q) / np.sqrt(q.size / d)
            out.residual, out.converged, out.reason = 0.0, True, nn.CONVERGED
        return out

    monkeypatch.setattr(coulomb, "solve_newton", lying)
    sol = gaussqp.solve(p, crosscheck=False)
    assert lied and sol.extras["path"] == "newton"
    assert sol.natural_map_residual.relative > COULOMB_RESIDUAL_RTOL
    assert sol.status != "solved" and not sol.certified


def _scipy_program_matrix(W) -> sp.csc_matrix:
    """The program's quadratic term as SciPy's operators build it: ``triu(Ws / max|Ws|, format="csc")`` with
    ``Ws = (W + Wᵀ) / 2`` of ``csr_matrix(W)``."""
    Wc = sp.csr_matrix(W, dtype=float)
    Ws = (Wc + Wc.T) / 2
    return sp.triu(Ws / abs(Ws).max(), format="csc")


def _program_matrix_of_the_start(W, monkeypatch) -> sp.csc_matrix:
    """The quadratic term ``convex_start`` hands to Clarabel (captured at ``solve_conic``)."""
    from gaussqp.friction import convex_start as module

    seen = {}
    solve = module.solve_conic
    monkeypatch.setattr(module, "solve_conic", lambda P, *a, **k: (seen.setdefault("P", P), solve(P, *a, **k))[1])
    N = W.shape[0]
    q = np.random.default_rng(N).normal(size=N)
    q[::3] -= 1.0
    convex_start(W, q, np.full(N // 3, 0.5), 3)
    return seen["P"]


def _same_arrays(P, Q) -> bool:
    return P.shape == Q.shape and all(
        np.array_equal(getattr(P, k), getattr(Q, k)) for k in ("indptr", "indices", "data")
    )


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("form", ["csr", "int64", "explicit zeros"])
def test_the_program_data_are_scipys_operators_bit_for_bit(seed, form, monkeypatch):
    """The symmetric part and its scaled upper triangle are read off the CSR arrays (``_symmetric_part``,
    ``_upper_triangle_csc``): the same pattern, storage order and values, bit for bit, as SciPy's ``(W + W.T) / 2``
    and ``triu(Ws / top, format="csc")``, on non-symmetric W with entries from 1e-300 to 1e308 (a sum that overflows:
    then no start; entries that are subnormal once scaled), entries that cancel in the sum, a row without entries,
    int64 index arrays and explicitly stored zeros; and the matrix ``convex_start`` hands to Clarabel is that one."""
    from gaussqp.friction.convex_start import _symmetric_part, _upper_triangle_csc

    rng = np.random.default_rng(seed)
    N = 3 * int(rng.integers(2, 9))
    W = rng.normal(size=(N, N)) * 10.0 ** rng.integers(-3, 4, size=(N, N))
    W[rng.random((N, N)) < 0.4] = 0.0
    W[0, -1], W[-1, 0] = 0.25, -0.25  # cancels in W + Wᵀ: the entry is dropped
    W[N // 2] = 0.0  # a row without entries
    if seed == 1:
        W[1, 2] = W[2, 1] = 1e308  # their sum overflows
    if seed == 2:
        W[2, 3] = 1e-306  # subnormal once divided by the largest entry
    A = sp.csr_matrix(W)
    if form == "int64":
        A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    if form == "explicit zeros":  # a stored entry of value 0 in every row that has one
        A = sp.csr_matrix(W + np.where(W == 0.0, 1.0, 0.0) * (np.arange(N)[:, None] == (np.arange(N)[None, :] + 1) % N))
        A.data[A.data == 1.0] = 0.0
        assert A.has_canonical_format and np.count_nonzero(A.data == 0.0) > 0
    expected = (A + A.T) / 2
    got = _symmetric_part(A)
    assert _same_arrays(got, expected)
    top = float(abs(expected).max())
    if np.isfinite(top):
        assert _same_arrays(_upper_triangle_csc(got, top), sp.triu(expected / top, format="csc"))
        assert _same_arrays(_program_matrix_of_the_start(A, monkeypatch), _scipy_program_matrix(A))
    else:  # a sum beyond the floats: nothing to scale the program by, no start
        assert convex_start(A, np.ones(N), np.full(N // 3, 0.5), 3) is None


@pytest.mark.parametrize("seed", range(4))
def test_a_non_canonical_w_takes_scipys_operators(seed, monkeypatch):
    """A W whose rows are stored in random order and hold an entry stored twice (which stands for their sum) is not
    read off its arrays: Clarabel gets the matrix SciPy's operators give (columns sorted), and the start is the one of
    the same matrix in canonical form."""
    rng = np.random.default_rng(seed)
    W, q, mu, d = random_problem(3 + seed, m=4)
    N = W.shape[0]
    rows = [list(rng.permutation(np.flatnonzero(W[i]))) for i in range(N)]
    data = [list(W[i, c]) for i, c in enumerate(rows)]
    half = rows[0].index(1)  # W[0, 1] stored twice: half and half
    data[0][half] = W[0, 1] / 2
    rows[0].append(1)
    data[0].append(W[0, 1] / 2)
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    A = sp.csr_matrix((np.concatenate(data), np.concatenate(rows), indptr), shape=(N, N))
    assert not A.has_canonical_format
    assert np.allclose(A.toarray(), W, rtol=0, atol=1e-15)
    assert _same_arrays(_program_matrix_of_the_start(A, monkeypatch), _scipy_program_matrix(A))
    monkeypatch.undo()
    assert np.allclose(convex_start(A, q, mu, d), convex_start(sp.csr_matrix(W), q, mu, d), rtol=0, atol=1e-9)
