"""Lemke's compiled pivoting (:mod:`gaussqp.linalg.lemke_compiled`) against the NumPy pivoting it replaces (the
reference, :func:`gaussqp.linalg.lemke._pivot_numpy`): the same status, pivots, basis, ``B⁻¹q`` and entering column bit
for bit, and :func:`~gaussqp.linalg.lemke.lemke`'s whole result (z, w, ray, message) bit for bit, on generated LCPs
of every kind the route meets (PSD of full and deficient rank, redundant and repeated rows, exact ties, rays,
P-matrices, matrices with no guarantee and short pivot limits) and on the shipped problems' contact LCPs. Skipped,
with the reason, without numba (``pip install 'gaussqp[fast]'``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import gaussqp
import gaussqp.linalg.lemke as L
from gaussqp.model.problem import ContactProblem
from gaussqp.settings import LEMKE_PIVOT_TOL, LEMKE_TIE_TOL

# imported here, not inside a test: importing a module of hypothesis tests inside one is a nested @given
from test_lemke import rank_one_delassus  # noqa: E402  (tests/linalg is on sys.path)
from test_lemke_issue15 import pivoted_rows  # noqa: E402

KERNEL = L.compiled_pivots()
pytestmark = pytest.mark.skipif(KERNEL is None, reason="numba is not installed: pip install 'gaussqp[fast]'")


def same(x, y) -> bool:
    """Bit for bit (the sign of a zero too; a float array's bytes), None where None."""
    if x is None or y is None:
        return x is None and y is None
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def pivots_both(M, q, d, max_iter, tie_tol):
    """The compiled and the NumPy pivoting on the same data (status strings for both)."""
    code, it, basis, rhs, x, entering = KERNEL.pivots(
        L.plain(M), L.plain(q), L.plain(d), max_iter, LEMKE_PIVOT_TOL, tie_tol
    )
    assert code >= 0, "the kernel left a finite LCP to the NumPy pivoting"
    fast = (L._STATUS[code], it, basis, rhs, x, int(entering))
    slow = L._pivot_numpy(M, q, d, max_iter, LEMKE_PIVOT_TOL, tie_tol)
    return fast, slow


def assert_same_pivoting(M, q, d=None, max_iter=None):
    """Both pivotings on the equilibrated data as :func:`lemke` builds it, both tie rules; then ``lemke`` whole."""
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    k = q.size
    diag = np.diag(M).copy()
    D = np.where(diag > 0, 1.0 / np.sqrt(np.where(diag > 0, diag, 1.0)), 1.0)
    Ms = D[:, None] * M * D[None, :]
    qs = D * q
    s = float(np.abs(qs).max())
    if s > 0:
        qs = qs / s
        ds = np.ones(k) if d is None else (D * d) / (D * d).max()
        for tt in (LEMKE_TIE_TOL, 0.0):
            fast, slow = pivots_both(Ms, qs, ds, 50 * k + 100 if max_iter is None else max_iter, tt)
            assert fast[0] == slow[0] and fast[1] == slow[1] and fast[5] == slow[5], (fast[:2], slow[:2])
            for a, b, what in zip(fast[2:5], slow[2:5], ("basis", "B⁻¹q", "entering column")):
                assert same(a, b), what
    fast_res, slow_res = run_lemke(M, q, d, max_iter)
    assert fast_res.status == slow_res.status and fast_res.iterations == slow_res.iterations
    assert fast_res.message == slow_res.message
    for what in ("z", "w", "ray"):
        assert same(getattr(fast_res, what), getattr(slow_res, what)), what
    return slow_res


def run_lemke(M, q, d=None, max_iter=None):
    """``lemke`` with the compiled pivoting and with the NumPy one."""
    fast = L.lemke(M, q, d=d, max_iter=max_iter)
    saved = gaussqp.settings.LEMKE_COMPILED
    gaussqp.settings.LEMKE_COMPILED = False
    try:
        slow = L.lemke(M, q, d=d, max_iter=max_iter)
    finally:
        gaussqp.settings.LEMKE_COMPILED = saved
    return fast, slow


# ------------------------------------------------------------------ generated LCPs
def lcp(kind: str, seed: int, k: int):
    """An LCP of one kind: ``psd`` (G Gᵀ, rank k), ``deficient`` (rank < k), ``redundant`` (rows of G repeated or
    scaled: the ratio test ties), ``integer`` (small integer data: exact ties everywhere, q with repeated entries and
    zeros), ``ray`` (a row and its negative: an infeasible PSD LCP), ``pmatrix`` (positive definite plus skew: a
    P-matrix), ``triangular`` (unit-dominant triangular: a P-matrix), ``general`` (no guarantee)."""
    rng = np.random.default_rng(seed)
    if kind in ("psd", "deficient", "redundant", "ray"):
        r = k if kind == "psd" else max(1, k // 2)
        G = rng.normal(size=(r, 3 + k))
        if kind in ("redundant", "ray"):
            G = G[rng.integers(0, r, size=k)] * rng.choice([1.0, 2.0, 0.5], size=(k, 1))
            if kind == "ray":
                G[-1] = -G[0]
        else:
            G = np.vstack([G, rng.normal(size=(k - r, r)) @ G]) if k > r else G
        M = G @ G.T
        z = np.where(rng.random(k) < 0.5, rng.random(k), 0.0)
        q = -M @ z + np.where(z > 0, 0.0, rng.random(k))
        if kind == "ray":
            q = rng.normal(size=k)
            q[0] = -abs(q[0]) - 1.0
            q[-1] = -abs(q[-1])
        elif rng.random() < 0.5:
            q = rng.normal(size=k)
        return M, q
    if kind == "integer":
        G = rng.integers(-2, 3, size=(k, max(1, k // 2))).astype(float)
        M = G @ G.T + np.diag(rng.integers(0, 2, size=k))
        q = rng.integers(-3, 2, size=k).astype(float)
        return M, q
    if kind == "pmatrix":
        A = rng.normal(size=(k, k))
        S = rng.normal(size=(k, k))
        return A @ A.T + 0.1 * np.eye(k) + (S - S.T), rng.normal(size=k)
    if kind == "triangular":
        T = np.triu(rng.normal(size=(k, k)), 1) + np.diag(rng.random(k) + 0.5)
        return T, rng.normal(size=k)
    return rng.normal(size=(k, k)), rng.normal(size=k)


KINDS = ["psd", "deficient", "redundant", "integer", "ray", "pmatrix", "triangular", "general"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**31 - 1), k=st.integers(1, 24))
def test_compiled_pivots_are_the_numpy_pivots(kind, seed, k):
    M, q = lcp(kind, seed, k)
    assert_same_pivoting(M, q)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**31 - 1), k=st.integers(2, 16), limit=st.integers(1, 12))
def test_same_pivots_with_a_covering_vector_and_a_short_limit(kind, seed, k, limit):
    """A user covering vector and a pivot limit that may stop the run (status ``max_iter``)."""
    M, q = lcp(kind, seed, k)
    d = np.random.default_rng(seed + 1).random(k) + 0.1
    assert_same_pivoting(M, q, d=d, max_iter=limit)


def solved_in_one_call(M, q, verify_tol=L.LEMKE_VERIFY_RTOL):
    """``KERNEL.lemke_solved`` on ``(M, q)`` with :func:`~gaussqp.linalg.lemke.lemke`'s defaults."""
    return KERNEL.lemke_solved(
        L.plain(M), L.plain(q), L._pivot_limit(q.size, None), LEMKE_PIVOT_TOL, LEMKE_TIE_TOL, L.LEMKE_REFINE_TOL,
        L.LEMKE_REFINE_RCOND, verify_tol,
    )  # fmt: skip


def test_the_solved_case_in_one_call_is_the_driver_bit_for_bit():
    """``lemke_solved`` (the first run's basis solves the LCP, in one compiled call) answers exactly what the driver
    with the compiled kernels answers, pivots included, wherever it answers; where it does not, what it hands the
    driver (the equilibration and the first run) is what the driver computes itself; it leaves every other outcome
    (rays, the pivot limit, a rejected basis) to the driver; and on this corpus it answers most of the solved LCPs, so
    the comparison is not vacuous."""
    answered = solved = handed = 0
    for kind in KINDS:
        for seed in range(40):
            for k in (1, 3, 8, 17):
                M, q = lcp(kind, seed, k)
                if np.all(q >= 0):
                    continue
                ok, z, w, equilibrated, D, Ms, qs, s, ds, run = solved_in_one_call(M, q)
                driver = L._lemke_equilibrated(
                    np.asarray(M, float), np.asarray(q, float), None, k, None, LEMKE_PIVOT_TOL, LEMKE_TIE_TOL,
                    L.LEMKE_VERIFY_RTOL, KERNEL,
                )  # fmt: skip
                solved += driver.status == "solved"
                if ok:
                    answered += 1
                    assert driver.status == "solved" and driver.iterations == run[1], (kind, seed, k)
                    assert same(z, driver.z) and same(w, driver.w), (kind, seed, k)
                elif equilibrated:
                    handed += 1
                    own = KERNEL.equilibrate(L.plain(M), L.plain(q), L.plain(q), False)
                    for a, b in zip((D, Ms, qs, s, ds), own[:5]):
                        assert same(a, b), (kind, seed, k)
                    again = KERNEL.pivots(Ms, qs, ds, L._pivot_limit(k, None), LEMKE_PIVOT_TOL, LEMKE_TIE_TOL)
                    assert all(same(a, b) for a, b in zip(run, again)), (kind, seed, k)
    assert answered >= 0.8 * solved > 0 and handed > 0, (answered, solved, handed)


def test_the_solved_case_is_accepted_up_to_the_verification_tolerance_exactly():
    """The kernel accepts its basis when the row-wise violation is at most ``verify_tol`` — at the violation itself —
    and hands it to the driver one ulp below it (whose round-off re-check then decides), as the driver compares."""
    tried = 0
    for kind in ("psd", "pmatrix", "triangular"):
        for seed in range(30):
            M, q = lcp(kind, seed, 6)
            ok, z, w, *_ = solved_in_one_call(M, q)
            if not ok:
                continue
            viol = L.lcp_violation(np.asarray(M, float), np.asarray(q, float), z)
            if not viol > 0:
                continue
            tried += 1
            assert solved_in_one_call(M, q, viol)[0], (kind, seed)
            assert not solved_in_one_call(M, q, float(np.nextafter(viol, 0.0)))[0], (kind, seed)
    assert tried >= 10


def test_other_tolerance_types_keep_the_driver():
    """A tolerance or a pivot limit the compiled call does not take (a ``Fraction``, a float limit) runs the driver
    as before: its Python comparisons, its types."""
    from fractions import Fraction

    M, q = lcp("psd", 3, 6)
    ref = L.lemke(M, q)
    got = L.lemke(M, q, verify_tol=Fraction(1, 10**9))
    assert got.status == ref.status and same(got.z, ref.z)
    assert isinstance(L.lemke(M, q, max_iter=400.0).iterations, float)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 12), decades=st.integers(0, 12))
