"""Issue #15: the revised Lemke (B⁻¹ on the pivoted rows only, its own tie-break) and the round-off entries of M.

Correctness only (no timing: benchmarks/lemke_siconos.py times it against Siconos)."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from gaussqp.linalg.lemke import (
    _lex_break,
    _lex_break_revised,
    farkas_violation,
    lcp_violation,
    lemke,
    roundoff_entries,
)


def natural_map_ok(M, q, z, rtol=1e-8):
    """Independent of gaussqp: ``z >= 0`` and ``|min(z, M z + q)|`` small against the data's norms."""
    w = M @ z + q
    scale = q.size * np.abs(M).max(initial=0.0) * np.abs(z).max(initial=0.0) + np.abs(q).max(initial=0.0)
    return bool(z.min(initial=0.0) >= 0 and np.abs(np.minimum(z, w)).max(initial=0.0) <= rtol * max(scale, 1e-300))


# ------------------------------------------------------------------ real/ant_standing (was "failed")
def test_ant_standing_contact_lcp_is_solved():
    """The contact LCP of real/ant_standing (8×8, A_c PSD and singular, min eigenvalue ~ -2e-15, w_c up to
    9.81). Lemke's first run ends on the basis {z5, z7}; rows 0–3 of A_c couple to z5, z7 only through entries
    ~1e-16 where the model has exact zeros, so w_0..3 = -1e-14 is 100 % of those rows' own scale and the strict
    check rejected it; the exact-tie rerun then ended on a ray that is no Farkas vector: status "failed"
    (exact rational Lemke on the stored data ends on a ray too). With the round-off entries allowed their
    round-off the first run's answer — the one Siconos returns — is accepted."""
    import gaussqp
    from gaussqp.mechanics.delassus import constrained_delassus

    p = gaussqp.problems.load("real/ant_standing")
    cd = constrained_delassus(p)
    A, w = cd.A_c, cd.w_c
    res = lemke(A, w)
    assert res.status == "solved", res.message
    assert natural_map_ok(A, w, res.z)
    assert lcp_violation(A, w, res.z) > 1e-9  # the strict row check alone rejects it ...
    assert lcp_violation(A, w, res.z, entry_error=roundoff_entries(A)) <= 1e-9  # ... its round-off allowed
    sol = gaussqp.get_formulation("lcp_lemke").solve(p)
    assert sol.status == "solved" and sol.certified


