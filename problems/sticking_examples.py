"""Builders of the sticking paper's worked examples (docs/DESIGN.md §8): frictional, all-sticking.

Same conventions as :mod:`.examples`: F in ``M a + F = J_nᵀλ_n + J_tᵀλ_t`` (weight as +m g on
the upward axis), rows ``∇h_iᵀ``, tangent rows ``H_t,iᵀ``, drifts ``d/dt(row) q̇``.
"""

from __future__ import annotations

import math

import numpy as np

from gaussqp.model.problem import Contact, ContactProblem


def hard_finger_grasp(
    F1: float = -10.0,
    F2: float = 10.0,
    mu1: float = 0.5,
    mu2: float = 0.5,
    m: float = 1.0,
    m1: float = 1.0,
    m2: float = 1.0,
    g: float = 9.81,
) -> ContactProblem:
    """Hard-finger grasp, 4-dof version (sticking Ex. 6, Fig. 6).

    q = (x, y, x1, x2); the object is held at x = a by a frictionless bilateral guide and squeezed
    by two prismatic fingers at fixed heights: h1 = x - x1 - L >= 0, h2 = x2 - x - L >= 0, both
    sticking with tangent row ẏ (v_t1 = v_t2 = ẏ). F = (0, m g, F1, F2). Paper (masses 1):
    λ_n = (-F1, F2), λ_b = F1 + F2, sticking iff -μ1 F1 + μ2 F2 >= g (for F1 < 0 < F2).
    """
    rows = dict(bilateral=[1.0, 0, 0, 0], h1=[1.0, 0, -1.0, 0], h2=[-1.0, 0, 0, 1.0])
    contacts = [
        Contact("bilateral", normal=rows["bilateral"]),
        Contact("unilateral", normal=rows["h1"], mode="sticking", friction=mu1, tangent=[[0, 1.0, 0, 0]]),
        Contact("unilateral", normal=rows["h2"], mode="sticking", friction=mu2, tangent=[[0, 1.0, 0, 0]]),
    ]
    return ContactProblem(
        np.diag([m, m, m1, m2]),
        [0.0, m * g, F1, F2],
        contacts,
        dimension=2,
        name="hard_finger_grasp",
        description="sticking Ex. 6 (4 dof): two hard fingers, sticking",
    )


def hard_finger_grasp_6dof(
    F1x: float = -10.0,
    F1y: float = 1.0,
    F2x: float = 10.0,
    F2y: float = -2.0,
    mu1: float = 0.5,
    mu2: float = 0.5,
    m: float = 1.0,
    m1: float = 1.0,
    m2: float = 1.0,
    g: float = 9.81,
) -> ContactProblem:
    """Hard-finger grasp, 6-dof version (sticking Ex. 6, second part): the fingers move vertically too.

    q = (x, y, x1, y1, x2, y2); tangent rows v_t1 = ẏ - ẏ1, v_t2 = ẏ - ẏ2; F = (0, m g, F1x, F1y, F2x, F2y).
    See :func:`hard_finger_grasp_6dof_closed_form` for the general closed form (the paper's assumes F1y = F2y).
    """
    contacts = [
        Contact("bilateral", normal=[1.0, 0, 0, 0, 0, 0]),
        Contact(
            "unilateral",
            normal=[1.0, 0, -1.0, 0, 0, 0],
            mode="sticking",
            friction=mu1,
            tangent=[[0, 1.0, 0, -1.0, 0, 0]],
        ),
        Contact(
            "unilateral",
            normal=[-1.0, 0, 0, 0, 1.0, 0],
            mode="sticking",
            friction=mu2,
            tangent=[[0, 1.0, 0, 0, 0, -1.0]],
        ),
    ]
    return ContactProblem(
        np.diag([m, m, m1, m1, m2, m2]),
        [0.0, m * g, F1x, F1y, F2x, F2y],
        contacts,
        dimension=2,
        name="hard_finger_grasp_6dof",
        description="sticking Ex. 6 (6 dof): two hard fingers moving vertically, sticking",
    )