def test_the_basis_solve_decides_on_scipys_condition_estimate(seed, k, decades):
    """The compiled basis solve takes the LU exactly where :func:`~gaussqp.linalg.lemke._basis_solve` does: its
    condition estimate is SciPy's ``dgecon`` of SciPy's ``dgetrf`` with the same 1-norm (accepted at a threshold equal
    to SciPy's estimate, refused one ulp above it), and its solution is SciPy's ``dgetrs`` bit for bit."""
    from scipy.linalg.lapack import dgecon, dgetrf, dgetrs

    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(k, k)))
    A = (U * np.logspace(0, -decades, k)) @ rng.normal(size=(k, k))  # condition up to ~1e12
    b = rng.normal(size=k)
    lu, piv, info = dgetrf(A)
    assert info == 0
    rcond, info = dgecon(lu, float(np.abs(A).sum(axis=0).max()))
    assert info == 0
    x, ok = KERNEL._basis_lu_solve(L.plain(A), L.plain(b), rcond)
    assert ok and same(x, dgetrs(lu, piv, b)[0])
    assert not KERNEL._basis_lu_solve(L.plain(A), L.plain(b), float(np.nextafter(rcond, np.inf)))[1]


def test_the_generated_lcps_exercise_every_rule(monkeypatch):
    """The corpus below meets every decision the kernel must copy: rays, solutions, ties sent to z0's row and ties the
    lexicographic rule breaks — among them ties it breaks for another row than the first tied one, and ties where a
    tied row outside the pivoted ones drops out — so that a kernel with another tie rule fails here (checked by
    mutating the kernel's tie-break once: returning the last row left instead of the first, or not dropping the
    fresh rows)."""
    seen = {"lex": 0, "lex_not_first": 0, "fresh_dropped": 0}
    real = L._lex_break_revised

    def spy(G, cols, slot, p, x, cand, tie_tol):
        r = real(G, cols, slot, p, x, cand, tie_tol)
        seen["lex"] += 1
        seen["lex_not_first"] += r != cand[0]
        seen["fresh_dropped"] += bool(np.any((slot[cand] < 0) & (cand < r)))
        return r

    monkeypatch.setattr(L, "_lex_break_revised", spy)
    statuses = set()
    for seed in range(120):
        for kind in ("integer", "redundant", "ray"):
            M, q = lcp(kind, seed, 3 + seed % 10)
            statuses.add(assert_same_pivoting(M, q).status)
    assert {"solved", "ray"} <= statuses
    assert seen["lex"] >= 20 and seen["lex_not_first"] >= 5 and seen["fresh_dropped"] >= 5, seen


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    seed=st.integers(0, 2**31 - 1),
    k=st.integers(2, 20),
    gap=st.sampled_from([0.0, 1e-13, 3e-10, 1e-8, 1e-3]),
    size=st.sampled_from([1e-3, 1.0, 1e3]),
    tie_tol=st.sampled_from([LEMKE_TIE_TOL, 0.0]),
)
def test_lexicographic_tie_break_is_the_numpy_rule(seed, k, gap, size, tie_tol):
    """The kernel's tie-break alone against :func:`~gaussqp.linalg.lemke._lex_break_revised` on planted near-ties:
    tied rows whose rows of ``B⁻¹`` agree up to ``gap`` (absolute) in some pivoted columns, with entries of every size
    (below 1 the tolerance's floor ``max(1, |min|)`` decides), tied rows inside and outside the pivoted ones, the
    pivoted rows in any order."""
    rng = np.random.default_rng(seed)
    p, cols, slot = pivoted_rows(rng, k)
    n = int(rng.integers(2, k + 1))
    cand = np.sort(rng.permutation(k)[:n]).astype(np.intp)
    GT = np.zeros((k, k))
    base = size * rng.normal(size=p)
    for i in cand:  # near-ties: each tied row of G is the base row, moved by `gap` in a few columns
        GT[:p, i] = base + gap * rng.integers(-1, 2, size=p) * (rng.random(p) < 0.3)
    x = np.ones(k) if rng.random() < 0.5 else rng.choice([1.0, 2.0, 0.5], size=k)
    fast = KERNEL._lex_break(GT, cols, slot, p, x, cand, tie_tol)
    slow = L._lex_break_revised(np.asfortranarray(GT.T), cols, slot, p, x, cand, tie_tol)
    assert fast == slow


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**31 - 1), k=st.integers(1, 20))
def test_compiled_verification_is_lcp_violation(kind, seed, k):
    """The kernel's check of an answer against :func:`~gaussqp.linalg.lemke.lcp_violation` (the reference) and
    ``M z + q``, bit for bit: on Lemke's own answers and on points with negative entries, exact zeros, rows of scale 0
    (a zero row of M with q_i = 0) and complementarity violated."""
    M, q = lcp(kind, seed, k)
    rng = np.random.default_rng(seed)
    if rng.random() < 0.3:  # a row of scale 0 wherever z is 0
        M[0] = 0.0
        q[0] = 0.0
    res = L.lemke(M, q)
    points = [rng.normal(size=k), np.abs(rng.normal(size=k)) * (rng.random(k) < 0.5), np.zeros(k)]
    if res.z is not None:
        points.append(res.z)
    for z in points:
        w, viol, ok = KERNEL.verified(L.plain(M), L.plain(q), L.plain(z))
        assert ok
        assert same(w, M @ z + q)
        assert same(viol, L.lcp_violation(M, q, z))


