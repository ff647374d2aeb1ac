"""Resting-contact scenes for the mode-free Coulomb route: a platform on nine feet carrying a box,
and towers of boxes, 12 to 100 frictional contacts, made by MuJoCo and imported with every contact ``"coulomb"``.

Needs the optional extra ``gaussqp[mujoco]``; the module imports without it (MuJoCo is imported inside the
functions, which raise :class:`~gaussqp.errors.MissingExtraError` saying what to install).

Each scene is written here as an MJCF string (:func:`platform_xml`, :func:`tower_xml`: free bodies on a plane,
elliptic cones, condim 3, one friction coefficient μ on every geom, so every contact has that μ), then

1. settled by MuJoCo's own simulation: :data:`SETTLE_STEPS` steps of ``mj_step`` from a pose stated in the XML
   with zero applied force (MuJoCo's soft contacts sink a fraction of a millimetre and find every contact point);
2. put at rest: ``qvel = 0`` (the creep of the soft contacts removed), so the drifts ``J̇q̇`` vanish and the
   problem is the rigid statics of the settled pose;
3. pushed: the horizontal force ``push · μ · m · g`` along +x on the pushed body's centre of mass through
   ``data.xfrc_applied`` (``push`` in units of the body's own friction threshold ``μ m g``);
4. imported by :func:`gaussqp.io.mujoco.import_mujoco` with ``modes={every contact: "coulomb"}``: MuJoCo's
   ``qfrc_smooth`` carries the push (``xfrc_applied`` mapped to joint space), so ``F = −qfrc_smooth`` is gravity
   minus the push.

What the closed forms say (``tests/friction/test_coulomb_scenes.py`` checks them on gaussqp's answers, never on
MuJoCo's, whose convex relaxation of friction is not Coulomb's law when a contact slides):

- at rest and with ``|push| < 1`` every body stays at rest, every contact sticks, the normal forces under a body
  add up to the weight it carries and the friction forces under the pushed body to ``−push · μ m g``;
- with ``push > 1`` the pushed box slides along x with ``a_x = F/m − μ g = (push − 1) μ g``, the bodies below
  stay at rest (each can hold more than the pushed box's friction ``μ m g``), the box's contacts slide along +x.

The geometry keeps the pushed boxes from tipping: the push at the centre of mass and the friction under the box
(at most ``μ m g``, a lever arm of the half height ``h``) turn it by at most ``max(push, 1) · μ m g · h``, which the
normal forces balance by moving load towards the front corners as long as it is below ``m g w`` (``w`` the half
width): ``max(push, 1) · μ · h <= w``, 0.05 <= 0.2 at push 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from gaussqp.errors import InputTooLargeError, MissingExtraError, NonFiniteError, NonNumericError, WrongTypeError
from gaussqp.io.mujoco import MujocoImport
from gaussqp.model.problem import ContactProblem
from gaussqp.settings import SETTLE_STEPS_MAX

#: the friction coefficient of every geom (MuJoCo takes the larger of the two geoms' coefficients: μ everywhere)
MU = 0.5
#: MuJoCo's default gravity (m/s², along −z); the scenes do not change it
GRAVITY = 9.81
#: mass of the platform (kg; its inertia is set in the XML, the feet and plate geoms carry none)
PLATFORM_MASS = 10.0
#: mass of the box on the platform (kg): the issue's sliding box (m = 2, μ = 0.5)
PLATFORM_BOX_MASS = 2.0
#: half sizes (m) of the platform's plate, of the box on it and of every tower box: flat boxes (h = 0.05 against
#: w = 0.2) so that a push of several ``μ m g`` at the centre of mass cannot tip them
PLATE_HALF = (0.5, 0.5, 0.05)
BOX_HALF = (0.2, 0.2, 0.05)
#: the nine feet: spheres of this radius (m) at x, y in FOOT_GRID, hanging FOOT_DROP below the plate's centre
FOOT_RADIUS = 0.05
FOOT_GRID = (-0.4, 0.0, 0.4)
FOOT_DROP = 0.1
#: tower box k has mass TOWER_MASS_0 + TOWER_MASS_STEP · k (kg): unequal masses, so that "the weight above
#: interface k" differs from any count of boxes times one mass
TOWER_MASS_0 = 1.0
TOWER_MASS_STEP = 0.05
#: initial clearance (m) between stacked bodies in the XML, closed by the settling
GAP = 0.0005
#: MuJoCo steps (timestep 0.002 s: 2 s) of settling before the state is put at rest
SETTLE_STEPS = 1000
#: towers of more boxes are refused (a 100-box tower is 400 contacts and a 1200-row dense Delassus matrix)
MAX_TOWER_BOXES = 100


def _mujoco():
    try:
        import mujoco
    except ImportError as exc:  # exercised only without the extra
        raise MissingExtraError(
            "gaussqp.problems.coulomb_scenes needs the optional extra: pip install 'gaussqp[mujoco]'"
        ) from exc
    return mujoco


@dataclass(frozen=True)
class Scene:
    """A settled, pushed MuJoCo scene imported with every contact ``"coulomb"``.

    ``problem`` is the :class:`~gaussqp.ContactProblem`; ``imported`` the :class:`~gaussqp.io.mujoco.MujocoImport`
    it came from (``rows[i].geoms`` names contact i's two geoms). ``mu`` and ``g`` the friction coefficient and
    gravity, ``masses`` each free body's mass (kg, from ``model.body_mass``), ``dofs`` the first of each free
    body's six degrees of freedom (MuJoCo's free joint: the linear acceleration of the centre of mass in world
    axes, then the angular acceleration in the body's axes), ``support[body]`` the problem's contacts between
    ``body`` and what it stands on, ``below[body]`` that body (``"world"`` for the floor), ``pushed`` the pushed
    body and ``push_force`` the force on it (N, along +x). ``model`` and ``data`` are the MuJoCo state imported.
    """

    problem: ContactProblem
    imported: MujocoImport
    mu: float
    g: float
    masses: Mapping[str, float]
    dofs: Mapping[str, int]
    support: Mapping[str, tuple[int, ...]]
    below: Mapping[str, str]
    pushed: str
    push_force: float
    model: object = field(repr=False, default=None)
    data: object = field(repr=False, default=None)

    def body_acceleration(self, acceleration, body: str) -> np.ndarray:
        """The six components of ``acceleration`` (a solution's) that belong to ``body``'s free joint."""
        a = np.asarray(acceleration, dtype=float)
        return a[self.dofs[body] : self.dofs[body] + 6]

    def contact_force_on(self, body: str, contacts, lambda_normal, lambda_tangent) -> np.ndarray:
        """The world force (3 numbers, N) that ``contacts`` exert on ``body``: the linear part of
        ``Σ_i J_n,iᵀ λ_n,i + J_t,iᵀ λ_t,i`` at ``body``'s free joint (its translational dofs are world axes)."""
        p = self.problem
        idx = list(contacts)
        ln = np.asarray(lambda_normal, dtype=float)
        lt = np.asarray(lambda_tangent, dtype=float).reshape(p.m, p.dimension - 1)
        Jn = p.J_n.toarray() if hasattr(p.J_n, "toarray") else np.asarray(p.J_n)
        Jt = p.J_t.toarray() if hasattr(p.J_t, "toarray") else np.asarray(p.J_t)
        d1 = p.dimension - 1
        start = np.concatenate([[0], np.cumsum(p.has_tangent.astype(int) * d1)])
        gen = Jn[idx].T @ ln[idx]
        for i in idx:
            if p.has_tangent[i]:
                gen = gen + Jt[start[i] : start[i] + d1].T @ lt[i]
        return gen[self.dofs[body] : self.dofs[body] + 3]

    def slip_direction_world(self, contact: int, direction) -> np.ndarray:
        """The world vector ``Σ_k direction_k · t_k`` of a sliding contact's ``direction`` (``ContactMode.direction``,
        in the contact's tangent coordinates), where ``t_k`` is tangent row k of the contact restricted to the
        translational dofs of the body it supports: when that body translates and the one below is at rest,
        ``u_t = T a`` reads ``t_k · a_lin`` and this vector is the unit slip of the body in world axes (the sign of
        MuJoCo's geom order cancels: it multiplies both ``t_k`` and ``direction_k``)."""
        p = self.problem
        body = next(b for b, idx in self.support.items() if contact in idx)
        d1 = p.dimension - 1
        k = int(np.sum(p.has_tangent[:contact])) * d1
        Jt = p.J_t.toarray() if hasattr(p.J_t, "toarray") else np.asarray(p.J_t)
        rows = Jt[k : k + d1, self.dofs[body] : self.dofs[body] + 3]
        return np.asarray(direction, dtype=float) @ rows


# ---------------------------------------------------------------- the MJCF strings


def _header(model: str, mu: float) -> str:
    return (
        f"<mujoco model='{model}'><option cone='elliptic'/>"
        f"<default><geom condim='3' friction='{mu!r} 0 0'/></default>"
        f"<worldbody><geom name='floor' type='plane' size='5 5 0.1'/>"
    )


def _size(half) -> str:
    return " ".join(repr(float(x)) for x in half)


def platform_xml(mu: float = MU) -> str:
    """MJCF of the platform scene: a plate (free body, mass :data:`PLATFORM_MASS`) on nine sphere feet in a 3×3
    grid on a plane, a box (free body, :data:`PLATFORM_BOX_MASS`) centred on the plate, all geoms friction ``mu``."""
    px, py, pz = PLATE_HALF
    bz = BOX_HALF[2]
    z_plate = FOOT_DROP + FOOT_RADIUS + GAP
    feet = "".join(
        f"<geom name='foot{3 * i + j}' type='sphere' size='{FOOT_RADIUS!r}' pos='{x!r} {y!r} {-FOOT_DROP!r}'/>"
        for i, x in enumerate(FOOT_GRID)
        for j, y in enumerate(FOOT_GRID)
    )
    # the platform's inertia: a uniform plate of its mass (the feet are massless: inertial overrides the geoms)
    ixx = PLATFORM_MASS * (py * py + pz * pz) / 3
    iyy = PLATFORM_MASS * (px * px + pz * pz) / 3
    izz = PLATFORM_MASS * (px * px + py * py) / 3
    return (
        _header("platform_with_box", mu) + f"<body name='platform' pos='0 0 {z_plate!r}'><freejoint/>"
        f"<inertial pos='0 0 0' mass='{PLATFORM_MASS!r}' diaginertia='{ixx!r} {iyy!r} {izz!r}'/>"
        f"<geom name='plate' type='box' size='{_size(PLATE_HALF)}'/>{feet}</body>"
        f"<body name='box' pos='0 0 {z_plate + pz + bz + GAP!r}'><freejoint/>"
        f"<geom name='box' type='box' size='{_size(BOX_HALF)}' mass='{PLATFORM_BOX_MASS!r}'/></body>"
        "</worldbody></mujoco>"
    )


def tower_masses(n_boxes: int) -> list[float]:
    """The masses (kg) of a tower's boxes, bottom first: ``TOWER_MASS_0 + TOWER_MASS_STEP · k``."""
    return [TOWER_MASS_0 + TOWER_MASS_STEP * k for k in range(n_boxes)]


def tower_xml(n_boxes: int, mu: float = MU) -> str:
    """MJCF of a tower of ``n_boxes`` equal flat boxes (free bodies ``box0`` at the bottom … ``box{n-1}``, masses
    :func:`tower_masses`) stacked on a plane, all geoms friction ``mu``."""
    n = _check_boxes(n_boxes)
    h = BOX_HALF[2]
    bodies = "".join(
        f"<body name='box{k}' pos='0 0 {h + k * (2 * h + GAP)!r}'><freejoint/>"
        f"<geom name='box{k}' type='box' size='{_size(BOX_HALF)}' mass='{m!r}'/></body>"
        for k, m in enumerate(tower_masses(n))
    )
    return _header(f"box_tower_{n}", mu) + bodies + "</worldbody></mujoco>"


# ---------------------------------------------------------------- input checks


def _check_boxes(n_boxes) -> int:
    if isinstance(n_boxes, bool) or not isinstance(n_boxes, (int, np.integer)) or n_boxes < 1:
        raise WrongTypeError("n_boxes", f"is {n_boxes!r}", "give a number of boxes, an integer >= 1")
    if n_boxes > MAX_TOWER_BOXES:
        raise InputTooLargeError(
            "n_boxes", f"is {n_boxes}", f"give at most {MAX_TOWER_BOXES} (problems/coulomb_scenes.py MAX_TOWER_BOXES)"
        )
    return int(n_boxes)


def _check_real(name: str, value, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise NonNumericError(name, f"is {value!r}", "give a real number")
    v = float(value)
    if not math.isfinite(v):
        raise NonFiniteError(name, f"is {v}", "give a finite number")
    if positive and v <= 0:
        raise WrongTypeError(name, f"is {v}", "give a number > 0")
    return v


# ---------------------------------------------------------------- settle, push, import


def _scene(xml: str, pushed: str, push: float, settle: int, name: str) -> Scene:
    mujoco = _mujoco()
    from gaussqp.io.mujoco import import_mujoco

    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    mujoco.mj_step(m, d, settle)
    if int(d.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)].number):  # MuJoCo resets silently
        raise RuntimeError(f"scene {name!r}: MuJoCo's simulation went unstable while settling")
    d.qvel[:] = 0.0
    bid = m.body(pushed).id
    g = float(-m.opt.gravity[2])
    mu = float(m.geom_friction[0, 0])
    masses = {m.body(b).name: float(m.body_mass[b]) for b in range(1, m.nbody)}
    force = push * mu * masses[pushed] * g
    d.xfrc_applied[bid, 0] = force
    mujoco.mj_forward(m, d)
    imp = import_mujoco(m, d, modes={i: "coulomb" for i in range(d.ncon)}, name=name)
    dofs = {m.body(b).name: int(m.jnt_dofadr[m.body_jntadr[b]]) for b in range(1, m.nbody)}
    geom_body = {
        m.geom(gi).name: (m.body(int(m.geom_bodyid[gi])).name if m.geom_bodyid[gi] else "world")
        for gi in range(m.ngeom)
    }
    support: dict[str, list[int]] = {}
    below: dict[str, str] = {}

    def height(body: str) -> float:
        return -math.inf if body == "world" else float(d.xpos[m.body(body).id][2])

    for i, row in enumerate(imp.rows):
        lower, upper = sorted((geom_body[x] for x in row.geoms), key=height)
        support.setdefault(upper, []).append(i)
        below[upper] = lower
    return Scene(
        problem=imp.problem,
        imported=imp,
        mu=mu,
        g=g,
        masses=masses,
        dofs=dofs,
        support={k: tuple(v) for k, v in support.items()},
        below=below,
        pushed=pushed,
        push_force=force,
        model=m,
        data=d,
    )


def platform_with_box(push: float = 0.0, *, mu: float = MU, settle: int = SETTLE_STEPS) -> Scene:
    """The platform on nine feet with a box on it (13 contacts: 9 foot–floor, 4 plate–box), every contact
    ``"coulomb"``, the box pushed along +x by ``push · μ · m_box · g``.

    Parameters
    ----------
    push : the push in units of the box's friction threshold ``μ m_box g`` (0: at rest; < 1 the box sticks,
        > 1 it slides with ``a_x = (push − 1) μ g``)
    mu : the friction coefficient of every geom
    settle : MuJoCo steps of settling before the state is put at rest

    Returns
    -------
    Scene
        ``scene.problem`` is the :class:`~gaussqp.ContactProblem`; the rest is the metadata the closed forms
        need (masses, μ, g, each body's dofs and supporting contacts). Built as the module docstring says.
    """
    push = _check_real("push", push)
    mu = _check_real("mu", mu, positive=True)
    settle = _check_settle(settle)
    return _scene(platform_xml(mu), "box", push, settle, "platform_with_box")


def box_tower(n_boxes: int, push: float = 0.0, *, mu: float = MU, settle: int = SETTLE_STEPS) -> Scene:
    """A tower of ``n_boxes`` boxes on a plane (4 contacts per interface: ``4 n`` contacts; n = 3 … 25 gives 12 …
    100), every contact ``"coulomb"``, the top box pushed along +x by ``push · μ · m_top · g``.

    Parameters
    ----------
    n_boxes : the number of boxes, 1 … :data:`MAX_TOWER_BOXES`
    push : the push in units of the top box's friction threshold ``μ m_top g``
    mu : the friction coefficient of every geom
    settle : MuJoCo steps of settling before the state is put at rest

    Returns
    -------
    Scene
        as :func:`platform_with_box`; the bodies are ``box0`` (on the floor) … ``box{n-1}`` (pushed).
    """
    n = _check_boxes(n_boxes)
    push = _check_real("push", push)
    mu = _check_real("mu", mu, positive=True)
    settle = _check_settle(settle)
    return _scene(tower_xml(n, mu), f"box{n - 1}", push, settle, f"box_tower_{n}")


def _check_settle(settle) -> int:
    if isinstance(settle, bool) or not isinstance(settle, (int, np.integer)) or settle < 0:
        raise WrongTypeError("settle", f"is {settle!r}", "give a number of MuJoCo steps, an integer >= 0")
    if settle > SETTLE_STEPS_MAX:
        raise InputTooLargeError("settle", f"is {settle} steps", f"give at most {SETTLE_STEPS_MAX} (gaussqp.settings)")
    return int(settle)


def stacker_coulomb() -> ContactProblem:
    """The library's ``real/stacker_boxes`` (dm_control's stacker, 16 box contacts and the fingers' tendon
    equality) with mode ``"coulomb"`` wherever it is ``"sticking"`` or ``"sliding"``: the same rows, stick/slip
    left to the solver. No MuJoCo needed (the shipped JSON)."""
    import dataclasses

    from . import load

    p = load("real/stacker_boxes")
    contacts = [
        dataclasses.replace(c, mode="coulomb", slip=None) if c.mode in ("sticking", "sliding") else c
        for c in p.contacts
    ]
    return ContactProblem(
        p.M,
        p.F,
        contacts,
        dimension=p.dimension,
        name=f"{p.name} (coulomb)",
        description=f"{p.description}; frictional contacts switched to mode 'coulomb'",
    )


__all__ = [
    "GRAVITY",
    "MU",
    "Scene",
    "box_tower",
    "platform_with_box",
    "platform_xml",
    "stacker_coulomb",
    "tower_masses",
    "tower_xml",
]