def hard_finger_grasp_6dof_closed_form(F1x, F1y, F2x, F2y, mu1=0.5, mu2=0.5, m=1.0, m1=1.0, m2=1.0, g=9.81) -> dict:
    """Closed form of the 6-dof grasp in the sticking mode (derived here; F1x < 0 < F2x).

    Sticking makes ÿ = ÿ1 = ÿ2 =: A. Object: m A + m g = λ_t1 + λ_t2; fingers: m1 A + F1y = -λ_t1,
    m2 A + F2y = -λ_t2. Hence A = -(m g + F1y + F2y)/(m + m1 + m2), λ_t1 = -m1 A - F1y,
    λ_t2 = -m2 A - F2y; normally λ_n1 = -F1x, λ_n2 = F2x, λ_b = F1x + F2x. With unit masses and
    F1y = F2y this is the paper's λ_t = (g - F1y)/3, ÿ = -(g + 2 F1y)/3; in general
    λ_t1 = (g - 2 F1y + F2y)/3 and λ_t2 = (g + F1y - 2 F2y)/3. Sticking iff |λ_t1| <= -μ1 F1x and
    |λ_t2| <= μ2 F2x.
    """
    A = -(m * g + F1y + F2y) / (m + m1 + m2)
    lt1, lt2 = -m1 * A - F1y, -m2 * A - F2y
    return {
        "yddot": A,
        "lambda_t": (lt1, lt2),
        "lambda_n": (F1x + F2x, -F1x, F2x),
        "sticking": abs(lt1) <= -mu1 * F1x and abs(lt2) <= mu2 * F2x,
    }


def _block_rows(theta: float, L: float, l: float):
    s, c = math.sin(theta), math.cos(theta)
    normals = [[0.0, 1.0, l / 2 * s + L / 2 * c], [0.0, 1.0, l / 2 * s - L / 2 * c]]
    tangents = [[1.0, 0.0, l / 2 * c - L / 2 * s], [1.0, 0.0, l / 2 * c + L / 2 * s]]
    return normals, tangents


def _block_drifts(theta: float, theta_dot: float, L: float, l: float):
    s, c = math.sin(theta), math.cos(theta)
    w2 = theta_dot * theta_dot
    normal = [(l / 2 * c - L / 2 * s) * w2, (l / 2 * c + L / 2 * s) * w2]
    tangent = [-(l / 2 * s + L / 2 * c) * w2, (-l / 2 * s + L / 2 * c) * w2]
    return normal, tangent


def rocking_block(
    theta: float = 0.0,
    contacts: str = "both",
    m: float = 1.0,
    L: float = 1.0,
    l: float = 2.0,
    g: float = 9.81,
    Fx: float = 0.0,
    Fy: float | None = None,
    theta_dot: float = 0.0,
    mu1: float = 0.5,
    mu2: float = 0.5,
) -> ContactProblem:
    """The planar rocking block (sticking (39), Figs. 1-2), all contacts sticking.

    q = (x, y, θ), M = diag(m, m, I_G), I_G = m (l² + L²)/12; width L, height l. Corners A1, A2 with
    h1 = y - l/2 cos θ + L/2 sin θ, h2 = y - l/2 cos θ - L/2 sin θ (unilateral), tangent rows from
    v_t1 = ẋ + (l/2 cos θ - L/2 sin θ) θ̇, v_t2 = ẋ + (l/2 cos θ + L/2 sin θ) θ̇. F = (Fx, Fy, 0), with
    Fy = m g by default (F_ext of (39)). ``contacts``: "both" (Ex. 1 and 4, θ = 0), "A2" (Ex. 2:
    rotating about A2), "A1".
    """
    Fy = m * g if Fy is None else Fy
    normals, tangents = _block_rows(theta, L, l)
    nd, td = _block_drifts(theta, theta_dot, L, l)
    mus = [mu1, mu2]
    which = {"both": [0, 1], "A1": [0], "A2": [1]}[contacts]
    cs = [
        Contact(
            "unilateral",
            normal=normals[i],
            normal_drift=nd[i],
            mode="sticking",
            friction=mus[i],
            tangent=[tangents[i]],
            tangent_drift=[td[i]],
        )
        for i in which
    ]
    IG = m * (l * l + L * L) / 12.0
    return ContactProblem(
        np.diag([m, m, IG]),
        [Fx, Fy, 0.0],
        cs,
        dimension=2,
        name="rocking_block" if contacts == "both" else f"rocking_block_{contacts}",
        description=f"sticking (39): rocking block, contacts {contacts}, sticking",
    )


def rocking_block_A2(theta: float = math.pi / 12, **kw) -> ContactProblem:
    """Sticking Ex. 2: only A2 in contact, sticking (default θ = π/12).

    The free term of its LCP (35)-(38) at θ̇ = 0, derived from (39) (``M a + F = J_nᵀλ_n + J_tᵀλ_t``,
    F = (Fx, Fy, 0)) with ``s = l/2 sin θ - L/2 cos θ``, ``c = l/2 cos θ + L/2 sin θ``, is
    ``-∇h_nᵀ M_c^st⁻¹ F = -Fy/m + 12/(m(l² + L²)) · s c (1 + 12 c²/(l² + L²))⁻¹ Fx``
    (:func:`rocking_block_ex2_free_term`; the code's ``w_c`` equals it, see the tests). The printed
    (41) has ``+Fy/m`` (a sign slip: with (39)'s ``m ÿ = λ_n - Fy`` a downward Fy > 0 must press the
    contact, so the remark after (41) should read "large enough *positive* Fy"), the factor
    ``l/2 sin θ + L/2 cos θ`` in place of ``c`` and no ``1/m`` on the Fx term (equal only when m = 1
    and L = l).
    """
    return rocking_block(theta=theta, contacts="A2", **kw)