def test_fortran_ordered_and_read_only_data():
    """A Fortran-ordered ``M`` (its products by another BLAS path: the verification stays NumPy's) and read-only
    arrays (a memoized matrix): the same results as the NumPy pivoting, bit for bit."""
    for kind in KINDS:
        for seed in range(10):
            M, q = lcp(kind, seed, 3 + seed)
            F = np.asfortranarray(M)
            R, Rq = M.copy(), q.copy()
            R.flags.writeable = Rq.flags.writeable = False
            assert_same_pivoting(F, q)
            assert_same_pivoting(R, Rq)


def test_degenerate_tie_breaks_bit_for_bit():
    """Hand-made degeneracy: identical rows (every ratio ties), a zero q entry, and the planted rank-one Delassus
    matrix of ``test_lemke.py`` whose first ratio test ties z0's row."""
    B = np.array([[1.0, 2.0, 0.0], [1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 1.0, 1.0]])
    M = B @ B.T
    for q in ([-1.0, -1.0, -2.0, 0.0], [-1.0, -1.0, -1.0, -1.0], [0.0, -1.0, -2.0, -1.0]):
        assert_same_pivoting(M, np.array(q))
    cd = rank_one_delassus()
    assert assert_same_pivoting(cd.A_c, cd.w_c).status == "solved"
    # a basic z of -0.0: NumPy's clip (numpy.maximum(-0.0, 0.0)) returns +0.0, and so must the kernels'
    assert_same_pivoting(
        np.array([[2.0, -2.0, -3.0], [2.0, -1.0, -3.0], [2.0, -2.0, 1.0]]), np.array([-3.0, -3.0, -3.0])
    )


