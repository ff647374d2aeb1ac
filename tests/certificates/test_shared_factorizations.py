"""Factorizations a solve's certificates share (issue #15): one SVD of an active set's equilibrated KKT matrix per
problem (the polish and the forward error of the answer and of the cross-check's answer; keyed by the active set, held
weakly, equal to a fresh one), one rank of the multiplier rows (C2, C5, both answers' uniqueness) and one SVD of the
stacked [R; E] (C1, C3)."""

from __future__ import annotations

import gc

import numpy as np

import gaussqp
from gaussqp import ContactProblem, problems
from gaussqp.mechanics import active_set as kkt


def frictionless_humanoid() -> ContactProblem:
    p = problems.load("real/humanoid_lying")
    return ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        np.zeros((2 * p.m, p.n)),
        np.zeros(2 * p.m),
        np.zeros(p.m),
        ["frictionless"] * p.m,
        None,
        [False] * p.m,
        3,
    )


def test_one_solve_factors_each_active_set_once(monkeypatch):
    """With the NumPy steps of the forward error (the compiled steps, which factor in their kernel, are the next
    test's)."""
    from gaussqp.certificates import compiled

    monkeypatch.setattr(compiled, "kernels_when_worth", lambda: None)
    q = frictionless_humanoid()
    built = []
    real = kkt.equilibrated_kkt
    monkeypatch.setattr(
        kkt, "equilibrated_kkt", lambda prob, active: built.append(active.tobytes()) or real(prob, active)
    )
    sol = gaussqp.solve(q)  # F1, then the LCP route as cross-check: two answers, each polished and estimated
    assert sol.status == "solved" and sol.crosscheck.agree is True
    assert sol.certificate("forward_error").holds is True
    assert len(built) == len(set(built)) >= 1  # every active set factored once (four uses)


def test_the_compiled_steps_never_factor_a_set_the_polish_factored(monkeypatch):
    """The forward error's compiled steps factor their sets in their kernel; where the polish has factored a set of the
    problem (an interior-point answer, here Clarabel's) the NumPy steps run and read it: one factorization either way."""
    from gaussqp.certificates import compiled, instance

    if compiled.kernels() is None:
        import pytest

        pytest.skip("numba is not installed: pip install 'gaussqp[fast]'")
    monkeypatch.setattr(compiled, "kernels_when_worth", compiled.kernels)
    ran = []
    real = instance._compiled_steps
    monkeypatch.setattr(instance, "_compiled_steps", lambda *a: ran.append(r := real(*a)) or r)
    sol = gaussqp.solve(frictionless_humanoid(), crosscheck=False)  # DAQP's answer: not polished
    assert sol.solver == "daqp" and not kkt.factored_any(sol.problem) and ran[-1] is not None
    built = []
    real_kkt = kkt.equilibrated_kkt
    monkeypatch.setattr(
        kkt, "equilibrated_kkt", lambda prob, active: built.append(active.tobytes()) or real_kkt(prob, active)
    )
    sol = gaussqp.solve(frictionless_humanoid(), solver="clarabel", crosscheck=False)
    assert sol.status == "solved" and sol.certificate("forward_error").holds is True
    assert len(built) == len(set(built)) >= 1 and ran[-1] is None  # the polish's factors, read by the NumPy steps


def test_factor_is_keyed_by_the_active_set_and_equals_a_fresh_svd():
    p = problems.load("real/humanoid_lying")
    mask = np.zeros(len(p.unilateral), dtype=bool)
    mask[:3] = True
    f1 = kkt.equilibrated_kkt_svd(p, mask)
    assert kkt.equilibrated_kkt_svd(p, mask.copy()) is f1  # the same set, another array: from the memo
    other = mask.copy()
    other[5] = True
    f2 = kkt.equilibrated_kkt_svd(p, other)
    assert f2 is not f1 and f2.kkt.J.shape[0] == f1.kkt.J.shape[0] + 1
    e = kkt.equilibrated_kkt(p, mask)
    sv = np.linalg.svd(e.d[:, None] * e.K * e.d[None, :], compute_uv=False)
    assert np.allclose(f1.sv, sv, rtol=1e-12, atol=0.0)
    rhs = np.random.default_rng(0).standard_normal(f1.sv.size)
    Kt = e.d[:, None] * e.K * e.d[None, :]
    for rcond in (1e-13, 1e-6):  # full rank here: K̃⁻¹ by the LU; then a truncated pseudo-inverse by the vectors
        rank = int(np.sum(f1.sv > rcond * f1.sv[0]))
        x = f1.solve(rhs, rank)  # numpy's min-norm least squares at that rcond
        ref = np.linalg.lstsq(Kt, rhs, rcond=rcond)[0]
        # two backward-stable solves agree to the condition of what they solve (cond(K̃) ~ 8e9 on this set)
        agree = 10 * f1.sv.size * np.finfo(float).eps * f1.sv[0] / f1.sv[rank - 1]
        assert np.allclose(x, ref, rtol=agree, atol=agree * np.abs(ref).max())
        rows = f1.inverse_rows(27, rank)
        ref_rows = np.linalg.pinv(Kt, rtol=rcond)[27:]
        assert np.allclose(rows, ref_rows, rtol=agree, atol=agree * np.abs(ref_rows).max())
    assert f1.rank(1e-13) == f1.sv.size > f1.rank(1e-6)


