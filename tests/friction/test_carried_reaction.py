"""A mode-free rollout whose contact set changes: the last certified reaction is carried to the new contact set
contact by contact (matched by normal rows, tangents re-expressed), a start for the Newton method only."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gaussqp
from gaussqp import problems
import gaussqp.formulations.coulomb as coulomb
from gaussqp.formulations.coulomb import block_reaction, carried_blocks_numpy, carried_reaction, normal_cosines
from gaussqp.friction.compiled import kernels
from gaussqp.model.problem import ContactProblem
from gaussqp.results import SOLVED
from gaussqp.settings import COULOMB_CARRY_COSINE_MIN


@pytest.fixture(scope="module")
def humanoid():
    p = problems.load("real/humanoid_lying").mode_free()
    sol = gaussqp.solve(p, crosscheck=False)
    assert sol.status == SOLVED
    return p, block_reaction(sol, p.m)


def _subset(p: ContactProblem, keep: list[int], rotate: float = 0.0) -> ContactProblem:
    """The contacts ``keep`` of ``p`` (in that order), their tangent frames turned by ``rotate`` about the normal."""
    d = p.dimension
    Jt = np.asarray(p.J_t).reshape(p.m, d - 1, p.n)[keep]
    c, s = np.cos(rotate), np.sin(rotate)
    Jt = np.einsum("ts,ksi->kti", np.array([[c, -s], [s, c]]), Jt).reshape(-1, p.n)
    return ContactProblem.from_blocks(
        p.M,
        p.F,
        np.asarray(p.J_n)[keep],
        np.asarray(p.normal_drift)[keep],
        [str(p.types[i]) for i in keep],
        Jt,
        np.zeros(len(keep) * (d - 1)),
        np.asarray(p.friction)[keep],
        [str(p.modes[i]) for i in keep],
        None,
        [bool(p.has_tangent[i]) for i in keep],
        d,
        name="subset",
    )


def test_the_same_contacts_carry_the_same_reaction(humanoid):
    p, r = humanoid
    np.testing.assert_allclose(carried_reaction(p, r, p), r, rtol=1e-12, atol=1e-12 * np.abs(r).max())


def test_contacts_are_matched_by_their_rows_and_tangents_re_expressed(humanoid):
    p, r = humanoid
    d = p.dimension
    keep = [5, 2, 9, 11, 0]
    q = _subset(p, keep, rotate=0.7)
    got = carried_reaction(p, r, q).reshape(len(keep), d)
    old = r.reshape(p.m, d)[keep]
    np.testing.assert_allclose(got[:, 0], old[:, 0], rtol=0, atol=0)
    # the generalized force of each tangential reaction is the one the old contact exerted
    Jt_old = np.asarray(p.J_t).reshape(p.m, d - 1, p.n)[keep]
    Jt_new = np.asarray(q.J_t).reshape(len(keep), d - 1, p.n)
    f_old = np.einsum("kti,kt->ki", Jt_old, old[:, 1:])
    f_new = np.einsum("kti,kt->ki", Jt_new, got[:, 1:])
    np.testing.assert_allclose(f_new, f_old, rtol=1e-12, atol=1e-12 * np.abs(f_old).max())


def test_nothing_to_carry_across_other_coordinates(humanoid):
    p, r = humanoid
    assert carried_reaction(p, r[:-3], p) is None  # a reaction of another contact count


def test_a_rollout_state_of_another_contact_set_starts_warm_and_is_certified(humanoid):
    p, _ = humanoid
    q = _subset(p, [i for i in range(p.m) if i != 4])
    solver = gaussqp.Solver(p, crosscheck=False, adapt=True)
    assert solver.solve(p).status == SOLVED
    sol = solver.solve(q)
    assert solver.rebinds == 1
    assert sol.status == SOLVED and sol.extras["warm_start"] is True
    assert sol.certified
    cold = gaussqp.solve(q, crosscheck=False)
    assert cold.status == SOLVED and cold.extras["warm_start"] is False


def test_only_the_last_certified_state_is_carried(humanoid, monkeypatch):
    """An uncertified state, or a state whose structure keeps no plan (no mode-free contact), leaves nothing to carry."""
    p, _ = humanoid
    solver = gaussqp.Solver(p, crosscheck=False, adapt=True)
    sol = solver.solve(p)
    assert solver._carry is not None and solver._carry[0] is p
    sol.status = "inaccurate"  # what the Solver would have seen had the judge refused it
    monkeypatch.setattr(gaussqp.batch, "solve_classified", lambda *a, **k: sol)
    solver.solve(p)
    assert solver._carry is None
    monkeypatch.undo()
    solver.solve(p)
    assert solver._carry is not None
    frictionless = problems.load("real/humanoid_lying")  # told sticking: no mode-free contact, no plan
    solver.solve(frictionless)
    assert solver._carry is None


def _planar(Jn, Jt) -> ContactProblem:
    m = len(Jn)
    return ContactProblem.from_blocks(
        np.eye(3), np.zeros(3), np.array(Jn, dtype=float), np.zeros(m), ["unilateral"] * m,
        np.array(Jt, dtype=float), np.zeros(m), np.full(m, 0.5), ["coulomb"] * m, None, [True] * m, 2, name="planar",
    )  # fmt: skip


def test_planar_tangents_are_re_expressed_and_a_zero_tangent_row_gets_zero():
    """2D contacts (one tangent row each: a 1 × 1 Gram matrix): matched across a reordering, the tangential reaction
    scaled by the new row's length; a contact whose new tangent row is zero starts at 0 tangentially."""
    old = _planar([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    r = np.array([1.0, 0.2, 2.0, -0.4, 3.0, 0.6])
    new = _planar([[0, 1, 0], [1, 0, 0], [0, 0, 1]], [[0, 0, 2], [0, 1, 0], [0, 0, 0]])
    got = carried_reaction(old, r, new).reshape(3, 2)
    np.testing.assert_array_equal(got[:, 0], [2.0, 1.0, 3.0])
    np.testing.assert_allclose(got[:, 1], [-0.2, 0.2, 0.0], rtol=1e-15, atol=0)


# ---------------------------------------------------------------- the compiled matching against its NumPy reference
needs_numba = pytest.mark.skipif(kernels() is None, reason="numba is not installed: pip install 'gaussqp[fast]'")


def _carry_case(seed: int, d: int, tangents: bool, scale: float, related: str):
    """Old and new contact rows of one robot: the new normal rows a reordered subset of the old ones, ``"exact"`` (two
    new contacts may hold the same row: equal cosines, decided by the greedy order) or ``"perturbed"`` (cosines near
    1), or ``"unrelated"`` rows; zero rows; tangent frames turned about the normal; entries over the decades of
    ``scale``."""
    rng = np.random.default_rng(seed)
    n, mo, mn = int(rng.integers(1, 40)), int(rng.integers(1, 20)), int(rng.integers(1, 20))
    B = rng.standard_normal((mo, n)) * scale
    pick = rng.integers(0, mo, mn)  # repeats: two new contacts may want the same old one
    A = {
        "exact": B[pick],
        "perturbed": B[pick] * (1 + 1e-4 * rng.standard_normal((mn, n))),
        "unrelated": rng.standard_normal((mn, n)) * scale,
    }[related]
    A[rng.integers(0, mn)] = 0.0
    t = d - 1 if tangents else 0
    To = rng.standard_normal((mo, t, n))
    Tn = To[pick].copy()
    if t == 2:
        c, s = np.cos(0.7), np.sin(0.7)
        Tn = np.ascontiguousarray(np.einsum("ts,ksi->kti", np.array([[c, -s], [s, c]]), Tn))
    if t:
        Tn[rng.integers(0, mn)] = 0.0  # a singular Gram matrix: that contact starts at 0 tangentially
    old = rng.standard_normal((mo, d))
    return A, B, Tn, To, old


@needs_numba
@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    d=st.sampled_from([2, 3]),
    tangents=st.booleans(),
    scale=st.sampled_from([1e-8, 1e-3, 1.0, 1e4, 1e9]),
    related=st.sampled_from(["exact", "perturbed", "unrelated"]),
    cmin=st.sampled_from([COULOMB_CARRY_COSINE_MIN, 0.5, -1.0]),
)
def test_the_compiled_matching_is_the_numpy_one_bit_for_bit(seed, d, tangents, scale, related, cmin):
    A, B, Tn, To, old = _carry_case(seed, d, tangents, scale, related)
    cos = normal_cosines(A, B)
    want, hits = carried_blocks_numpy(cos, Tn, To, old, cmin)
    got, got_hits = kernels().carried_blocks(cos, Tn, To, old, cmin)
    assert got_hits == hits
    assert got.tobytes() == want.tobytes()


@needs_numba
def test_carried_reaction_runs_the_compiled_matching_once_loaded(humanoid, monkeypatch):
    """With the kernels loaded (a rollout's Solver loads them) the carry is the compiled call, the same bits as the
    NumPy reference's; without them, the reference runs."""
    p, r = humanoid
    q = _subset(p, [5, 2, 9, 11, 0, 7], rotate=0.3)
    fast, calls = kernels(), []

    class Spy:
        def carried_blocks(self, *args):
            calls.append(len(args))
            return fast.carried_blocks(*args)

    monkeypatch.setattr(coulomb, "kernels", lambda: Spy())
    compiled = carried_reaction(p, r, q)
    assert calls == [5]
    monkeypatch.setattr(coulomb, "loaded", lambda: False)
    reference = carried_reaction(p, r, q)
    assert calls == [5]
    assert compiled.tobytes() == reference.tobytes()


def _layout_variant(p: ContactProblem, how: str) -> ContactProblem:
    """``p`` with its rows stored otherwise: Fortran-ordered ``J_n`` and ``J_t`` (as ``from_blocks`` keeps them), or
    rows repeated so that two new contacts hold the same normal row (a tie of cosines)."""
    Jn, Jt = np.asarray(p.J_n), np.asarray(p.J_t)
    keep = list(range(p.m))
    if how == "tie":
        keep = keep + [3, 3]
    d = p.dimension
    Jt = Jt.reshape(p.m, d - 1, p.n)[keep].reshape(-1, p.n)
    Jn = Jn[keep]
    if how == "fortran":
        Jn, Jt = np.asfortranarray(Jn), np.asfortranarray(Jt)
    return ContactProblem.from_blocks(
        p.M, p.F, Jn, np.asarray(p.normal_drift)[keep], [str(p.types[i]) for i in keep], Jt,
        np.asarray(p.tangent_drift).reshape(p.m, d - 1)[keep].ravel(), np.asarray(p.friction)[keep],
        [str(p.modes[i]) for i in keep], None, [bool(p.has_tangent[i]) for i in keep], d, name=how,
    )  # fmt: skip


@needs_numba
@pytest.mark.parametrize("how", ["fortran", "tie", "same"])
def test_the_carry_is_the_same_with_or_without_the_kernels_whatever_the_rows_storage(humanoid, monkeypatch, how):
    """Fortran-ordered rows, ties between two new contacts and the very same rows on both sides (where NumPy's
    ``A @ B.T`` is one symmetric product): the compiled carry gives the NumPy one's bits."""
    p, r = humanoid
    q = p if how == "same" else _layout_variant(p, how)
    kernels()
    compiled = carried_reaction(p, r, q)
    monkeypatch.setattr(coulomb, "loaded", lambda: False)
    assert compiled.tobytes() == carried_reaction(p, r, q).tobytes()


def _four_dimensional(Jn, Jt) -> ContactProblem:
    """Contacts of dimension 4 (a normal, three tangent rows: MuJoCo's condim 4 has a torsional one)."""
    m = len(Jn)
    return ContactProblem.from_blocks(
        np.eye(6), np.zeros(6), np.array(Jn, dtype=float), np.zeros(m), ["unilateral"] * m,
        np.array(Jt, dtype=float), np.zeros(3 * m), np.full(m, 0.5), ["coulomb"] * m, None, [True] * m, 4,
        name="four",
    )  # fmt: skip


def test_contacts_of_three_tangent_rows_are_carried_the_same_with_or_without_the_kernels(monkeypatch):
    """A contact of dimension 4 has three tangent rows: its tangential reaction is re-expressed by the least-squares
    solution (the NumPy code; the kernel is for one or two rows), the generalized force it exerted kept; before, the
    NumPy path raised a ValueError in a Solver's rollout and the kernel dropped the third component."""
    rng = np.random.default_rng(3)
    Jn = rng.standard_normal((3, 6))
    Jt = rng.standard_normal((9, 6))
    old = _four_dimensional(Jn, Jt)
    r = rng.standard_normal(12)
    keep = [2, 0]
    Jt_new = Jt.reshape(3, 3, 6)[keep]
    Q = np.linalg.qr(rng.standard_normal((3, 3)))[0]  # another basis of the same tangent space
    new = _four_dimensional(Jn[keep], np.einsum("ts,ksi->kti", Q, Jt_new).reshape(-1, 6))
    kernels()
    compiled = carried_reaction(old, r, new)
    monkeypatch.setattr(coulomb, "loaded", lambda: False)
    reference = carried_reaction(old, r, new)
    assert compiled.tobytes() == reference.tobytes()
    got = reference.reshape(2, 4)
    was = r.reshape(3, 4)[keep]
    np.testing.assert_array_equal(got[:, 0], was[:, 0])
    f_old = np.einsum("kti,kt->ki", Jt_new, was[:, 1:])
    f_new = np.einsum("kti,kt->ki", np.einsum("ts,ksi->kti", Q, Jt_new), got[:, 1:])
    np.testing.assert_allclose(f_new, f_old, rtol=1e-12, atol=1e-12 * np.abs(f_old).max())