# ------------------------------------------------------------------ the shipped problems' contact LCPs
def frictionless(p: ContactProblem) -> ContactProblem:
    """``p`` with every contact frictionless (its tangent rows dropped)."""
    k = p.m * (p.dimension - 1)
    return ContactProblem.from_blocks(
        p.M, p.F, p.J_n, p.normal_drift, list(p.types), np.zeros((k, p.n)), np.zeros(k), np.zeros(p.m),
        ["frictionless"] * p.m, None, [False] * p.m, p.dimension, name=p.name + " (frictionless)",
    )  # fmt: skip


def shipped_lcps():
    from gaussqp.mechanics.delassus import constrained_delassus

    out = []
    for name in gaussqp.problems.names() + gaussqp.problems.real_names():
        p = gaussqp.problems.load(name)
        if not isinstance(p, ContactProblem):  # a local (FCLIB) problem: no Delassus LCP to build
            continue
        variants = [p] + ([frictionless(p)] if p.m and p.dimension > 1 else [])
        for v in variants:
            try:
                cd = constrained_delassus(v)
            except Exception:  # a problem without the route's data (singular M, no contacts): not an LCP here
                continue
            if cd.w_c.size:
                out.append((v.name, cd.A_c, cd.w_c))
    return out


def test_shipped_problems_contact_lcps_bit_for_bit():
    lcps = shipped_lcps()
    assert len(lcps) >= 15
    statuses = [assert_same_pivoting(A, w).status for _, A, w in lcps]
    assert statuses.count("solved") >= 10


