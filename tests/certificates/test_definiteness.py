"""Definiteness decided on a scale from the data (issue #9): C6 and C8 Prop. 6(i) said ``A_c ≻ 0`` for a
matrix that is zero up to round-off (a unilateral row colinear with a bilateral one: 100 of 200 random M
on the previous code)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gaussqp import Contact, ContactProblem
from gaussqp.certificates.report import check
from gaussqp.linalg.dense import equilibrated_min_eigenvalue, equilibrated_pinv


def _spd(rng, n):
    A = rng.standard_normal((n, n))
    return A @ A.T + 0.1 * np.eye(n)


@pytest.mark.parametrize("seed", range(20))
def test_c6_not_definite_when_the_unilateral_row_is_colinear_with_a_bilateral_one(seed):
    rng = np.random.default_rng(seed)
    n = 4
    nb = rng.standard_normal(n)
    p = ContactProblem.from_blocks(
        _spd(rng, n),
        rng.standard_normal(n),
        np.vstack([nb, 2.0 * nb]),
        rng.standard_normal(2),
        ["bilateral", "unilateral"],
    )
    c6 = check(p).certificate("C6")
    assert c6 is not None and c6.holds is False
    assert abs(c6.margin) < 1e-10


@pytest.mark.parametrize("seed", range(10))
def test_c6_definite_margin_is_invariant_under_row_scaling(seed):
    rng = np.random.default_rng(100 + seed)
    n = 5
    M = _spd(rng, n)
    J = rng.standard_normal((3, n))
    types = ["bilateral", "unilateral", "unilateral"]
    base = check(ContactProblem.from_blocks(M, rng.standard_normal(n), J, np.zeros(3), types)).certificate("C6")
    scaled = check(
        ContactProblem.from_blocks(M, np.ones(n), J * np.array([[1.0], [1e-6], [1e6]]), np.zeros(3), types)
    ).certificate("C6")
    assert base.holds and scaled.holds
    assert scaled.margin == pytest.approx(base.margin, rel=1e-6)


@pytest.mark.parametrize("seed", range(10))
def test_prop6_not_definite_when_the_sticking_normal_is_colinear_with_a_bilateral_row(seed):
    rng = np.random.default_rng(200 + seed)
    n = 5
    nb = rng.standard_normal(n)
    contacts = [
        Contact("bilateral", normal=nb),
        Contact("unilateral", normal=3.0 * nb, mode="sticking", friction=0.5, tangent=rng.standard_normal((1, n))),
    ]
    p = ContactProblem(_spd(rng, n), rng.standard_normal(n), contacts, dimension=2)
    rep = check(p)
    augmented_lcp_criteria = [c for c in rep.certificates if c.id == "C8(Prop. 6)" and "(i)" in c.source]
    assert augmented_lcp_criteria and augmented_lcp_criteria[0].holds is False


def test_zero_row_gives_no_kinetic_angle_and_no_warning():
    rng = np.random.default_rng(7)
    n = 3
    J = np.vstack([rng.standard_normal(n), np.zeros(n), rng.standard_normal(n)])
    p = ContactProblem.from_blocks(
        _spd(rng, n), rng.standard_normal(n), J, [0.0, 1.0, 0.0], ["bilateral", "unilateral", "unilateral"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        rep = check(p)
    angles = rep.certificate("C6(angles)")
    assert angles is not None and angles.holds is None
    assert rep.certificate("C6").holds is False  # a zero row: A_c has a zero row, margin 0


def test_equilibrated_helpers():
    A = np.array([[1.0, 0.0], [0.0, 1e-14]])
    assert equilibrated_min_eigenvalue(A, np.diag(A)) == pytest.approx(1.0)  # definite, just badly scaled
    assert equilibrated_min_eigenvalue(A, [1.0, 1.0]) == pytest.approx(1e-14)  # against a unit reference: not
    G = equilibrated_pinv(A)
    np.testing.assert_allclose(A @ G @ A, A, atol=1e-30)
    np.testing.assert_allclose(G, np.diag([1.0, 1e14]), rtol=1e-12)  # np.linalg.pinv(rcond=1e-12) cut it