def test_roundoff_entries_keep_exact_zeros_and_real_entries():
    M = np.array([[4.0, 1e-16, 0.0, 1.0], [1e-16, 1.0, -3e-16, 0.0], [0.0, -3e-16, 9.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    E = roundoff_entries(M)
    bound = 1e3 * np.finfo(float).eps
    assert E[0, 1] == E[1, 0] == pytest.approx(bound * 2.0)  # sqrt(4 · 1)
    assert E[1, 2] == E[2, 1] == pytest.approx(bound * 3.0)  # sqrt(1 · 9)
    assert E[0, 2] == 0.0 and E[0, 3] == 0.0 and E[3, 0] == 0.0  # an exact 0, a real entry, a zero diagonal
    assert np.count_nonzero(E) == 4


def test_entry_error_is_a_backward_error():
    """Row 1 is made of round-off only: w_1 = 1e-16 z_0 - 1e-14 < 0 fails the strict check by 100 %; a matrix
    within ±E of M moves w_1 by up to E_10 z_0 = 2.2e-13 > 1e-14 (accepted), but no further (-1e-12 is not)."""
    M = np.array([[1.0, 1e-16], [1e-16, 1.0]])
    z = np.array([1.0, 0.0])
    E = roundoff_entries(M)
    for q1, accepted in ((-1e-14, True), (-1e-12, False)):
        q = np.array([-1.0, q1 - 1e-16])  # w_1 = q1
        assert lcp_violation(M, q, z) > 0.9  # -q1 against the row's scale 1e-16 + |q_1|
        v = lcp_violation(M, q, z, entry_error=E)
        assert v == 0.0 if accepted else v > 0.5
    # exact data (M = I) carry no allowance: the pinned small-row behaviour stays
    assert lcp_violation(np.eye(2), np.array([-1.0, -1e-13]), z, entry_error=roundoff_entries(np.eye(2))) == 1.0


# ------------------------------------------------------------------ the revised tie-break is the tableau's rule
def pivoted_rows(rng, k: int):
    """A random set of p pivoted rows of B⁻¹ = I + G Eᵀ (k rows): (p, their rows in pivot order, each row's slot in
    G's columns or −1), as the revised pivoting keeps them."""
    p = int(rng.integers(0, k + 1))
    cols = np.zeros(k, dtype=np.intp)
    cols[:p] = rng.permutation(k)[:p]
    slot = np.full(k, -1, dtype=np.intp)
    slot[cols[:p]] = np.arange(p)
    return p, cols, slot


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 12), quantize=st.booleans())
def test_revised_tie_break_equals_the_tableau_rule(seed, k, quantize):
    """B⁻¹ = I + G Eᵀ over a random set P of pivoted rows; tied rows inside and outside P; G's entries random or
    quantized (many exact ties): the structured scan picks the row the column-by-column scan picks on the full
    rows of B⁻¹."""
    rng = np.random.default_rng(seed)
    p, cols, slot = pivoted_rows(rng, k)
    G = np.zeros((k, k), order="F")
    vals = rng.standard_normal((k, p))
    G[:, :p] = np.round(vals) / 2 if quantize else vals
    n = int(rng.integers(2, k + 1))
    cand = np.sort(rng.permutation(k)[:n])
    x = rng.choice([0.5, 1.0, 2.0], size=k) if quantize else rng.uniform(0.1, 3.0, size=k)
    binv = np.eye(k)
    binv[:, cols[:p]] += G[:, :p]
    for tie_tol in (0.0, 1e-9, 0.3):
        assert _lex_break_revised(G, cols, slot, p, x, cand, tie_tol) == _lex_break(binv[cand], x[cand], cand, tie_tol)


# ------------------------------------------------------------------ random PSD LCPs: verified ends only
@st.composite
def psd_lcps(draw):
    """PSD M = BᵀB of any rank, with repeated (redundant) rows of B and rows scaled over decades; q planted
    feasible (z* >= 0, w* >= 0, z*ᵀw* = 0) or not, with ties: integer levels, repeated values, zeros."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(1, 14))
    r = draw(st.integers(1, k))
    B = rng.standard_normal((r, k))
    if draw(st.booleans()):
        B = np.vstack([B, B[: draw(st.integers(1, r))]])  # redundant rows
    if draw(st.booleans()):
        B = np.round(B)  # integer data: exact ties and exact zeros
    D = 10.0 ** rng.integers(-3, 4, size=k) if draw(st.booleans()) else np.ones(k)
    M = D[:, None] * (B.T @ B) * D[None, :]
    kind = draw(st.sampled_from(["planted", "planted_ties", "any"]))
    if kind == "any":
        q = rng.integers(-2, 3, size=k).astype(float) * D
        return M, q, None
    support = rng.uniform(size=k) < 0.5
    z = np.where(support, rng.integers(0, 3, size=k) if kind == "planted_ties" else rng.uniform(0, 2, size=k), 0.0)
    slack = np.where(support, 0.0, rng.integers(0, 2, size=k) if kind == "planted_ties" else rng.uniform(0, 1, size=k))
    return M, slack * D - M @ z, z


@settings(
    max_examples=int(os.environ.get("LEMKE_EXAMPLES", 400)), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(psd_lcps())
def test_random_psd_lcps_end_verified(data):
    M, q, planted = data
    res = lemke(M, q)
    assert res.status in ("solved", "ray", "failed")
    if res.status == "solved":
        assert natural_map_ok(M, q, res.z)
        np.testing.assert_allclose(res.w, M @ res.z + q)
    if planted is not None:  # feasible: a PSD (copositive-plus) LCP that is feasible is solvable, never a ray
        assert res.status != "ray"
    if res.status == "ray":  # an independent Farkas check: y >= 0, Mᵀy <= 0, qᵀy < 0 (at the data's round-off)
        y = res.ray
        assert y.min() >= 0 and y.max() > 0
        assert np.all(M.T @ y <= 1e-9 * (np.abs(M).T @ y) + 1e-300)
        assert q @ y < -1e-12 * (np.abs(q) @ y)
        assert farkas_violation(M, q, y) <= 1e-9