def test_switches_turn_the_kernel_off(monkeypatch):
    monkeypatch.setattr(gaussqp.settings, "LEMKE_COMPILED", False)
    assert L.compiled_pivots() is None
    monkeypatch.setattr(gaussqp.settings, "LEMKE_COMPILED", True)
    monkeypatch.setenv("GAUSSQP_COMPILED", "0")
    assert L.compiled_pivots() is None
    monkeypatch.setenv("GAUSSQP_COMPILED", "1")
    assert L.compiled_pivots() is KERNEL


def test_non_finite_data_left_to_numpy():
    """Data with a NaN: the kernel decides nothing (FALLBACK) and ``lemke`` does what the NumPy pivoting does."""
    M = np.array([[1.0, np.nan], [np.nan, 1.0]])
    q = np.array([-1.0, -1.0])
    assert KERNEL.pivots(M, q, np.ones(2), 10, LEMKE_PIVOT_TOL, LEMKE_TIE_TOL)[0] == KERNEL.FALLBACK
    try:
        fast = L.lemke(M, q)
    except Exception as e:
        fast = type(e)
    saved = gaussqp.settings.LEMKE_COMPILED
    gaussqp.settings.LEMKE_COMPILED = False
    try:
        slow = L.lemke(M, q)
    except Exception as e:
        slow = type(e)
    finally:
        gaussqp.settings.LEMKE_COMPILED = saved
    if isinstance(fast, type) or isinstance(slow, type):
        assert fast is slow
    else:
        assert fast.status == slow.status and same(fast.z, slow.z)


