"""Builders of the papers' worked examples (docs/DESIGN.md §8), frictionless part.

Every builder takes the example's physical parameters (defaults as shipped in
``problems/data``) and returns a :class:`gaussqp.ContactProblem`. Conventions: the force
vector is F in ``M a + F = Jᵀλ`` (gravity appears as +m g along the upward axis), rows are
``∇h_iᵀ`` and drifts ``d/dt(∇h_iᵀ) q̇``.
"""

from __future__ import annotations

import math

import numpy as np

from gaussqp.model.problem import Contact, ContactProblem


def hyperstatic_block(m: float = 1.0, g: float = 9.81, f: tuple[float, float] = (0.0, 0.0)) -> ContactProblem:
    """Planar block on three aligned points of a flat ground (inertial Ex. 1).

    q = (x, y), x vertical; M = diag(m, m); three unilateral constraints x - l >= 0 with
    the same row (1, 0): the Delassus matrix has rank 1. F = (m g, 0) + f. The acceleration
    is unique, the three multipliers are not (a hyperstatic system).
    """
    M = np.diag([m, m])
    F = np.array([m * g, 0.0]) + np.asarray(f, dtype=float)
    contacts = [Contact("unilateral", normal=[1.0, 0.0]) for _ in range(3)]
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="hyperstatic_block",
        description="inertial Ex. 1: block on three aligned points (hyperstatic)",
    )


def rod_wall_guide(
    theta: float = math.pi / 6, m: float = 1.0, l: float = 0.5, g: float = 9.81, theta_dot: float = 0.0
) -> ContactProblem:
    """Slender rod (length 2l, I = m l²/3) with a tip on a wall and the other tip on a horizontal guide (inertial §4.3).

    q = (x, y, θ); unilateral h = x - l cos θ >= 0, bilateral g = y - l sin θ - H = 0; y vertical.
    Closed forms: ``A_c = 1/m + 3 sin²θ / (m (1 + 3 cos²θ))`` and ``M_c⁻¹`` of inertial (39).
    """
    s, c = math.sin(theta), math.cos(theta)
    M = np.diag([m, m, m * l * l / 3.0])
    F = np.array([0.0, m * g, 0.0])
    contacts = [
        Contact("bilateral", normal=[0.0, 1.0, -l * c], normal_drift=l * s * theta_dot**2),
        Contact("unilateral", normal=[1.0, 0.0, l * s], normal_drift=l * c * theta_dot**2),
    ]
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="rod_wall_guide",
        description="inertial §4.3: rod with a wall (unilateral) and a horizontal guide (bilateral)",
    )


def rod_closed_forms(theta: float, m: float = 1.0, l: float = 0.5) -> tuple[float, np.ndarray]:
    """(A_c, M_c⁻¹) of the rod as printed in inertial §4.3 and (39)."""
    s, c = math.sin(theta), math.cos(theta)
    den = 1.0 + 3.0 * c * c
    A_c = 1.0 / m + 3.0 * s * s / (m * den)
    Mc = np.array(
        [
            [1.0 / m, 0.0, 0.0],
            [0.0, 3.0 * c * c / (m * den), 3.0 * c / (m * l * den)],
            [0.0, 3.0 * c / (m * l * den), 3.0 / (m * l * l * den)],
        ]
    )
    return A_c, Mc


def cartesian_manipulator(q2: float = 0.6, m1: float = 1.0, m2: float = 1.0, g: float = 9.81) -> ContactProblem:
    """Planar Cartesian manipulator on the ellipse 4 q1² + q2² = 1 with a unilateral stop (inertial Ex. 2).

    q = (q1, q2) on the upper branch ``q1 = ½√(1 - q2²)``; bilateral row ``(8 q1, 2 q2)`` with
    drift ``8 q̇1² + 2 q̇2²``. The paper leaves the unilateral constraint unspecified; we use a stop
    ``q2 - q2* >= 0`` at the current height (row (0, 1)), and gravity along -q2 (F = (0, m2 g)).

    The state is at rest, ``q̇ = 0`` (:func:`cartesian_manipulator_velocity`), so both drifts vanish.
    An active stop needs ``∇h_uᵀq̇ = 0`` and the ellipse ``∇gᵀq̇ = 0``; the two rows are independent
    in R², so no nonzero velocity keeps both constraints active (the earlier state moved along the
    ellipse at speed 0.5, with stop velocity q̇2 = 0.47 > 0: a separating contact, wrongly kept active).
    """
    q1 = 0.5 * math.sqrt(1.0 - q2 * q2)
    grad = np.array([8.0 * q1, 2.0 * q2])
    v = cartesian_manipulator_velocity(q2)
    M = np.diag([m1, m2])
    F = np.array([0.0, m2 * g])
    contacts = [
        Contact("bilateral", normal=grad, normal_drift=8.0 * v[0] ** 2 + 2.0 * v[1] ** 2),
        Contact("unilateral", normal=[0.0, 1.0]),
    ]
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="cartesian_manipulator",
        description="inertial Ex. 2: Cartesian manipulator, elliptic bilateral + unilateral stop",
    )