def rocking_block_ex2_Ac(theta: float, m: float = 1.0, L: float = 1.0, l: float = 2.0) -> float:
    """The closed form (40) of A_c^st for sticking Ex. 2."""
    s = l / 2 * math.sin(theta) - L / 2 * math.cos(theta)
    c = l / 2 * math.cos(theta) + L / 2 * math.sin(theta)
    k = (l * l + L * L) / 12.0
    return 12.0 / (m * (l * l + L * L)) * (k + s * s - s * s * c * c / (k + c * c))


def rocking_block_ex2_free_term(
    theta: float, Fx: float, Fy: float, m: float = 1.0, L: float = 1.0, l: float = 2.0
) -> float:
    """``-∇h_nᵀ M_c^st⁻¹ F`` of sticking Ex. 2 at θ̇ = 0, derived here (the printed (41) has slips:
    :func:`rocking_block_A2`)."""
    s = l / 2 * math.sin(theta) - L / 2 * math.cos(theta)
    c = l / 2 * math.cos(theta) + L / 2 * math.sin(theta)
    k12 = 12.0 / (l * l + L * L)
    return -Fy / m + k12 / m * s * c / (1.0 + k12 * c * c) * Fx


def block_pendulum(
    alpha: float = math.pi / 3,
    alpha_dot: float = 1.0,
    m: float = 1.0,
    L: float = 1.0,
    l: float = 2.0,
    m_bar: float = 0.5,
    a: float = 1.0,
    g: float = 9.81,
    Fx: float = 0.0,
    mu: float = 0.5,
) -> ContactProblem:
    """Rocking block with an inverted pendulum on its top (sticking Ex. 3, App. D): non-diagonal M.

    q = (x, y, θ, α) at θ = 0, θ̇ = ẋ = ẏ = 0, y = l/2 (both corners in sticking contact).
    Pendulum (mass m̄, length a, I_p = m̄ a²/12) hinged at the top of the block:
    x_p = x + a/2 cos(α + θ) - l/2 sin θ, y_p = y + l/2 cos θ + a/2 sin(α + θ).

    M and F are derived here from the kinetic energy (87) with these x_p, y_p:
    ``M = diag(m, m, I_G, I_p) + m̄ J_pᵀJ_p``, ``F = m̄ J_pᵀ(J̇_p q̇) + ∇V + (Fx, 0, 0, 0)`` with
    ``V = m g y + m̄ g y_p``. Our M_θθ = I_G + m̄(a² + l²)/4 + m̄ a l/2 sin α and
    M_θα = m̄ a/4 (a + l sin α) differ from the printed (88): its M_θθ = I_G + (a² + l²)/2 + (a l/2) cos α
    lacks m̄ and has (a² + l²)/2 where the kinetic energy gives m̄(a² + l²)/4
    (``(∂x_p/∂θ)² + (∂y_p/∂θ)² = a²/4 + l²/4 + (a l/2) sin α``), and both entries have cos α;
    (88) and (90) correspond to α shifted by π/2 (the /2 is a slip under any shift). The builder uses
    the kinetic-energy value (the tests re-derive M from (87) by differentiating x_p, y_p). Our F reproduces (42) for F^x, F^y, F^α; its
    F^θ = m̄ a l/4 α̇² cos α is (42)'s -m̄ a l/4 α̇² sin α under the same shift.
    """
    th = 0.0
    IG = m * (l * l + L * L) / 12.0
    Ip = m_bar * a * a / 12.0
    sa, ca = math.sin(alpha + th), math.cos(alpha + th)
    Jp = np.array(
        [
            [1.0, 0.0, -a / 2 * sa - l / 2 * math.cos(th), -a / 2 * sa],
            [0.0, 1.0, -l / 2 * math.sin(th) + a / 2 * ca, a / 2 * ca],
        ]
    )
    M = np.diag([m, m, IG, Ip]) + m_bar * Jp.T @ Jp
    w = alpha_dot  # θ̇ = 0
    Jdot_qdot = np.array([-a / 2 * ca * w * w, -a / 2 * sa * w * w])
    gradV = np.array([0.0, (m + m_bar) * g, m_bar * g * Jp[1, 2], m_bar * g * Jp[1, 3]])
    F = m_bar * Jp.T @ Jdot_qdot + gradV + np.array([Fx, 0.0, 0.0, 0.0])
    normals, tangents = _block_rows(th, L, l)
    cs = [
        Contact("unilateral", normal=normals[i] + [0.0], mode="sticking", friction=mu, tangent=[tangents[i] + [0.0]])
        for i in range(2)
    ]
    return ContactProblem(
        M,
        F,
        cs,
        dimension=2,
        name="block_pendulum",
        description="sticking Ex. 3 / App. D: rocking block with an inverted pendulum, sticking",
    )