@pytest.mark.parametrize("name", ["real/humanoid_lying", "real/ant_standing", "real/stacker_boxes", "three_finger"])
def test_the_lcp_route_answers_the_same_bytes(name, monkeypatch):
    """The LCP route end to end (the cross-check's route: constrained Delassus LCP, Lemke, recovery, the judge) with
    the compiled kernels and without: the same status, certification, acceleration and multipliers, byte for byte —
    on the shipped problem and on it made frictionless — and the kernels did run."""
    calls = []

    def spy(real):
        def counted(*a):
            calls.append(1)
            return real(*a)

        return counted

    # the driver's pivoting, or the whole solved case in one call
    for kernel in ("pivots", "lemke_solved"):
        monkeypatch.setattr(KERNEL, kernel, spy(getattr(KERNEL, kernel)))
    p = gaussqp.problems.load(name)
    for v in [p, frictionless(p)]:
        answers = []
        for compiled in (True, False):
            monkeypatch.setattr(gaussqp.settings, "LEMKE_COMPILED", compiled)
            before = len(calls)
            sol = gaussqp.get_formulation("lcp_lemke").solve(v.with_force(v.F))  # a fresh problem: nothing memoized
            assert (len(calls) > before) == compiled
            answers.append(sol)
        fast, slow = answers
        assert (fast.status, fast.certified) == (slow.status, slow.certified)
        for what in ("acceleration", "lambda_normal", "lambda_tangent"):
            assert same(getattr(fast, what), getattr(slow, what)), (v.name, what)


def test_without_numba_the_numpy_pivoting_runs(monkeypatch):
    """numba absent (the kernels' module cannot be imported): ``compiled_pivots`` is None, says why, and ``lemke``
    gives the compiled pivoting's result with NumPy."""
    import sys

    M, q = lcp("redundant", 3, 9)
    fast = L.lemke(M, q)
    import gaussqp.linalg

    monkeypatch.delattr(gaussqp.linalg, "lemke_compiled")
    monkeypatch.setitem(sys.modules, "gaussqp.linalg.lemke_compiled", None)  # its import raises ImportError
    L._load_compiled.cache_clear()
    try:
        assert L.compiled_pivots() is None
        assert "ModuleNotFoundError" in (L.compiled_unavailable or "")  # an ImportError: no warning
        slow = L.lemke(M, q)
    finally:
        monkeypatch.undo()
        L._load_compiled.cache_clear()
        L.compiled_unavailable = None
    assert L.compiled_pivots() is KERNEL
    assert fast.status == slow.status and fast.iterations == slow.iterations and same(fast.z, slow.z)


def test_a_one_shot_solve_does_not_load_the_kernels_a_rollout_does():
    """The load (~0.6 s) is spent only where it pays: not by a first cross-checked frictionless solve in a process nor
    by a Solver's first problem; by a Solver's rollout (from its second problem on), and by lemke once the NumPy
    pivoting has cost LEMKE_COMPILED_AFTER_SECONDS."""
    import subprocess
    import sys

    def run(code: str) -> list[str]:
        head = "import gaussqp\nfrom gaussqp import problems, settings\nimport gaussqp.linalg.lemke as L\n"
        head += "p = problems.load('hyperstatic_block')\nloaded = lambda: L._load_compiled.cache_info().currsize\n"
        out = subprocess.run([sys.executable, "-c", head + code], capture_output=True, text=True, check=True)
        return out.stdout.split()

    assert run(
        "assert gaussqp.solve(p).status == 'solved'\nprint(loaded())\n"
        "settings.LEMKE_COMPILED_AFTER_SECONDS = 0.0\ngaussqp.solve(p.with_force(p.F))\nprint(loaded())\n"
    ) == ["0", "1"]
    assert run("s = gaussqp.Solver(p)\ns.solve(p)\nprint(loaded())\ns.solve(p.with_force(p.F))\nprint(loaded())\n") == [
        "0",
        "1",
    ]
    assert run("gaussqp.solve_many([p])\nprint(loaded())\n") == ["0"]  # one problem: no rollout