def test_factor_of_a_singular_set_takes_the_vectors_at_once(monkeypatch):
    """More active rows than coordinates (the all-sticking humanoid's 14 normal and 28 tangent rows on 27
    coordinates): K̃ is singular, its SVD's vectors come with its values (one SVD, never an LU)."""
    p = problems.load("real/humanoid_lying")
    calls = []
    real = np.linalg.svd
    monkeypatch.setattr(np.linalg, "svd", lambda A, **kw: calls.append(kw) or real(A, **kw))
    f = kkt.equilibrated_kkt_svd(p.with_force(p.F), np.ones(len(p.unilateral), dtype=bool))
    rank = f.rank(1e-13)
    assert rank < f.sv.size and calls == [{}]
    f.solve(np.ones(f.sv.size), rank)
    assert calls == [{}] and f._lu is None


def test_sparse_solve_factors_each_active_set_once_and_keeps_it_read_only(monkeypatch):
    # a sparse chain: F1, then F2 as cross-check; both polish onto the same active set, one sparse LU between them
    from gaussqp.problems import families

    p = families.chain(200, lift=1.5, duplicate_every=0)
    assert p.sparse
    factored = []
    real = kkt.sparse_kkt_solve
    monkeypatch.setattr(kkt, "sparse_kkt_solve", lambda M, J, rhs: factored.append(J.shape) or real(M, J, rhs))
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.crosscheck.agree is True
    assert sol.extras.get("polished") and sol.crosscheck.formulation != sol.formulation
    assert len(factored) == 1
    A = kkt.guess_active(p, sol.acceleration, sol.lambda_normal)
    z = kkt.sparse_active_set_solution(p, A)
    assert z is not None and not z.flags.writeable
    assert np.array_equal(z[: p.n], sol.acceleration)  # the answer is the memo's solution, copied (writeable)
    assert sol.acceleration.flags.writeable
    E, e = p.equalities
    G, g = p.inequalities
    import scipy.sparse as sp

    J = sp.vstack([sp.csr_matrix(E), sp.csr_matrix(G)[A]], format="csr")
    fresh = real(p.M, J, np.concatenate([-p.F, -e, -g[A]]))
    assert np.array_equal(z, fresh)


def test_memo_does_not_keep_problems_alive():
    import weakref

    p = problems.load("real/humanoid_lying")
    kkt.equilibrated_kkt_svd(p, np.ones(len(p.unilateral), dtype=bool))
    assert p in kkt._SVD_MEMO
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None  # the memo held it weakly: the problem and its factors are gone


def test_multiplier_rank_and_the_kernel_stack_once_per_solve(monkeypatch):
    from gaussqp.certificates import instance, structural

    p = problems.load("real/humanoid_lying")
    q = ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        list(p.types),
        np.zeros((2 * p.m, p.n)),
        np.zeros(2 * p.m),
        np.zeros(p.m),
        ["frictionless"] * p.m,
        None,
        [False] * p.m,
        3,
    )
    ranks, stacks = [], []
    real_rank, real_stack = instance.row_rank, structural._stack
    monkeypatch.setattr(instance, "row_rank", lambda J: ranks.append(J.shape) or real_rank(J))
    monkeypatch.setattr(structural, "_stack", lambda *b, n: stacks.append(n) or real_stack(*b, n=n))
    sol = gaussqp.solve(q)  # C1-C5, then the answer's and the LCP route's uniqueness
    assert sol.status == "solved" and sol.crosscheck.agree is True
    assert sol.certificate("C1").holds is True and sol.certificate("C2").holds is True
    assert sol.certificate("C3").holds is True and sol.certificate("unique_multipliers").holds is True
    assert len(ranks) == 1 and len(stacks) == 1


def test_constrained_delassus_once_per_problem_and_read_only(monkeypatch):
    # C5's range test, C6 and the LCP route read the same bilateral elimination (issue #15): computed once, its arrays
    # read-only so that no reader can change what the next one reads; equal to a fresh computation
    from gaussqp.mechanics import delassus

    p = problems.load("real/humanoid_lying")
    q = ContactProblem.from_blocks(
        p.M,
        p.F,
        p.J_n,
        p.normal_drift,
        ["bilateral"] + list(p.types)[1:],
        np.zeros((2 * p.m, p.n)),
        np.zeros(2 * p.m),
        np.zeros(p.m),
        ["frictionless"] * p.m,
        None,
        [False] * p.m,
        3,
    )
    made = []
    real = delassus.eliminate_bilateral
    monkeypatch.setattr(delassus, "eliminate_bilateral", lambda *a: made.append(1) or real(*a))
    sol = gaussqp.solve(q)
    assert sol.status == "solved" and sol.certificate("C6") is not None and sol.certificate("C5(range)") is not None
    assert len(made) == 1
    cd = delassus.constrained_delassus(q)
    assert not cd.A_c.flags.writeable and not cd.Minv.flags.writeable
    fresh = delassus.constrained_delassus.__wrapped__(q)  # computed again, past the memo
    assert np.array_equal(cd.A_c, fresh.A_c) and np.array_equal(cd.w_c, fresh.w_c)


def test_per_problem_computes_once_and_holds_problems_weakly():
    import weakref

    from gaussqp.model.memo import per_problem

    calls = []

    @per_problem
    def size(problem):
        calls.append(1)
        return problem.n

    p = problems.load("real/humanoid_lying")
    assert size(p) == size(p) == p.n and len(calls) == 1
    q = p.with_force(p.F)  # another object with the same data: computed for it too
    assert size(q) == p.n and len(calls) == 2
    ref = weakref.ref(p)
    del p
    gc.collect()
    assert ref() is None and len(size.memo) == 1
