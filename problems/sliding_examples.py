"""Sliding-friction examples of the tutorial (§3): the classical Painlevé rod, the Painlevé–Klein rod
in two frictional guides (Fig. 1) and the falling ladder (Fig. 2).

Every builder derives ``M``, ``F``, the constraint rows and their drifts from the coordinates
``q = (x, y, θ)`` of the rod's centre of mass; gravity enters ``F`` as ``+m g`` on y (the convention
``M a + F = Jᵀλ``). Slip directions are the signs of the tangential velocities of the state.
"""

from __future__ import annotations

import math

import numpy as np

from gaussqp.model.problem import Contact, ContactProblem

G = 9.81


def painleve_rod(
    theta: float = math.pi / 6,
    mu: float = 0.5,
    slip: float = -1.0,
    half_length: float = 1.0,
    mass: float = 1.0,
    theta_dot: float = 0.0,
    g: float = G,
    name: str = "painleve_rod",
) -> ContactProblem:
    """The classical Painlevé rod: a rod of length ``2l`` sliding on the ground on its lower end A.

    ``θ`` is the angle between the rod and the ground; A = (x - l cos θ, y - l sin θ), so
    ``n = (0, 1, -l cos θ)``, ``T = (1, 0, l sin θ)``, drifts ``b = l sin θ θ̇²``, ``c = l cos θ θ̇²``, and
    ``M = diag(m, m, m l²/3)``. The contact LCP (50) is scalar: ``A = (1 + 3cos²θ + 3 μ s cos θ sin θ)/m``
    with ``s`` the slip sign, ``w = -g + l sin θ θ̇²``. With ``s = -1`` and ``μ > (1 + 3cos²θ)/(3 sin θ cos θ)``
    (the Painlevé paradox, minimum 4/3 at tan θ = 2) ``A < 0``: no solution when ``w < 0``, two when
    ``w > 0`` (Génot & Brogliato, tutorial ref. [21]).
    """
    l, c, s = half_length, math.cos(theta), math.sin(theta)
    M = np.diag([mass, mass, mass * l * l / 3.0])
    F = np.array([0.0, mass * g, 0.0])
    ct = Contact(
        "unilateral",
        normal=[0.0, 1.0, -l * c],
        normal_drift=l * s * theta_dot**2,
        friction=mu,
        mode="sliding",
        tangent=[[1.0, 0.0, l * s]],
        tangent_drift=[l * c * theta_dot**2],
        slip=[slip],
    )
    return ContactProblem(
        M,
        F,
        [ct],
        dimension=2,
        name=name,
        description=f"Painlevé rod: θ = {theta:.4g}, μ = {mu:g}, slip {slip:+g}, θ̇ = {theta_dot:g}",
    )


def painleve_rod_lcp(
    theta: float,
    mu: float,
    slip: float,
    half_length: float = 1.0,
    mass: float = 1.0,
    theta_dot: float = 0.0,
    g: float = G,
) -> tuple[float, float]:
    """The closed-form scalar LCP ``(A, w)`` of :func:`painleve_rod`."""
    c, s = math.cos(theta), math.sin(theta)
    return (1 + 3 * c * c + 3 * mu * slip * c * s) / mass, -g + half_length * s * theta_dot**2


def painleve_klein(
    theta: float = math.pi / 4,
    mu1: float = 0.3,
    mu2: float = 0.3,
    push: float = 5.0,
    slip: float = 1.0,
    length: float = 1.0,
    mass: float = 1.0,
    g: float = G,
) -> ContactProblem:
    """Painlevé–Klein rod (tutorial Fig. 1(a)): a rod whose two ends slide in two parallel horizontal
    frictional guides (bilateral constraints), at angle ``θ`` to the guides.

    Ends A = (x - ½L cos θ, y - ½L sin θ) and B = (x + ½L cos θ, y + ½L sin θ); guides ``y_A = const``,
    ``y_B = const``: ``n_A = (0, 1, -½L cos θ)``, ``n_B = (0, 1, ½L cos θ)``, tangents
    ``T_A = (1, 0, ½L sin θ)``, ``T_B = (1, 0, -½L sin θ)``; the guides allow translation only, so both ends
    slip the same way (``slip``) and the drifts vanish. ``push`` is a horizontal force on the centre.
    For L = 1 m, m = 1 kg, σ_min(A_nb)/σ_max(A_tb) is the paper's closed form
    :func:`painleve_klein_mu_max` (checked in the tests).
    """
    h = 0.5 * length
    c, s = math.cos(theta), math.sin(theta)
    M = np.diag([mass, mass, mass * length**2 / 12.0])
    F = np.array([-push, mass * g, 0.0])
    cts = [
        Contact(
            "bilateral",
            normal=[0.0, 1.0, -h * c],
            friction=mu1,
            mode="sliding",
            tangent=[[1.0, 0.0, h * s]],
            slip=[slip],
        ),
        Contact(
            "bilateral",
            normal=[0.0, 1.0, h * c],
            friction=mu2,
            mode="sliding",
            tangent=[[1.0, 0.0, -h * s]],
            slip=[slip],
        ),
    ]
    return ContactProblem(
        M,
        F,
        cts,
        dimension=2,
        name="painleve_klein",
        description=f"Painlevé–Klein rod in two guides: θ = {theta:.4g}, μ = ({mu1:g}, {mu2:g})",
    )


