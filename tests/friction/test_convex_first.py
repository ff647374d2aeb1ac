"""The mode-free route's damping schedule puts the convex start first on a large connected group of contacts
(:func:`gaussqp.formulations.coulomb._schedule`, ``settings.COULOMB_CONVEX_FIRST_UNKNOWNS_MIN``): decided by the
largest connected component of the group (never by the group's or the problem's total size), only without a guess,
and with the same pairs as the usual schedule. The shipped box stack holds two stacks of 38 and 44 contacts (114 and
132 unknowns) that W does not couple; the threshold is lowered to their size here (the setting's own measurements are
the growth benchmark's box walls of 1,142 contacts and more, too large for a test)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import gaussqp
from gaussqp import problems
from gaussqp.formulations import coulomb
from gaussqp.settings import (
    COULOMB_CONVEX_FIRST_UNKNOWNS_MIN,
    COULOMB_NN_SCHEDULE,
    COULOMB_NN_SCHEDULE_CONVEX_FIRST,
)

from test_contact_groups import _single_contacts, fail_every_group  # tests/friction is on sys.path

pytest.importorskip("h5py", reason="FCLIB files need the optional extra gaussqp[fclib] (h5py)")

STACKS = "fclib_generated/box_stacks-s0-i0004-m82"


@pytest.fixture(scope="module")
def stacks():
    cd = coulomb.condense(problems.load(STACKS))
    return cd.W, cd.q, cd.mu


def first_starts(report: dict) -> dict:
    """Each group's first attempt in a Newton report (``newton_kernel``), "convex program" or "starts" (group None:
    the problem solved whole)."""
    out: dict = {}
    for attempt in report["attempts"]:
        out.setdefault(attempt.get("group"), attempt.get("start", "starts"))
    return out


def test_the_convex_first_schedule_holds_the_same_pairs_with_the_first_convex_pair_first():
    assert sorted(COULOMB_NN_SCHEDULE_CONVEX_FIRST) == sorted(COULOMB_NN_SCHEDULE)
    assert len(set(COULOMB_NN_SCHEDULE_CONVEX_FIRST)) == len(COULOMB_NN_SCHEDULE)
    first_convex = next(pair for pair in COULOMB_NN_SCHEDULE if pair[1] == "convex")
    assert COULOMB_NN_SCHEDULE_CONVEX_FIRST[0] == first_convex
    assert COULOMB_NN_SCHEDULE[0][1] == "starts"


def test_the_schedule_goes_by_the_size_and_the_guess():
    big = COULOMB_CONVEX_FIRST_UNKNOWNS_MIN
    assert coulomb._schedule(big, None) == COULOMB_NN_SCHEDULE_CONVEX_FIRST
    assert coulomb._schedule(big - 1, None) == COULOMB_NN_SCHEDULE
    assert coulomb._schedule(10 * big, np.zeros(3)) == COULOMB_NN_SCHEDULE  # a trajectory's guess comes first


def test_each_group_goes_by_its_own_component(monkeypatch, stacks):
    """Threshold 120: the 132-unknown stack starts from the convex program, the 114-unknown one from the Newton's own
    starts; both certified."""
    W, q, mu = stacks
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 120)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    sizes = {k: g["unknowns"] for k, g in enumerate(ans.newton_kernel["groups"])}
    assert sorted(sizes.values()) == [114, 132]
    starts = first_starts(ans.newton_kernel)
    for k, size in sizes.items():
        assert starts[k] == ("convex program" if size >= 120 else "starts"), (k, size, starts)
    assert ans.backend_status == "converged"


def test_a_problem_solved_whole_goes_by_its_largest_component_not_its_size(monkeypatch, stacks):
    """No split (the groups' setting out of reach): 246 unknowns in components of 114 and 132. Threshold 200 (above
    the largest component, below the total): the Newton's own starts first; threshold 130: the convex start first."""
    W, q, mu = stacks
    monkeypatch.setattr(coulomb, "COULOMB_COMPONENT_UNKNOWNS_MIN", 10**9)
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 200)
    assert first_starts(coulomb.solve_mode_free(W, q, mu, 3).newton_kernel) == {None: "starts"}
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 130)
    whole = coulomb.solve_mode_free(W, q, mu, 3)
    assert first_starts(whole.newton_kernel) == {None: "convex program"}
    assert whole.backend_status == "converged"


