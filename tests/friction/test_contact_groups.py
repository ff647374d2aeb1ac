"""The mode-free route solves separately the groups of contacts W does not couple
(:func:`gaussqp.formulations.coulomb.solve_mode_free`, :func:`gaussqp.friction.nonsmooth_newton.contact_components`,
``settings.COULOMB_COMPONENT_UNKNOWNS_MIN``): the components found from W's pattern, dense or sparse; each group's
answer is the one it gets alone; small components stay together; the whole answer is certified."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.formulations import coulomb
from gaussqp.friction.coulomb_law import natural_map_residual
from gaussqp.friction.nonsmooth_newton import contact_components
from gaussqp.settings import COULOMB_COMPONENT_UNKNOWNS_MIN, COULOMB_NN_ACCEPT_RTOL, COULOMB_RESIDUAL_RTOL

pytest.importorskip("h5py", reason="FCLIB files need the optional extra gaussqp[fclib] (h5py)")

#: a shipped box stack whose W holds two stacks of 38 and 44 contacts that touch nothing in common
STACKS = "fclib_generated/box_stacks-s0-i0004-m82"


def condensed(name: str):
    cd = coulomb.condense(problems.load(name))
    return cd.W, cd.q, cd.mu


def unknowns(contacts: np.ndarray, d: int = 3) -> np.ndarray:
    return (contacts[:, None] * d + np.arange(d)).ravel()


def fail_every_group(monkeypatch, seen: list | None = None):
    """Make every group's answer one the route does not keep (``coulomb._solved_alone`` false: the whole problem is
    then solved coupled by the route); the group runs' Newton iterations go to ``seen``. Returns the real
    ``_solve_connected``."""

    def groups_fail(part, *args):
        if seen is not None:
            seen.append(part.newton_iterations)
        return False

    monkeypatch.setattr(coulomb, "_solved_alone", groups_fail)
    return coulomb._solve_connected


def test_the_components_are_w_s_coupled_groups_dense_or_sparse():
    """Contacts 0, 2 coupled, 1 alone, 3 and 4 coupled (interleaved): three components, the same from a dense and a
    sparse W; an explicitly stored zero block counts as a coupling (the pattern, not the values)."""
    d, m = 2, 5
    W = np.zeros((m * d, m * d))
    for a, b in ((0, 2), (3, 4)):
        for i, j in ((a, a), (a, b), (b, a), (b, b)):
            W[i * d : (i + 1) * d, j * d : (j + 1) * d] = 1.0 + i + j
    W[2:4, 2:4] = np.eye(2)
    dense = contact_components(W, m, d)
    sparse = contact_components(sp.csr_matrix(W), m, d)
    assert dense[0] == sparse[0] == 3
    assert np.array_equal(dense[1], sparse[1])
    labels = dense[1]
    assert labels[0] == labels[2] != labels[1] and labels[3] == labels[4] not in (labels[0], labels[1])
    coo = sp.coo_matrix(W)  # contacts 0 and 1 coupled by entries stored as zeros
    rows, cols = np.append(coo.row, [0, 2]), np.append(coo.col, [2, 0])
    stored = sp.csr_matrix((np.append(coo.data, [0.0, 0.0]), (rows, cols)), shape=W.shape)
    assert stored.nnz == coo.nnz + 2 and contact_components(stored, m, d)[0] == 2
    assert contact_components(np.zeros((0, 0)), 0, 3)[0] == 0
    W[0:2, 2:4] = W[2:4, 0:2] = 1.0  # contact 1 coupled to contact 0, contact 2 to contact 3: all one group
    W[4:6, 6:8] = W[6:8, 4:6] = 1.0
    for form in (W, sp.csr_matrix(W)):  # a sparse W whose unknowns are connected: the contacts' graph is not built
        count, labels = contact_components(form, m, d)
        assert count == 1 and np.array_equal(labels, np.zeros(m, dtype=np.int64))


def test_a_problem_of_two_independent_stacks_is_solved_group_by_group():
    """The shipped stack's two stacks are solved separately: each group's reaction is the one ``_solve_connected``
    gives that group's block alone, bit for bit; the whole answer is within the route's acceptance bound; the report
    holds both groups; a guess is cut per group (a re-solve from the answer: no iteration)."""
    W, q, mu = condensed(STACKS)
    groups = coulomb._groups(W, mu.size, 3)
    assert groups is not None and sorted(g.size for g in groups) == [38, 44]
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    assert [g["contacts"] for g in ans.newton_kernel["groups"]] == [g.size for g in groups]
    for contacts in groups:
        iu = unknowns(contacts)
        alone = coulomb._solve_connected(W[np.ix_(iu, iu)], q[iu], mu[contacts], 3)
        assert np.array_equal(ans.r[iu], alone.r)
    assert np.array_equal(ans.u, W @ ans.r + q)
    res = natural_map_residual(ans.r, ans.u, q, mu, 3)
    assert res.relative <= COULOMB_NN_ACCEPT_RTOL
    assert ans.newton_iterations == sum(g["iterations"] for g in ans.newton_kernel["groups"])
    assert {h["group"] for h in ans.history} <= {0, 1}
    again = coulomb.solve_mode_free(W, q, mu, 3, guess=ans.r)
    assert again.newton_iterations == 0  # each group's guess (the answer projected on its cones) already converged
    assert natural_map_residual(again.r, again.u, q, mu, 3).relative <= COULOMB_NN_ACCEPT_RTOL


def test_small_components_are_solved_together_as_before(monkeypatch):
    """Below the size (both stacks counted small), the problem is solved whole: no group report, and the answer is
    ``_solve_connected``'s on the whole W."""
    W, q, mu = condensed(STACKS)
    monkeypatch.setattr(coulomb, "COULOMB_COMPONENT_UNKNOWNS_MIN", 45 * 3)  # the larger stack has 44 contacts
    assert coulomb._groups(W, mu.size, 3) is None
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    assert "groups" not in ans.newton_kernel
    assert np.array_equal(ans.r, coulomb._solve_connected(W, q, mu, 3).r)