def three_finger(
    theta: float = 0.0,
    push: tuple = (20.0, 5.0, 20.0),
    offsets: tuple = (0.0, 0.0, 0.0),
    mu: float = 0.5,
    m: float = 1.0,
    L: float = 1.0,
    l: float = 0.6,
    finger_masses: tuple = (0.5, 0.5, 0.5),
    g: float = 9.81,
) -> ContactProblem:
    """Three-finger planar manipulation (sticking Ex. 5, Fig. 5): a rectangle (width L, height l, centre
    (x, y), angle θ) held by three prismatic hard fingers — finger 1 pushes the left side along x, finger 2
    the top side along y (downwards), finger 3 the right side along x; q = (x, y, θ, x1, y2, x3), all three
    contacts unilateral and sticking, state at rest (q̇ = 0, so the drifts vanish).

    Our derivation (the paper prints only ``h_n,u,3`` and a partial ``H_t,u,3``): side i has outward unit
    normal ν_i(θ), tangent τ_i = k × ν_i, half-thickness d_i (L/2 or l/2) and finger tip at signed offset
    s_i along the side. Then ``h_i = (A_i - G)·ν_i - d_i``, normal row ``(-ν_i, s_i, ν_i·e_i)`` and tangent
    row (relative tip velocity along τ_i) ``(-τ_i, -d_i, τ_i·e_i)`` in the coordinates (x, y, θ, finger),
    e_i the finger's axis. ``push = (f1, f2, f3)`` are the fingers' actuator forces towards the object
    (so F has -f1, +f2, +f3 on the finger coordinates) and the object weighs m g.

    With θ = 0 and zero offsets the sticking multipliers are, by hand: ``λ_n = (f1, f2, f3)``,
    ``λ_t,2 = f3 - f1``, ``λ_t,1 = (m g + f2 - (l/L)(f3 - f1))/2``, ``λ_t,3 = -(m g + f2 + (l/L)(f3 - f1))/2``
    (:func:`three_finger_closed_form`), and the grasp holds iff each ``|λ_t,i| <= μ λ_n,i``.
    """
    c, s = math.cos(theta), math.sin(theta)
    R = np.array([[c, -s], [s, c]])
    sides = [
        (R @ [-1.0, 0.0], L / 2, np.array([1.0, 0.0])),  # finger 1: left side, axis +x
        (R @ [0.0, 1.0], l / 2, np.array([0.0, 1.0])),  # finger 2: top side, axis y
        (R @ [1.0, 0.0], L / 2, np.array([1.0, 0.0])),
    ]  # finger 3: right side, axis x
    contacts = []
    for i, (nu, d, e) in enumerate(sides):
        tau = np.array([-nu[1], nu[0]])
        row_n = np.zeros(6)
        row_t = np.zeros(6)
        row_n[:2], row_n[2], row_n[3 + i] = -nu, offsets[i], nu @ e
        row_t[:2], row_t[2], row_t[3 + i] = -tau, -d, tau @ e
        contacts.append(Contact("unilateral", normal=row_n, mode="sticking", friction=mu, tangent=[row_t]))
    f1, f2, f3 = push
    M = np.diag([m, m, m * (L * L + l * l) / 12.0, *finger_masses])
    F = np.array([0.0, m * g, 0.0, -f1, f2, f3])
    return ContactProblem(
        M,
        F,
        contacts,
        dimension=2,
        name="three_finger",
        description=f"sticking Ex. 5: three prismatic fingers, θ = {theta:g}, push = {tuple(push)}",
    )


def three_finger_closed_form(
    push=(20.0, 5.0, 20.0), m: float = 1.0, L: float = 1.0, l: float = 0.6, g: float = 9.81
) -> dict:
    """Sticking multipliers of :func:`three_finger` at θ = 0 with zero offsets (statics, derived by hand)."""
    f1, f2, f3 = push
    return {
        "lambda_n": np.array([f1, f2, f3]),
        "lambda_t": np.array(
            [(m * g + f2 - (l / L) * (f3 - f1)) / 2, f3 - f1, -(m * g + f2 + (l / L) * (f3 - f1)) / 2]
        ),
    }


EXAMPLES = {
    "hard_finger_grasp": hard_finger_grasp,
    "hard_finger_grasp_6dof": hard_finger_grasp_6dof,
    "rocking_block": rocking_block,
    "rocking_block_A2": rocking_block_A2,
    "block_pendulum": block_pendulum,
    "three_finger": three_finger,
}
