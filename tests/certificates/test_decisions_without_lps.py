"""Structural decisions of the all-sticking humanoid made without an LP (issue #28 item 4, part 3), each verified in
NumPy: C8's ``im H_t ∩ N_S = {0}`` by a separating direction (Gordan: ``T v = 0``, ``J_u v > 0``), its negation by a
normal row in ``im Tᵀ``, and C5 by the least-norm point of the equality rows. Each is accepted where it proves the
decision, refused where it was tampered with, and agrees with the LPs it replaces."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize

from gaussqp import problems
from gaussqp.certificates import sticking_criteria as sc
from gaussqp.certificates import structural as st
from gaussqp.linalg.dense import normalize_rows


def _no_lp(monkeypatch):
    monkeypatch.setattr(scipy.optimize, "linprog", lambda *a, **k: pytest.fail("an LP ran"))


def _humanoid_rows():
    p = problems.load("real/humanoid_lying")
    Jn, Jt = sc._rows(p)
    U = sc._unilateral_sticking(p)
    s = p.mass_factor.scaling
    return p, Jt[p.tangent_rows(U)], Jn[p.unilateral], s


def test_a_separating_direction_decides_the_humanoids_intersection_without_an_lp(monkeypatch):
    p, T, Ju, s = _humanoid_rows()
    Tn, Jn = normalize_rows(T * s[None, :]), normalize_rows(Ju * s[None, :])
    v = sc._separating_direction(Tn, Jn)
    assert v is not None and sc._separates(Tn, Jn, v)
    v = v / np.linalg.norm(v)
    assert np.abs(Tn @ v).max() < 1e-12 and (Jn @ v).min() > 1e-6  # no tangential motion, every contact away
    _no_lp(monkeypatch)
    assert sc.image_meets_normal_cone(T, Ju, scaling=s) == (True, None)
    out = {c.id: c.holds for c in sc.unilateral_sticking_solvability(p)}
    assert out == {"C8(Prop. 8)": True, "C8(Cor. 2)": True}


def test_a_tampered_separating_direction_is_refused():
    p, T, Ju, s = _humanoid_rows()
    Tn, Jn = normalize_rows(T * s[None, :]), normalize_rows(Ju * s[None, :])
    v = sc._separating_direction(Tn, Jn)
    assert v is not None
    v = v / np.linalg.norm(v)
    # moved along a tangent row: still J_u v > 0 on every row, but T v is far from 0
    moved = v + 1e-2 * Tn[0]
    assert (Jn @ moved).min() > 0 and not sc._separates(Tn, Jn, moved)
    assert not sc._separates(Tn, Jn, -v)  # every J_u v < 0
    assert not sc._separates(Tn, Jn, np.zeros_like(v))
    assert not sc._separates(Tn, Jn, np.full_like(v, np.nan))


def test_no_separating_direction_where_the_intersection_is_not_trivial():
    J = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, -1.0]])  # J_uᵀ(1, 1, 1) = 0: no v with J_u v > 0
    T = np.array([[1.0, 0.0, 0.0]])
    assert sc._separating_direction(T, normalize_rows(J)) is None
    # T spanning every direction: ker T = {0}, no v; the intersection is N_S itself, found as a row of J_u in im Tᵀ
    T_all = np.eye(3)
    assert sc._separating_direction(T_all, normalize_rows(J)) is None
    z = sc._normal_row_in_image(T_all, normalize_rows(J))
    assert z is not None and np.linalg.norm(z) > 0


def test_a_normal_row_in_the_image_decides_without_an_lp_and_a_row_outside_is_refused(monkeypatch):
    T, J = np.array([[0.0, 3.0]]), np.array([[0.0, 1.0]])  # im Tᵀ = span e2 contains J_u's row: meets
    _no_lp(monkeypatch)
    meet, z = sc.image_meets_normal_cone(T, J)
    assert meet is False and z[0] == 0.0 and z[1] < 0
    monkeypatch.undo()
    # the row e1 is not in im Tᵀ = span e2: the verification refuses it, and the LP decides ({0})
    T2, J2 = np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]])
    assert sc._normal_cone_point(T2, J2, np.ones(1), np.array([1.0, 0.0])) is None
    assert sc._normal_row_in_image(T2, J2) is None
    assert sc.image_meets_normal_cone(T2, J2) == (True, None)


@pytest.mark.parametrize("seed", range(30))
def test_the_decisions_without_lps_agree_with_the_lps(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    n, ku, kt = int(rng.integers(3, 8)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    J, T = rng.standard_normal((ku, n)), rng.standard_normal((kt, n))
    if seed % 2 == 0:  # a tangent row in the normal cone: they meet
        T[0] = rng.uniform(0.0, 1.0, ku) @ J
    fast = sc.image_meets_normal_cone(T, J)[0]
    monkeypatch.setattr(sc, "_separating_direction", lambda Tn, Jn: None)
    monkeypatch.setattr(sc, "_normal_row_in_image", lambda Tn, Jn: None)
    slow = sc.image_meets_normal_cone(T, J)[0]
    assert slow is None or fast is slow


def test_c5_from_the_equality_rows_least_norm_point(monkeypatch):
    p = problems.load("real/humanoid_lying")  # at rest: zero drifts, a = 0 is feasible
    a = st._point_on_equalities(p)
    assert a is not None and np.abs(a).max() == 0.0
    monkeypatch.setattr(st, "_verified_feasible_point", lambda q: pytest.fail("C5's LP ran"))
    assert st.c5_lcp_solvability(p)[0].holds is True


def test_c5_refuses_a_least_norm_point_off_the_inequalities_and_the_lp_decides():
    from gaussqp.model.problem import Contact, ContactProblem

    # a_2 >= 1 (normal drift -1): the least-norm point of no equality rows is a = 0, which violates it
    p = ContactProblem(
        np.eye(2), np.zeros(2), [Contact("unilateral", normal=[0.0, 1.0], normal_drift=-1.0)], dimension=2
    )
    assert st._point_on_equalities(p) is None
    assert st.c5_lcp_solvability(p)[0].holds is True  # the LP finds a feasible point
    # a tampered point (off the inequality) is refused by the same check
    E, e = p.equalities
    G, g = p.inequalities
    assert st._verify_point(p, np.zeros((0, 2)), e, np.asarray(G, dtype=float), g, np.array([0.0, 0.5])) is None
    assert st._verify_point(p, np.zeros((0, 2)), e, np.asarray(G, dtype=float), g, np.array([0.0, 1.0])) is not None