def test_one_large_component_and_small_ones_are_not_split():
    """Two components of which one is large: solved whole (``_groups`` is None), whatever the small one's size."""
    W, q, mu = condensed(STACKS)
    big, small = sorted(coulomb._groups(W, mu.size, 3), key=len)[::-1]
    keep = np.concatenate([big, small[: max(1, COULOMB_COMPONENT_UNKNOWNS_MIN // 3 - 1)]])
    iu = unknowns(keep)
    assert coulomb._groups(W[np.ix_(iu, iu)], keep.size, 3) is None


def test_the_route_certifies_the_split_answer_with_the_acceleration_of_the_whole_solve(monkeypatch):
    """Through ``gaussqp.solve``: certified, the groups reported; the acceleration and ``Jᵀλ`` are those of the
    problem solved whole (its multipliers are not unique: 246 unknowns for 90 coordinates, so λ may differ)."""
    p = problems.load(STACKS)
    split = gaussqp.solve(p, crosscheck=False)
    assert split.status == "solved" and split.certified and len(split.extras["nonsmooth_newton"]["groups"]) == 2
    monkeypatch.setattr(coulomb, "COULOMB_COMPONENT_UNKNOWNS_MIN", 10**9)
    whole = gaussqp.solve(p.with_force(p.F), crosscheck=False)
    assert whole.status == "solved" and "groups" not in whole.extras["nonsmooth_newton"]
    scale = np.abs(coulomb.condense(p).a_free).max()  # the boxes rest: a ≈ 0, on the scale of gravity's M⁻¹F
    assert np.abs(split.acceleration - whole.acceleration).max() <= 1e-9 * scale


def test_a_group_not_solved_alone_sends_the_whole_problem_to_the_route(monkeypatch):
    """When a group's answer is not kept (neither converged nor within the certificate's bound after the group's own
    route, its convex iteration and last resort included), the whole problem is solved coupled by the route, as it was
    before groups: that answer, with a note saying which group, and the groups' work counted."""
    W, q, mu = condensed(STACKS)
    groups_seen: list = []
    real = fail_every_group(monkeypatch, groups_seen)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    whole = real(W, q, mu, 3)
    assert len(groups_seen) == 1  # the first group failed: the second is not tried
    assert np.array_equal(ans.r, whole.r) and ans.path == whole.path
    assert ans.newton_kernel["groups"].startswith("group 0 of 2 (")
    assert ans.newton_iterations == whole.newton_iterations + groups_seen[0]


def test_a_group_within_the_certificates_bound_is_kept_and_one_above_it_is_not(monkeypatch):
    """A group's answer that neither its Newton nor its rounds call converged is kept when the judge's measure of it,
    on the group's own data, is within the certificate's bound (the merged answer's measure is then within it too):
    at 0.9 and 1.1 times the bound; and the measure is the judge's, the velocity change too, not the residual alone."""
    W, q, mu = condensed(STACKS)
    g0 = coulomb._groups(W, mu.size, 3)[0]
    iu = unknowns(g0)
    Wg, qg = W[np.ix_(iu, iu)], q[iu]
    part = coulomb._solve_connected(Wg, qg, mu[g0], 3)
    assert coulomb._solved_alone(part, qg, mu[g0], 3)
    part.backend_status = "stalled"  # the same exact answer, not called converged: still kept
    assert coulomb._solved_alone(part, qg, mu[g0], 3)

    def off_by(eps: float):
        r = part.r.copy()
        r[0] += eps * np.linalg.norm(qg)  # a normal reaction off by eps of ‖q‖
        off = coulomb.replace(part, r=r, u=Wg @ r + qg)
        return off, coulomb.law_measure(natural_map_residual(off.r, off.u, qg, mu[g0], 3))

    _, unit = off_by(COULOMB_RESIDUAL_RTOL)  # the measure grows linearly with a small offset
    for factor, kept in ((0.9, True), (1.1, False)):
        off, measure = off_by(factor * COULOMB_RESIDUAL_RTOL**2 / unit)
        assert abs(measure / COULOMB_RESIDUAL_RTOL - factor) < 0.02  # 0.9 and 1.1 times the bound
        assert coulomb._solved_alone(off, qg, mu[g0], 3) == kept
    # a residual within the bound with a velocity change above it (what a large μ gives): not kept
    fake = type(
        "Measure", (), {"relative": 0.5 * COULOMB_RESIDUAL_RTOL, "velocity_change_relative": 2 * COULOMB_RESIDUAL_RTOL}
    )
    monkeypatch.setattr(coulomb, "natural_map_residual", lambda *a: fake)
    assert not coulomb._solved_alone(part, qg, mu[g0], 3)


def test_a_group_only_its_convex_iteration_solves_is_kept_without_the_whole_problem(monkeypatch):
    """A group that its Newton (here: no iteration allowed), its rounds (no budget) and its sweeps' start (none) leave
    unsolved runs its own convex iteration, the route's last resort, and its answer is merged with the other group's
    instead of the whole problem being solved coupled."""
    W, q, mu = condensed(STACKS)
    real = coulomb.solve_newton
    monkeypatch.setattr(coulomb, "solve_newton", lambda *a, **k: real(*a, **{**k, "max_iter": 0}))
    monkeypatch.setattr(coulomb, "COULOMB_PROX_WORK_MAX", 0)
    monkeypatch.setattr(coulomb, "sweep_start", lambda *a: (None, {"reason": "not run: a test"}))
    monkeypatch.setattr(coulomb, "convex_start", lambda *a: None)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    groups = ans.newton_kernel["groups"]
    assert isinstance(groups, list) and len(groups) == 2  # merged, not the whole problem
    assert "convex iteration" in {g["path"] for g in groups} and ans.path == "convex iteration"
    assert coulomb.law_measure(natural_map_residual(ans.r, ans.u, q, mu, 3)) <= COULOMB_RESIDUAL_RTOL


def test_a_problem_without_contacts_or_at_rest_is_solved():
    """No contact (a local problem of size 0) and q = 0 (r = 0 solves it): solved, without a Newton system."""
    empty = gaussqp.LocalContactProblem(W=np.zeros((0, 0)), q=np.zeros(0), mu=np.zeros(0), dimension=3)
    assert gaussqp.solve(empty, crosscheck=False).status == "solved"
    W, q, mu = condensed(STACKS)
    rest = coulomb.solve_mode_free(W, np.zeros_like(q), mu, 3)
    assert not np.any(rest.r) and rest.path == "newton"


#: a shipped scene of several quadrupeds (77 contacts, no component of 60 unknowns): its first Newton run whole stalls
QUADRUPEDS = "fclib_generated/quadruped-s0-i0016-m77"


def _single_contacts(m: int, seed: int = 0):
    """``m`` contacts that W does not couple (each its own component of 3 unknowns), a random SPD block each, a load
    that presses them (q_n < 0) and pushes them sideways."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(m):
        A = rng.normal(size=(3, 3))
        blocks.append(A @ A.T + 0.5 * np.eye(3))
    q = rng.normal(size=3 * m)
    q[0::3] = -np.abs(q[0::3]) - 0.1
    return sp.block_diag(blocks, format="csr"), q, np.full(m, 0.4)


def test_small_components_are_packed_in_order_into_groups_of_the_size(monkeypatch):
    """50 components of 3 unknowns, the size 60: 20 contacts a group, the remainder (10) with the last one; fewer than
    two groups: None."""
    monkeypatch.setattr(coulomb, "COULOMB_COMPONENT_UNKNOWNS_MIN", 60)
    W, q, mu = _single_contacts(50)
    groups = coulomb._packed_groups(contact_components(W, mu.size, 3), 3)
    assert groups is not None and [g.tolist() for g in groups] == [list(range(20)), list(range(20, 50))]
    assert coulomb._packed_groups(contact_components(W[:90, :90], 30, 3), 3) is None  # 30 contacts: one group
    assert coulomb._packed_groups(None, 3) is None


def test_small_components_solved_whole_when_the_first_run_converges(monkeypatch):
    """Independent contacts whose first run whole converges: solved whole as before (no groups, no first-run report),
    the answer ``_solve_connected``'s."""
    monkeypatch.setattr(coulomb, "COULOMB_COMPONENT_UNKNOWNS_MIN", 60)
    W, q, mu = _single_contacts(50)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    assert ans.backend_status == "converged"
    assert "groups" not in ans.newton_kernel and "whole_first" not in ans.newton_kernel
    assert np.array_equal(ans.r, coulomb._solve_connected(W, q, mu, 3).r)


def test_small_components_are_solved_in_groups_when_the_first_run_whole_stalls():
    """The quadrupeds: the schedule's first run on the whole problem stalls (one quadruped holds the merit of all);
    their components are then solved in groups, each as alone, and the first run's work is counted and reported."""
    W, q, mu = condensed(QUADRUPEDS)
    count, labels = contact_components(W, mu.size, 3)
    assert count >= 2 and np.bincount(labels).max() * 3 < COULOMB_COMPONENT_UNKNOWNS_MIN
    first = coulomb._solve_connected(W, q, mu, 3, schedule=coulomb.COULOMB_NN_SCHEDULE[:1], rounds=False)
    assert first.backend_status != "converged" and not first.proximal
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    report = ans.newton_kernel["whole_first"]
    assert report["iterations"] == first.newton_iterations and report["reason"] == first.backend_status
    groups = coulomb._packed_groups((count, labels), 3)
    assert [g["contacts"] for g in ans.newton_kernel["groups"]] == [g.size for g in groups]
    for contacts in groups:
        iu = unknowns(contacts)
        alone = coulomb._solve_connected(W[np.ix_(iu, iu)], q[iu], mu[contacts], 3)
        assert np.array_equal(ans.r[iu], alone.r)
    assert ans.newton_iterations == first.newton_iterations + sum(g["iterations"] for g in ans.newton_kernel["groups"])
    assert natural_map_residual(ans.r, ans.u, q, mu, 3).relative <= COULOMB_NN_ACCEPT_RTOL


def _stack_and_singles(count: int = 20):
    """The larger shipped stack (132 unknowns) and ``count`` single contacts after it: one component large enough to be
    a group alone (``_groups`` is None), the singles one packed group beside it."""
    Ws, qs, mus = condensed(STACKS)
    big = max(coulomb._groups(Ws, mus.size, 3), key=len)
    iu = unknowns(big)
    W1, q1, mu1 = _single_contacts(count)
    W = sp.block_diag([sp.csr_matrix(Ws[np.ix_(iu, iu)]), W1], format="csr")
    return W, np.concatenate([qs[iu], q1]), np.concatenate([mus[big], mu1])


@pytest.mark.parametrize("case", ["no iterations", "no convex start"])
def test_the_first_run_whole_runs_up_to_its_first_starts_pair(case, monkeypatch):
    """With the convex start first (the stack's 132 unknowns above a lowered threshold), the first run whole is the
    convex pair and the first "starts" pair: with no Newton iterations allowed, or no convex start, the "starts" pair
    still runs (a first run of the convex pair alone had no run at all)."""
    W, q, mu = _stack_and_singles()
    assert coulomb._groups(W, mu.size, 3) is None
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 100)
    if case == "no convex start":
        monkeypatch.setattr(coulomb, "convex_start", lambda *args: None)
    ans = coulomb.solve_mode_free(W, q, mu, 3, newton_max_iter=0 if case == "no iterations" else 50)
    assert ans.r.shape == q.shape and np.all(np.isfinite(ans.r))


def test_a_group_that_fails_after_the_first_run_sends_the_whole_problem_to_the_route(monkeypatch):
    """The quadrupeds, every group made to fail: the whole problem is solved coupled by the route, with the first run's
    work counted once and its report saying what came next."""
    W, q, mu = condensed(QUADRUPEDS)
    real = fail_every_group(monkeypatch)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    first = real(W, q, mu, 3, schedule=coulomb.COULOMB_NN_SCHEDULE[:1], rounds=False)
    whole = real(W, q, mu, 3)
    assert np.array_equal(ans.r, whole.r)
    report = ans.newton_kernel["whole_first"]
    assert report["iterations"] == first.newton_iterations and report["then"].startswith("a group not solved alone")
    assert ans.newton_kernel["groups"].startswith("group 0 of ")
    g0 = coulomb._packed_groups(contact_components(W, mu.size, 3), 3)[0]
    iu = unknowns(g0)
    tried = real(W[np.ix_(iu, iu)], q[iu], mu[g0], 3)
    assert ans.newton_iterations == whole.newton_iterations + tried.newton_iterations + first.newton_iterations