def test_a_guess_keeps_the_newton_s_own_starts_first(monkeypatch, stacks):
    W, q, mu = stacks
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 100)
    first = coulomb.solve_mode_free(W, q, mu, 3)
    assert set(first_starts(first.newton_kernel).values()) == {"convex program"}
    again = coulomb.solve_mode_free(W, q * 1.001, mu, 3, guess=first.r)
    assert set(first_starts(again.newton_kernel).values()) == {"starts"}


def test_the_convex_first_answer_is_certified_through_solve(monkeypatch):
    """Through ``gaussqp.solve`` with every component above the lowered threshold: certified, as with the usual
    schedule, and the acceleration is the same (the boxes' multipliers are not unique: λ may differ)."""
    p = problems.load(STACKS)
    usual = gaussqp.solve(p, crosscheck=False)
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 100)
    first = gaussqp.solve(p.with_force(p.F), crosscheck=False)
    assert usual.status == first.status == "solved" and usual.certified and first.certified
    assert set(first_starts(first.extras["nonsmooth_newton"]).values()) == {"convex program"}
    scale = np.abs(coulomb.condense(p).a_free).max()
    assert np.abs(usual.acceleration - first.acceleration).max() <= 1e-9 * scale


def test_a_group_of_small_components_goes_by_its_largest_component(monkeypatch, stacks):
    """The two stacks (114 and 132 unknowns) and 20 single contacts after them: the stacks are groups of their own, the
    singles one group of 60 unknowns in components of 3. Threshold 30: the stacks start from the convex program, the
    singles' group (its total above, its components below) from the Newton's own starts; threshold 3: all from the
    convex program."""
    W0, q0, mu0 = stacks
    Ws, qs, mus = _single_contacts(20)
    W = sp.block_diag([sp.csr_matrix(W0), Ws], format="csr")
    q, mu = np.concatenate([q0, qs]), np.concatenate([mu0, mus])
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 30)
    ans = coulomb.solve_mode_free(W, q, mu, 3)
    sizes = [g["unknowns"] for g in ans.newton_kernel["groups"]]
    assert sorted(sizes) == [60, 114, 132]
    starts = first_starts(ans.newton_kernel)
    assert [starts[k] for k in range(3)] == ["starts" if size == 60 else "convex program" for size in sizes]
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 3)
    assert set(first_starts(coulomb.solve_mode_free(W, q, mu, 3).newton_kernel).values()) == {"convex program"}


def test_the_whole_problem_solved_after_a_group_fails_goes_by_its_largest_component(monkeypatch, stacks):
    """A group that does not converge alone sends the whole problem to the route: that run's schedule is the whole
    problem's (its largest component, 132 unknowns: the convex start first at the threshold 130), with a guess the
    Newton's own starts."""
    W, q, mu = stacks
    fail_every_group(monkeypatch)
    monkeypatch.setattr(coulomb, "COULOMB_CONVEX_FIRST_UNKNOWNS_MIN", 130)
    whole = coulomb.solve_mode_free(W, q, mu, 3)
    assert whole.newton_kernel["groups"].startswith("group 0 of 2")
    assert first_starts(whole.newton_kernel) == {None: "convex program"}
    guessed = coulomb.solve_mode_free(W, q, mu, 3, guess=whole.r)
    assert guessed.newton_kernel["groups"].startswith("group 0 of 2")
    assert first_starts(guessed.newton_kernel) == {None: "starts"}