def cartesian_manipulator_velocity(q2: float = 0.6) -> np.ndarray:
    """q̇ of :func:`cartesian_manipulator`'s state: at rest (the only velocity with both rows active)."""
    return np.zeros(2)


def singular_pendulum(
    theta: float = 0.0,
    m: float = 1.0,
    l: float = 1.0,
    g: float = 9.81,
    F1: float = 0.0,
    F2: float = 0.0,
    theta_dot: float = 0.0,
) -> ContactProblem:
    """Pendulum with all the mass at G: M = diag(m, m, 0) (singular §7.1).

    q = (x, y, θ), x along gravity; bilateral x - l cos θ = 0, y - l sin θ = 0; unilateral
    y >= 0 and θ >= 0 (a wall through O). Dynamics ``m ẍ = μ1 + m g + F1``, ``m ÿ = μ2 + λ1 + F2``,
    ``0 = l sin θ μ1 - l cos θ μ2 + λ2``, so F = (-(m g + F1), -F2, 0). The four rows in R³
    are dependent (f2 - h1 + l cos θ h2 = 0): whether (μ, λ) is unique depends on the loading.
    """
    s, c = math.sin(theta), math.cos(theta)
    M = np.diag([m, m, 0.0])
    F = np.array([-(m * g + F1), -F2, 0.0])
    contacts = [
        Contact("bilateral", normal=[1.0, 0.0, l * s], normal_drift=l * c * theta_dot**2),
        Contact("bilateral", normal=[0.0, 1.0, -l * c], normal_drift=l * s * theta_dot**2),
        Contact("unilateral", normal=[0.0, 1.0, 0.0]),
        Contact("unilateral", normal=[0.0, 0.0, 1.0]),
    ]
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="singular_pendulum",
        description="singular §7.1: pendulum with M = diag(m, m, 0), two bilateral, two unilateral",
    )


def two_mass_spring(
    m1: float = 1.0, m2: float = 1.0, k1: float = 10.0, k2: float = 10.0, x1bar: float = 0.1, q2bar: float = 0.05
) -> ContactProblem:
    """Two masses and two springs with a singular M (singular §7.2, (49)).

    q = (x̄1, q1, q̄2); M = [[m1,0,0],[0,m2,m2],[0,m2,m2]] (rank 2); F = (k1 x̄1, 0, k2 q̄2);
    bilateral f = q1 - x̄1 - l10 - d = 0 (row (-1, 1, 0)); unilateral barrier
    h = L - x̄1 - l10 - d >= 0 (row (-1, 0, 0)).
    """
    M = np.array([[m1, 0.0, 0.0], [0.0, m2, m2], [0.0, m2, m2]])
    F = np.array([k1 * x1bar, 0.0, k2 * q2bar])
    contacts = [Contact("bilateral", normal=[-1.0, 1.0, 0.0]), Contact("unilateral", normal=[-1.0, 0.0, 0.0])]
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="two_mass_spring",
        description="singular §7.2: two-mass spring system with singular M",
    )


#: name -> builder; every entry is shipped as problems/data/<name>.json at default parameters
EXAMPLES = {
    "hyperstatic_block": hyperstatic_block,
    "rod_wall_guide": rod_wall_guide,
    "cartesian_manipulator": cartesian_manipulator,
    "singular_pendulum": singular_pendulum,
    "two_mass_spring": two_mass_spring,
}
