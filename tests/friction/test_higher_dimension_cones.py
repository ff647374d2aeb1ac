"""Contacts of dimension d = 4 and 6 (MuJoCo's torsional and rolling friction, condim 4/6): the cone
``‖ν‖ <= λ_n`` on d-1 tangent rows, each scaled by its coefficient μ_k (force ``μ_k ν_k``), friction 1.

Closed forms on a block with a spin (and two rolling) coordinates resting on the ground: sticking holds iff
``‖(f_x/μ_1, f_y/μ_2, τ/μ_3, …)‖ <= m g`` with ``a = 0``; sliding in direction s gives ``ν = -λ_n s``."""

from __future__ import annotations

import numpy as np
import pytest

import gaussqp
from gaussqp import Contact, ContactProblem
from gaussqp.errors import NotApplicableError, UnknownValueError
from gaussqp.formulations import get_formulation
from gaussqp.io.gaussqp_format import dumps, loads

G, MASS, INERTIA = 9.81, 2.0, 0.3
MU = np.array([0.5, 0.4, 0.05, 0.02, 0.03])  # tangent x, y, spin, roll x, roll y (MuJoCo's order)


def block(d, push, mode="sticking", slip=None, with_sliding_neighbour=False):
    """A block with coordinates (x, y, z, spin[, roll_x, roll_y]) on the ground; ``push`` = generalized
    applied force on the tangent coordinates (x, y, spin, ...)."""
    k = d - 1  # tangent coordinates besides z
    n = k + 1
    M = np.diag([MASS, MASS, MASS] + [INERTIA] * (k - 2))
    applied = np.zeros(n)
    applied[[0, 1] + list(range(3, n))] = push
    applied[2] = -MASS * G
    tangent_coords = [0, 1] + list(range(3, n))
    T = np.zeros((k, n))
    for r, j in enumerate(tangent_coords):
        T[r, j] = MU[r]  # the row of ν_r: force μ_r ν_r on coordinate j
    normal = np.eye(n)[2]
    cs = [Contact("unilateral", normal=normal, friction=1.0, mode=mode, tangent=T, slip=slip)]
    M_all, F_all = M, -applied
    if with_sliding_neighbour:  # a second, independent block that slides along +x (1D slip in ν coordinates)
        z = np.zeros((n, n))
        M_all = np.block([[M, z], [z, M]])
        F_all = np.concatenate([-applied, -np.r_[0.0, 0.0, -MASS * G, np.zeros(n - 3)]])
        cs = [
            Contact(
                c.type,
                normal=np.r_[c.normal, np.zeros(n)],
                friction=1.0,
                mode=c.mode,
                tangent=np.hstack([c.tangent, np.zeros((k, n))]),
                slip=c.slip,
            )
            for c in cs
        ]
        s = np.zeros(k)
        s[0] = 1.0
        cs.append(
            Contact(
                "unilateral",
                normal=np.r_[np.zeros(n), normal],
                friction=1.0,
                mode="sliding",
                tangent=np.hstack([np.zeros((k, n)), T]),
                slip=s,
            )
        )
    return ContactProblem(M_all, F_all, cs, dimension=d, name=f"block d={d}")


@pytest.mark.parametrize("d", [4, 6])
def test_sticking_inside_the_scaled_cone_is_the_closed_form(d):
    push = 0.6 * MASS * G * MU[: d - 1] / np.sqrt(d - 1)  # ‖push/μ‖ = 0.6 m g: inside
    sol = gaussqp.solve(block(d, push))
    assert sol.status == "solved" and sol.certified
    assert np.allclose(sol.acceleration, 0.0, atol=1e-7)
    assert sol.lambda_normal[0] == pytest.approx(MASS * G, rel=1e-7)
    # ν_r = −push_r/μ_r balances the push (force μ_r ν_r)
    assert np.allclose(sol.lambda_tangent[0], -push / MU[: d - 1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("d", [4, 6])
def test_sticking_outside_the_scaled_cone_is_infeasible(d):
    """Only the spin torque is too large for torsional friction (‖·‖ = 1.2 m g): the anisotropic cone, not
    the isotropic one, decides it — with unscaled rows sticking would hold."""
    push = np.zeros(d - 1)
    push[2] = 1.2 * MASS * G * MU[2]
    p = block(d, push)
    sol = gaussqp.solve(p)
    assert sol.status == "infeasible" and sol.certified
    c = p.contact(0)
    iso = ContactProblem(
        p.M,
        p.F,
        [
            Contact(
                "unilateral", normal=c.normal, friction=MU[0], mode="sticking", tangent=c.tangent / MU[: d - 1, None]
            )
        ],
        dimension=d,
    )
    assert gaussqp.solve(iso).status == "solved"  # one isotropic μ = 0.5 would hold the torque


@pytest.mark.parametrize("d", [4, 6])
def test_sliding_in_the_scaled_cone(d):
    """Sliding along direction s in ν coordinates: ν = −λ_n s, λ_n = m g, a = M⁻¹(applied + Σ μ_r ν_r e_r)."""
    s = np.zeros(d - 1)
    s[0], s[2] = 0.6, 0.8  # slipping in x and spinning
    push = np.zeros(d - 1)
    p = block(d, push, mode="sliding", slip=s)
    sol = gaussqp.solve(p)
    assert sol.status == "solved" and sol.certified
    lam_n = MASS * G
    assert sol.lambda_normal[0] == pytest.approx(lam_n, rel=1e-8)
    assert np.allclose(sol.lambda_tangent[0], -lam_n * s, rtol=1e-8)
    expected = np.linalg.solve(np.asarray(p.M), -p.F + p.J_n[0] * lam_n + p.J_t.T @ (-lam_n * s))
    assert np.allclose(sol.acceleration, expected, rtol=1e-8, atol=1e-9)
    assert expected[0] == pytest.approx(-MU[0] * 0.6 * G)


def test_enumeration_with_a_torsional_sticking_cone():
    """The exact stick/slip enumeration solves each piece with the d-1 = 3 dimensional cone."""
    push = 0.5 * MASS * G * MU[:3] / np.sqrt(3)
    p = block(4, push, with_sliding_neighbour=True)
    en = gaussqp.solve(p, formulation="sliding_enumeration", crosscheck=False)
    assert en.status == "solved" and en.unique["acceleration"]
    assert np.allclose(en.acceleration[:4], 0.0, atol=1e-7)
    assert en.acceleration[4] == pytest.approx(-MU[0] * G, rel=1e-7)
    assert np.allclose(en.lambda_tangent[0], -push / MU[:3], rtol=1e-6, atol=1e-7)


def test_polygons_are_refused_beyond_three_dimensions():
    p = block(4, np.zeros(3))
    for name in ("facetized_inner", "facetized_outer"):
        ok, why = get_formulation(name).accepts(p, p.classify())
        assert not ok and "sticking_socp" in why
        with pytest.raises(NotApplicableError):
            gaussqp.solve(p, formulation=name)
    sol = gaussqp.solve(p)  # F4, with its cross-check: the polygon bracket is reported as not run
    assert sol.status == "solved"
    assert sol.crosscheck.bracket.inner == "not_run"


def test_dimension_limits_and_round_trip():
    p = block(6, np.zeros(5))
    q = loads(dumps(p))
    assert q.dimension == 6 and np.array_equal(np.asarray(q.J_t), np.asarray(p.J_t))
    for bad in (1, 7, 3.0, True):
        with pytest.raises(UnknownValueError, match="dimension"):
            ContactProblem(np.eye(2), [0.0, 1.0], [], dimension=bad)
