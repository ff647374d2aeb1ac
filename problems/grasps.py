"""Grasp examples: builders of :class:`gaussqp.grasp.Grasp` objects, some with a
:class:`gaussqp.grasp.Hand`, and the shipped files ``data/grasps/<name>.json`` written from them at their default
parameters (:func:`regenerate`; ``python -m gaussqp.problems.grasps``), loadable with :func:`gaussqp.grasp.load`.

Conventions (gaussqp/grasp/model.py): object frame at the origin, inward unit normals, the external ``wrench`` on the
object in physical units (force, then torque), a hand Jacobian whose rows are, per contact in grasp order, the finger
tip's velocity along ``f_n`` (the inward normal), the tangents of :func:`gaussqp.grasp.tangent_basis` (and the
angular velocity about the normal for a soft contact); a hand's ``force`` is its ``F`` in ``M q̈ + F = applied
reactions`` (minus the applied generalized force: motor torques, gravity), as in :class:`gaussqp.ContactProblem`.

Expected verdicts are stated in each docstring (the closure checks of :mod:`gaussqp.grasp` decide them; the hand and
dynamic checks are :mod:`gaussqp.grasp.hand`). Every object mass matrix a dynamic check needs is given by
:func:`object_mass_matrix` (and stored in the file's ``parameters``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from gaussqp.grasp import Grasp, GraspContact, Hand, load as _load, tangent_basis
from gaussqp.grasp.format import to_dict

DATA = Path(__file__).resolve().parent / "data" / "grasps"
G0 = 9.81


# ------------------------------------------------------------------------------------------------ planar (paper)
def three_finger_planar(
    push: tuple = (20.0, 5.0, 20.0),
    mu: float = 0.5,
    m: float = 1.0,
    L: float = 1.0,
    l: float = 0.6,
    finger_masses: tuple = (0.5, 0.5, 0.5),
    torque_limit: float = 40.0,
    g: float = G0,
) -> Grasp:
    """Sticking paper Ex. 5 (Fig. 5) at θ = 0 as a grasp: a rectangle (width ``L``, height ``l``) held by three
    prismatic hard fingers — finger 1 on the left side at (−L/2, 0) pushing along +x, finger 2 on the top side at
    (0, l/2) pushing down, finger 3 on the right side at (L/2, 0) pushing along −x; μ = 0.5, weight ``m g``.

    The hand: one prismatic joint per finger (x1, y2, x3); Jacobian rows (n, t) per contact: finger 1 (1, 0),
    finger 2 (−1, 0) (its tip moves along y, the inward normal is −y), finger 3 (−1, 0); tangent rows 0 (the
    fingers' guides carry the tangential loads). ``force`` = (−f1, f2, f3) with ``push = (f1, f2, f3)`` (the same
    ``F`` as ``problems/sticking_examples.py::three_finger``, so the dynamic check's contact problem is that one).

    Expected: force closure (the left/right squeeze lies inside both cones; the top finger is balanced by friction
    at the sides: a strictly interior internal force exists and ``G`` has rank 3); the hand holds the weight with
    torques up to ``torque_limit`` = 40 N; the dynamic check sticks at the default push (closed form
    ``problems/sticking_examples.py::three_finger_closed_form``: λ_n = (20, 5, 20), |λ_t| = (7.405, 0, 7.405)
    <= 10) and slips when the squeeze falls below ``(m g + f2)/(2 μ)`` (e.g. push (10, 5, 10)).
    """
    cs = [
        GraspContact([-L / 2, 0.0], [1.0, 0.0], mu, "hard"),
        GraspContact([0.0, l / 2], [0.0, -1.0], mu, "hard"),
        GraspContact([L / 2, 0.0], [-1.0, 0.0], mu, "hard"),
    ]
    J = np.zeros((6, 3))
    J[0, 0], J[2, 1], J[4, 2] = 1.0, -1.0, -1.0
    f1, f2, f3 = push
    hand = Hand(
        J,
        torque_limits=np.full(3, float(torque_limit)),
        mass_matrix=np.diag(finger_masses),
        force=np.array([-f1, f2, f3]),
    )
    return Grasp(
        cs,
        torque_scale=L / 2,
        wrench=[0.0, -m * g, 0.0],
        hand=hand,
        name="three_finger_planar",
        description="sticking Ex. 5 (Fig. 5), θ = 0: three prismatic hard fingers on a rectangle",
    )


def hard_finger_pair(
    F1: float = -10.0,
    F2: float = 10.0,
    mu: float = 0.5,
    L: float = 1.0,
    m: float = 1.0,
    finger_mass: float = 1.0,
    torque_limit: float = 10.0,
    g: float = G0,
) -> Grasp:
    """Sticking paper Ex. 6 (Fig. 6), first version, as a grasp: an object squeezed by two hard fingers at (∓L, 0)
    that move along x only (joints x1, x2; their heights are fixed by guides, so the tangent rows of the Jacobian
    are 0). ``force`` = (F1, F2) as in the paper's ``F = (0, m g, F1, F2)`` (F1 < 0 < F2 squeeze).

    Expected: force closure (the segment joining the contacts is along both normals, inside both cones); the hand
    holds the weight iff ``μ(|F1| + F2) >= m g`` within the torque limits (here: normal forces up to 10 each, so
    friction up to 5 + 5 >= 9.81: holds with margin 0.095); the dynamic check reproduces the paper's Step 6
    (λ_n = (−F1, F2), sticking iff −μ F1 + μ F2 >= g; margin 0.095, μ_min = g/20 = 0.4905). Unlike the paper's
    version the object may rotate; with F1 = −F2 its guide force ``λ_b = F1 + F2`` is 0 and the answers agree.
    """
    cs = [GraspContact([-L, 0.0], [1.0, 0.0], mu, "hard"), GraspContact([L, 0.0], [-1.0, 0.0], mu, "hard")]
    J = np.zeros((4, 2))
    J[0, 0], J[2, 1] = 1.0, -1.0
    hand = Hand(
        J, torque_limits=np.full(2, float(torque_limit)), mass_matrix=np.eye(2) * finger_mass, force=np.array([F1, F2])
    )
    return Grasp(
        cs,
        torque_scale=L,
        wrench=[0.0, -m * g, 0.0],
        hand=hand,
        name="hard_finger_pair",
        description="sticking Ex. 6 (Fig. 6), 4-dof version: two hard fingers moving along x",
    )


def hard_finger_pair_moving(
    F1x: float = -10.0,
    F1y: float = 1.0,
    F2x: float = 10.0,
    F2y: float = 1.0,
    mu: float = 0.5,
    L: float = 1.0,
    m: float = 1.0,
    finger_mass: float = 1.0,
    torque_limit: float = 15.0,
    g: float = G0,
) -> Grasp:
    """Sticking paper Ex. 6, second version, as a grasp: the two fingers move along x and y (joints x1, y1, x2, y2),
    ``force`` = (F1x, F1y, F2x, F2y) as in the paper's ``F = (0, g, F1x, F1y, F2x, F2y)``. Jacobian rows (n, t):
    finger 1 (ẋ1, ẏ1), finger 2 (−ẋ2, −ẏ2) (its normal is −x, its tangent −y).

    Expected: force closure; the dynamic check with F1y = F2y and unit masses is the paper's closed form
    (λ_t = (g − F1y)/3 on each finger, ÿ = −(g + 2 F1y)/3, sticking iff |g − F1y|/3 <= μ min(−F1x, F2x)): at the
    defaults λ_t = 2.9367 <= 5, sticking with margin 2.0633 (the object does not rotate by symmetry).
    """
    cs = [GraspContact([-L, 0.0], [1.0, 0.0], mu, "hard"), GraspContact([L, 0.0], [-1.0, 0.0], mu, "hard")]
    J = np.zeros((4, 4))
    J[0, 0], J[1, 1], J[2, 2], J[3, 3] = 1.0, 1.0, -1.0, -1.0
    hand = Hand(
        J,
        torque_limits=np.full(4, float(torque_limit)),
        mass_matrix=np.eye(4) * finger_mass,
        force=np.array([F1x, F1y, F2x, F2y]),
    )
    return Grasp(
        cs,
        torque_scale=L,
        wrench=[0.0, -m * g, 0.0],
        hand=hand,
        name="hard_finger_pair_moving",
        description="sticking Ex. 6 (Fig. 6), 6-dof version: two hard fingers moving along x and y",
    )


# ------------------------------------------------------------------------------------------------ spatial fingers
def finger_jacobian(angles, l1: float, l2: float) -> tuple[np.ndarray, np.ndarray]:
    """A simple 3-joint finger (defined here): a yaw joint about the vertical z axis at its base, then two pitch
    joints with links ``l1``, ``l2`` (a planar two-link finger in the vertical plane of the yaw angle). Returns the
    tip position relative to the base and the 3×3 Jacobian of the tip position (world axes) w.r.t. the angles
    ``(ψ, φ1, φ2)``: ``p = R_z(ψ) (l1 cos φ1 + l2 cos(φ1+φ2), 0, l1 sin φ1 + l2 sin(φ1+φ2))``."""
    psi, a, b = (float(v) for v in angles)
    r = l1 * math.cos(a) + l2 * math.cos(a + b)
    h = l1 * math.sin(a) + l2 * math.sin(a + b)
    dr = np.array([-l1 * math.sin(a) - l2 * math.sin(a + b), -l2 * math.sin(a + b)])
    dh = np.array([l1 * math.cos(a) + l2 * math.cos(a + b), l2 * math.cos(a + b)])
    c, s = math.cos(psi), math.sin(psi)
    p = np.array([c * r, s * r, h])
    J = np.zeros((3, 3))
    J[:, 0] = [-s * r, c * r, 0.0]
    J[:2, 1:] = np.outer([c, s], dr)
    J[2, 1:] = dh
    return p, J


def _fingered_grasp(
    positions,
    normals,
    mu: float,
    squeeze: float,
    torque_limit: float,
    *,
    tip_mass: float,
    rotor_inertia: float,
    l1: float,
    l2: float,
    name: str,
    description: str,
    wrench,
    torque_scale: float,
) -> Grasp:
    """Hard contacts at ``positions`` (inward ``normals``), each touched by a :func:`finger_jacobian` finger whose
    base is placed so that its tip is at the contact with angles (yaw towards the contact, 45°, −90°). The hand's
    Jacobian is block diagonal (rows n, t1, t2 of each contact times the finger's world Jacobian); its mass matrix
    ``tip_mass JᵀJ + rotor_inertia I`` per finger; its ``force`` minus the motor torques ``Jᵀ(squeeze n)`` (each
    finger, gravity-compensated, pushes its tip along the inward normal with ``squeeze`` newtons)."""
    m = len(positions)
    Jh = np.zeros((3 * m, 3 * m))
    Mh = np.zeros((3 * m, 3 * m))
    Fh = np.zeros(3 * m)
    cs = []
    for i, (p, n) in enumerate(zip(positions, normals)):
        p, n = np.asarray(p, float), np.asarray(n, float)
        psi = math.atan2(p[1], p[0])
        _, Jw = finger_jacobian((psi, math.pi / 4, -math.pi / 2), l1, l2)
        frame = np.vstack([n, tangent_basis(n)])
        blk = slice(3 * i, 3 * i + 3)
        Jh[blk, blk] = frame @ Jw
        Mh[blk, blk] = tip_mass * Jw.T @ Jw + rotor_inertia * np.eye(3)
        Fh[blk] = -Jw.T @ (squeeze * n)
        cs.append(GraspContact(p, n, mu, "hard"))
    hand = Hand(Jh, torque_limits=np.full(3 * m, float(torque_limit)), mass_matrix=Mh, force=Fh)
    return Grasp(cs, torque_scale=torque_scale, wrench=wrench, hand=hand, name=name, description=description)


def sphere_three_fingers(
    R: float = 0.05,
    mu: float = 0.5,
    m: float = 0.2,
    squeeze: float = 5.0,
    torque_limit: float = 1.0,
    l1: float = 0.06,
    l2: float = 0.05,
    g: float = G0,
) -> Grasp:
    """Sticking paper Ex. 7 (Fig. 7) built as a spatial multi-finger grasp: a sphere (radius ``R``, mass ``m``)
    held at its equator by three hard fingers 120° apart (contacts ``R(cos θ_k, sin θ_k, 0)``, θ_k = 90°, 210°,
    330°, inward normals towards the centre), each a 3-joint finger of :func:`finger_jacobian` (links 6 and 5 cm)
    squeezing with 5 N; joint-torque limits 1 N·m; weight along −z.

    Expected: force closure (three non-collinear hard contacts with μ = 0.5 whose normals meet at the centre: the
    equal squeeze is a strictly interior internal force and ``G`` has rank 6); the hand holds the weight (friction
    needed m g/3 = 0.654 N per finger against μ 5 = 2.5 N) within its torque limits; the dynamic check sticks
    (μ_min ≈ 0.044, below the static 0.654/5: torque-driven fingers accelerate down with the sphere).
    """
    th = np.radians([90.0, 210.0, 330.0])
    P = [R * np.array([math.cos(t), math.sin(t), 0.0]) for t in th]
    N = [-p / R for p in P]
    return _fingered_grasp(
        P,
        N,
        mu,
        squeeze,
        torque_limit,
        tip_mass=0.02,
        rotor_inertia=1e-4,
        l1=l1,
        l2=l2,
        name="sphere_three_fingers",
        wrench=[0.0, 0.0, -m * g, 0.0, 0.0, 0.0],
        torque_scale=R,
        description="sticking Ex. 7 (Fig. 7), spatial: three 3-joint hard fingers on a sphere",
    )


def box_four_fingers(
    a: float = 0.04,
    b: float = 0.03,
    c: float = 0.02,
    mu: float = 0.5,
    m: float = 0.3,
    squeeze: float = 5.0,
    torque_limit: float = 1.0,
    l1: float = 0.06,
    l2: float = 0.05,
    g: float = G0,
) -> Grasp:
    """Sticking paper Ex. 7 built as a spatial four-finger grasp on a box (half sizes ``a, b, c``, mass ``m``): two
    hard fingers on the face x = −a at (−a, ±b/2, 0), two on the face x = +a at (a, ±b/2, 0), inward normals ±x,
    each a 3-joint finger of :func:`finger_jacobian` squeezing with 5 N; torque limits 1 N·m; weight along −z.

    Expected: force closure (the two pairs of opposed contacts squeeze strictly inside their cones; the offsets
    ±b/2 give torques about every axis: ``G`` has rank 6); the hand holds the weight (m g/4 = 0.736 N of friction
    per finger against 2.5 N); the dynamic check sticks, with μ_min ≈ 0.046: the joints are torque-driven, not
    held, so object and fingers accelerate down together and much less friction is needed than in statics.
    """
    P = [(-a, b / 2, 0.0), (-a, -b / 2, 0.0), (a, b / 2, 0.0), (a, -b / 2, 0.0)]
    N = [(1.0, 0.0, 0.0)] * 2 + [(-1.0, 0.0, 0.0)] * 2
    return _fingered_grasp(
        P,
        N,
        mu,
        squeeze,
        torque_limit,
        tip_mass=0.02,
        rotor_inertia=1e-4,
        l1=l1,
        l2=l2,
        name="box_four_fingers",
        wrench=[0.0, 0.0, -m * g, 0.0, 0.0, 0.0],
        torque_scale=math.sqrt(a * a + b * b + c * c),
        description="sticking Ex. 7 (Fig. 7), spatial: four 3-joint hard fingers on a box",
    )


# ------------------------------------------------------------------------------------------------ jaws, fixtures
def parallel_jaw(
    kind: str = "soft",
    a: float = 0.03,
    mu: float = 0.6,
    torsional_friction: float = 0.005,
    m: float = 0.2,
    grip_force: float = 20.0,
    jaw_mass: float = 0.1,
    g: float = G0,
) -> Grasp:
    """A parallel-jaw gripper holding a box by two opposed faces x = ±a at (∓a, 0, 0) (inward normals ±x), with
    ``soft`` fingers (μ = 0.6, torsional friction μ_t = 5 mm) or ``hard`` ones (the contrast case). The gripper
    has one joint (the jaw half-opening s, both jaws driven symmetrically): Jacobian rows n1 = ṡ, n2 = ṡ, the
    others 0; its limit ``grip_force`` bounds ``f_n1 + f_n2``; ``force`` = −grip_force (the motor closes the jaws with
    that force).

    Expected: ``soft`` — force closure (the torque about the jaw axis x is resisted by torsional friction, every
    other wrench by the squeeze and Coulomb friction; classical result, e.g. Murray–Li–Sastry §5.3); ``hard`` —
    no force closure: two point contacts cannot resist a torque about the line joining them (certificate: the
    wrench direction (0, 0, 0, 1, 0, 0), a pure torque about x).
    """
    cs = [
        GraspContact([-a, 0.0, 0.0], [1.0, 0.0, 0.0], mu, kind, torsional_friction if kind == "soft" else 0.0),
        GraspContact([a, 0.0, 0.0], [-1.0, 0.0, 0.0], mu, kind, torsional_friction if kind == "soft" else 0.0),
    ]
    k = 4 if kind == "soft" else 3
    J = np.zeros((2 * k, 1))
    J[0, 0], J[k, 0] = 1.0, 1.0
    hand = Hand(J, torque_limits=[float(grip_force)], mass_matrix=[[2 * jaw_mass]], force=[-float(grip_force)])
    return Grasp(
        cs,
        torque_scale=a,
        wrench=[0.0, 0.0, -m * g, 0.0, 0.0, 0.0],
        hand=hand,
        name=f"parallel_jaw_{kind}",
        description=f"parallel-jaw gripper with {kind} fingers on a box",
    )


#: the 7 frictionless contacts of :func:`fixture_seven` on the cube [−1, 1]³ (position, inward normal)
_FIXTURE = [
    ((-1.0, -0.5, 0.0), (1.0, 0.0, 0.0)),
    ((1.0, 0.0, -0.5), (-1.0, 0.0, 0.0)),
    ((0.0, -1.0, 0.0), (0.0, 1.0, 0.0)),
    ((0.5, 1.0, 0.5), (0.0, -1.0, 0.0)),
    ((0.0, 0.0, -1.0), (0.0, 0.0, 1.0)),
    ((0.0, 0.5, 1.0), (0.0, 0.0, -1.0)),
    ((-0.5, 0.0, 1.0), (0.0, 0.0, -1.0)),
]


def fixture_seven(half_size: float = 1.0) -> Grasp:
    """A frictionless fixture of the cube ``[−h, h]³`` with 7 point contacts (one per face, a second on the top
    face), positions at multiples of ``h/2`` (found by a search over such positions, checked by the form-closure
    LP): x faces at (−h, −h/2, 0) and (h, 0, −h/2), y faces at (0, −h, 0) and (h/2, h, h/2), bottom at (0, 0, −h),
    top at (0, h/2, h) and (−h/2, 0, h).

    Expected: form closure (the 7 unit wrenches positively span R⁶: ``G`` has rank 6 and ``G x = 0`` has a
    strictly positive solution; 7 = 6 + 1 is the least number of frictionless contacts that can do it in 3D,
    Somoff / Markenscoff–Ni–Papadimitriou 1990)."""
    h = float(half_size)
    cs = [GraspContact(h * np.array(p), n, 0.0, "frictionless") for p, n in _FIXTURE]
    return Grasp(
        cs, torque_scale=h, name="fixture_seven", description="frictionless 7-contact fixture of a cube (form closure)"
    )


def fixture_six(half_size: float = 1.0) -> Grasp:
    """:func:`fixture_seven` without its last contact (the second top contact at (−h/2, 0, h)).

    Expected: no form closure — six frictionless contacts never give form closure of a 3D body (six wrenches
    cannot positively span R⁶); here ``G`` (6 × 6) has full rank, so its only kernel vector is 0 and no strictly
    positive internal force exists; the certificate is a wrench direction ``z`` with ``Gᵀz <= 0``."""
    h = float(half_size)
    cs = [GraspContact(h * np.array(p), n, 0.0, "frictionless") for p, n in _FIXTURE[:6]]
    return Grasp(
        cs,
        torque_scale=h,
        name="fixture_six",
        description="frictionless 6-contact fixture of a cube (not form closure)",
    )


# ------------------------------------------------------------------------------------------------ registry, files
EXAMPLES = {
    "three_finger_planar": three_finger_planar,
    "hard_finger_pair": hard_finger_pair,
    "hard_finger_pair_moving": hard_finger_pair_moving,
    "sphere_three_fingers": sphere_three_fingers,
    "box_four_fingers": box_four_fingers,
    "parallel_jaw_soft": lambda: parallel_jaw("soft"),
    "parallel_jaw_hard": lambda: parallel_jaw("hard"),
    "fixture_seven": fixture_seven,
    "fixture_six": fixture_six,
}

#: the expected verdicts of each example at its defaults (docstrings): force closure (exact cones), form closure
#: (frictionless), hand equilibrium of the weight under the torque limits, the dynamic check (None: no hand)
EXPECTED = {
    "three_finger_planar": {"force_closure": True, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "hard_finger_pair": {"force_closure": True, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "hard_finger_pair_moving": {
        "force_closure": True,
        "form_closure": False,
        "hand_equilibrium": True,
        "dynamic": True,
    },
    "sphere_three_fingers": {"force_closure": True, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "box_four_fingers": {"force_closure": True, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "parallel_jaw_soft": {"force_closure": True, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "parallel_jaw_hard": {"force_closure": False, "form_closure": False, "hand_equilibrium": True, "dynamic": True},
    "fixture_seven": {"force_closure": True, "form_closure": True, "hand_equilibrium": None, "dynamic": None},
    "fixture_six": {"force_closure": False, "form_closure": False, "hand_equilibrium": None, "dynamic": None},
}


def object_mass_matrix(name: str) -> np.ndarray | None:
    """The object's mass matrix of the example ``name`` at its defaults (for the dynamic check), None without a hand:
    planar ``diag(m, m, I)``, spatial ``diag(m, m, m, I_x, I_y, I_z)`` (solid rectangle / sphere / box)."""
    if name == "three_finger_planar":
        return np.diag([1.0, 1.0, (1.0 + 0.36) / 12])
    if name in ("hard_finger_pair", "hard_finger_pair_moving"):
        return np.diag([1.0, 1.0, 1.0 / 3])  # a unit mass, a 2 × 1 rod-like body about its centre: I = m L²/3
    if name == "sphere_three_fingers":
        i = 0.4 * 0.2 * 0.05**2
        return np.diag([0.2, 0.2, 0.2, i, i, i])
    if name == "box_four_fingers":
        m, (a, b, c) = 0.3, (0.08, 0.06, 0.04)
        return np.diag([m, m, m, m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12])
    if name.startswith("parallel_jaw"):
        m, s = 0.2, 0.06
        return np.diag([m, m, m] + [m * s * s / 6] * 3)
    return None


def document(name: str) -> dict:
    """The ``gaussqp-grasp/1`` document of example ``name`` at its defaults, with its provenance (``source``) and
    ``parameters`` (the object mass matrix, the expected verdicts)."""
    doc = to_dict(EXAMPLES[name]())
    M = object_mass_matrix(name)
    doc["source"] = f"problems/grasps.py::{name}"
    doc["parameters"] = {"expected": EXPECTED[name], **({"object_mass_matrix": M.tolist()} if M is not None else {})}
    return doc


def path(name: str) -> Path:
    return DATA / f"{name}.json"


def load(name: str) -> Grasp:
    """The shipped grasp ``name`` (``data/grasps/<name>.json``)."""
    return _load(path(name))


def names() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.json"))


def regenerate() -> list[Path]:
    """Write every example's file (``data/grasps/<name>.json``)."""
    DATA.mkdir(parents=True, exist_ok=True)
    out = []
    for name in EXAMPLES:
        p = path(name)
        p.write_text(json.dumps(document(name), indent=1) + "\n", encoding="utf-8")
        out.append(p)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in regenerate():
        print(p)