def painleve_klein_mu_max(theta: float) -> float:
    """Tutorial §3.2.1: μ_max^b(θ) = 2/(3√(1 - cos 4θ)) √(-(3cos²θ + 1)|3cos²θ - 1| + 9cos⁴θ + 1)."""
    c2 = math.cos(theta) ** 2
    return (
        2.0 / (3.0 * math.sqrt(1 - math.cos(4 * theta))) * math.sqrt(-(3 * c2 + 1) * abs(3 * c2 - 1) + 9 * c2 * c2 + 1)
    )


def falling_ladder(
    theta: float = math.pi / 4,
    mu_wall: float = 0.3,
    mu_ground: float = 0.3,
    theta_dot: float = 0.0,
    length: float = 2.0,
    mass: float = 1.0,
    g: float = G,
    inertia: float | None = None,
) -> ContactProblem:
    """Falling ladder (tutorial Fig. 2(a)): a rod of length 2 m and mass 1 kg, its top end on a wall
    (frictional *bilateral* contact) and its bottom end on the ground (frictional *unilateral* contact),
    sliding down: the top slips downwards, the bottom away from the wall.

    ``θ`` is the angle with the ground, l = L/2. Top end (x - l cos θ, y + l sin θ) on the wall x = 0:
    ``n_b = (1, 0, l sin θ)``, ``T_b = (0, 1, l cos θ)``, ``b_b = l cos θ θ̇²``, ``c_b = -l sin θ θ̇²``.
    Bottom end (x + l cos θ, y - l sin θ) on the ground: ``n_u = (0, 1, -l cos θ)``, ``T_u = (1, 0, -l sin θ)``,
    ``b_u = l sin θ θ̇²``, ``c_u = -l cos θ θ̇²``. ``M = diag(m, m, I)`` with ``I = m L²/12`` (a uniform
    rod) unless ``inertia`` is given.
    """
    l = 0.5 * length
    c, s = math.cos(theta), math.sin(theta)
    M = np.diag([mass, mass, mass * length**2 / 12.0 if inertia is None else inertia])
    F = np.array([0.0, mass * g, 0.0])
    td2 = theta_dot**2
    cts = [
        Contact(
            "bilateral",
            normal=[1.0, 0.0, l * s],
            normal_drift=l * c * td2,
            friction=mu_wall,
            mode="sliding",
            tangent=[[0.0, 1.0, l * c]],
            tangent_drift=[-l * s * td2],
            slip=[-1.0],
        ),
        Contact(
            "unilateral",
            normal=[0.0, 1.0, -l * c],
            normal_drift=l * s * td2,
            friction=mu_ground,
            mode="sliding",
            tangent=[[1.0, 0.0, -l * s]],
            tangent_drift=[-l * c * td2],
            slip=[1.0],
        ),
    ]
    return ContactProblem(
        M,
        F,
        cts,
        dimension=2,
        name="falling_ladder",
        description=f"falling ladder: θ = {theta:.4g}, μ_wall = {mu_wall:g}, μ_ground = {mu_ground:g}",
    )


EXAMPLES = {
    "painleve_rod": painleve_rod,
    # θ = atan 2 (where μ_P is smallest, 4/3), μ = 2, θ̇ = 4: A < 0 < w, two solutions (indeterminate)
    "painleve_rod_paradox": lambda: painleve_rod(
        theta=math.atan(2.0), mu=2.0, slip=-1.0, theta_dot=4.0, name="painleve_rod_paradox"
    ),
    "painleve_klein": painleve_klein,
    "falling_ladder": falling_ladder,
}
